"""`publish_realtime`: events to socket.io rooms `user:<u>`, `doc:<dt>/<dn>`, `doctype:<dt>`
(`doctype:<dt>:restricted` for readers of only some rows), `all`.

With FW_REDIS_URL, messages go through Redis so clients on every server process receive them
(and workers can publish). Without it, they reach the clients of this process only.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Protocol

from engine import exceptions as exc
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.document import Document
    from engine.site import Site

log = logging.getLogger("fw.realtime")


class Publisher(Protocol):
    async def emit(self, event: str, message: Any, room: str) -> None: ...


class RedisPublisher:
    """Write-only socket.io manager on Redis: any process can reach every server's clients."""

    def __init__(self, url: str, channel: str) -> None:
        import socketio

        self.manager = socketio.AsyncRedisManager(url, channel=channel, write_only=True)

    async def emit(self, event: str, message: Any, room: str) -> None:
        await self.manager.emit(event, message, room=room, namespace="/")

    async def close(self) -> None:
        redis = getattr(self.manager, "redis", None)
        if redis is not None:
            await redis.aclose()


def channel_for(site: Site) -> str:
    return f"fw-realtime-{site.name}"


def publisher_for(site: Site) -> Publisher | None:
    existing = getattr(site, "realtime", None)
    if existing is None and site.settings.redis_url:
        existing = site.realtime = RedisPublisher(site.settings.redis_url, channel_for(site))  # type: ignore[attr-defined]
    return existing


def room_for(ctx: Context, event: str, room: str | None, user: str | None, doctype: str | None,
             docname: str | None) -> str:
    if room:
        return room
    if user:
        return f"user:{user}"
    if event == "msgprint":
        return f"user:{ctx.user}"
    if doctype and docname:
        return f"doc:{doctype}/{docname}"
    if doctype:
        return f"doctype:{doctype}"
    return "all"


async def _emit(site: Site, event: str, message: Any, room: str) -> None:
    publisher = publisher_for(site)
    if publisher is None:
        return
    try:
        await publisher.emit(event, message, room)
    except Exception:  # realtime is best effort: never fail the request that published
        log.exception("realtime emit of %s to %s failed", event, room)


async def publish_realtime(ctx: Context, event: str, message: Any = None, room: str | None = None,
                           user: str | None = None, doctype: str | None = None, docname: str | None = None,
                           after_commit: bool = False) -> None:
    target = room_for(ctx, event, room, user, doctype, docname)
    if after_commit and ctx.uow is not None:
        site = ctx.site

        async def later() -> None:
            await _emit(site, event, message, target)

        ctx.after_commit(later)
        return
    await _emit(ctx.site, event, message, target)


async def publish_progress(ctx: Context, percent: float, title: str | None = None, doctype: str | None = None,
                           docname: str | None = None, description: str | None = None) -> None:
    """Frappe's `publish_progress`: a `progress` event to the acting user, sent at once (a long job
    reports while it runs, not after its commit). `percent` is clamped to 0..100."""
    try:
        value = float(percent)
    except (TypeError, ValueError):
        raise exc.DataError(_("percent must be a number"), field="percent") from None
    value = 0.0 if value != value else min(max(value, 0.0), 100.0)  # NaN counts as no progress
    message: dict[str, Any] = {"percent": value, "title": title, "description": description}
    if doctype and docname:
        message |= {"doctype": doctype, "docname": docname}
    await _emit(ctx.site, "progress", message, room_for(ctx, "progress", None, ctx.user, None, None))


_pending: set[asyncio.Task[None]] = set()


def publish_soon(ctx: Context, event: str, message: Any = None, *, room: str | None = None, user: str | None = None,
                 doctype: str | None = None, docname: str | None = None) -> None:
    """`publish_realtime` from synchronous code (e.g. `ctx.msgprint(..., realtime=True)`): after the
    commit inside a unit of work (dropped on rollback), else right away in the background."""
    target = room_for(ctx, event, room, user, doctype, docname)
    site = ctx.site
    if ctx.uow is not None:
        async def later() -> None:
            await _emit(site, event, message, target)

        ctx.after_commit(later)
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # a thread without an event loop: the publisher belongs to another loop
        log.warning("realtime %s to %s dropped: published outside the event loop and a unit of work", event, target)
        return
    task = loop.create_task(_emit(site, event, message, target))
    _pending.add(task)
    task.add_done_callback(_pending.discard)


def doctype_room(doctype: str, *, every_row: bool) -> str:
    """The room of a doctype's `list_update`s: `doctype:<dt>` for users who may read every row, and
    a room whose events name no record for those who may read only some (owner, row conditions)."""
    return f"doctype:{doctype}" if every_row else f"doctype:{doctype}:restricted"


def notify_change(ctx: Context, doc: Document, *, deleted: bool = False) -> None:
    """`doc_update` to the document's room and `list_update` to its doctype's rooms, after commit.
    A restricted reader hears only that the doctype changed (its list reloads through the
    permission-checked API), never the name or author of a record it may not read."""
    meta = doc.meta
    if meta.issingle or meta.istable or ctx.uow is None or publisher_for(ctx.site) is None:
        return
    site, doctype, name, user = ctx.site, doc.doctype, doc.name, ctx.user
    modified = doc.get("modified")

    async def later() -> None:
        await _emit(site, "doc_update", {"doctype": doctype, "name": name, "modified": modified,
                                         "deleted": int(deleted)}, f"doc:{doctype}/{name}")
        await _emit(site, "list_update", {"doctype": doctype, "name": name, "user": user},
                    doctype_room(doctype, every_row=True))
        await _emit(site, "list_update", {"doctype": doctype}, doctype_room(doctype, every_row=False))

    ctx.after_commit(later)
