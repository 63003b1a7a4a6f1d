"""Employee Score Report over HTTP (`fw.desk.query_report.run`): rows, columns, chart, summary,
defaults and access (interface-spec "Script report", contract §5)."""

from __future__ import annotations

from datetime import date
from typing import Any

import httpx
from workforce_scoring.report.employee_score_report import employee_score_report as report

from engine.context import unit_of_work
from engine.documents.factory import new_doc
from engine.site import Site
from tests.apps.conftest import Org, People, call, make_employee
from tests.server.conftest import ApiUser

RUN = "fw.desk.query_report.run"
NAME = "Employee Score Report"


async def score(site: Site, employee: str, value: float, *, period: str = "2024-03", period_type: str = "Monthly",
                docstatus: int = 0) -> str:
    ctx = site.context()
    async with unit_of_work(ctx):
        doc = await new_doc(ctx, "Employee Score", employee=employee, period_type=period_type, period_value=period,
                            value=value, source="calculation").insert()
        if docstatus >= 1:
            await doc.submit()
        if docstatus == 2:
            await doc.cancel()
    return doc.name


async def run(client: httpx.AsyncClient, user: ApiUser, filters: dict[str, Any] | None = None) -> httpx.Response:
    return await call(client, user, RUN, report_name=NAME, filters=filters if filters is not None else {})


async def seed(site: Site, org: Org) -> None:
    await score(site, org.emp("E-1001"), 62.5)
    # cancelled rows are not shown; cancelled first, as one period holds one score that is not cancelled
    await score(site, org.emp("E-1002"), 99, docstatus=2)
    await score(site, org.emp("E-1002"), 80, docstatus=1)  # submitted rows are shown
    await score(site, org.emp("E-2001"), 30)
    await score(site, org.emp("E-1001"), 95, period="2024-02")  # another period
    await score(site, org.emp("E-1001"), 97, period="2024-W10", period_type="Weekly")  # not a Monthly score


async def test_rows_columns_chart_and_summary(client: httpx.AsyncClient, people: People, org: Org,
                                              ws: Site) -> None:
    await seed(ws, org)
    r = await run(client, people.hr, {"company": "Acme Logistics", "period": "2024-03"})
    assert r.status_code == 200, r.text
    body = r.json()["message"]
    assert body["columns"] == [
        {"fieldname": "employee", "label": "Employee", "fieldtype": "Link", "options": "Employee", "width": 120},
        {"fieldname": "value", "label": "Value", "fieldtype": "Float", "precision": 1, "width": 90}]
    assert [(row["employee"], row["value"]) for row in body["result"]] == [(org.emp("E-1002"), 80.0),
                                                                           (org.emp("E-1001"), 62.5)]
    assert body["message"] is None
    assert body["chart"] == {"type": "bar", "data": {"labels": ["Grace Hopper", "Ada Lovelace"],
                                                     "datasets": [{"name": "Value", "values": [80.0, 62.5]}]},
                             "colors": [report.CHART_COLOUR]}
    assert body["report_summary"] == [
        {"value": 2, "label": "Total", "datatype": "Int", "indicator": "Blue"},
        {"value": 71.2, "label": "Average", "datatype": "Float", "indicator": "Green"}]


async def test_other_company_and_orange_average(client: httpx.AsyncClient, people: People, org: Org,
                                                ws: Site) -> None:
    await seed(ws, org)
    body = (await run(client, people.manager, {"company": "Borealis Freight", "period": "2024-03"})).json()["message"]
    assert [row["employee"] for row in body["result"]] == [org.emp("E-2001")]
    assert body["report_summary"][1] == {"value": 30.0, "label": "Average", "datatype": "Float",
                                         "indicator": "Orange"}
    every = (await run(client, people.manager, {"company": "", "period": "2024-03"})).json()["message"]
    assert [row["value"] for row in every["result"]] == [80.0, 62.5, 30.0]  # "" = every company


async def test_no_data(client: httpx.AsyncClient, people: People, org: Org, ws: Site) -> None:
    body = (await run(client, people.hr, {"company": "Acme Logistics", "period": "2030-01"})).json()["message"]
    assert (body["result"], body["chart"], body["report_summary"], body["message"]) == ([], None, [], None)


