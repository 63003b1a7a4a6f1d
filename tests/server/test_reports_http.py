"""`/api/method/fw.desk.query_report.run` over HTTP (contract §2.2): Frappe's response shape,
403 without a report role or the `report` right, 404 for an unknown report, row permissions."""

from __future__ import annotations

import json

import httpx

from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import ok, refused

RUN = "/api/method/fw.desk.query_report.run"
REPORT = "Test Note Summary"


async def _note(ctx: Context, title: str, count: int = 0) -> str:
    async with unit_of_work(ctx):
        return str((await new_doc(ctx, "Test Note", title=title, count=count).insert()).name)


async def test_run_over_get_and_post(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    await _note(ctx, "first", 1)
    await _note(ctx, "second", 5)
    body = ok(await client.get(RUN, params={"report_name": REPORT, "filters": json.dumps({"status": "Open"})},
                               headers=admin.token))
    message = body["message"]
    assert {"result", "columns", "message", "chart", "report_summary"} <= set(message)
    assert [row["title"] for row in message["result"]] == ["second", "first"]
    assert message["columns"][0] == {"label": "Note", "fieldname": "note", "fieldtype": "Link",
                                     "options": "Test Note", "width": 140}
    assert message["message"] is None
    assert message["report_summary"][0]["value"] == 2

    posted = ok(await client.post(RUN, json={"report_name": REPORT, "filters": {"status": "Closed"}},
                                  headers=admin.token))["message"]
    assert posted["result"] == [] and posted["chart"] is None


async def test_frappe_alias_path(client: httpx.AsyncClient, admin: ApiUser) -> None:
    body = ok(await client.post("/api/method/frappe.desk.query_report.run", json={"report_name": REPORT},
                                headers=admin.token))
    assert body["message"]["result"] == []


async def test_unknown_report_is_404(client: httpx.AsyncClient, admin: ApiUser) -> None:
    body = refused(await client.post(RUN, json={"report_name": "Nope"}, headers=admin.token), 404,
                   "DoesNotExistError")
    assert "Nope" in body["errors"][0]["message"]


async def test_access_is_403_without_role_or_report_right(client: httpx.AsyncClient, ctx: Context) -> None:
    reviewer = await make_user(ctx, "reviewer@example.com", ["Test Reviewer"])  # report role, no report right
    refused(await client.post(RUN, json={"report_name": REPORT}, headers=reviewer.token), 403, "PermissionError")
    manager = await make_user(ctx, "manager@example.com", ["System Manager"])  # report right, no report role
    body = refused(await client.post(RUN, json={"report_name": REPORT}, headers=manager.token), 403,
                   "PermissionError")
    assert "Test Note Summary" in body["errors"][0]["message"]
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    ok(await client.post(RUN, json={"report_name": REPORT}, headers=reader.token))
    refused(await client.post(RUN, json={"report_name": REPORT}), 403)  # a guest


async def test_rows_follow_the_callers_permissions(client: httpx.AsyncClient, ctx: Context) -> None:
    owner = await make_user(ctx, "owner@example.com", ["Test Owner", "Test Report Owner"])
    await _note(ctx, "not yours")
    made = ok(await client.post("/api/resource/Test Note", json={"title": "yours", "count": 3},
                                headers=owner.token))["data"]
    rows = ok(await client.post(RUN, json={"report_name": REPORT}, headers=owner.token))["message"]["result"]
    assert rows == [{"note": made["name"], "title": "yours", "count": 3}]


async def test_bad_filters_are_a_client_error(client: httpx.AsyncClient, admin: ApiUser) -> None:
    refused(await client.post(RUN, json={"report_name": REPORT, "filters": "{not json"}, headers=admin.token), 417)
    refused(await client.post(RUN, json={"report_name": REPORT, "filters": [1, 2]}, headers=admin.token), 417)


async def test_errors_in_the_users_language(client: httpx.AsyncClient, admin: ApiUser) -> None:
    body = refused(await client.post(RUN, json={"report_name": "Nope"},
                                     headers={**admin.token, "Accept-Language": "de-AT"}), 404)
    assert body["errors"][0]["message"] == "Bericht Nope nicht gefunden"
