"""`fw.desk.query_report.get_script` (desk.md §6, Frappe's `frappe.desk.query_report.get_script`):
a report's filter definitions from its JSON (defaults resolved per user by the report's
`filter_defaults`) or from its `<report>.js` (text and a versioned URL the Desk loads under its CSP),
refused as running the report is; bad definitions stop the app loading; documented in the OpenAPI."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import httpx
import pytest

from engine import exceptions as exc
from engine.reports.filters import parse_filters
from tests.apps.conftest import Org, People, link_user
from tests.server.conftest import ApiUser
from tests.server.helpers import ok, refused

GET_SCRIPT = "/api/method/fw.desk.query_report.get_script"
SCORES = "Employee Score Report"


async def get_script(client: httpx.AsyncClient, user: ApiUser | None, report: str, **headers: str) -> httpx.Response:
    auth = user.token if user else {}
    return await client.get(GET_SCRIPT, params={"report_name": report}, headers={**auth, **headers})


async def test_employee_score_report_filters_and_defaults(client: httpx.AsyncClient, people: People, org: Org,
                                                          ws: object) -> None:
    body = ok(await get_script(client, people.hr, SCORES))["message"]
    month = date.today().strftime("%Y-%m")
    assert body["filters"] == [
        {"fieldname": "company", "label": "Company", "fieldtype": "Link", "options": "Company", "reqd": 0,
         "default": "Acme Logistics"},  # no Employee of their own: the first Company
        {"fieldname": "period", "label": "Period", "fieldtype": "Data", "reqd": 1, "default": month},
    ]
    assert body["report_name"] == SCORES and body["ref_doctype"] == "Employee Score"
    assert body["script"] == "" and body["script_url"] is None and body["add_total_row"] == 0
    # a user whose Employee works for Borealis Freight gets that company
    await link_user(ws.context("Administrator"), org.emp("E-2001"), people.manager.email)  # type: ignore[attr-defined]
    body = ok(await get_script(client, people.manager, SCORES))["message"]
    assert body["filters"][0]["default"] == "Borealis Freight"
    # labels in the user's language
    german = ok(await get_script(client, people.hr, SCORES, **{"Accept-Language": "de"}))["message"]
    assert [f["label"] for f in german["filters"]] == ["Unternehmen", "Zeitraum"]
    assert german["__messages"] == {SCORES: "Bericht Mitarbeiterbewertungen"}


async def test_the_defaults_are_what_a_run_without_filters_uses(client: httpx.AsyncClient, people: People) -> None:
    defaults = {f["fieldname"]: f["default"]
                for f in ok(await get_script(client, people.hr, SCORES))["message"]["filters"]}
    bare = ok(await client.post("/api/method/fw.desk.query_report.run", json={"report_name": SCORES, "filters": {}},
                                headers=people.hr.token))["message"]
    explicit = ok(await client.post("/api/method/fw.desk.query_report.run",
                                    json={"report_name": SCORES, "filters": defaults}, headers=people.hr.token))
    assert bare["result"] == explicit["message"]["result"]


async def test_refused_to_whom_the_report_is_refused(client: httpx.AsyncClient, people: People) -> None:
    refused(await get_script(client, people.ada, SCORES), 403, "PermissionError")  # an Employee
    refused(await get_script(client, people.warehouse, SCORES), 403, "PermissionError")
    refused(await get_script(client, None, SCORES), 403)  # a guest
    refused(await get_script(client, people.hr, "No Such Report"), 404, "DoesNotExistError")
    ok(await get_script(client, people.manager, SCORES))
    # the frappe.* path is the same function
    ok(await client.get("/api/method/frappe.desk.query_report.get_script", params={"report_name": SCORES},
                        headers=people.hr.token))


async def test_filters_declared_in_the_reports_js(client: httpx.AsyncClient, admin: ApiUser) -> None:
    body = ok(await get_script(client, admin, "Test Note Summary", **{"Accept-Language": "de"}))["message"]
    assert body["filters"] == []
    assert 'frappe.query_reports["Test Note Summary"]' in body["script"]
    assert body["script_url"].startswith("/assets/desk/report-script/Test%20Note%20Summary.js?v=")
    assert body["__messages"] == {"Note Status": "Notizstatus"}
    script = await client.get(body["script_url"], headers=admin.token)
    assert script.status_code == 200 and script.text == body["script"]
    assert script.headers["content-type"].startswith("text/javascript")
    assert "immutable" in script.headers["cache-control"]
    again = await client.get(body["script_url"], headers={**admin.token, "If-None-Match": script.headers["etag"]})
    assert again.status_code == 304


async def test_the_script_url_is_refused_to_others(client: httpx.AsyncClient, admin: ApiUser, people: People) -> None:
    url = ok(await get_script(client, admin, "Test Note Summary"))["message"]["script_url"]
    assert (await client.get(url, headers=people.ada.token)).status_code == 403
    assert (await client.get(url)).status_code == 403
    assert (await client.get("/assets/desk/report-script/Nope.js", headers=admin.token)).status_code == 404
    # a report without a script
    assert (await client.get(f"/assets/desk/report-script/{SCORES}.js", headers=admin.token)).status_code == 404


@pytest.mark.parametrize("filters, message", [
    ({"fieldname": "x"}, "must be a list"),
    ([{"label": "No name"}], "snake_case fieldname"),
    ([{"fieldname": "Bad Name"}], "snake_case fieldname"),
    ([{"fieldname": "x", "fieldtype": "Table"}], "unknown fieldtype"),
    ([{"fieldname": "x", "fieldtype": "Link"}], "needs options"),
    ([{"fieldname": "x"}, {"fieldname": "x"}], "declared twice"),
    ([{"fieldname": "x", "on_change": "alert(1)"}], "unknown keys"),
])
def test_bad_definitions_name_the_file(filters: object, message: str) -> None:
    with pytest.raises(exc.ConfigurationError, match=message) as raised:
        parse_filters(filters, Path("apps/x/report/r/r.json"))
    assert "r.json" in str(raised.value)


def test_good_definitions_are_normalised() -> None:
    parsed = parse_filters(json.loads('[{"fieldname": "from_date", "fieldtype": "Date", "default": "Today"}]'),
                           Path("r.json"))
    assert parsed == ({"fieldname": "from_date", "fieldtype": "Date", "default": "Today", "label": "from_date",
                       "reqd": 0},)


async def test_documented_in_the_openapi(client: httpx.AsyncClient) -> None:
    spec = ok(await client.get("/api/openapi.json"))
    operation = spec["paths"]["/api/method/fw.desk.query_report.get_script"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {"report_name"}
    assert "filters" in operation["description"]
