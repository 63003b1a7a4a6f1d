"""engine/methods/copies.py: the clean copy of a stored document (frappe.copy_doc's rules), at the
engine level: what it leaves out, the caller's read right and readable fields."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.methods.copies import COPY_DROPPED, copy_doc
from tests.support.custom_fields import drop_custom_fields


async def test_a_copy_carries_no_identity_state_or_no_copy_field(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
        await new_doc(ctx, "Custom Field", dt="Test Order Item", fieldname="batch", fieldtype="Data", label="Batch",
                      no_copy=1).insert()
    try:
        async with unit_of_work(ctx):  # (the field is in the meta once its unit of work committed)
            order = await new_doc(ctx, "Test Order", customer="Acme", posting_date="2024-05-01",
                                  items=[{"item": "A", "qty": 2, "rate": 5, "batch": "B-7"}]).insert()
            await order.submit()
        copy = await copy_doc(ctx, "Test Order", order.name)
        assert not COPY_DROPPED & set(copy)
        assert copy["doctype"] == "Test Order" and copy["customer"] == "Acme" and None not in copy.values()
        [row] = copy["items"]
        assert row["item"] == "A" and row["qty"] == 2 and "batch" not in row  # a no_copy field of a child row
        assert not {"name", "parent", "parenttype", "parentfield", "owner", "creation"} & set(row)
        async with unit_of_work(ctx):  # it posts back as a new draft
            again = await new_doc(ctx, "Test Order", copy).insert()
        assert again.name != order.name and again.docstatus == 0
    finally:
        await drop_custom_fields(ctx.site, ["Test Order Item"])


async def test_a_copy_needs_the_read_right_and_shows_only_readable_fields(ctx: Context) -> None:
    async with unit_of_work(ctx):
        name = (await new_doc(ctx, "Test Note", title="secretive", reviewer_note="hidden", code="C1").insert()).name
        if not await ctx.db.collection("role").find_one({"_id": "Test Reader"}):
            await new_doc(ctx, "Role", role_name="Test Reader").insert()
        await new_doc(ctx, "User", email="reader@example.com", first_name="r", roles=[{"role": "Test Reader"}]).insert()
        await new_doc(ctx, "User", email="nobody@example.com", first_name="n").insert()
    copy = await copy_doc(ctx.site.context("reader@example.com"), "Test Note", name)
    assert copy["title"] == "secretive" and copy["code"] == "C1" and "reviewer_note" not in copy
    assert "secret" not in copy
    with pytest.raises(exc.PermissionError):
        await copy_doc(ctx.site.context("nobody@example.com"), "Test Note", name)
    with pytest.raises(exc.PermissionError):
        await copy_doc(ctx.site.context("Guest"), "Test Note", name)
    with pytest.raises(exc.DoesNotExistError):
        await copy_doc(ctx, "Test Note", "missing")
