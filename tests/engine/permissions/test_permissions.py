"""Permissions on real MongoDB: DocPerm rights by role, if_owner, permlevels, submit/cancel rights,
`has_permission` hooks (deny only) and `permission_query_conditions` hooks (row filters).

Users are created through the engine as Administrator, then act through `site.context(email)`.
The fixture app's hooks (fwtest/perms.py) affect only the regions and roles created here.
"""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context
from engine.documents.document import Document
from engine.documents.factory import get_doc, new_doc
from engine.meta.schema import RIGHTS
from engine.permissions import check_doctype, check_document, has_permission, readable_fields
from engine.query.listing import count, exists, get_all, get_list
from engine.site import Site
from tests.support.users import user_context


async def make_note(ctx: Context, title: str = "note", **fields: object) -> Document:
    return await new_doc(ctx, "Test Note", title=title, **fields).insert()


async def stored(ctx: Context, doctype: str, name: str) -> dict:
    record = await ctx.db.collection(ctx.meta(doctype).collection).find_one({"_id": name})
    assert record is not None
    return record


# -- Administrator, no roles, Guest ---------------------------------------------------------------


async def test_administrator_has_every_right(ctx: Context) -> None:
    customer = await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
    order = await new_doc(ctx, "Test Order", customer=customer.name, posting_date="2026-01-05").insert()
    for ptype in RIGHTS:
        assert await has_permission(ctx, "Test Order", ptype, order), ptype
        await check_document(ctx, order, ptype)
    assert await readable_fields(ctx, ctx.meta("Test Note")) is None
    await order.submit()
    await order.cancel()
    assert (await stored(ctx, "Test Order", order.name))["docstatus"] == 2


async def test_user_without_roles_has_no_rights(ctx: Context) -> None:
    note = await make_note(ctx)
    nobody = await user_context(ctx, "nobody@example.com")
    for ptype in ("read", "write", "create", "delete", "report"):
        assert not await has_permission(nobody, "Test Note", ptype)
        with pytest.raises(exc.PermissionError):
            await check_document(nobody, note, ptype)
    with pytest.raises(exc.PermissionError):
        await check_doctype(nobody, "Test Note", "read")
    with pytest.raises(exc.PermissionError):
        await get_list(nobody, "Test Note")
    with pytest.raises(exc.PermissionError):
        await count(nobody, "Test Note")
    with pytest.raises(exc.PermissionError):
        await new_doc(nobody, "Test Note", title="mine").insert()
    assert await count(ctx, "Test Note") == 1


async def test_disabled_user_loses_their_roles(ctx: Context) -> None:
    await make_note(ctx)
    reader = await user_context(ctx, "off@example.com", "Test Reader", enabled=0)
    assert not await has_permission(reader, "Test Note", "read")
    with pytest.raises(exc.PermissionError):
        await get_list(reader, "Test Note")


async def test_disabled_role_grants_nothing(site: Site, ctx: Context) -> None:
    await make_note(ctx)
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    assert len(await get_list(reader, "Test Note")) == 1
    role = await get_doc(ctx, "Role", "Test Reader")
    role.disabled = 1
    await role.save()
    site.forget_roles()  # role lists are cached per process for a moment
    reader = site.context("reader@example.com")
    assert "Test Reader" not in await reader.roles()
    with pytest.raises(exc.PermissionError):
        await get_list(reader, "Test Note")


async def test_guest_has_no_rights_on_test_note(site: Site, ctx: Context) -> None:
    note = await make_note(ctx)
    guest = site.context("Guest")
    assert await guest.roles() == frozenset({"Guest"})
    for ptype in ("read", "write", "create", "delete"):
        assert not await has_permission(guest, "Test Note", ptype, note)
    with pytest.raises(exc.PermissionError):
        await check_document(guest, note, "read")
    with pytest.raises(exc.PermissionError):
        await get_list(guest, "Test Note")
    with pytest.raises(exc.PermissionError):
        await count(guest, "Test Note")
    with pytest.raises(exc.PermissionError):
        await new_doc(guest, "Test Note", title="guest").insert()
    assert await count(ctx, "Test Note") == 1


async def test_every_logged_in_user_has_all_and_guest_roles(ctx: Context) -> None:
    reader = await user_context(ctx, "r@example.com", "Test Reader")
    roles = await reader.roles()
    assert {"Test Reader", "All", "Guest"} <= roles
    assert "System Manager" not in roles
    # Role grants read to "All"
    assert await has_permission(reader, "Role", "read")
    assert not await has_permission(reader, "Role", "write")


# -- read-only role --------------------------------------------------------------------------------


