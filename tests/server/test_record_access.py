"""Record access over HTTP (business.md §1): a user restricted by a User Permission meets the same
restriction on every read and write path, with no per-endpoint code; shares over `fw.share.*`."""

from __future__ import annotations

import httpx
import pytest

from engine.context import Context
from engine.documents.factory import new_doc
from engine.query.listing import count
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import ok, refused


@pytest.fixture
async def restricted(ctx: Context) -> tuple[ApiUser, dict[str, str]]:
    """A System Manager allowed only customer Acme, and a note per customer (and one without)."""
    for name in ("Acme", "Beta"):
        await new_doc(ctx, "Test Customer", customer_name=name, region=name.lower()).insert()
    notes = {}
    for title, customer in (("acme", "Acme"), ("beta", "Beta"), ("none", None)):
        notes[title] = str((await new_doc(ctx, "Test Note", title=title, customer=customer).insert()).name)
    user = await make_user(ctx, "m@example.com", ["System Manager"])
    await new_doc(ctx, "User Permission", user=user.email, allow="Test Customer", for_value="Acme").insert()
    return user, notes


def titles(rows: list[dict]) -> list[str]:
    return sorted(r["title"] for r in rows)


async def test_every_read_path_obeys_the_restriction(client: httpx.AsyncClient,
                                                     restricted: tuple[ApiUser, dict[str, str]]) -> None:
    user, notes = restricted
    h = user.token
    listed = ok(await client.get("/api/resource/Test Note", params={"fields": '["title"]'}, headers=h))["data"]
    assert titles(listed) == ["acme", "none"]
    ok(await client.get(f"/api/resource/Test Note/{notes['acme']}", headers=h))
    refused(await client.get(f"/api/resource/Test Note/{notes['beta']}", headers=h), 403, "PermissionError")
    refused(await client.get(f"/api/v2/document/Test Note/{notes['beta']}", headers=h), 403)
    v2 = ok(await client.get("/api/v2/document/Test Note", params={"fields": '["title"]'}, headers=h))["data"]
    assert titles(v2) == ["acme", "none"]
    assert ok(await client.get("/api/v2/doctype/Test Note/count", headers=h))["data"] == 2
    method = "/api/method/"
    assert ok(await client.get(method + "fw.client.get_count", params={"doctype": "Test Note"}, headers=h))[
        "message"] == 2
    rows = ok(await client.get(method + "frappe.client.get_list",
                               params={"doctype": "Test Note", "fields": '["title"]'}, headers=h))["message"]
    assert titles(rows) == ["acme", "none"]
    refused(await client.get(method + "fw.client.get", params={"doctype": "Test Note", "name": notes["beta"]},
                             headers=h), 403)
    value = await client.get(method + "fw.client.get_value",
                             params={"doctype": "Test Note", "filters": '{"title": "beta"}', "fieldname": "title"},
                             headers=h)
    assert not (ok(value).get("message") or {}).get("title")
    found = ok(await client.get(method + "fw.desk.search.search_link",
                                params={"doctype": "Test Customer", "txt": ""}, headers=h))["message"]
    assert [r["value"] for r in found] == ["Acme"]
    groups = ok(await client.get(method + "fw.desk.listview.get_group_by_count",
                                 params={"doctype": "Test Note", "field": "customer"}, headers=h))["message"]
    assert sorted((g["name"] or "", g["count"]) for g in groups) == [("", 1), ("Acme", 1)]


