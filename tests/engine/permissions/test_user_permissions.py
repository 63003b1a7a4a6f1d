"""User Permissions on real MongoDB (business.md §1.1): what a restricted user reads, counts and
writes, through the one permission component.

Fixture doctypes: Test Customer (named by customer_name), Test Note (Links to Test Customer and to
the tree Test Category), Test Tagged (rows of Test Tag linking Test Category).
"""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context
from engine.documents.factory import get_doc, new_doc
from engine.permissions import has_permission, row_filter
from engine.query.listing import count, get_all, get_list, get_value
from engine.reports.filters import resolved_filters
from engine.site import Site
from tests.support.users import user_context


async def allow(ctx: Context, user: str, doctype: str, value: str, **fields: object) -> str:
    record = await new_doc(ctx, "User Permission", user=user, allow=doctype, for_value=value, **fields).insert()
    return str(record.name)


async def customers(ctx: Context, *names: str) -> None:
    for name in names:
        await new_doc(ctx, "Test Customer", customer_name=name).insert()


async def notes(ctx: Context) -> dict[str, str]:
    """A note per customer (Acme, Beta) and one with no customer: {label: name}."""
    await customers(ctx, "Acme", "Beta")
    out = {}
    for label, customer in (("acme", "Acme"), ("beta", "Beta"), ("none", None)):
        out[label] = str((await new_doc(ctx, "Test Note", title=label, customer=customer).insert()).name)
    return out


async def manager(ctx: Context, email: str = "m@example.com") -> Context:
    return await user_context(ctx, email, "System Manager")


async def test_a_restricted_user_reads_only_documents_linking_allowed_values(ctx: Context) -> None:
    made = await notes(ctx)
    user = await manager(ctx)
    assert len(await get_list(user, "Test Note")) == 3  # no records: no restriction, even for a System Manager
    await allow(ctx, user.user, "Test Customer", "Acme")
    titles = sorted(r["title"] for r in await get_list(user, "Test Note", fields=["title"]))
    assert titles == ["acme", "none"]  # an empty Link passes
    assert await count(user, "Test Note") == 2
    assert [r["name"] for r in await get_list(user, "Test Customer")] == ["Acme"]  # the doctype itself
    assert await has_permission(user, "Test Note", "read", await get_doc(ctx, "Test Note", made["acme"]))
    assert not await has_permission(user, "Test Note", "read", await get_doc(ctx, "Test Note", made["beta"]))
    assert not await has_permission(user, "Test Customer", "read", await get_doc(ctx, "Test Customer", "Beta"))
    # fw.get_all ignores them, as Frappe's frappe.get_all; get_value (internal) too, by default
    assert len(await get_all(user, "Test Note")) == 3
    assert await get_value(user, "Test Note", made["beta"], "title") == "beta"
    # Administrator is never restricted
    await allow(ctx, "Administrator", "Test Customer", "Acme")
    assert await count(ctx, "Test Note") == 3


async def test_strict_user_permissions_refuse_empty_links(ctx: Context) -> None:
    await notes(ctx)
    user = await manager(ctx)
    await allow(ctx, user.user, "Test Customer", "Acme")
    settings = await get_doc(ctx, "System Settings", "System Settings")
    settings.apply_strict_user_permissions = 1
    await settings.save()
    ctx.site.forget_roles()  # (the setting is read with the user's records, cached for a moment)
    assert [r["title"] for r in await get_list(user, "Test Note", fields=["title"])] == ["acme"]


async def test_applicable_for_restricts_only_that_doctype(ctx: Context) -> None:
    await notes(ctx)
    user = await manager(ctx)
    await allow(ctx, user.user, "Test Customer", "Acme", apply_to_all_doctypes=0, applicable_for="Test Note")
    assert await count(user, "Test Note") == 2
    assert await count(user, "Test Customer") == 2  # Test Customer is not the doctype it applies to


async def test_a_write_outside_the_users_values_is_refused_naming_the_field(ctx: Context) -> None:
    made = await notes(ctx)
    user = await manager(ctx)
    await allow(ctx, user.user, "Test Customer", "Acme")
    with pytest.raises(exc.PermissionError) as refused:
        await new_doc(user, "Test Note", title="moved", customer="Beta").insert()
    assert refused.value.field == "customer"
    assert "Beta" in str(refused.value)
    assert await count(ctx, "Test Note", {"title": "moved"}) == 0
    doc = await get_doc(user, "Test Note", made["acme"])
    doc.customer = "Beta"
    with pytest.raises(exc.PermissionError) as refused:
        await doc.save()
    assert refused.value.field == "customer"
    assert (await get_doc(ctx, "Test Note", made["acme"])).customer == "Acme"
    created = await new_doc(user, "Test Note", title="mine", customer="Acme").insert()
    assert created.customer == "Acme"
    other = await get_doc(user, "Test Note", made["beta"])  # loaded, but not the user's to change
    other.title = "changed"
    with pytest.raises(exc.PermissionError):
        await other.save()
    with pytest.raises(exc.PermissionError):
        await other.delete()


