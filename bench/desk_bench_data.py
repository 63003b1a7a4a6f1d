"""The data bench/desk_bench.py's report and bulk-action timings need, on top of the demo data
(`fw execute bench.desk_bench_data.load`):

- REPORT_ROWS new employees of the first company (the demo reviewer's default company) with a
  Monthly score each for REPORT_PERIOD, so the Employee Score Report of that period has 1,000 rows;
- BULK_ROWS Draft Warehouse Violations dated BULK_DATE, for a bulk "Submit for Review" from the list.

Inserted with `insert_many` (one bulk write per doctype), so the set-up costs seconds, not minutes.
"""

from __future__ import annotations

from typing import Any

import engine as fw
from engine import exceptions as exc

REPORT_PERIOD = "2019-01"
REPORT_ROWS = 1000
BULK_DATE = "2019-01-15"
BULK_ROWS = 200


def _names(result: Any, doctype: str, expected: int) -> list[str]:
    if result.failed or result.duplicates or len(result.names) != expected:
        raise exc.ValidationError(f"bench data: {doctype} not inserted: {next(iter(result.failed.values()), '')}")
    return [result.names[i] for i in sorted(result.names)]


async def load(ctx: fw.Context) -> dict[str, Any]:
    # (imported here: bench/desk_bench.py reads this module's constants without the apps on its path)
    from workforce_scoring.scoring import service
    from workforce_scoring.scoring.calculation import MONTHLY
    from workforce_scoring.scoring.levels import classify_level

    company = await fw.get_value(ctx, "Company", {}, "name", order_by="name asc")
    branch = await fw.get_value(ctx, "Branch", {"company": company}, "name", order_by="name asc")
    people = [{"employee_name": f"Bench Person {i:04d}", "employee_number": f"B-{i:04d}", "company": company,
               "branch": branch, "status": "Active"} for i in range(REPORT_ROWS)]
    employees = _names(await fw.insert_many(ctx, "Employee", people), "Employee", REPORT_ROWS)
    bands = await service.thresholds(ctx)
    scores = []
    for i, employee in enumerate(employees):
        value = float((i * 37) % 100)
        scores.append({"employee": employee, "company": company, "branch": branch, "period_type": MONTHLY,
                       "period_value": REPORT_PERIOD, "source": "calculation", "value": value,
                       "level": classify_level(value, bands),
                       "period_key": service.period_key(employee, MONTHLY, REPORT_PERIOD)})
    _names(await fw.insert_many(ctx, "Employee Score", scores), "Employee Score", REPORT_ROWS)
    kind = await fw.get_value(ctx, "Warehouse Violation Type", {}, "name", order_by="name asc")
    rows = [{"employee": employees[i % len(employees)], "date": BULK_DATE, "violation_type": kind}
            for i in range(BULK_ROWS)]
    _names(await fw.insert_many(ctx, "Warehouse Violation", rows), "Warehouse Violation", BULK_ROWS)
    return {"company": company, "report_rows": REPORT_ROWS, "bulk_rows": BULK_ROWS}
