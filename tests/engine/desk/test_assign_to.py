"""Assign To: a ToDo per assignee, `_assign` following the open ToDos (and filterable with `like`),
assignees who may read the document only, their Notification Log, and ToDos cancelled with their
document."""

from __future__ import annotations

import orjson
import pytest

from engine import exceptions as exc
from engine.context import Context
from engine.desk import assign_to
from engine.documents import store
from engine.documents.factory import get_doc, new_doc
from engine.query import listing
from engine.site import Site
from tests.support.smtp import SmtpSink
from tests.support.users import user_context


async def _assigned(ctx: Context, doctype: str, name: str) -> list[str]:
    record = await store.load(ctx, ctx.meta(doctype), name, {"_assign": 1})
    return orjson.loads((record or {}).get("_assign") or "[]")


async def test_assigning_writes_todos_keeps_assign_and_notifies(ctx: Context) -> None:
    ada = await user_context(ctx, "ada@example.com", "Test Reader")
    bob = await user_context(ctx, "bob@example.com", "Test Reader")
    note = await new_doc(ctx, "Test Note", title="Check stock").insert()
    other = await new_doc(ctx, "Test Note", title="Other").insert()
    answer = await assign_to.add(ctx, "Test Note", note.name, '["ada@example.com"]', description="Count it",
                                 priority="High", date="2030-01-31")
    assert [a["owner"] for a in answer] == [ada.user]
    await assign_to.add(ctx, "Test Note", note.name, [bob.user, ada.user])  # ada already: one ToDo only
    assert await _assigned(ctx, "Test Note", note.name) == [ada.user, bob.user]
    todos = await listing.get_all(ctx, "ToDo", fields=["allocated_to", "priority", "date", "assigned_by", "status",
                                                        "description"], order_by="creation asc")
    assert todos[0] == {"allocated_to": ada.user, "priority": "High", "date": "2030-01-31",
                        "assigned_by": "Administrator", "status": "Open", "description": "Count it"}
    assert len(todos) == 2
    mine = await listing.get_list(ada, "Test Note", pluck="name", filters=[["_assign", "like", f"%{ada.user}%"]])
    assert mine == [note.name]
    assert other.name not in mine
    logs = await listing.get_list(ada, "Notification Log", fields=["type", "subject", "document_name"])
    assert logs == [{"type": "Assignment", "document_name": note.name,
                     "subject": "Administrator assigned a new task Test Note Check stock to you"}]
    # ada sees her ToDo, not bob's
    assert await listing.get_list(ada, "ToDo", pluck="allocated_to") == [ada.user]

    left = await assign_to.remove(ctx, "Test Note", note.name, ada.user)
    assert [a["owner"] for a in left] == [bob.user]
    assert await _assigned(ctx, "Test Note", note.name) == [bob.user]
    assert await listing.get_list(ada, "Test Note", pluck="name",
                                  filters=[["_assign", "like", f"%{ada.user}%"]]) == []
    with pytest.raises(exc.DoesNotExistError):
        await assign_to.remove(ctx, "Test Note", note.name, ada.user)


async def test_only_readers_may_be_assigned_and_bad_input_is_named(ctx: Context) -> None:
    await user_context(ctx, "stranger@example.com", "Blogger")
    note = await new_doc(ctx, "Test Note", title="Private").insert()
    with pytest.raises(exc.ValidationError) as refused:
        await assign_to.add(ctx, "Test Note", note.name, ["stranger@example.com"])
    assert refused.value.field == "assign_to" and "stranger@example.com" in refused.value.message
    with pytest.raises(exc.ValidationError) as unknown:
        await assign_to.add(ctx, "Test Note", note.name, ["ghost@example.com"])
    assert "ghost@example.com" in unknown.value.message
    with pytest.raises(exc.DataError) as bad:
        await assign_to.add(ctx, "Test Note", note.name, "[not json")
    assert bad.value.field == "assign_to"
    with pytest.raises(exc.DoesNotExistError):
        await assign_to.add(ctx, "Test Note", "missing", ["Administrator"])
    assert await listing.count(ctx, "ToDo") == 0


async def test_a_caller_who_cannot_read_the_document_cannot_assign_it(ctx: Context) -> None:
    outsider = await user_context(ctx, "out@example.com", "Blogger")
    note = await new_doc(ctx, "Test Note", title="Private").insert()
    with pytest.raises(exc.PermissionError):
        await assign_to.add(outsider, "Test Note", note.name, ["Administrator"])


async def test_cancelling_or_deleting_the_document_cancels_its_open_todos(ctx: Context) -> None:
    await user_context(ctx, "ada@example.com", "Test Reader")
    customer = await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
    order = await new_doc(ctx, "Test Order", customer=customer.name, posting_date="2030-01-01",
                          items=[{"item": "Bolt", "qty": 1, "rate": 1}]).insert()
    await assign_to.add(ctx, "Test Order", order.name, ["ada@example.com"])
    order = await get_doc(ctx, "Test Order", order.name)
    await order.submit()
    await order.cancel()
    assert await listing.get_all(ctx, "ToDo", pluck="status") == ["Cancelled"]
    assert await _assigned(ctx, "Test Order", order.name) == []
    note = await new_doc(ctx, "Test Note", title="Doomed").insert()
    await assign_to.add(ctx, "Test Note", note.name, ["ada@example.com"])
    await (await get_doc(ctx, "Test Note", note.name)).delete()
    assert await listing.get_all(ctx, "ToDo", pluck="status", filters=[["reference_name", "=", note.name]]) == [
        "Cancelled"]


async def test_closing_a_todo_by_hand_updates_assign(ctx: Context) -> None:
    ada = await user_context(ctx, "ada@example.com", "Test Reader")
    note = await new_doc(ctx, "Test Note", title="Close me").insert()
    await assign_to.add(ctx, "Test Note", note.name, [ada.user])
    [name] = await listing.get_all(ctx, "ToDo", pluck="name")
    todo = await get_doc(ada, "ToDo", name)
    todo.status = "Closed"
    await todo.save()
    assert await _assigned(ctx, "Test Note", note.name) == []
    # a document saved after its assignment keeps `_assign`
    await assign_to.add(ctx, "Test Note", note.name, [ada.user])
    fresh = await get_doc(ctx, "Test Note", note.name)
    fresh.title = "Renamed"
    await fresh.save()
    assert await _assigned(ctx, "Test Note", note.name) == [ada.user]


async def test_notify_mails_the_assignee_after_the_commit(mail_site: Site, smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    ada = await user_context(ctx, "ada@example.com", "Test Reader", send_welcome_email=0)
    note = await new_doc(ctx, "Test Note", title="Pallet <7>").insert()
    await assign_to.add(ctx, "Test Note", note.name, [ada.user], description="Recount", notify=1)
    [mail] = await smtp_server.wait_for(1)
    assert mail.rcpt_tos == [ada.user]
    assert mail.message["Subject"] == "Administrator assigned a new task Test Note Pallet <7> to you"
    assert "Recount" in mail.body()
