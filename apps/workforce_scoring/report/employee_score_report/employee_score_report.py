"""Employee Score Report: the Monthly scores of one period, best first, with a chart and a summary.

Filters (`fw.desk.query_report.run`, `filters`; declared in the report's JSON, their per-user
defaults from `filter_defaults`, both served by `fw.desk.query_report.get_script`):

| fieldname | type             | when absent                                                        |
|-----------|------------------|--------------------------------------------------------------------|
| company   | Link to Company  | the user's default company: their `is_default` User Permission on  |
|           |                  | Company, else their Employee's company, else the first one         |
| period    | Data, `YYYY-MM`  | the current month                                                  |

Pass `"company": ""` (or null) for every company. Rows come from `get_list` with the caller's
context, so the caller's row permissions apply: Employee Score's `permission_query_conditions` and
the caller's User Permissions (a manager restricted to one company sees that company's rows only).
"""

from __future__ import annotations

from datetime import date
from typing import Any

import engine as fw
from workforce_scoring.constants import EMPLOYEE, EMPLOYEE_SCORE
from workforce_scoring.scoring import service
from workforce_scoring.scoring.calculation import MONTHLY, period_of

CHART_ROWS = 10
CHART_COLOUR = "#2490EF"
GOOD_AVERAGE = 50


async def execute(filters: dict[str, Any] | None = None, ctx: fw.Context | None = None) -> tuple[Any, ...]:
    if ctx is None:
        raise RuntimeError("Employee Score Report needs the caller's context (run it through fw.desk.query_report.run)")
    filters = dict(filters or {})
    period = filters.get("period") or current_period()
    service.parse_period_or_throw(MONTHLY, period)
    company = filters["company"] if "company" in filters else await default_company(ctx)
    data = await rows(ctx, period, company)
    return columns(), data, None, chart(data), summary(data)


async def filter_defaults(ctx: fw.Context) -> dict[str, Any]:
    """The filter bar's defaults for the caller: the run's defaults when a filter is absent."""
    return {"company": await default_company(ctx), "period": current_period()}


def current_period() -> str:
    return period_of(MONTHLY, date.today())


async def default_company(ctx: fw.Context) -> str | None:
    """The company of the user's `is_default` User Permission on Company, else of their Employee record,
    else the first Company."""
    chosen = await fw.get_list(ctx, "User Permission", filters={"user": ctx.user, "allow": "Company", "is_default": 1},
                               pluck="for_value", limit_page_length=1)
    if chosen:
        return str(chosen[0])
    company = await fw.get_value(ctx, EMPLOYEE, {"user_id": ctx.user}, "company")
    return company or await fw.get_value(ctx, "Company", {}, "name", order_by="name asc")


def columns() -> list[dict[str, Any]]:
    return [
        {"fieldname": "employee", "label": fw._("Employee"), "fieldtype": "Link", "options": EMPLOYEE, "width": 120},
        {"fieldname": "value", "label": fw._("Value"), "fieldtype": "Float", "precision": 1, "width": 90},
    ]


async def rows(ctx: fw.Context, period: str, company: str | None) -> list[dict[str, Any]]:
    filters: list[list[Any]] = [["period_type", "=", MONTHLY], ["period_value", "=", period], ["docstatus", "!=", 2]]
    if company:
        filters.append(["company", "=", company])  # a value in a filter, never spliced into a query
    return await fw.get_list(ctx, EMPLOYEE_SCORE, filters=filters, order_by="value desc",
                             fields=["employee", "employee_name", "company", "value", "level"], limit_page_length=0)


def chart(data: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not data:
        return None
    top = data[:CHART_ROWS]
    return {
        "type": "bar",
        "data": {
            "labels": [row["employee_name"] or row["employee"] for row in top],
            "datasets": [{"name": fw._("Value"), "values": [row["value"] or 0 for row in top]}],
        },
        "colors": [CHART_COLOUR],
    }


def summary(data: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not data:
        return []
    average = round(sum(row["value"] or 0 for row in data) / len(data), 1)
    return [
        {"value": len(data), "label": fw._("Total"), "datatype": "Int", "indicator": "Blue"},
        {"value": average, "label": fw._("Average"), "datatype": "Float",
         "indicator": "Green" if average >= GOOD_AVERAGE else "Orange"},
    ]
