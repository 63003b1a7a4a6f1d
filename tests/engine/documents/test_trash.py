"""Every delete leaves one Deleted Document in the delete's own unit of work (engine/documents/trash.py):
the whole document with its child rows; none for a Deleted Document itself."""

from __future__ import annotations

import pytest

from engine import api
from engine.context import Context, unit_of_work
from engine.desk import bulk_actions
from engine.documents import store
from engine.documents.factory import get_doc, new_doc
from tests.engine.documents.test_lifecycle import make_order


async def deleted(ctx: Context, doctype: str | None = None) -> list[dict]:
    filter = {"deleted_doctype": doctype} if doctype else {}
    return await store.find(ctx, ctx.meta("Deleted Document"), filter)


async def test_a_delete_writes_the_whole_document_with_its_rows(ctx: Context) -> None:
    order = await make_order(ctx, remarks="keep me")
    await order.delete()
    [record] = await deleted(ctx, "Test Order")
    assert record["deleted_name"] == order.name
    assert record["restored"] == 0
    assert record["owner"] == "Administrator"
    data = record["data"]
    assert data["doctype"] == "Test Order" and data["name"] == order.name and data["remarks"] == "keep me"
    assert [(row["item"], row["qty"]) for row in data["items"]] == [("Bolt", 2), ("Nut", 4)]
    assert await store.load(ctx, ctx.meta("Test Order"), order.name) is None


async def test_a_failing_unit_of_work_keeps_the_document_and_writes_no_record(ctx: Context) -> None:
    note = await new_doc(ctx, "Test Note", title="stays").insert()
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            await (await get_doc(ctx, "Test Note", note.name)).delete()
            raise RuntimeError("later failure")
    assert await deleted(ctx, "Test Note") == []
    assert await store.load(ctx, ctx.meta("Test Note"), note.name) is not None


async def test_passwords_are_not_kept(ctx: Context) -> None:
    note = await new_doc(ctx, "Test Note", title="secret", secret="hunter2").insert()
    await api.delete_doc(ctx, "Test Note", note.name)
    [record] = await deleted(ctx, "Test Note")
    assert "secret" not in record["data"] or not record["data"]["secret"]


async def test_bulk_deletes_write_one_record_each(ctx: Context) -> None:
    names = [(await new_doc(ctx, "Test Note", title=f"n{i}").insert()).name for i in range(3)]
    result = await bulk_actions.start(ctx, "delete", "Test Note", names, None, False)
    assert result
    assert sorted(r["deleted_name"] for r in await deleted(ctx, "Test Note")) == sorted(names)


async def test_deleting_a_deleted_document_is_for_good(ctx: Context) -> None:
    note = await new_doc(ctx, "Test Note", title="gone").insert()
    await note.delete()
    [record] = await deleted(ctx)
    await (await get_doc(ctx, "Deleted Document", record["_id"])).delete()
    assert await deleted(ctx) == []
