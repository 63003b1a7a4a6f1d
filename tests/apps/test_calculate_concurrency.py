"""One score per (employee, period), even when calculations race: concurrent calculate_for_employee
requests and jobs, the unique `period_key` behind them, and its backfill on migrate."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from workforce_scoring import tasks
from workforce_scoring.api.internal import calculate_for_employee
from workforce_scoring.install import key_period_scores
from workforce_scoring.scoring import service

from engine import exceptions as exc
from engine.context import unit_of_work
from engine.documents.factory import get_doc, new_doc
from engine.query.listing import get_all
from engine.site import Site
from tests.apps.conftest import Org, People, call, drain_jobs
from tests.apps.test_calculate import METHOD, deliver, violation

CALLS = 5


async def period_scores(site: Site, employee: str, period: str = "2024-03") -> list[dict[str, Any]]:
    """The employee's Monthly scores of `period` that are not cancelled."""
    return await get_all(site.context(), "Employee Score", fields=["*"], filters=[
        ["employee", "=", employee], ["period_type", "=", "Monthly"], ["period_value", "=", period],
        ["docstatus", "!=", 2]])


async def seed_march(client: httpx.AsyncClient, people: People, org: Org, ws: Site) -> str:
    """Ada's March: days 60 and 70, a 5-point violation → value 60.0, level good."""
    ada = org.emp("E-1001")
    await deliver(client, people, [("E-1001", "2024-03-01", 60), ("E-1001", "2024-03-02", 70)])
    await violation(ws, ada, "2024-03-10", "Blocked Aisle")
    return ada


def assert_march_totals(score: dict[str, Any], ada: str) -> None:
    assert (score["employee"], score["source"], score["docstatus"]) == (ada, "calculation", 0)
    assert (score["days_counted"], score["penalty_points"], score["value"], score["level"]) == (2, 5.0, 60.0, "good")
    assert score["period_key"] == f"{ada}|Monthly|2024-03"


@pytest.mark.parametrize("overwrite", [False, True])
async def test_concurrent_requests_store_one_score(client: httpx.AsyncClient, people: People, org: Org, ws: Site,
                                                   overwrite: bool) -> None:
    ada = await seed_march(client, people, org, ws)
    args = {"employee": ada, "period_type": "Monthly", "period_value": "2024-03", "overwrite": overwrite}
    users = [people.hr, people.sysman] * CALLS
    results = await asyncio.gather(*(call(client, user, METHOD, **args) for user in users[:CALLS]))
    assert all(r.status_code == 200 for r in results), [r.text for r in results]
    bodies = [r.json()["message"] for r in results]
    stored = await period_scores(ws, ada)
    assert len(stored) == 1, stored
    assert_march_totals(stored[0], ada)
    # the losers answer as if they had come second: `exists`, or `updated` (nothing changed) with overwrite
    assert sorted(b["status"] for b in bodies) == ["created"] + ["updated" if overwrite else "exists"] * (CALLS - 1)
    assert {b["name"] for b in bodies} == {stored[0]["name"]}


async def test_requests_and_jobs_racing_store_one_score(client: httpx.AsyncClient, people: People, org: Org,
                                                        ws: Site) -> None:
    """calculate_for_employee, the period job and a violation's recalculation job, each in its own
    context and unit of work, all at once."""
    ada = await seed_march(client, people, org, ws)

    async def request() -> dict[str, Any]:
        ctx = ws.context(people.hr.email)
        async with unit_of_work(ctx):
            return await calculate_for_employee(ctx, employee=ada, period_type="Monthly", period_value="2024-03")

    async def job(employees: list[str] | None) -> dict[str, int]:
        ctx = ws.context()
        async with unit_of_work(ctx):
            return await tasks.calculate_period(ctx, "Monthly", "2024-03", employees)

    first, *_jobs, second = await asyncio.gather(request(), job(None), job([ada]), job([ada]), request())
    stored = await period_scores(ws, ada)
    assert len(stored) == 1, stored
    assert_march_totals(stored[0], ada)
    assert first["name"] == second["name"] == stored[0]["name"]
    for code in ("E-1002", "E-2001"):  # the whole-period job scored the other active employees once each
        assert len(await period_scores(ws, org.emp(code))) == 1


