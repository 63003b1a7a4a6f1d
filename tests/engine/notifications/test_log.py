"""Notification Log: `notify` writes one log per enabled user in the caller's unit of work and sends
the realtime `notification` event to each after the commit; a user reads and marks only their own."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine import permissions
from engine.context import Context, unit_of_work
from engine.documents.factory import get_doc
from engine.notifications import log
from engine.query import listing
from engine.site import Site
from tests.support.realtime import Recorder
from tests.support.users import user_context


async def test_notify_writes_one_log_per_enabled_user_and_announces_it_after_the_commit(ctx: Context,
                                                                                       site: Site) -> None:
    ada = await user_context(ctx, "ada@example.com", "Test Reader")
    await user_context(ctx, "off@example.com", "Test Reader", enabled=0)
    site.realtime = recorder = Recorder()
    try:
        async with unit_of_work(ctx):
            names = await log.notify(ctx, [ada.user, ada.user, "off@example.com", "nobody@example.com", "Guest"],
                                     type="Alert", subject="Order shipped", document_type="Test Note",
                                     document_name="N-1")
            assert recorder.sent == []  # not before the commit
    finally:
        site.realtime = None
    assert len(names) == 1
    stored = await get_doc(ctx, "Notification Log", names[0])
    assert (stored.for_user, stored.from_user, stored.type, stored.subject, stored.read) == (
        ada.user, "Administrator", "Alert", "Order shipped", 0)
    announced = [sent for sent in recorder.sent if sent[0] == "notification"]
    assert announced == [("notification", {"name": names[0], "type": "Alert", "subject": "Order shipped",
                                           "document_type": "Test Note", "document_name": "N-1"},
                          "user:ada@example.com")]


async def test_a_rolled_back_unit_leaves_no_log_and_sends_nothing(ctx: Context, site: Site) -> None:
    ada = await user_context(ctx, "ada@example.com", "Test Reader")
    site.realtime = recorder = Recorder()
    try:
        with pytest.raises(RuntimeError):
            async with unit_of_work(ctx):
                await log.notify(ctx, [ada.user], type="Alert", subject="never")
                raise RuntimeError("rolled back")
    finally:
        site.realtime = None
    assert recorder.sent == []
    assert await listing.count(ctx, "Notification Log") == 0


async def test_a_user_sees_and_marks_only_their_own_logs(ctx: Context) -> None:
    ada = await user_context(ctx, "ada@example.com", "Test Reader")
    bob = await user_context(ctx, "bob@example.com", "Test Reader")
    async with unit_of_work(ctx):
        [mine] = await log.notify(ctx, [ada.user], type="Assignment", subject="for ada")
        [theirs] = await log.notify(ctx, [bob.user], type="Alert", subject="for bob")
        await log.notify(ctx, [ada.user], type="Share", subject="shared with ada")
    answer = await log.latest(ada)
    assert [row["subject"] for row in answer["notification_logs"]] == ["shared with ada", "for ada"]
    assert answer["unread_count"] == 2
    assert answer["user_info"] == {"Administrator": {"fullname": "Administrator"}}
    assert await listing.get_list(ada, "Notification Log", pluck="name", filters=[["name", "=", theirs]]) == []
    with pytest.raises(exc.PermissionError):
        await _read(ada, theirs)
    with pytest.raises(exc.DoesNotExistError):
        await log.mark_as_read(ada, theirs)
    await log.mark_as_read(ada, mine)
    assert (await log.latest(ada))["unread_count"] == 1
    assert await log.mark_all_as_read(ada) == 1
    assert (await log.latest(ada))["unread_count"] == 0
    assert (await log.latest(bob))["unread_count"] == 1  # bob's log untouched
    everything = await listing.get_list(ctx, "Notification Log", pluck="name", limit_page_length=0)
    assert len(everything) == 3  # Administrator sees every log


async def _read(user: Context, name: str) -> None:
    doc = await get_doc(user, "Notification Log", name)
    await permissions.check_document(user, doc, "read")


async def test_bad_arguments_are_refused_naming_them(ctx: Context) -> None:
    with pytest.raises(exc.DataError) as limit:
        await log.latest(ctx, "many")
    assert limit.value.field == "limit"
    with pytest.raises(exc.DataError):
        await log.latest(ctx, 1000)
    with pytest.raises(exc.ValidationError) as kind:
        await log.notify(ctx, ["Administrator"], type="Gossip", subject="x")
    assert kind.value.field == "type"
    with pytest.raises(exc.DoesNotExistError):
        await log.mark_as_read(ctx, "missing")