async def test_read_only_role_can_read_but_not_write_create_or_delete(ctx: Context) -> None:
    note = await make_note(ctx, "original", body="text")
    reader = await user_context(ctx, "reader@example.com", "Test Reader")

    mine = await get_doc(reader, "Test Note", note.name)
    await check_document(reader, mine, "read")
    rows = await get_list(reader, "Test Note", fields=["name", "title"])
    assert rows == [{"name": note.name, "title": "original"}]
    assert await count(reader, "Test Note") == 1
    assert not await has_permission(reader, "Test Note", "write", mine)

    mine.title = "changed"
    with pytest.raises(exc.PermissionError, match="write"):
        await mine.save()
    record = await stored(ctx, "Test Note", note.name)
    assert record["title"] == "original"
    assert record["modified"] == note.modified

    with pytest.raises(exc.PermissionError, match="create"):
        await new_doc(reader, "Test Note", title="new").insert()
    assert await count(ctx, "Test Note") == 1

    with pytest.raises(exc.PermissionError, match="delete"):
        await (await get_doc(reader, "Test Note", note.name)).delete()
    assert await exists(ctx, "Test Note", note.name) == note.name


async def test_ignore_permissions_bypasses_checks(ctx: Context) -> None:
    note = await make_note(ctx, "original")
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    nobody = await user_context(ctx, "nobody@example.com")

    created = await new_doc(reader, "Test Note", title="by code").insert(ignore_permissions=True)
    assert created.owner == "reader@example.com"
    doc = await get_doc(reader, "Test Note", note.name)
    doc.title = "changed by code"
    await doc.save(ignore_permissions=True)
    assert (await stored(ctx, "Test Note", note.name))["title"] == "changed by code"
    assert len(await get_list(nobody, "Test Note", ignore_permissions=True)) == 2
    assert await count(nobody, "Test Note", ignore_permissions=True) == 2
    await created.delete(ignore_permissions=True)
    assert await count(ctx, "Test Note") == 1


# -- if_owner ----------------------------------------------------------------------------------------


async def test_if_owner_user_manages_only_their_own_documents(ctx: Context) -> None:
    others = await make_note(ctx, "admin's")
    owner = await user_context(ctx, "owner@example.com", "Test Owner")

    mine = await new_doc(owner, "Test Note", title="mine").insert()
    assert mine.owner == "owner@example.com"
    await check_document(owner, mine, "read")
    mine.body = "edited"
    await mine.save()
    assert (await stored(ctx, "Test Note", mine.name))["body"] == "edited"

    theirs = await get_doc(owner, "Test Note", others.name)
    for ptype in ("read", "write", "delete"):
        with pytest.raises(exc.PermissionError):
            await check_document(owner, theirs, ptype)
    theirs.title = "taken over"
    with pytest.raises(exc.PermissionError):
        await theirs.save()
    with pytest.raises(exc.PermissionError):
        await theirs.delete()
    assert (await stored(ctx, "Test Note", others.name))["title"] == "admin's"

    rows = await get_list(owner, "Test Note", fields=["name", "owner"])
    assert rows == [{"name": mine.name, "owner": "owner@example.com"}]
    assert await count(owner, "Test Note") == len(rows) == 1
    assert await count(owner, "Test Note", {"name": others.name}) == 0
    # a caller's filter cannot widen the owner rule
    assert await get_list(owner, "Test Note", or_filters=[["owner", "=", "Administrator"]]) == []

    await mine.delete()
    assert await count(ctx, "Test Note") == 1


async def test_if_owner_cannot_take_over_a_document_by_changing_owner(ctx: Context) -> None:
    others = await make_note(ctx, "admin's")
    owner = await user_context(ctx, "owner@example.com", "Test Owner")
    theirs = await get_doc(owner, "Test Note", others.name)
    theirs.owner = "owner@example.com"
    theirs.title = "mine now"
    with pytest.raises(exc.PermissionError):
        await theirs.save()
    record = await stored(ctx, "Test Note", others.name)
    assert (record["owner"], record["title"]) == ("Administrator", "admin's")
    theirs.owner = "owner@example.com"
    with pytest.raises(exc.PermissionError):
        await theirs.delete()
    assert await exists(ctx, "Test Note", others.name)


# -- field permlevels ----------------------------------------------------------------------------------


