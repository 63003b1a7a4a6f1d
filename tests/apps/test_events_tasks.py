"""doc_events, scheduled tasks and background jobs of workforce_scoring (contract §5 "Hooks"), with
jobs run in-process and scheduled tasks run by hand."""

from __future__ import annotations

from datetime import date
from typing import Any

import httpx
import pytest
from workforce_scoring import events, tasks
from workforce_scoring.scoring.calculation import previous_month

import engine as fw
from engine.context import unit_of_work
from engine.documents.factory import get_doc, new_doc
from engine.jobs.scheduler import sync_job_types
from engine.query.listing import get_all
from engine.site import Site
from tests.apps.conftest import Org, People, api_user, call, drain_jobs

APPLY = "fw.model.workflow.apply_workflow"


@pytest.fixture
def enqueued(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every `fw.enqueue` call, recorded (the jobs still run)."""
    calls: list[dict[str, Any]] = []
    real = fw.enqueue

    async def record(ctx: Any, method: str, **kwargs: Any) -> Any:
        calls.append({"method": method, **kwargs})
        return await real(ctx, method, **kwargs)

    monkeypatch.setattr(fw, "enqueue", record)
    return calls


@pytest.fixture
def realtime(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every `fw.publish_realtime` call, recorded instead of sent."""
    calls: list[dict[str, Any]] = []

    async def record(ctx: Any, event: str, message: Any = None, **kwargs: Any) -> None:
        calls.append({"event": event, "message": message, **kwargs})

    monkeypatch.setattr(fw, "publish_realtime", record)
    return calls


async def monthly(site: Site, employee: str, period: str) -> list[dict[str, Any]]:
    return await get_all(site.context(), "Employee Score", fields=["*"], filters={
        "employee": employee, "period_type": "Monthly", "period_value": period})


async def deliver(client: httpx.AsyncClient, people: People, code: str, days: list[tuple[str, float]]) -> None:
    r = await call(client, people.sysman, "workforce_scoring.api.external.receive_data",
                   data=[{"employee_code": code, "date": d, "value": v} for d, v in days])
    assert r.json()["message"]["errors"] == []


async def act(client: httpx.AsyncClient, user: Any, name: str, action: str) -> None:
    r = await call(client, user, APPLY, doc={"doctype": "Warehouse Violation", "name": name}, action=action)
    assert r.status_code == 200, r.text


async def test_confirming_and_waiving_a_violation_recalculate_the_month(
        client: httpx.AsyncClient, people: People, org: Org, ws: Site, enqueued: list[dict[str, Any]]) -> None:
    ada = org.emp("E-1001")
    await deliver(client, people, "E-1001", [("2024-03-01", 60), ("2024-03-02", 70)])
    r = await client.post("/api/resource/Warehouse Violation", headers=people.warehouse.token, json={
        "employee": ada, "date": "2024-03-20", "violation_type": "Missing Safety Gear"})
    name = r.json()["data"]["name"]
    await act(client, people.warehouse, name, "Submit for Review")
    assert enqueued == []  # no penalty change yet
    await act(client, people.hr, name, "Confirm")
    assert enqueued == [{"method": "workforce_scoring.tasks.recalculate_employee", "queue": "long", "timeout": 600,
                         "enqueue_after_commit": True, "employee": ada, "period_type": "Monthly",
                         "period_value": "2024-03"}]
    await drain_jobs(ws)
    [score] = await monthly(ws, ada, "2024-03")
    assert (score["value"], score["penalty_points"], score["days_counted"], score["docstatus"]) == (57.0, 8.0, 2, 0)
    await act(client, people.ada, name, "Appeal")  # 1 → 1: the penalty still counts, nothing to recalculate
    assert len(enqueued) == 1
    await act(client, people.hr, name, "Waive")  # cancelled: the penalty is withdrawn
    assert len(enqueued) == 2
    await drain_jobs(ws)
    [score] = await monthly(ws, ada, "2024-03")
    assert (score["value"], score["penalty_points"]) == (65.0, 0.0)


async def test_recalculation_never_overwrites_a_submitted_score(client: httpx.AsyncClient, people: People,
                                                               org: Org, ws: Site) -> None:
    ada = org.emp("E-1001")
    await deliver(client, people, "E-1001", [("2024-03-01", 60)])
    ctx = ws.context()
    async with unit_of_work(ctx):
        score = await new_doc(ctx, "Employee Score", employee=ada, period_type="Monthly", period_value="2024-03",
                              value=60, source="calculation").insert()
        await score.submit()
        violation = await new_doc(ctx, "Warehouse Violation", employee=ada, date="2024-03-05",
                                  violation_type="Blocked Aisle").insert()
        await violation.submit()
    await drain_jobs(ws)
    scores = await monthly(ws, ada, "2024-03")
    assert [(s["name"], s["value"], s["docstatus"]) for s in scores] == [(score.name, 60.0, 1)]


async def test_new_monthly_scores_notify_the_employee_in_their_language(people: People, org: Org, ws: Site) -> None:
    """The app's Notification "New Monthly Score" (a fixture, not code): a Notification Log for the
    bell and a queued mail, in the employee's language; an employee without a user hears nothing."""
    ctx = ws.context()
    async with unit_of_work(ctx):
        await new_doc(ctx, "Employee Score", employee=org.emp("E-1001"), period_type="Monthly",
                      period_value="2024-03", value=62.5, source="calculation").insert()
        await new_doc(ctx, "Employee Score", employee=org.emp("E-2001"), period_type="Monthly",
                      period_value="2024-03", value=10, source="calculation").insert()  # no user: no message
    await drain_jobs(ws)  # (a job queued with the commit sends the Notification)
    logs = await get_all(ctx, "Notification Log", fields=["for_user", "subject", "type", "document_type"])
    assert logs == [{"for_user": people.ada.email, "subject": "Your score for 2024-03 is 62.5 (Good)",
                     "type": "Alert", "document_type": "Employee Score"}]
    mails = await get_all(ctx, "Email Queue", pluck="subject", filters=[["reference_doctype", "=", "Employee Score"]])
    assert mails == ["Your score for 2024-03 is 62.5 (Good)"]
    german = await api_user(ctx, "hans@example.com", ["Employee"], language="de")
    employee = await get_doc(ctx, "Employee", org.emp("E-2001"))
    employee.user_id = german.email
    async with unit_of_work(ctx):
        await employee.save()
        await new_doc(ctx, "Employee Score", employee=org.emp("E-2001"), period_type="Monthly",
                      period_value="2024-04", value=80, source="calculation").insert()
    await drain_jobs(ws)
    [log] = await get_all(ctx, "Notification Log", fields=["subject"], filters=[["for_user", "=", german.email]])
    assert log["subject"] == "Ihre Bewertung für 2024-04 ist 80 (Ausgezeichnet)"


async def test_a_confirmed_violation_notifies_the_employee(people: People, org: Org, ws: Site) -> None:
    ctx = ws.context()
    violation = await new_doc(ctx, "Warehouse Violation", employee=org.emp("E-1001"), date="2024-03-05",
                              violation_type="Blocked Aisle").insert()
    await drain_jobs(ws)
    assert await get_all(ctx, "Notification Log") == []  # a draft is news to nobody
    await violation.submit()
    await drain_jobs(ws)  # (the submit's jobs: its Notification, and the score it recalculates, which has its own)
    logs = await get_all(ctx, "Notification Log", fields=["for_user", "subject", "document_type", "document_name"])
    assert sorted(entry["document_type"] for entry in logs) == ["Employee Score", "Warehouse Violation"]
    [log] = [entry for entry in logs if entry["document_type"] == "Warehouse Violation"]
    assert log["for_user"] == people.ada.email and log["document_name"] == violation.name
    assert log["subject"].startswith("Violation confirmed: ")
    assert await get_all(ctx, "Email Queue", pluck="subject",
                         filters=[["reference_doctype", "=", "Warehouse Violation"]]) == [log["subject"]]


async def test_calculate_current_month_by_hand(client: httpx.AsyncClient, people: People, org: Org, ws: Site,
                                               enqueued: list[dict[str, Any]]) -> None:
    today = date.today()
    month = today.strftime("%Y-%m")
    await deliver(client, people, "E-1001", [(today.isoformat(), 40)])
    await deliver(client, people, "E-2002", [(today.isoformat(), 90)])  # Left: not calculated
    ctx = ws.context()
    async with unit_of_work(ctx):  # a submitted score of this month stays as it is
        submitted = await new_doc(ctx, "Employee Score", employee=org.emp("E-1002"), period_type="Monthly",
                                  period_value=month, value=99, source="calculation").insert()
        await submitted.submit()
        await tasks.calculate_current_month(ctx)
    assert enqueued == [{"method": "workforce_scoring.tasks.calculate_period", "queue": "long", "timeout": 600,
                         "job_name": "Calculate current month's scores", "period_type": "Monthly",
                         "period_value": month}]
    await drain_jobs(ws)
    rows = await get_all(ctx, "Employee Score", fields=["employee", "value", "docstatus"],
                         filters={"period_type": "Monthly", "period_value": month}, order_by="employee asc")
    assert sorted((r["employee"], r["value"], r["docstatus"]) for r in rows) == sorted([
        (org.emp("E-1001"), 40.0, 0), (org.emp("E-1002"), 99.0, 1), (org.emp("E-2001"), 0.0, 0)])
    await deliver(client, people, "E-1001", [("2000-01-01", 1)])  # unrelated day: nothing changes
    result = await tasks.calculate_period(ws.context(), "Monthly", month)
    assert result == {"created": 0, "updated": 0, "unchanged": 2, "submitted": 1}


async def test_submit_previous_month_by_hand(people: People, org: Org, ws: Site) -> None:
    last = previous_month(date.today())
    ctx = ws.context()
    async with unit_of_work(ctx):
        drafts = [await new_doc(ctx, "Employee Score", employee=org.emp(code), period_type="Monthly",
                                period_value=last, value=50, source="calculation").insert()
                  for code in ("E-1001", "E-1002")]
        this_month = await new_doc(ctx, "Employee Score", employee=org.emp("E-1001"), period_type="Monthly",
                                   period_value=date.today().strftime("%Y-%m"), value=50).insert()
    async with unit_of_work(ctx):
        assert await tasks.submit_previous_month(ctx) == 2
    for doc in drafts:
        assert (await get_doc(ctx, "Employee Score", doc.name)).docstatus == 1
    assert (await get_doc(ctx, "Employee Score", this_month.name)).docstatus == 0
    async with unit_of_work(ctx):
        assert await tasks.submit_previous_month(ctx) == 0  # nothing left to submit


async def test_scheduler_events_are_registered(ws: Site) -> None:
    ours = {(e.frequency, e.cron, e.path) for e in ws.apps.scheduler_events if e.app == "workforce_scoring"}
    assert ours == {("daily", None, "workforce_scoring.tasks.calculate_current_month"),
                    ("cron", "0 3 1 * *", "workforce_scoring.tasks.submit_previous_month")}
    names = await sync_job_types(ws)
    assert "workforce_scoring.tasks.calculate_current_month" in names
    row = await ws.db.collection("scheduled_job_type").find_one(
        {"_id": "workforce_scoring.tasks.submit_previous_month (0 3 1 * *)"})
    assert row is not None and row["cron_format"] == "0 3 1 * *"


def test_doc_events_are_registered(ws: Site) -> None:
    assert ws.apps.handlers("Warehouse Violation", "on_submit")[0] is events.recalculate_for_violation
    assert ws.apps.handlers("Warehouse Violation", "on_cancel")[0] is events.recalculate_for_violation
    assert ws.apps.handlers("Employee Score", "after_insert") == ()  # its news is a Notification record
