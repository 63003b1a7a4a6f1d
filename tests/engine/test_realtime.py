"""engine/realtime.py: rooms, after-commit delivery and `publish_progress`, with a recording publisher."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import engine as fw
from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.realtime import publish_realtime
from engine.site import Site
from tests.support.realtime import Recorder


@pytest.fixture
def recorder(site: Site) -> Iterator[Recorder]:
    before = getattr(site, "realtime", None)
    site.realtime = Recorder()  # type: ignore[attr-defined]
    yield site.realtime  # type: ignore[attr-defined]
    site.realtime = before  # type: ignore[attr-defined]


async def test_progress_goes_to_the_acting_user_at_once(ctx: Context, recorder: Recorder) -> None:
    worker = ctx.site.context("ada@example.com")
    async with unit_of_work(worker):
        await fw.publish_progress(worker, 40, title="Importing", description="400 of 1000")
        # sent inside the unit of work, before any commit: a long job reports while it runs
        assert recorder.sent == [("progress", {"percent": 40.0, "title": "Importing", "description": "400 of 1000"},
                                  "user:ada@example.com")]
    await fw.publish_progress(worker, 250, doctype="Test Note", docname="N-1")
    await fw.publish_progress(worker, "-3")
    assert [m["percent"] for _e, m, _r in recorder.sent] == [40.0, 100.0, 0.0]
    assert recorder.sent[1][1]["doctype"] == "Test Note" and recorder.sent[1][1]["docname"] == "N-1"


async def test_progress_needs_a_number(ctx: Context, recorder: Recorder) -> None:
    with pytest.raises(exc.DataError, match="percent"):
        await fw.publish_progress(ctx, "half")
    assert recorder.sent == []


async def test_after_commit_events_wait_for_the_commit_and_die_with_a_rollback(ctx: Context,
                                                                              recorder: Recorder) -> None:
    async with unit_of_work(ctx):
        await publish_realtime(ctx, "custom", {"n": 1}, doctype="Test Note", after_commit=True)
        assert recorder.sent == []
    assert recorder.sent == [("custom", {"n": 1}, "doctype:Test Note")]
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            await publish_realtime(ctx, "custom", {"n": 2}, user="bob@example.com", after_commit=True)
            raise RuntimeError("rolled back")
    assert len(recorder.sent) == 1


async def test_a_save_tells_full_readers_the_name_and_restricted_readers_only_the_doctype(
        ctx: Context, recorder: Recorder) -> None:
    async with unit_of_work(ctx):
        note = await fw.new_doc(ctx, "Test Note", title="secret plans").insert()
    list_updates = [(m, room) for event, m, room in recorder.sent if event == "list_update"]
    assert list_updates == [
        ({"doctype": "Test Note", "name": note.name, "user": "Administrator"}, "doctype:Test Note"),
        ({"doctype": "Test Note"}, "doctype:Test Note:restricted"),
    ]
    assert ("doc_update", "doc:Test Note/" + note.name) in [(e, room) for e, _m, room in recorder.sent]


async def test_who_reads_every_row(ctx: Context) -> None:
    from engine.permissions import reads_every_row

    async with unit_of_work(ctx):
        for role in ("Test Reader", "Test Owner"):
            if not await ctx.db.collection("role").find_one({"_id": role}):
                await fw.new_doc(ctx, "Role", role_name=role).insert()
        for email, role in (("all@example.com", "Test Reader"), ("own@example.com", "Test Owner")):
            await fw.new_doc(ctx, "User", email=email, first_name="U", roles=[{"role": role}]).insert()
    assert await reads_every_row(ctx, "Test Note")  # Administrator
    assert await reads_every_row(ctx.site.context("all@example.com"), "Test Note")
    assert not await reads_every_row(ctx.site.context("own@example.com"), "Test Note")  # if_owner
    assert not await reads_every_row(ctx.site.context("own@example.com"), "Test Customer")  # no read at all
    # a File's readers are narrowed by its own rule (private files, attachments)
    assert not await reads_every_row(ctx.site.context("all@example.com"), "File")