async def test_reader_cannot_see_or_query_permlevel_field(ctx: Context) -> None:
    await make_note(ctx, "n1", reviewer_note="secret review")
    reader = await user_context(ctx, "reader@example.com", "Test Reader")

    rows = await get_list(reader, "Test Note", fields=["*"])
    assert len(rows) == 1
    assert "reviewer_note" not in rows[0]
    assert rows[0]["title"] == "n1"
    with pytest.raises(exc.DataError) as err:
        await get_list(reader, "Test Note", fields=["name", "reviewer_note"])
    assert err.value.field == "reviewer_note"
    with pytest.raises(exc.DataError) as err:
        await get_list(reader, "Test Note", filters={"reviewer_note": "secret review"})
    assert err.value.field == "reviewer_note"
    with pytest.raises(exc.DataError):
        await get_list(reader, "Test Note", or_filters=[["reviewer_note", "like", "%secret%"]])
    with pytest.raises(exc.DataError):
        await count(reader, "Test Note", {"reviewer_note": ["is", "set"]})
    # Administrator sees it
    assert (await get_list(ctx, "Test Note", fields=["*"]))[0]["reviewer_note"] == "secret review"


async def test_reader_cannot_sort_on_permlevel_field(ctx: Context) -> None:
    await make_note(ctx, "n1", reviewer_note="b")
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    with pytest.raises(exc.DataError):
        await get_list(reader, "Test Note", order_by="reviewer_note asc")


async def test_reader_cannot_group_by_permlevel_field(ctx: Context) -> None:
    await make_note(ctx, "n1", reviewer_note="b")
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    with pytest.raises(exc.DataError):
        await get_list(reader, "Test Note", fields=["count(name) as n"], group_by="reviewer_note")


async def test_reviewer_reads_and_writes_permlevel_field(ctx: Context) -> None:
    reviewer_only = await user_context(ctx, "rev@example.com", "Test Reviewer")
    note = await make_note(ctx, "n1", reviewer_note="first")
    rows = await get_list(reviewer_only, "Test Note", fields=["name", "reviewer_note"],
                          filters={"reviewer_note": "first"})
    assert rows == [{"name": note.name, "reviewer_note": "first"}]
    assert "reviewer_note" in (await get_list(reviewer_only, "Test Note", fields=["*"]))[0]
    # permlevel-1 write does not grant level-0 write (as in Frappe): the document cannot be saved
    doc = await get_doc(reviewer_only, "Test Note", note.name)
    doc.reviewer_note = "second"
    with pytest.raises(exc.PermissionError):
        await doc.save()

    # with level-0 write (Test Owner, on their own notes) the reviewer changes the field
    reviewer = await user_context(ctx, "rev2@example.com", "Test Reviewer", "Test Owner")
    own = await new_doc(reviewer, "Test Note", title="mine", reviewer_note="set at insert").insert()
    own.reviewer_note = "reviewed"
    await own.save()
    assert (await stored(ctx, "Test Note", own.name))["reviewer_note"] == "reviewed"


async def test_changing_a_field_without_permlevel_write_is_refused(ctx: Context) -> None:
    owner = await user_context(ctx, "owner@example.com", "Test Owner")
    with pytest.raises(exc.PermissionError, match="Reviewer Note") as err:
        await new_doc(owner, "Test Note", title="sneaky", reviewer_note="self-reviewed").insert()
    assert err.value.field == "reviewer_note"
    assert await count(ctx, "Test Note") == 0

    mine = await new_doc(owner, "Test Note", title="mine").insert()
    await mine.db_set("reviewer_note", "by a reviewer")  # as if a reviewer had written it
    mine = await get_doc(owner, "Test Note", mine.name)
    mine.body = "level-0 change is fine"
    await mine.save()
    mine.reviewer_note = "rewritten"
    with pytest.raises(exc.PermissionError) as err:
        await mine.save()
    assert err.value.field == "reviewer_note"
    assert (await stored(ctx, "Test Note", mine.name))["reviewer_note"] == "by a reviewer"

    # a non-admin System Manager has no permlevel-1 row on Test Note either
    manager = await user_context(ctx, "sm@example.com", "System Manager")
    doc = await get_doc(manager, "Test Note", mine.name)
    doc.reviewer_note = None
    with pytest.raises(exc.PermissionError) as err:
        await doc.save()
    assert err.value.field == "reviewer_note"
    assert (await stored(ctx, "Test Note", mine.name))["reviewer_note"] == "by a reviewer"


# -- submit / cancel -------------------------------------------------------------------------------


