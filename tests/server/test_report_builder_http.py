"""`fw.desk.reportview.get` and `save_report` over HTTP: Frappe's `{keys, values}` answer, group-by
with an aggregate, 417 naming a bad field or aggregate, 403 for a field the caller may not read."""

from __future__ import annotations

import json

import httpx

from engine.context import Context
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import insert_notes, ok, refused

GET = "/api/method/fw.desk.reportview.get"


async def test_rows_and_groups(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    await insert_notes(ctx, {"title": "a", "status": "Open", "count": 2}, {"title": "b", "status": "Open", "count": 3},
                       {"title": "c", "status": "Closed", "count": 1})
    body = ok(await client.get(GET, params={"doctype": "Test Note", "fields": json.dumps(["title", "count"]),
                                            "order_by": "count asc"}, headers=admin.token))
    assert body["message"] == {"keys": ["title", "count"], "values": [["c", 1], ["a", 2], ["b", 3]]}
    body = ok(await client.post(GET, json={"doctype": "Test Note", "group_by": "status", "aggregate_function": "sum",
                                           "aggregate_on_field": "count"}, headers=admin.token))
    assert body["message"] == {"keys": ["status", "count", "_aggregate_column"],
                               "values": [["Open", 2, 5], ["Closed", 1, 1]]}


async def test_bad_input_names_the_field(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    body = refused(await client.post(GET, json={"doctype": "Test Note", "group_by": "no_such_field"},
                                     headers=admin.token), 417, "DataError")
    assert "no_such_field" in json.dumps(body)
    bad_sum = {"doctype": "Test Note", "group_by": "status", "aggregate_function": "sum", "aggregate_on_field": "title"}
    body = refused(await client.post(GET, json=bad_sum, headers=admin.token), 417, "DataError")
    assert "title" in json.dumps(body)
    body = refused(await client.post(GET, json={"doctype": "Test Note", "group_by": "status",
                                                "aggregate_function": "stddev"}, headers=admin.token), 417, "DataError")
    assert "stddev" in json.dumps(body)
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    body = refused(await client.post(GET, json={"doctype": "Test Note", "group_by": "reviewer_note"},
                                     headers=reader.token), 403, "PermissionError")
    assert "reviewer_note" in json.dumps(body)


async def test_save_report_needs_a_name(client: httpx.AsyncClient, admin: ApiUser) -> None:
    refused(await client.post("/api/method/fw.desk.reportview.save_report",
                              json={"name": " ", "doctype": "Test Note", "report_settings": {}}, headers=admin.token),
            417, "ValidationError")
    ok(await client.post("/api/method/fw.desk.reportview.save_report",
                         json={"name": "Notes", "doctype": "Test Note", "report_settings": {"fields": ["title"]}},
                         headers=admin.token))
    body = ok(await client.get("/api/method/fw.desk.reportview.get_reports", params={"doctype": "Test Note"},
                               headers=admin.token))
    assert body["message"] == [{"name": "Notes"}]
