"""`calculate_for_employee` over HTTP: rules 1-7 of interface-spec and the formula of contract §5."""

from __future__ import annotations

import httpx

from engine.context import unit_of_work
from engine.documents.factory import get_doc, new_doc
from engine.query.listing import get_all
from engine.site import Site
from tests.apps.conftest import Org, People, call, drain_jobs

METHOD = "workforce_scoring.api.internal.calculate_for_employee"
RECEIVE = "workforce_scoring.api.external.receive_data"


async def deliver(client: httpx.AsyncClient, people: People, rows: list[tuple[str, str, float]]) -> None:
    r = await call(client, people.sysman, RECEIVE, data=[{"employee_code": c, "date": d, "value": v}
                                                          for c, d, v in rows])
    assert r.json()["message"]["errors"] == [], r.text


async def violation(site: Site, employee: str, date: str, vtype: str, points: float | None = None, *,
                    submit: bool = True, cancel: bool = False) -> str:
    """A violation; the period score its submit and cancel recalculate (test_events) is removed again,
    so these tests see calculate_for_employee's own results."""
    ctx = site.context()
    async with unit_of_work(ctx):
        doc = await new_doc(ctx, "Warehouse Violation", employee=employee, date=date, violation_type=vtype,
                            penalty_points=points).insert()
        if submit:
            await doc.submit()
        if cancel:
            await doc.cancel()
    await drain_jobs(site)
    await site.db.collection("employee_score").delete_many({"source": "calculation"})
    return doc.name


async def monthly(site: Site) -> list[dict]:
    return await get_all(site.context(), "Employee Score", fields=["*"], filters={"period_type": "Monthly"})


async def test_created_with_the_formula(client: httpx.AsyncClient, people: People, org: Org, ws: Site) -> None:
    ada = org.emp("E-1001")
    await deliver(client, people, [("E-1001", "2024-03-01", 60), ("E-1001", "2024-03-02", 70),
                                   ("E-1001", "2024-03-31", 80), ("E-1001", "2024-02-29", 10),  # not in March
                                   ("E-1001", "2024-04-01", 10), ("E-1002", "2024-03-01", 99)])
    await violation(ws, ada, "2024-03-10", "Blocked Aisle")  # 5 points from the type
    await violation(ws, ada, "2024-03-11", "Late Scan", 2.5)
    await violation(ws, ada, "2024-03-12", "Missing Safety Gear", submit=False)  # a draft does not count
    await violation(ws, ada, "2024-03-13", "Missing Safety Gear", cancel=True)  # nor a cancelled one
    await violation(ws, ada, "2024-04-01", "Missing Safety Gear")  # nor another month
    r = await call(client, people.hr, METHOD, employee=ada, period_type="Monthly", period_value="2024-03")
    assert r.status_code == 200, r.text
    body = r.json()["message"]
    assert body["status"] == "created" and body["name"].startswith("ES-")
    score = await get_doc(ws.context(), "Employee Score", body["name"])
    assert (score.employee, score.period_type, score.period_value, score.source) == (ada, "Monthly", "2024-03",
                                                                                     "calculation")
    assert score.days_counted == 3
    assert score.penalty_points == 7.5
    assert score.value == 62.5  # 70 - 7.5
    assert score.level == "good"
    assert (score.employee_name, score.company, score.branch) == ("Ada Lovelace", "Acme Logistics", "North Hub")
    assert score.docstatus == 0 and score.date is None


async def test_weekly_and_no_data(client: httpx.AsyncClient, people: People, org: Org, ws: Site) -> None:
    await deliver(client, people, [("E-2001", "2024-03-04", 40), ("E-2001", "2024-03-10", 50),
                                   ("E-2001", "2024-03-11", 90)])
    r = await call(client, people.hr, METHOD, employee=org.emp("E-2001"), period_type="Weekly",
                   period_value="2024-W10")
    score = await get_doc(ws.context(), "Employee Score", r.json()["message"]["name"])
    assert (score.days_counted, score.value, score.level) == (2, 45.0, "average")
    r = await call(client, people.hr, METHOD, employee=org.emp("E-1002"), period_type="Monthly",
                   period_value="2030-01")
    score = await get_doc(ws.context(), "Employee Score", r.json()["message"]["name"])
    assert (score.days_counted, score.value, score.penalty_points, score.level) == (0, 0.0, 0.0, "needs_improvement")


async def test_penalties_never_make_a_negative_score(client: httpx.AsyncClient, people: People, org: Org,
                                                    ws: Site) -> None:
    ada = org.emp("E-1001")
    await deliver(client, people, [("E-1001", "2024-03-01", 3)])
    await violation(ws, ada, "2024-03-02", "Missing Safety Gear")
    r = await call(client, people.hr, METHOD, employee=ada, period_type="Monthly", period_value="2024-03")
    score = await get_doc(ws.context(), "Employee Score", r.json()["message"]["name"])
    assert (score.value, score.penalty_points) == (0.0, 8.0)