async def test_submit_and_cancel_need_their_rights(ctx: Context) -> None:
    customer = await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
    order = await new_doc(ctx, "Test Order", customer=customer.name, posting_date="2026-01-05").insert()
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    assert await has_permission(reader, "Test Order", "read")
    assert not await has_permission(reader, "Test Order", "submit")

    as_reader = await get_doc(reader, "Test Order", order.name)
    with pytest.raises(exc.PermissionError, match="submit"):
        await as_reader.submit()
    assert (await stored(ctx, "Test Order", order.name))["docstatus"] == 0

    manager = await user_context(ctx, "sm@example.com", "System Manager")
    as_manager = await get_doc(manager, "Test Order", order.name)
    await as_manager.submit()
    assert (await stored(ctx, "Test Order", order.name))["docstatus"] == 1

    as_reader = await get_doc(reader, "Test Order", order.name)
    with pytest.raises(exc.PermissionError, match="cancel"):
        await as_reader.cancel()
    assert (await stored(ctx, "Test Order", order.name))["docstatus"] == 1
    await as_manager.cancel()
    assert (await stored(ctx, "Test Order", order.name))["docstatus"] == 2


async def test_submit_rights_do_not_apply_to_non_submittable_doctypes(ctx: Context) -> None:
    manager = await user_context(ctx, "sm@example.com", "System Manager")
    assert await has_permission(manager, "Test Note", "write")
    assert not await has_permission(manager, "Test Note", "submit")
    assert not await has_permission(manager, "Test Note", "cancel")


# -- has_permission hooks (deny only) ---------------------------------------------------------------


async def test_has_permission_hook_can_deny(ctx: Context) -> None:
    manager = await user_context(ctx, "sm@example.com", "System Manager")
    await new_doc(ctx, "Test Customer", customer_name="Open Co", region="North").insert()
    await new_doc(ctx, "Test Customer", customer_name="Locked Co", region="Locked").insert()

    open_co = await get_doc(manager, "Test Customer", "Open Co")
    open_co.credit_limit = 100
    await open_co.save()
    assert (await stored(ctx, "Test Customer", "Open Co"))["credit_limit"] == 100

    locked = await get_doc(manager, "Test Customer", "Locked Co")
    await check_document(manager, locked, "read")  # the hook denies only create, write and delete
    locked.credit_limit = 100
    with pytest.raises(exc.PermissionError, match="write"):
        await locked.save()
    with pytest.raises(exc.PermissionError, match="delete"):
        await locked.delete()
    assert (await stored(ctx, "Test Customer", "Locked Co"))["credit_limit"] == 0

    with pytest.raises(exc.PermissionError, match="create"):
        await new_doc(manager, "Test Customer", customer_name="New Locked", region="Locked").insert()
    assert not await exists(ctx, "Test Customer", "New Locked")

    # Administrator is not subject to hooks
    locked = await get_doc(ctx, "Test Customer", "Locked Co")
    locked.credit_limit = 5
    await locked.save()
    assert (await stored(ctx, "Test Customer", "Locked Co"))["credit_limit"] == 5


async def test_has_permission_hook_cannot_grant(ctx: Context) -> None:
    await new_doc(ctx, "Test Customer", customer_name="Open Co", region="North").insert()
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    doc = await get_doc(reader, "Test Customer", "Open Co")
    # the hook returns True for a North customer, but the reader has no write right
    assert not await has_permission(reader, "Test Customer", "write", doc)
    doc.credit_limit = 1
    with pytest.raises(exc.PermissionError):
        await doc.save()


async def test_has_permission_hook_without_a_verdict_denies(ctx: Context) -> None:
    await new_doc(ctx, "Test Customer", customer_name="Quiet Co", region="Silent").insert()
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    with pytest.raises(exc.PermissionError):
        await check_document(reader, await get_doc(reader, "Test Customer", "Quiet Co"), "read")


# -- permission_query_conditions hooks (row filters) ------------------------------------------------


async def make_customers(ctx: Context) -> None:
    for name, region in (("North A", "North"), ("North B", "North"), ("South A", "South"), ("Nowhere", None)):
        await new_doc(ctx, "Test Customer", customer_name=name, region=region).insert()


async def test_query_conditions_restrict_rows(ctx: Context) -> None:
    await make_customers(ctx)
    regional = await user_context(ctx, "north@example.com", "Test Reader", "Test Regional")
    reader = await user_context(ctx, "reader@example.com", "Test Reader")

    names = await get_list(regional, "Test Customer", pluck="name")
    assert names == ["North A", "North B"]
    assert await count(regional, "Test Customer") == 2
    # other users and Administrator are not restricted
    assert len(await get_list(reader, "Test Customer")) == 4
    assert await count(ctx, "Test Customer") == 4


