"""Notification Log and Assign To over HTTP, under Frappe's paths and their `frappe.` aliases: the
bell's methods answer the caller's own logs, a wrong argument is a 417/404 naming it, and Assign To
refuses an assignee who may not read the document."""

from __future__ import annotations

import httpx

from engine.context import Context
from engine.documents.factory import new_doc
from tests.server.conftest import ApiUser, make_user

LOGS = "/api/method/frappe.desk.doctype.notification_log.notification_log"
ASSIGN = "/api/method/frappe.desk.form.assign_to"


async def test_assign_then_read_and_mark_the_bell_over_http(client: httpx.AsyncClient, ctx: Context,
                                                            admin: ApiUser) -> None:
    ada = await make_user(ctx, "ada@example.com", ["Test Reader"])
    note = await new_doc(ctx, "Test Note", title="Shelf 4").insert()
    r = await client.post(f"{ASSIGN}.add", headers=admin.token,
                          json={"doctype": "Test Note", "name": note.name, "assign_to": '["ada@example.com"]',
                                "description": "Count shelf 4"})
    assert r.status_code == 200, r.text
    [assignment] = r.json()["message"]
    assert assignment["owner"] == "ada@example.com" and assignment["description"] == "Count shelf 4"
    r = await client.get(f"{LOGS}.get_notification_logs", headers=ada.token, params={"limit": 5})
    assert r.status_code == 200, r.text
    answer = r.json()["message"]
    assert answer["unread_count"] == 1
    [entry] = answer["notification_logs"]
    assert (entry["type"], entry["document_type"], entry["document_name"], entry["read"]) == (
        "Assignment", "Test Note", note.name, 0)
    assert (await client.get(f"{LOGS}.get_notification_logs", headers=admin.token)).json()["message"][
        "notification_logs"] == []  # Administrator's own bell: nothing for them
    r = await client.post(f"{LOGS}.mark_as_read", headers=admin.token, json={"docname": entry["name"]})
    assert r.status_code == 404  # not Administrator's log
    r = await client.post(f"{LOGS}.mark_as_read", headers=ada.token, json={"docname": entry["name"]})
    assert r.status_code == 200, r.text
    r = await client.get(f"{LOGS}.get_notification_logs", headers=ada.token, params={"limit": "lots"})
    assert r.status_code == 417 and "limit" in r.text
    r = await client.post(f"{LOGS}.mark_all_as_read", headers=ada.token)
    assert r.status_code == 200 and r.json()["message"] == 0
    r = await client.get("/api/resource/Test Note", headers=ada.token,
                         params={"filters": '[["_assign", "like", "%ada@example.com%"]]'})
    assert r.status_code == 200 and [d["name"] for d in r.json()["data"]] == [note.name]
    r = await client.post(f"{ASSIGN}.remove", headers=admin.token,
                          json={"doctype": "Test Note", "name": note.name, "assign_to": "ada@example.com"})
    assert r.status_code == 200 and r.json()["message"] == []


async def test_assigning_someone_who_may_not_read_is_refused(client: httpx.AsyncClient, ctx: Context,
                                                             admin: ApiUser) -> None:
    await make_user(ctx, "blog@example.com", ["Blogger"])
    note = await new_doc(ctx, "Test Note", title="Private").insert()
    r = await client.post(f"{ASSIGN}.add", headers=admin.token,
                          json={"doctype": "Test Note", "name": note.name, "assign_to": ["blog@example.com"]})
    assert r.status_code == 417
    assert "blog@example.com may not read" in r.text