async def test_a_write_outside_is_refused_naming_the_field(ctx: Context, client: httpx.AsyncClient,
                                                            restricted: tuple[ApiUser, dict[str, str]]) -> None:
    user, notes = restricted
    h = user.token
    body = refused(await client.post("/api/resource/Test Note", json={"title": "x", "customer": "Beta"}, headers=h),
                   403, "PermissionError")
    assert "customer" in str(body)
    assert await count(ctx, "Test Note", {"title": "x"}) == 0
    refused(await client.put(f"/api/resource/Test Note/{notes['acme']}", json={"customer": "Beta"}, headers=h), 403)
    refused(await client.patch(f"/api/v2/document/Test Note/{notes['acme']}", json={"customer": "Beta"}, headers=h),
            403)
    assert await count(ctx, "Test Note", {"customer": "Beta"}) == 1  # only the one that was there
    refused(await client.put(f"/api/resource/Test Note/{notes['beta']}", json={"title": "mine"}, headers=h), 403)
    refused(await client.delete(f"/api/resource/Test Note/{notes['beta']}", headers=h), 403)
    made = ok(await client.post("/api/resource/Test Note", json={"title": "ok", "customer": "Acme"}, headers=h))
    assert made["data"]["customer"] == "Acme"
    # a new note without a customer takes none (no is_default), and is readable afterwards
    ok(await client.put(f"/api/resource/Test Note/{notes['acme']}", json={"title": "renamed"}, headers=h))


async def test_user_permission_records_bad_input(ctx: Context, client: httpx.AsyncClient, admin: ApiUser,
                                                 restricted: tuple[ApiUser, dict[str, str]]) -> None:
    user, _notes = restricted
    path = "/api/resource/User Permission"
    base = {"user": user.email, "allow": "Test Customer"}
    assert "for_value" in str(refused(await client.post(path, json={**base, "for_value": "Nope"}, headers=admin.token),
                                      417))
    assert "applicable_for" in str(refused(await client.post(
        path, json={**base, "for_value": "Beta", "apply_to_all_doctypes": 0}, headers=admin.token), 417))
    refused(await client.post(path, json={**base, "for_value": "Acme"}, headers=admin.token), 409,
            "DuplicateEntryError")
    clerk = await make_user(ctx, "clerk@example.com", ["Test Reader"])
    refused(await client.post(path, json={**base, "for_value": "Beta"}, headers=clerk.token), 403)
    assert await count(ctx, "User Permission") == 1
    mine = ok(await client.get("/api/method/fw.core.doctype.user_permission.user_permission.get_user_permissions",
                               headers=user.token))["message"]
    assert mine == {"Test Customer": [{"doc": "Acme", "is_default": 0, "applicable_for": None}]}
    refused(await client.get("/api/method/frappe.core.doctype.user_permission.user_permission.get_user_permissions",
                             params={"user": user.email}, headers=clerk.token), 403)


async def test_sharing_over_http(ctx: Context, client: httpx.AsyncClient, admin: ApiUser) -> None:
    note = await new_doc(ctx, "Test Note", title="private").insert()
    other = await new_doc(ctx, "Test Note", title="other").insert()
    outsider = await make_user(ctx, "out@example.com", [])
    refused(await client.get(f"/api/resource/Test Note/{note.name}", headers=outsider.token), 403)
    ok(await client.post("/api/method/frappe.share.add", json={"doctype": "Test Note", "name": note.name,
                                                              "user": outsider.email}, headers=admin.token))
    ok(await client.get(f"/api/resource/Test Note/{note.name}", headers=outsider.token))
    listed = ok(await client.get("/api/resource/Test Note", headers=outsider.token))["data"]
    assert [r["name"] for r in listed] == [note.name]
    refused(await client.get(f"/api/resource/Test Note/{other.name}", headers=outsider.token), 403)
    refused(await client.put(f"/api/resource/Test Note/{note.name}", json={"title": "x"}, headers=outsider.token),
            403)
    refused(await client.post("/api/method/fw.share.add", json={"doctype": "Test Note", "name": note.name,
                                                               "user": "Administrator"}, headers=outsider.token), 403)
    users = ok(await client.get("/api/method/fw.share.get_users", params={"doctype": "Test Note", "name": note.name},
                                headers=admin.token))["message"]
    assert [u["user"] for u in users] == [outsider.email]
    ok(await client.post("/api/method/fw.share.remove", json={"doctype": "Test Note", "name": note.name,
                                                             "user": outsider.email}, headers=admin.token))
    refused(await client.get(f"/api/resource/Test Note/{note.name}", headers=outsider.token), 403)