async def test_caller_filters_never_widen_query_conditions(ctx: Context) -> None:
    await make_customers(ctx)
    regional = await user_context(ctx, "north@example.com", "Test Reader", "Test Regional")

    assert await get_list(regional, "Test Customer", or_filters=[["region", "=", "South"]]) == []
    assert await get_list(regional, "Test Customer", or_filters=[["region", "=", "South"],
                                                                 ["region", "=", "North"]], pluck="name") == [
        "North A", "North B"]
    assert await get_list(regional, "Test Customer", filters={"region": "South"}) == []
    assert await get_list(regional, "Test Customer", filters=[["name", "=", "South A"]]) == []
    assert await count(regional, "Test Customer", {"region": "South"}) == 0
    assert await count(regional, "Test Customer", or_filters=[["region", "=", "South"]]) == 0
    assert await count(regional, "Test Customer", {"name": ["in", ["South A", "North A"]]}) == 1


async def test_query_conditions_apply_to_reading_a_single_document(ctx: Context) -> None:
    await make_customers(ctx)
    regional = await user_context(ctx, "north@example.com", "Test Reader", "Test Regional")
    await check_document(regional, await get_doc(regional, "Test Customer", "North A"), "read")
    south = await get_doc(regional, "Test Customer", "South A")
    assert not await has_permission(regional, "Test Customer", "read", south)
    with pytest.raises(exc.PermissionError):
        await check_document(regional, south, "read")


async def test_query_condition_always_false(ctx: Context) -> None:
    await make_customers(ctx)
    nobody = await user_context(ctx, "none@example.com", "Test Reader", "Test Nobody")
    assert await get_list(nobody, "Test Customer") == []
    assert await count(nobody, "Test Customer") == 0
    assert len(await get_all(nobody, "Test Customer")) == 4  # trusted code is not restricted


async def test_query_condition_returning_sql_is_a_configuration_error(ctx: Context) -> None:
    await make_customers(ctx)
    sql = await user_context(ctx, "sql@example.com", "Test Reader", "Test SQL Hook")
    with pytest.raises(exc.ConfigurationError, match="string"):
        await get_list(sql, "Test Customer")
    with pytest.raises(exc.ConfigurationError):
        await count(sql, "Test Customer")


# -- permlevel fields that get a value on their own (numbers, checks, defaults) ---------------------


async def test_insert_without_touching_permlevel_fields_is_allowed(ctx: Context) -> None:
    """Int/Check/Float fields become 0 and declared defaults apply on insert: neither is a change
    made by the user, so a user without permlevel-1 write can still create the document."""
    owner = await user_context(ctx, "owner@example.com", "Test Owner")
    review = await new_doc(owner, "Test Review", title="mine").insert()
    record = await stored(ctx, "Test Review", review.name)
    assert (record["score"], record["approved"], record["weight"], record["grade"]) == (0, 0, 1.5, "B")
    assert record["reviewed_on"] == review.creation[:10]

    review.title = "renamed"
    await review.save()
    assert (await stored(ctx, "Test Review", review.name))["title"] == "renamed"

    for field, value in (("score", 5), ("approved", 1), ("weight", 2), ("grade", "A")):
        with pytest.raises(exc.PermissionError) as err:
            await new_doc(owner, "Test Review", title="x", **{field: value}).insert()
        assert err.value.field == field
        doc = await get_doc(owner, "Test Review", review.name)
        doc.set(field, value)
        with pytest.raises(exc.PermissionError) as err:
            await doc.save()
        assert err.value.field == field
    assert await count(ctx, "Test Review") == 1


async def test_save_of_a_record_missing_a_permlevel_field_is_allowed(ctx: Context) -> None:
    """A stored record without the field (e.g. the field was added later) is not changed by a save
    that merely normalises the empty value to 0."""
    owner = await user_context(ctx, "owner@example.com", "Test Owner")
    review = await new_doc(owner, "Test Review", title="mine").insert()
    await ctx.db.collection("test_review").update_one({"_id": review.name},
                                                      {"$unset": {"score": "", "approved": ""}})
    doc = await get_doc(owner, "Test Review", review.name)
    doc.title = "renamed"
    await doc.save()
    record = await stored(ctx, "Test Review", review.name)
    assert record["title"] == "renamed"


async def test_permlevel_writer_sets_the_fields(ctx: Context) -> None:
    reviewer = await user_context(ctx, "rev@example.com", "Test Reviewer")
    review = await new_doc(reviewer, "Test Review", title="t", score=7, approved=1, grade="A").insert()
    review.weight = 3
    await review.save()
    record = await stored(ctx, "Test Review", review.name)
    assert (record["score"], record["approved"], record["weight"], record["grade"]) == (7, 1, 3.0, "A")