async def test_child_rows_links_are_restricted_too(ctx: Context) -> None:
    for name in ("Tools", "Food"):
        await new_doc(ctx, "Test Category", category_name=name).insert()
    user = await manager(ctx)
    tools = await new_doc(ctx, "Test Tagged", title="tools", categories=[{"category": "Tools"}]).insert()
    mixed = await new_doc(ctx, "Test Tagged", title="mixed",
                          categories=[{"category": "Tools"}, {"category": "Food"}]).insert()
    await new_doc(ctx, "Test Tagged", title="bare").insert()
    await allow(ctx, user.user, "Test Category", "Tools")
    assert sorted(r["title"] for r in await get_list(user, "Test Tagged", fields=["title"])) == ["bare", "tools"]
    assert await has_permission(user, "Test Tagged", "read", await get_doc(ctx, "Test Tagged", tools.name))
    assert not await has_permission(user, "Test Tagged", "read", await get_doc(ctx, "Test Tagged", mixed.name))
    with pytest.raises(exc.PermissionError) as refused:
        await new_doc(user, "Test Tagged", title="x", categories=[{"category": "Food"}]).insert()
    assert refused.value.field == "category"
    assert "row 1" in str(refused.value)


async def test_tree_values_allow_their_descendants_unless_hidden(ctx: Context) -> None:
    await new_doc(ctx, "Test Category", category_name="All").insert()
    await new_doc(ctx, "Test Category", category_name="Tools", parent_test_category="All").insert()
    await new_doc(ctx, "Test Category", category_name="Hammers", parent_test_category="Tools").insert()
    await new_doc(ctx, "Test Category", category_name="Food").insert()
    for category in ("Tools", "Hammers", "Food"):
        await new_doc(ctx, "Test Note", title=category, category=category).insert()
    user = await manager(ctx)
    record = await allow(ctx, user.user, "Test Category", "Tools")
    assert sorted(r["name"] for r in await get_list(user, "Test Category")) == ["Hammers", "Tools"]
    assert sorted(r["title"] for r in await get_list(user, "Test Note", fields=["title"])) == ["Hammers", "Tools"]
    permission = await get_doc(ctx, "User Permission", record)
    permission.hide_descendants = 1
    await permission.save()
    assert [r["name"] for r in await get_list(user, "Test Category")] == ["Tools"]
    assert [r["title"] for r in await get_list(user, "Test Note", fields=["title"])] == ["Tools"]


async def test_is_default_is_the_default_of_links_in_new_documents(ctx: Context) -> None:
    await customers(ctx, "Acme", "Beta")
    user = await manager(ctx)
    await allow(ctx, user.user, "Test Customer", "Acme")
    await allow(ctx, user.user, "Test Customer", "Beta", is_default=1)
    note = await new_doc(user, "Test Note", title="defaulted").insert()
    assert note.customer == "Beta"
    chosen = await new_doc(user, "Test Note", title="chosen", customer="Acme").insert()
    assert chosen.customer == "Acme"


async def test_user_permission_records_are_checked(ctx: Context) -> None:
    await customers(ctx, "Acme")
    user = await manager(ctx)
    with pytest.raises(exc.LinkValidationError) as missing:
        await allow(ctx, user.user, "Test Customer", "Nobody")
    assert missing.value.field == "for_value"
    with pytest.raises(exc.MandatoryError) as no_target:
        await allow(ctx, user.user, "Test Customer", "Acme", apply_to_all_doctypes=0)
    assert no_target.value.field == "applicable_for"
    await allow(ctx, user.user, "Test Customer", "Acme")
    with pytest.raises(exc.DuplicateEntryError):
        await allow(ctx, user.user, "Test Customer", "Acme")
    assert await count(ctx, "User Permission") == 1
    clerk = await user_context(ctx, "clerk@example.com", "Test Reader")
    with pytest.raises(exc.PermissionError):
        await allow(clerk, clerk.user, "Test Customer", "Acme")
    # a user reads their own records, not anyone else's
    await allow(ctx, clerk.user, "Test Customer", "Acme")
    assert [r["user"] for r in await get_list(clerk, "User Permission", fields=["user"])] == [clerk.user]


async def test_a_change_applies_at_once(site: Site, ctx: Context) -> None:
    await notes(ctx)
    user = await manager(ctx)
    assert await count(user, "Test Note") == 3  # cached now
    record = await allow(ctx, user.user, "Test Customer", "Acme")
    assert await count(user, "Test Note") == 2
    await (await get_doc(ctx, "User Permission", record)).delete()
    assert await count(user, "Test Note") == 3


async def test_the_restriction_is_one_indexable_filter(ctx: Context) -> None:
    await notes(ctx)
    user = await manager(ctx)
    assert await row_filter(user, ctx.meta("Test Note")) is None
    await allow(ctx, user.user, "Test Customer", "Acme")
    node = await row_filter(user, ctx.meta("Test Note"))
    assert node is not None
    assert "customer" in repr(node)


async def test_is_default_is_the_default_of_link_report_filters(ctx: Context) -> None:
    await customers(ctx, "Acme")
    user = await manager(ctx)
    filters = ({"fieldname": "customer", "label": "Customer", "fieldtype": "Link", "options": "Test Customer"},
               {"fieldname": "kept", "label": "Kept", "fieldtype": "Link", "options": "Test Customer", "default": "X"})
    assert [f.get("default") for f in await resolved_filters(user, filters, None, "Test Note")] == [None, "X"]
    await allow(ctx, user.user, "Test Customer", "Acme", is_default=1, apply_to_all_doctypes=0,
                applicable_for="Test Note")
    assert [f.get("default") for f in await resolved_filters(user, filters, None, "Test Note")] == ["Acme", "X"]
    assert [f.get("default") for f in await resolved_filters(user, filters, None, "Test Order")] == [None, "X"]
