"""`workforce_scoring.demo.load`: the demo data, loaded once (its CLI run is in test_tour.py)."""

from __future__ import annotations

from datetime import date

import pytest
from workforce_scoring import demo

from engine import exceptions as exc
from engine.context import unit_of_work
from engine.query.listing import count, get_all, get_list
from engine.site import Site
from tests.apps.conftest import drain_jobs


async def test_demo_data_loads_once(ws: Site) -> None:
    ctx = ws.context()
    async with unit_of_work(ctx):
        summary = await demo.load(ctx)
    await drain_jobs(ws)
    assert (summary["companies"], summary["branches"], summary["employees"]) == (2, 4, 200)
    assert await count(ctx, "Company") == 2 and await count(ctx, "Branch") == 4
    assert await count(ctx, "Employee") == 200
    daily = await count(ctx, "Employee Score", {"source": "external_system"})
    assert daily == summary["daily_values"] >= 196 * 60  # two complete months (59 days or more) and today
    states = set(await get_all(ctx, "Warehouse Violation", pluck="workflow_state"))
    assert states == {"Draft", "Pending", "Confirmed", "Appealed", "Waived"}
    this_month = date.today().strftime("%Y-%m")
    monthly = await get_all(ctx, "Employee Score", fields=["period_value", "docstatus"],
                            filters={"period_type": "Monthly"})
    assert len(monthly) == 3 * 200
    assert {row["docstatus"] for row in monthly if row["period_value"] == this_month} == {0}
    assert {row["docstatus"] for row in monthly if row["period_value"] != this_month} == {1}
    assert await ws.db.collection("error_log").count_documents({}) == 0
    # the Department Manager is restricted to the first company's scores, by a record
    manager = ws.context(demo.MANAGER)
    companies = {row["company"] for row in await get_list(manager, "Employee Score", fields=["company"],
                                                          limit_page_length=0)}
    assert companies == {next(iter(demo.COMPANIES))}
    assert await count(manager, "Employee") == 200  # the record applies to Employee Score only
    with pytest.raises(exc.ValidationError, match="already loaded"):
        async with unit_of_work(ctx):
            await demo.load(ctx)
    assert await count(ctx, "Employee") == 200
