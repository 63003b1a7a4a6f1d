"""Background and scheduled jobs (see hooks.py). Each can be run by hand:

    fw execute workforce_scoring.tasks.calculate_current_month
    fw execute workforce_scoring.tasks.submit_previous_month
    fw execute workforce_scoring.tasks.calculate_period --kwargs '{"period_type": "Monthly", "period_value": "2024-03"}'

Jobs run as the user who enqueued them (the scheduler's as Administrator) but act for the
system, so they write ignoring that user's permissions. Each commits its work in batches.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import engine as fw
from workforce_scoring.constants import EMPLOYEE_SCORE
from workforce_scoring.scoring import service
from workforce_scoring.scoring.calculation import MONTHLY, period_of, previous_month

JOB_TIMEOUT = 600
SUBMIT_BATCH = 200


async def calculate_current_month(ctx: fw.Context) -> str | None:
    """Daily: enqueue this month's calculation for every active employee (on queue `long`)."""
    return await fw.enqueue(ctx, "workforce_scoring.tasks.calculate_period", queue="long", timeout=JOB_TIMEOUT,
                            job_name="Calculate current month's scores", period_type=MONTHLY,
                            period_value=period_of(MONTHLY, date.today()))


async def calculate_period(ctx: fw.Context, period_type: str, period_value: str,
                           employees: list[str] | None = None) -> dict[str, int]:
    """The period's scores of the given employees (default: every active one). Drafts are
    recalculated, submitted scores are left alone; returns how many were created, updated..."""
    period = service.parse_period_or_throw(period_type, period_value)
    filters: Any = {"status": "Active"} if employees is None else [["name", "in", employees]]
    return await service.calculate_period(ctx, period, await service.employee_rows(ctx, filters))


async def recalculate_employee(ctx: fw.Context, employee: str, period_type: str, period_value: str) -> dict[str, int]:
    """One employee's period score (after a violation of theirs was confirmed or withdrawn)."""
    return await calculate_period(ctx, period_type, period_value, [employee])


async def submit_previous_month(ctx: fw.Context) -> int:
    """On the 1st: last month's draft Monthly scores become final. Returns how many were submitted."""
    period = previous_month(date.today())
    names = await fw.get_all(ctx, EMPLOYEE_SCORE, pluck="name", order_by="name asc", filters=[
        ["period_type", "=", MONTHLY], ["period_value", "=", period], ["docstatus", "=", 0]])
    for count, name in enumerate(names, start=1):
        doc = await fw.get_doc(ctx, EMPLOYEE_SCORE, name)
        await doc.submit(ignore_permissions=True)
        if count % SUBMIT_BATCH == 0:
            await ctx.commit()
    await ctx.commit()
    return len(names)
