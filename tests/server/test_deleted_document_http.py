"""Deleted Documents over HTTP: v1 and v2 deletes leave one each; `restore` (v1's method path, its
`frappe.` alias) puts the document back, and answers 409 for a taken name, 417 for a second restore,
403 for a user without System Manager; no one creates or changes a Deleted Document through the API."""

from __future__ import annotations

import httpx

from engine.context import Context
from engine.documents import store
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import insert_notes, ok, refused, server_messages

RESTORE = "/api/method/fw.core.doctype.deleted_document.deleted_document.restore"
FRAPPE_RESTORE = "/api/method/frappe.core.doctype.deleted_document.deleted_document.restore"


async def records(ctx: Context) -> list[dict]:
    return await store.find(ctx, ctx.meta("Deleted Document"), {"deleted_doctype": "Test Note"})


async def test_v1_and_v2_deletes_leave_records_and_restore_brings_back(
        client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    one, two = await insert_notes(ctx, {"title": "one"}, {"title": "two"})
    ok(await client.delete(f"/api/resource/Test Note/{one}", headers=admin.token), 202)
    ok(await client.delete(f"/api/v2/document/Test Note/{two}", headers=admin.token), 202)
    by_name = {r["deleted_name"]: r for r in await records(ctx)}
    assert set(by_name) == {one, two}
    body = ok(await client.post(FRAPPE_RESTORE, json={"name": by_name[one]["_id"]}, headers=admin.token))
    assert body["message"] == {"doctype": "Test Note", "name": one, "docstatus": 0}
    assert [m["message"] for m in server_messages(body)] == ["Document Restored"]
    assert ok(await client.get(f"/api/resource/Test Note/{one}", headers=admin.token))["data"]["title"] == "one"
    # the same record again: 417 with the reason
    again = refused(await client.post(RESTORE, json={"name": by_name[one]["_id"]}, headers=admin.token), 417,
                    "ValidationError")
    assert "Already Restored" in again["exception"]


async def test_a_taken_name_is_a_409_in_german_too(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    [name] = await insert_notes(ctx, {"title": "orig"})
    ok(await client.delete(f"/api/resource/Test Note/{name}", headers=admin.token), 202)
    [record] = await records(ctx)
    await insert_notes(ctx, {"name": name, "title": "squatter"})
    body = refused(await client.post(RESTORE, json={"name": record["_id"]},
                                     headers={**admin.token, "Accept-Language": "de"}), 409, "DuplicateEntryError")
    assert "kann nicht wiederhergestellt werden" in body["exception"]
    assert (await records(ctx))[0]["restored"] == 0


async def test_restore_needs_system_manager_and_records_are_read_only(
        client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    [name] = await insert_notes(ctx, {"title": "guarded"})
    ok(await client.delete(f"/api/resource/Test Note/{name}", headers=admin.token), 202)
    [record] = await records(ctx)
    clerk = await make_user(ctx, "clerk@example.com", ["Test Role"])
    refused(await client.post(RESTORE, json={"name": record["_id"]}, headers=clerk.token), 403, "PermissionError")
    manager = await make_user(ctx, "boss@example.com", ["System Manager"])
    listed = ok(await client.get("/api/resource/Deleted Document", params={"fields": '["deleted_name"]'},
                                 headers=manager.token))["data"]
    assert listed == [{"deleted_name": name}]
    refused(await client.post("/api/resource/Deleted Document",
                              json={"deleted_doctype": "Test Note", "deleted_name": "forged"},
                              headers=manager.token), 403)
    refused(await client.put(f"/api/resource/Deleted Document/{record['_id']}", json={"restored": 1},
                             headers=admin.token), 403)
    assert (await records(ctx))[0]["restored"] == 0
