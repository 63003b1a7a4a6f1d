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
from tests.support.users import user_context


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


# -- merge and the rights a rename needs (Frappe's validate_rename) --------------------------------

async def test_merge_repoints_to_the_target_and_deletes_the_old_through_its_hooks(
        dynamic_ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = dynamic_ctx
    async with unit_of_work(ctx):
        old = await new_doc(ctx, "Test Note", title="old").insert()
        target = await new_doc(ctx, "Test Note", title="target").insert()
        pointer = await new_doc(ctx, "Test Note", title="p", ref_type="Test Note", ref_name=old.name).insert()
        attached = await upload_file(ctx, content=b"x", file_name="x.txt", doctype="Test Note", docname=old.name)
    trashed: list[str] = []
    monkeypatch.setattr(ctx.site.apps.controller("Test Note"), "on_trash",
                        lambda doc: trashed.append(doc.name), raising=False)
    assert await rename(ctx, "Test Note", old.name, target.name, merge=True) == target.name

    assert trashed == [old.name]  # deleted as a delete request deletes it
    assert await ctx.db.collection("test_note").count_documents({"_id": old.name}) == 0
    assert (await get_doc(ctx, "Test Note", target.name)).title == "target"
    assert (await get_doc(ctx, "Test Note", pointer.name)).ref_name == target.name
    assert (await get_doc(ctx, "File", attached.name)).attached_to_name == target.name  # moved, not deleted


async def test_merge_needs_an_existing_target(ctx: Context) -> None:
    async with unit_of_work(ctx):
        note = await new_doc(ctx, "Test Note", title="n").insert()
    with pytest.raises(exc.ValidationError, match="does not exist"):
        await rename(ctx, "Test Note", note.name, "no-such-note", merge=True)
    assert await ctx.db.collection("test_note").count_documents({"_id": note.name}) == 1
    assert await ctx.db.collection("test_note").count_documents({"_id": "no-such-note"}) == 0


async def test_merge_needs_write_on_the_target(ctx: Context) -> None:
    owner = await user_context(ctx, "owner@example.com", "Test Owner")  # if_owner rights on Test Note
    async with unit_of_work(ctx):
        theirs = await new_doc(ctx, "Test Note", title="theirs").insert()
    async with unit_of_work(owner):
        mine = await new_doc(owner, "Test Note", title="mine").insert()
        await upload_file(owner, content=b"x", file_name="x.txt", doctype="Test Note", docname=mine.name)
    with pytest.raises(exc.PermissionError, match=f"write.*{theirs.name}"):
        async with unit_of_work(owner):
            await rename(owner, "Test Note", mine.name, theirs.name, merge=True)
    assert await ctx.db.collection("test_note").count_documents({"_id": mine.name}) == 1
    assert await ctx.db.collection("file").count_documents({"attached_to_name": theirs.name}) == 0


async def test_merge_needs_delete_on_the_old(ctx: Context) -> None:
    reviewer = await user_context(ctx, "rev@example.com", "Test Reviewer")  # read, write, create on Test Review
    async with unit_of_work(reviewer):
        a = await new_doc(reviewer, "Test Review", title="A").insert()
        b = await new_doc(reviewer, "Test Review", title="B").insert()
    with pytest.raises(exc.PermissionError, match=f"delete.*{a.name}"):
        async with unit_of_work(reviewer):
            await rename(reviewer, "Test Review", a.name, b.name, merge=True)
    assert await ctx.db.collection("test_review").count_documents({"_id": {"$in": [a.name, b.name]}}) == 2
    async with unit_of_work(reviewer):  # a plain rename needs write only
        assert await rename(reviewer, "Test Review", a.name, "A2") == "A2"


async def test_renaming_needs_write_on_the_doctype(ctx: Context) -> None:
    """The core rule that lets a user edit their own User record does not let them rename it."""
    jane = await user_context(ctx, "jane@example.com")
    with pytest.raises(exc.PermissionError, match="write permission on User"):
        await rename(jane, "User", "jane@example.com", "someone@example.com")
    assert await ctx.db.collection("user").count_documents({"_id": "jane@example.com"}) == 1


@pytest.mark.parametrize("doctype, old, new", [
    ("User", "Administrator", "x-admin@example.com"), ("User", "Guest", "x-guest@example.com"),
    ("Role", "System Manager", "Boss"), ("Role", "All", "Everyone"), ("Role", "Guest", "Visitor"),
])
async def test_standard_users_and_roles_are_never_renamed(ctx: Context, doctype: str, old: str, new: str) -> None:
    for merge in (False, True):
        with pytest.raises(exc.ValidationError, match="cannot be renamed"):
            await rename(ctx, doctype, old, new, merge=merge)
    assert await ctx.db.collection(ctx.meta(doctype).collection).count_documents({"_id": old}) == 1


async def test_nothing_is_renamed_or_merged_into_a_standard_name(ctx: Context) -> None:
    manager = await user_context(ctx, "sm@example.com", "System Manager")
    await user_context(ctx, "owner@example.com", "Test Owner")  # creates the role "Test Owner"
    for doctype, old, new in (("User", "sm@example.com", "Administrator"), ("User", "sm@example.com", "Guest"),
                              ("Role", "Test Owner", "System Manager")):
        for merge in (False, True):
            with pytest.raises(exc.ValidationError, match="standard"):
                async with unit_of_work(manager):
                    await rename(manager, doctype, old, new, merge=merge)
    assert await ctx.db.collection("user").count_documents({"_id": "sm@example.com"}) == 1
    assert await ctx.db.collection("role").count_documents({"_id": "Test Owner"}) == 1


async def test_a_renamed_user_is_named_by_a_valid_email(ctx: Context) -> None:
    await user_context(ctx, "jane@example.com")
    with pytest.raises(exc.ValidationError, match="valid email"):
        await rename(ctx, "User", "jane@example.com", "not-an-email")
    assert await rename(ctx, "User", "jane@example.com", "janet@example.com") == "janet@example.com"
    assert (await get_doc(ctx, "User", "janet@example.com")).email == "janet@example.com"


async def test_a_renamed_users_records_follow_them(ctx: Context) -> None:
    """`owner` and `modified_by` (of records and of child rows) move to the new name: `if_owner` rights go
    with the user, and a user created later under the old name owns nothing."""
    from engine.query.listing import get_list

    jane = await user_context(ctx, "jane@example.com", "Test Owner")
    async with unit_of_work(jane):
        note = await new_doc(jane, "Test Note", title="mine").insert()
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
    admin_order = ctx.clone("jane@example.com")  # an order saved as jane: its rows carry her stamps too
    async with unit_of_work(admin_order):
        order = await new_doc(admin_order, "Test Order", customer="Acme", posting_date="2024-05-01",
                              items=[{"item": "A", "qty": 1, "rate": 5}]).insert(ignore_permissions=True)
    assert await rename(ctx, "User", "jane@example.com", "janet@example.com") == "janet@example.com"
    stored = await ctx.db.collection("test_note").find_one({"_id": note.name})
    assert (stored["owner"], stored["modified_by"]) == ("janet@example.com", "janet@example.com")
    row = (await ctx.db.collection("test_order").find_one({"_id": order.name}))["items"][0]
    assert (row["owner"], row["modified_by"]) == ("janet@example.com", "janet@example.com")
    assert [r["name"] for r in await get_list(ctx.site.context("janet@example.com"), "Test Note")] == [note.name]
    newcomer = await user_context(ctx, "jane@example.com", "Test Owner")
    assert await get_list(newcomer, "Test Note") == []