async def test_the_chart_shows_the_first_ten_rows(client: httpx.AsyncClient, people: People, org: Org,
                                                  ws: Site) -> None:
    ctx = ws.context()
    for i in range(12):
        async with unit_of_work(ctx):
            name = await make_employee(ctx, org, f"C-{i:02d}", f"Worker {i:02d}", "Acme Logistics", "North Hub")
        await score(ws, name, 40 + i)
    body = (await run(client, people.hr, {"company": "Acme Logistics", "period": "2024-03"})).json()["message"]
    assert len(body["result"]) == 12
    chart = body["chart"]
    assert chart["data"]["labels"] == [f"Worker {i:02d}" for i in range(11, 1, -1)]
    assert chart["data"]["datasets"] == [{"name": "Value", "values": [float(40 + i) for i in range(11, 1, -1)]}]
    assert len(chart["colors"]) == 1
    assert body["report_summary"][0]["value"] == 12
    assert body["report_summary"][1]["value"] == 45.5 and body["report_summary"][1]["indicator"] == "Orange"


async def test_defaults_current_month_and_the_users_company(client: httpx.AsyncClient, people: People, org: Org,
                                                            ws: Site) -> None:
    this_month = date.today().strftime("%Y-%m")
    await score(ws, org.emp("E-1001"), 70, period=this_month)
    await score(ws, org.emp("E-2001"), 60, period=this_month)
    # Administrator has no Employee: the first Company (by name), Acme Logistics
    body = (await run(client, people.sysman, None)).json()["message"]
    assert [row["employee"] for row in body["result"]] == [org.emp("E-1001")]
    # a reviewer who is an employee of Borealis Freight defaults to that company
    ctx = ws.context()
    async with unit_of_work(ctx):
        await make_employee(ctx, org, "E-2003", "Reviewer", "Borealis Freight", "East Depot", user=people.hr.email)
    body = (await run(client, people.hr, {})).json()["message"]
    assert [row["employee"] for row in body["result"]] == [org.emp("E-2001")]


async def test_a_user_permission_restricts_the_rows_and_gives_the_default_company(
        client: httpx.AsyncClient, people: People, org: Org, ws: Site) -> None:
    await seed(ws, org)
    ctx = ws.context()
    async with unit_of_work(ctx):
        await new_doc(ctx, "User Permission", user=people.manager.email, allow="Company", for_value="Borealis Freight",
                      apply_to_all_doctypes=0, applicable_for="Employee Score", is_default=1).insert()
    body = (await run(client, people.manager, {"period": "2024-03"})).json()["message"]  # the default company
    assert [row["employee"] for row in body["result"]] == [org.emp("E-2001")]
    every = (await run(client, people.manager, {"company": "", "period": "2024-03"})).json()["message"]
    assert [row["employee"] for row in every["result"]] == [org.emp("E-2001")]  # "every company" they may see
    other = (await run(client, people.manager, {"company": "Acme Logistics", "period": "2024-03"})).json()["message"]
    assert other["result"] == []
    assert (await report.filter_defaults(ws.context(people.manager.email)))["company"] == "Borealis Freight"
    # the reviewer, unrestricted, still sees every company
    assert len((await run(client, people.hr, {"company": "", "period": "2024-03"})).json()["message"]["result"]) == 3


async def test_access_by_role(client: httpx.AsyncClient, people: People, org: Org, ws: Site) -> None:
    await seed(ws, org)
    for user in (people.hr, people.manager, people.sysman):
        assert (await run(client, user, {"period": "2024-03"})).status_code == 200, user.email
    for user in (people.warehouse, people.ada, people.stranger):
        r = await run(client, user, {"period": "2024-03"})
        assert r.status_code == 403, user.email
    assert (await call(client, None, RUN, report_name=NAME)).status_code == 403


async def test_rows_obey_the_callers_row_permissions(people: People, org: Org, ws: Site) -> None:
    """execute() reads through get_list with the caller's context, so a restricted caller sees
    only their own rows (here an Employee, calling the report module directly)."""
    await seed(ws, org)
    ctx = ws.context(people.ada.email)
    _columns, data, _message, _chart, _summary = await report.execute({"company": "", "period": "2024-03"}, ctx=ctx)
    assert [row["employee"] for row in data] == [org.emp("E-1001")]
    stranger = ws.context(people.stranger.email)
    assert (await report.execute({"company": "", "period": "2024-03"}, ctx=stranger))[1] == []


async def test_filters_are_values_never_query_operators(client: httpx.AsyncClient, people: People, org: Org,
                                                        ws: Site) -> None:
    await seed(ws, org)
    r = await run(client, people.hr, {"company": {"$ne": None}, "period": "2024-03"})
    assert r.status_code == 417
    r = await run(client, people.hr, {"company": "Acme Logistics' OR '1'='1", "period": "2024-03"})
    assert r.json()["message"]["result"] == []
    r = await run(client, people.hr, {"period": "March"})
    assert r.status_code == 417 and "YYYY-MM" in r.json()["errors"][0]["message"]
