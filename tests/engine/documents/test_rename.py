"""Renaming a document re-points what names it: Links (top level and in child rows), Dynamic Links
(top level and in child rows, only where the row's doctype field names the renamed doctype) and
Files attached to it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents.factory import get_doc, new_doc
from engine.documents.rename import rename
from engine.files.upload import upload_file
from tests.support.custom_fields import drop_custom_fields


@pytest.fixture
async def dynamic_ctx(ctx: Context) -> AsyncIterator[Context]:
    """Test Note and Test Order Item with a (ref_type, ref_name) Dynamic Link pair."""
    for dt in ("Test Note", "Test Order Item"):
        await new_doc(ctx, "Custom Field", dt=dt, fieldname="ref_type", fieldtype="Link", options="DocType",
                      label="Ref Type").insert()
        await new_doc(ctx, "Custom Field", dt=dt, fieldname="ref_name", fieldtype="Dynamic Link",
                      options="ref_type", label="Ref Name").insert()
    yield ctx
    await drop_custom_fields(ctx.site, ["Test Note", "Test Order Item"])


async def _customer(ctx: Context, name: str) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name=name, region="North").insert()


async def test_links_dynamic_links_and_attachments_follow_the_new_name(dynamic_ctx: Context) -> None:
    ctx = dynamic_ctx
    await _customer(ctx, "Old Co")
    await _customer(ctx, "Other Co")
    async with unit_of_work(ctx):
        note = await new_doc(ctx, "Test Note", title="n", customer="Old Co", ref_type="Test Customer",
                             ref_name="Old Co").insert()
        # a Dynamic Link naming another doctype's "Old Co" must not move
        other = await new_doc(ctx, "Test Note", title="o", ref_type="Test Note", ref_name=note.name).insert()
        order = await new_doc(ctx, "Test Order", customer="Other Co", posting_date="2024-01-02", items=[
            {"item": "A", "qty": 1, "rate": 1, "ref_type": "Test Customer", "ref_name": "Old Co"},
            {"item": "B", "qty": 1, "rate": 1, "ref_type": "Test Customer", "ref_name": "Other Co"},
        ]).insert()
        attached = await upload_file(ctx, content=b"contract", file_name="contract.txt", is_private=1,
                                     doctype="Test Customer", docname="Old Co")
    assert await rename(ctx, "Test Customer", "Old Co", "New Co") == "New Co"

    moved = await get_doc(ctx, "Test Note", note.name)
    assert (moved.customer, moved.ref_type, moved.ref_name) == ("New Co", "Test Customer", "New Co")
    assert (await get_doc(ctx, "Test Note", other.name)).ref_name == note.name
    rows = (await get_doc(ctx, "Test Order", order.name)).items
    assert [(r.item, r.ref_name) for r in rows] == [("A", "New Co"), ("B", "Other Co")]
    file = await get_doc(ctx, "File", attached.name)
    assert (file.attached_to_doctype, file.attached_to_name) == ("Test Customer", "New Co")
    with pytest.raises(exc.DoesNotExistError):
        await get_doc(ctx, "Test Customer", "Old Co")


async def test_a_refused_rename_moves_nothing(dynamic_ctx: Context) -> None:
    ctx = dynamic_ctx
    await _customer(ctx, "A Co")
    await _customer(ctx, "B Co")
    async with unit_of_work(ctx):
        note = await new_doc(ctx, "Test Note", title="n", ref_type="Test Customer", ref_name="A Co").insert()
        await upload_file(ctx, content=b"x", file_name="x.txt", doctype="Test Customer", docname="A Co")
    with pytest.raises(exc.DuplicateEntryError):
        await rename(ctx, "Test Customer", "A Co", "B Co")
    assert (await get_doc(ctx, "Test Note", note.name)).ref_name == "A Co"
    assert await ctx.db.collection("file").count_documents({"attached_to_name": "A Co"}) == 1