async def test_the_unique_period_key_holds_without_the_application_check(org: Org, ws: Site) -> None:
    """A second score of one period cannot be stored, whatever writes it; cancelling frees the period,
    and the cancelled score's amendment takes it."""
    ctx = ws.context()
    row = {"employee": org.emp("E-1001"), "period_type": "Monthly", "period_value": "2024-03", "value": 50}
    async with unit_of_work(ctx):
        first = await new_doc(ctx, "Employee Score", {**row, "source": "calculation"}).insert()
    for source in ("calculation", None):  # a manual score of the period is the period's score too
        with pytest.raises(exc.UniqueValidationError) as raised:
            async with unit_of_work(ctx):
                await new_doc(ctx, "Employee Score", {**row, "source": source}).insert()
        assert raised.value.field == "period_key"
        # the index starts with the employee (a shard key's prefix, docs/scaling.md): both are named
        assert raised.value.fields == ("employee", "period_key")
        assert "must be unique together" in raised.value.message
    async with unit_of_work(ctx):  # another period, a weekly score and day values are free
        await new_doc(ctx, "Employee Score", {**row, "period_value": "2024-04"}).insert()
        await new_doc(ctx, "Employee Score", {**row, "period_type": "Weekly", "period_value": "2024-W10"}).insert()
        for _ in range(2):
            day = await new_doc(ctx, "Employee Score", {**row, "period_type": "Daily", "period_value": None}).insert()
            assert day.period_key is None
    async with unit_of_work(ctx):
        await first.submit()
        await first.cancel()
    assert (await get_doc(ctx, "Employee Score", first.name)).period_key is None
    async with unit_of_work(ctx):
        amended = await new_doc(ctx, "Employee Score", {**row, "source": "calculation",
                                                        "amended_from": first.name}).insert()
    assert amended.period_key == f"{org.emp('E-1001')}|Monthly|2024-03"


async def test_a_caller_with_pending_writes_gets_the_clash_instead_of_a_retry(org: Org, ws: Site) -> None:
    """Retrying means rolling the unit of work back: never done over a caller's own unsaved work."""
    ada = org.emp("E-1001")
    winner = ws.context()
    async with unit_of_work(winner):
        await calculate_for_employee(winner, employee=ada, period_type="Monthly", period_value="2024-03")
    attempts = 0

    async def attempt() -> None:
        nonlocal attempts
        attempts += 1
        await new_doc(ctx, "Employee Score", employee=ada, period_type="Monthly", period_value="2024-03").insert()

    ctx = ws.context()
    with pytest.raises(exc.UniqueValidationError):
        async with unit_of_work(ctx):
            await new_doc(ctx, "Warehouse Violation Type", violation_type="Pending Write").insert()
            await service.retry_on_clash(ctx, attempt)
    assert attempts == 1
    assert len(await period_scores(ws, ada)) == 1


async def test_migrate_keys_the_scores_stored_before_the_key(org: Org, ws: Site) -> None:
    """Scores stored without `period_key` get it on migrate: the oldest of a period only, never a
    cancelled one; running it again changes nothing."""
    ada, grace = org.emp("E-1001"), org.emp("E-1002")
    ctx = ws.context()
    async with unit_of_work(ctx):
        names = [(await new_doc(ctx, "Employee Score", employee=employee, period_type="Monthly", period_value=period,
                                value=50, source="calculation").insert()).name
                 for employee, period in ((ada, "2024-03"), (grace, "2024-03"), (ada, "2024-04"))]
        cancelled = await new_doc(ctx, "Employee Score", employee=grace, period_type="Monthly",
                                  period_value="2024-05", value=1).insert()
        await cancelled.submit()
        await cancelled.cancel()
    coll = ws.db.collection("employee_score")
    await coll.update_many({}, {"$unset": {"period_key": ""}})  # as stored before the field existed
    # a duplicate of Ada's March, stored back then (later than the first)
    duplicate = {**(await coll.find_one({"_id": names[0]})), "_id": "ES-LEGACY-1", "creation": "2099-01-01 00:00:00"}
    await coll.insert_one(duplicate)
    async with unit_of_work(ctx):
        assert await key_period_scores(ctx) == 3
    keys = {row["_id"]: row.get("period_key") async for row in coll.find({}, {"period_key": 1})}
    assert keys[names[0]] == f"{ada}|Monthly|2024-03"
    assert keys[names[1]] == f"{grace}|Monthly|2024-03"
    assert keys[names[2]] == f"{ada}|Monthly|2024-04"
    assert keys["ES-LEGACY-1"] is None and keys[cancelled.name] is None
    async with unit_of_work(ctx):
        assert await key_period_scores(ctx) == 0
    await drain_jobs(ws)
