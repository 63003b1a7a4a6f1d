"""Restoring a Deleted Document (engine/core/deleted_document.py): the document comes back under its
name with its rows (a submitted one as a draft), the record is marked restored, and a taken name, a
second restore or a user without System Manager is refused with the reason, changing nothing."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context
from engine.core.deleted_document import restore
from engine.documents import store
from engine.documents.factory import get_doc, new_doc
from engine.files.upload import upload_file
from tests.engine.documents.test_lifecycle import make_order
from tests.server.conftest import make_user


async def only_record(ctx: Context, doctype: str) -> dict:
    [record] = await store.find(ctx, ctx.meta("Deleted Document"), {"deleted_doctype": doctype})
    return record


async def test_restore_puts_the_document_back_with_its_rows_owner_and_creation(ctx: Context) -> None:
    order = await make_order(ctx, remarks="back again")
    creation = order.creation
    await order.delete()
    record = await only_record(ctx, "Test Order")
    answer = await restore(ctx, record["_id"])
    assert answer == {"doctype": "Test Order", "name": order.name, "docstatus": 0}
    back = await get_doc(ctx, "Test Order", order.name)
    assert back.remarks == "back again" and back.creation == creation
    assert [(row.item, row.qty) for row in back.items] == [("Bolt", 2), ("Nut", 4)]
    marked = await only_record(ctx, "Test Order")
    assert marked["restored"] == 1 and marked["new_name"] == order.name
    assert [m["message"] for m in ctx.messages] == ["Document Restored"]


async def test_a_cancelled_document_comes_back_as_a_draft(ctx: Context) -> None:
    order = await make_order(ctx)
    await order.submit()
    await order.cancel()
    await order.delete()
    await restore(ctx, (await only_record(ctx, "Test Order"))["_id"])
    back = await get_doc(ctx, "Test Order", order.name)
    assert back.docstatus == 0 and all(row.docstatus == 0 for row in back.items)
    await back.submit()  # a draft again: it can be submitted
    assert (await get_doc(ctx, "Test Order", order.name)).docstatus == 1


async def test_a_taken_name_is_refused_and_nothing_changes(ctx: Context) -> None:
    note = await new_doc(ctx, "Test Note", title="first").insert()
    await note.delete()
    record = await only_record(ctx, "Test Note")
    await new_doc(ctx, "Test Note", name=note.name, title="squatter").insert()
    with pytest.raises(exc.DuplicateEntryError, match="a document with this name exists"):
        await restore(ctx, record["_id"])
    assert (await get_doc(ctx, "Test Note", note.name)).title == "squatter"
    assert (await only_record(ctx, "Test Note"))["restored"] == 0


async def test_a_second_restore_is_refused(ctx: Context) -> None:
    note = await new_doc(ctx, "Test Note", title="once").insert()
    await note.delete()
    record = await only_record(ctx, "Test Note")
    await restore(ctx, record["_id"])
    with pytest.raises(exc.ValidationError, match="Already Restored"):
        await restore(ctx, record["_id"])


async def test_only_a_system_manager_may_restore(ctx: Context) -> None:
    note = await new_doc(ctx, "Test Note", title="guarded").insert()
    await note.delete()
    record = await only_record(ctx, "Test Note")
    clerk = await make_user(ctx, "clerk@example.com", ["Test Role"])
    with pytest.raises(exc.PermissionError):
        await restore(ctx.site.context(clerk.email), record["_id"])
    manager = await make_user(ctx, "boss@example.com", ["System Manager", "Test Role"])
    await restore(ctx.site.context(manager.email), record["_id"])
    assert (await get_doc(ctx, "Test Note", note.name)).title == "guarded"


async def test_deleted_documents_cannot_be_created_or_changed(ctx: Context) -> None:
    with pytest.raises(exc.PermissionError):
        await new_doc(ctx, "Deleted Document", deleted_doctype="Test Note", deleted_name="x").insert()
    note = await new_doc(ctx, "Test Note", title="x").insert()
    await note.delete()
    record = await get_doc(ctx, "Deleted Document", (await only_record(ctx, "Test Note"))["_id"])
    record.deleted_name = "other"
    with pytest.raises(exc.PermissionError):
        await record.save()
    with pytest.raises(exc.DoesNotExistError):
        await restore(ctx, "no-such-record")


async def test_a_file_whose_content_went_with_it_is_refused_with_the_reason(ctx: Context) -> None:
    file = await upload_file(ctx, content=b"gone with the file", file_name="gone.txt")
    await file.delete()
    record = await only_record(ctx, "File")
    with pytest.raises(exc.FwError) as refused:
        await restore(ctx, record["_id"])
    assert refused.value.message == f"Cannot restore File {file.name}: File /files/gone.txt not found"
    assert await store.load(ctx, ctx.meta("File"), file.name) is None
    assert (await only_record(ctx, "File"))["restored"] == 0
