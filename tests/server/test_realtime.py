"""server/realtime.py's LocalPublisher: events go only to rooms someone here joined, and a write
builds no events at all while nobody is connected."""

from __future__ import annotations

from typing import Any

import socketio

from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from server.realtime import LocalPublisher


class CountingServer(socketio.AsyncServer):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__(async_mode="asgi")
        self.emitted: list[tuple[str, Any, str]] = []

    async def emit(self, event: str, data: Any = None, room: str | None = None, **_kw: Any) -> None:
        self.emitted.append((event, data, room or ""))


async def test_events_reach_joined_rooms_only_and_none_are_built_without_listeners(ctx: Context) -> None:
    sio = CountingServer()
    publisher = LocalPublisher(sio)
    before = ctx.site.realtime
    ctx.site.realtime = publisher  # type: ignore[assignment]
    try:
        assert not publisher.listening()
        async with unit_of_work(ctx):
            await new_doc(ctx, "Test Note", title="unheard").insert()
            assert ctx.uow is not None and ctx.uow.after_commit == []  # no events waiting for the commit
        assert sio.emitted == []

        sio.manager.basic_enter_room("sid-1", "/", "doctype:Test Note", eio_sid="eio-1")
        assert publisher.listening()
        note = await new_doc(ctx, "Test Note", title="heard").insert()
        assert [(event, room) for event, _data, room in sio.emitted] == [("list_update", "doctype:Test Note")]
        assert sio.emitted[0][1]["name"] == note.name

        await publisher.emit("doc_update", {}, "doc:Test Note/nobody-here")  # a room nobody joined
        assert len(sio.emitted) == 1
    finally:
        ctx.site.realtime = before
