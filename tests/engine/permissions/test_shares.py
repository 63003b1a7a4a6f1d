"""Sharing documents on real MongoDB (business.md §1.2): a share grants what it names on one
document, whatever the roles; only those who hold `share` may share, never more than they hold."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context
from engine.documents.factory import get_doc, new_doc
from engine.methods import share
from engine.permissions import has_permission
from engine.query.listing import count, get_list
from tests.support.users import user_context


async def two_notes(ctx: Context) -> tuple[str, str]:
    first = await new_doc(ctx, "Test Note", title="first").insert()
    second = await new_doc(ctx, "Test Note", title="second").insert()
    return str(first.name), str(second.name)


async def test_a_share_grants_read_on_one_document_without_a_role(ctx: Context) -> None:
    first, second = await two_notes(ctx)
    guest_user = await user_context(ctx, "outsider@example.com")
    assert not await has_permission(guest_user, "Test Note", "read")
    with pytest.raises(exc.PermissionError):
        await get_list(guest_user, "Test Note")
    answer = await share.add(ctx, "Test Note", first, user=guest_user.user)
    assert answer["read"] == 1 and answer["write"] == 0
    assert await has_permission(guest_user, "Test Note", "read")  # the doctype: through their share
    assert [r["name"] for r in await get_list(guest_user, "Test Note")] == [first]
    assert await count(guest_user, "Test Note") == 1
    doc = await get_doc(guest_user, "Test Note", first)
    assert await has_permission(guest_user, "Test Note", "read", doc)
    assert not await has_permission(guest_user, "Test Note", "write", doc)
    assert not await has_permission(guest_user, "Test Note", "read", await get_doc(ctx, "Test Note", second))
    doc.title = "changed"
    with pytest.raises(exc.PermissionError):
        await doc.save()
    await share.add(ctx, "Test Note", first, user=guest_user.user, write=1)  # updates the share
    assert await count(ctx, "DocShare") == 1
    doc = await get_doc(guest_user, "Test Note", first)
    doc.title = "changed"
    await doc.save()
    assert (await get_doc(ctx, "Test Note", first)).title == "changed"
    users = await share.get_users(ctx, "Test Note", first)
    assert [(u["user"], u["read"], u["write"]) for u in users] == [(guest_user.user, 1, 1)]


async def test_shared_documents_join_a_restricted_users_list(ctx: Context) -> None:
    owner = await user_context(ctx, "owner@example.com", "Test Owner")
    mine = await new_doc(owner, "Test Note", title="mine").insert()
    first, _second = await two_notes(ctx)
    assert [r["name"] for r in await get_list(owner, "Test Note")] == [mine.name]
    await share.add(ctx, "Test Note", first, user=owner.user)
    assert sorted(r["name"] for r in await get_list(owner, "Test Note")) == sorted([mine.name, first])


async def test_only_who_holds_share_may_share_and_never_more_than_they_hold(ctx: Context) -> None:
    first, _second = await two_notes(ctx)
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    other = await user_context(ctx, "other@example.com")
    with pytest.raises(exc.PermissionError):
        await share.add(reader, "Test Note", first, user=other.user)
    await share.add(ctx, "Test Note", first, user=reader.user, share=1)  # may pass on read, not write
    await share.add(reader, "Test Note", first, user=other.user)
    with pytest.raises(exc.PermissionError) as refused:
        await share.add(reader, "Test Note", first, user=other.user, write=1)
    assert refused.value.field == "write"
    assert not (await share.get_users(ctx, "Test Note", first))[1]["write"]
    with pytest.raises(exc.LinkValidationError):
        await share.add(ctx, "Test Note", first, user="nobody@example.com")
    with pytest.raises(exc.PermissionError):
        await share.remove(other, "Test Note", first, user=reader.user)
    await share.remove(other, "Test Note", first, user=other.user)  # one's own share may be given up
    assert [u["user"] for u in await share.get_users(ctx, "Test Note", first)] == [reader.user]


async def test_sharing_with_everyone(ctx: Context) -> None:
    first, _second = await two_notes(ctx)
    anyone = await user_context(ctx, "anyone@example.com")
    await share.add(ctx, "Test Note", first, everyone=1)
    assert [r["name"] for r in await get_list(anyone, "Test Note")] == [first]
    await share.remove(ctx, "Test Note", first, everyone=1)
    with pytest.raises(exc.PermissionError):
        await get_list(anyone, "Test Note")


async def test_deleting_a_document_deletes_its_shares(ctx: Context) -> None:
    first, second = await two_notes(ctx)
    user = await user_context(ctx, "u@example.com")
    await share.add(ctx, "Test Note", first, user=user.user)
    await share.add(ctx, "Test Note", second, user=user.user)
    await (await get_doc(ctx, "Test Note", first)).delete()
    assert [r["share_name"] for r in await get_list(ctx, "DocShare", fields=["share_name"])] == [second]
    assert [r["name"] for r in await get_list(user, "Test Note")] == [second]


async def test_a_share_overrides_user_permissions_on_its_document(ctx: Context) -> None:
    for name in ("Acme", "Beta"):
        await new_doc(ctx, "Test Customer", customer_name=name).insert()
    beta = await new_doc(ctx, "Test Note", title="beta", customer="Beta").insert()
    await new_doc(ctx, "Test Note", title="acme", customer="Acme").insert()
    user = await user_context(ctx, "m@example.com", "System Manager")
    await new_doc(ctx, "User Permission", user=user.user, allow="Test Customer", for_value="Acme").insert()
    assert [r["title"] for r in await get_list(user, "Test Note", fields=["title"])] == ["acme"]
    await share.add(ctx, "Test Note", beta.name, user=user.user)
    assert sorted(r["title"] for r in await get_list(user, "Test Note", fields=["title"])) == ["acme", "beta"]


async def test_notify_tells_the_user_in_the_bell(ctx: Context) -> None:
    first, _second = await two_notes(ctx)
    user = await user_context(ctx, "told@example.com")
    await share.add(ctx, "Test Note", first, user=user.user, notify=1)
    logs = await get_list(ctx, "Notification Log", fields=["for_user", "type", "document_type", "document_name"])
    assert logs == [{"for_user": user.user, "type": "Share", "document_type": "Test Note", "document_name": first}]
    await share.add(ctx, "Test Note", first, user=user.user, write=1)  # notify=0: nothing more
    assert await count(ctx, "Notification Log") == 1