async def test_thresholds_come_from_scoring_settings(client: httpx.AsyncClient, people: People, org: Org,
                                                    ws: Site) -> None:
    ctx = ws.context()
    settings = await get_doc(ctx, "Scoring Settings")
    settings.thresholds = [{"level": "needs_improvement", "min_pph": 0, "max_pph": 70},
                           {"level": "excellent", "min_pph": 70}]
    async with unit_of_work(ctx):
        await settings.save()
    await deliver(client, people, [("E-1001", "2024-03-01", 69.9), ("E-1002", "2024-03-01", 70)])
    for code, level in (("E-1001", "needs_improvement"), ("E-1002", "excellent")):
        r = await call(client, people.hr, METHOD, employee=org.emp(code), period_type="Monthly",
                       period_value="2024-03")
        assert (await get_doc(ctx, "Employee Score", r.json()["message"]["name"])).level == level


async def test_exists_updated_and_submitted(client: httpx.AsyncClient, people: People, org: Org, ws: Site) -> None:
    ada = org.emp("E-1001")
    args = {"employee": ada, "period_type": "Monthly", "period_value": "2024-03"}
    await deliver(client, people, [("E-1001", "2024-03-01", 40)])
    created = (await call(client, people.hr, METHOD, **args)).json()["message"]
    # rule 4: stored and no overwrite → exists, untouched
    await deliver(client, people, [("E-1001", "2024-03-02", 80)])
    r = await call(client, people.hr, METHOD, **args)
    assert r.json()["message"] == {"status": "exists", "name": created["name"]}
    assert (await get_doc(ws.context(), "Employee Score", created["name"])).value == 40.0
    # rule 6: overwrite an unsubmitted score → updated with the new values
    r = await call(client, people.hr, METHOD, **args, overwrite=True)
    assert r.json()["message"] == {"status": "updated", "name": created["name"]}
    score = await get_doc(ws.context(), "Employee Score", created["name"])
    assert (score.value, score.days_counted, score.level) == (60.0, 2, "good")
    assert len(await monthly(ws)) == 1
    # rule 5: a submitted score cannot be overwritten
    ctx = ws.context()
    async with unit_of_work(ctx):
        await score.submit()
    r = await call(client, people.hr, METHOD, **args, overwrite=True)
    assert r.status_code == 417
    assert r.json()["errors"][0]["message"] == "Cannot overwrite submitted record"
    r = await call(client, people.hr, METHOD, **args)  # without overwrite it simply exists
    assert r.json()["message"] == {"status": "exists", "name": created["name"]}
    # a cancelled score is history: the next calculation creates a new one
    async with unit_of_work(ctx):
        await (await get_doc(ctx, "Employee Score", created["name"])).cancel()
    r = await call(client, people.hr, METHOD, **args)
    assert r.json()["message"]["status"] == "created" and r.json()["message"]["name"] != created["name"]


async def test_overwrite_accepts_form_style_booleans(client: httpx.AsyncClient, people: People, org: Org) -> None:
    args = {"employee": org.emp("E-1001"), "period_type": "Monthly", "period_value": "2024-03"}
    await call(client, people.hr, METHOD, **args)
    r = await client.post(f"/api/method/{METHOD}", data={**args, "overwrite": "1"}, headers=people.hr.token)
    assert r.json()["message"]["status"] == "updated"


async def test_write_permission_is_required(client: httpx.AsyncClient, people: People, org: Org, ws: Site) -> None:
    args = {"employee": org.emp("E-1001"), "period_type": "Monthly", "period_value": "2024-03"}
    for user in (people.manager, people.warehouse, people.ada, people.stranger):
        r = await call(client, user, METHOD, **args)
        assert r.status_code == 403, user.email
        assert r.json()["exc_type"] == "PermissionError"
        assert r.json()["errors"][0]["message"] == "Permission denied"
    assert (await call(client, None, METHOD, **args)).status_code == 403  # Guest
    assert await monthly(ws) == []
    for user in (people.hr, people.sysman):  # HR Reviewer and System Manager may write
        assert (await call(client, user, METHOD, **args)).status_code == 200


async def test_bad_arguments(client: httpx.AsyncClient, people: People, org: Org, ws: Site) -> None:
    ada = org.emp("E-1001")
    cases = [({"employee": "HR-EMP-99999", "period_type": "Monthly", "period_value": "2024-03"}, 404, "not found"),
             ({"employee": ada, "period_type": "Yearly", "period_value": "2024"}, 417, "Period type"),
             ({"employee": ada, "period_type": "Monthly", "period_value": "2024-13"}, 417, "YYYY-MM"),
             ({"employee": ada, "period_type": "Weekly", "period_value": "2024-03"}, 417, "YYYY-Www"),
             ({"employee": ada, "period_type": "Monthly"}, 417, "period_value")]
    for args, status, words in cases:
        r = await call(client, people.hr, METHOD, **args)
        assert r.status_code == status, (args, r.text)
        assert words in r.json()["errors"][0]["message"], r.json()
    assert await monthly(ws) == []


async def test_get_is_not_allowed(client: httpx.AsyncClient, people: People, org: Org) -> None:
    r = await client.get(f"/api/method/{METHOD}", headers=people.hr.token, params={
        "employee": org.emp("E-1001"), "period_type": "Monthly", "period_value": "2024-03"})
    assert r.status_code == 403
