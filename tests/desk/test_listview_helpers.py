"""The list's server helpers over HTTP (issue 14 point 3): per-user list settings (Frappe's
`frappe.model.utils.user_settings.get/save`: merged, per user, sent by getdoctype, bounded, only for
readable doctypes) and group-by counts (`frappe.desk.listview.get_group_by_count`: the caller's rows
under the list's filters, Link titles, refused for fields that cannot be grouped)."""

from __future__ import annotations

import json

import httpx

from tests.apps.conftest import Org, People, call
from tests.server.helpers import ok, refused

GET = "/api/method/fw.model.utils.user_settings.get"
SAVE = "fw.model.utils.user_settings.save"
COUNT = "/api/method/fw.desk.listview.get_group_by_count"


async def test_settings_are_saved_merged_and_per_user(client: httpx.AsyncClient, people: People, org: Org) -> None:
    assert ok(await client.get(GET, params={"doctype": "Employee"}, headers=people.hr.token))["message"] == "{}"
    saved = ok(await call(client, people.hr, SAVE, doctype="Employee",
                          user_settings=json.dumps({"List": {"filters": [["company", "=", "Acme Logistics"]]},
                                                    "last_view": "List"})))["message"]
    assert saved["last_view"] == "List"
    merged = ok(await call(client, people.hr, SAVE, doctype="Employee",
                           user_settings={"List": {"sort_by": "employee_name"}, "last_view": None}))["message"]
    assert merged == {"List": {"sort_by": "employee_name"}}  # top-level keys replaced, null removes
    stored = ok(await client.get(GET, params={"doctype": "Employee"}, headers=people.hr.token))["message"]
    assert json.loads(stored) == merged
    # another user's are their own
    assert ok(await client.get(GET, params={"doctype": "Employee"}, headers=people.manager.token))["message"] == "{}"
    # getdoctype sends them, as Frappe does (JSON text)
    meta = ok(await client.get("/api/method/fw.desk.form.load.getdoctype", params={"doctype": "Employee"},
                               headers=people.hr.token))
    assert json.loads(meta["user_settings"]) == merged


async def test_bad_settings_change_nothing(client: httpx.AsyncClient, people: People) -> None:
    refused(await call(client, people.hr, SAVE, doctype="Employee", user_settings="[1, 2]"), 417)
    refused(await call(client, people.hr, SAVE, doctype="Employee", user_settings="{oops"), 417)
    refused(await call(client, people.hr, SAVE, doctype="Employee", user_settings={"x": "y" * 70_000}), 417)
    refused(await call(client, people.hr, SAVE, doctype="No Such Type", user_settings={}), 404)
    refused(await call(client, people.ada, SAVE, doctype="Scoring Settings", user_settings={"a": 1}), 403)
    refused(await client.get(GET, params={"doctype": "Employee"}), 403)  # a guest
    assert ok(await client.get(GET, params={"doctype": "Employee"}, headers=people.hr.token))["message"] == "{}"


async def test_group_by_counts(client: httpx.AsyncClient, people: People, org: Org) -> None:
    body = ok(await client.get(COUNT, params={"doctype": "Employee", "field": "company"}, headers=people.hr.token))
    assert [(r["name"], r["count"]) for r in body["message"]] == [("Acme Logistics", 2), ("Borealis Freight", 2)]
    assert body["message"][0]["title"] == "Acme Logistics"  # Company's title field
    narrowed = ok(await client.get(COUNT, headers=people.hr.token, params={
        "doctype": "Employee", "field": "branch",
        "current_filters": json.dumps([["company", "=", "Borealis Freight"]])}))["message"]
    assert [(r["name"], r["count"]) for r in narrowed] == [("East Depot", 2)]
    owners = ok(await client.get(COUNT, params={"doctype": "Employee", "field": "owner"},
                                 headers=people.hr.token))["message"]
    assert sum(r["count"] for r in owners) == 4


async def test_group_by_refusals(client: httpx.AsyncClient, people: People) -> None:
    refused(await client.get(COUNT, params={"doctype": "Employee", "field": "employee_name"},
                             headers=people.hr.token), 417)  # a Data field
    refused(await client.get(COUNT, params={"doctype": "Employee", "field": "nope"}, headers=people.hr.token), 417)
    refused(await client.get(COUNT, params={"doctype": "No Such Type", "field": "x"}, headers=people.hr.token), 404)
    refused(await client.get(COUNT, params={"doctype": "Employee", "field": "company", "current_filters": "{oops"},
                             headers=people.hr.token), 417)
    refused(await client.get(COUNT, params={"doctype": "Scoring Settings", "field": "x"}, headers=people.ada.token),
            417)
