"""Scores of stored documents: the pure rules of `calculation` fed by database aggregations.

The daily values and penalty points of any number of employees come from two aggregation
pipelines (grouped by employee in MongoDB), never from loading documents into Python, so a whole
month for every employee costs two queries plus the writes.

One (employee, period) has at most one score that is not cancelled. Looking the score up before
writing it is not enough when two calculations run at once (a request and the daily job, two
violation jobs): both find none and both insert. So the Employee Score's `period_key` is unique in
MongoDB, and a calculation that loses that race starts over (`retry_on_clash`), now finding the
winner's score: `exists`, or an update of that draft.
"""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import engine as fw
from engine import exceptions as exc
from workforce_scoring.constants import (
    CALCULATION,
    DAILY,
    EMPLOYEE,
    EMPLOYEE_SCORE,
    EXTERNAL_SYSTEM,
    SCORING_SETTINGS,
    WAREHOUSE_VIOLATION,
)
from workforce_scoring.scoring.calculation import (
    PERIOD_FORMATS,
    PERIOD_TYPES,
    InvalidPeriodError,
    Period,
    parse_period,
    score_from_totals,
)

_THRESHOLDS_FLAG = "workforce_scoring.thresholds"
EMPLOYEE_FIELDS = ["name", "employee_name", "company", "branch"]
PERIOD_KEY = "period_key"
# a loser retries until the winner has committed: a few milliseconds, doubling (about 0.6 s in all)
CLASH_ATTEMPTS = 7
CLASH_BACKOFF = 0.01

T = TypeVar("T")


def parse_period_or_throw(period_type: str, period_value: str) -> Period:
    """The period, or a validation error the caller can show to the user."""
    try:
        return parse_period(period_type, period_value)
    except InvalidPeriodError:
        if period_type not in PERIOD_TYPES:
            raise exc.ValidationError(fw._("Period type must be one of {0}, not {1}", ", ".join(PERIOD_TYPES),
                                           period_type), field="period_type") from None
        raise exc.ValidationError(fw._("Invalid period {0}: a {1} period is written {2}", period_value, period_type,
                                       PERIOD_FORMATS[period_type]), field="period_value") from None


def period_key(employee: str | None, period_type: str | None, period_value: str | None) -> str | None:
    """The unique `period_key` of a period score (None for a day's value, which has no period)."""
    if not employee or not period_type or period_type == DAILY or not period_value:
        return None
    return f"{employee}|{period_type}|{period_value}"


async def retry_on_clash(ctx: fw.Context, attempt: Callable[[], Awaitable[T]]) -> T:
    """Run `attempt` (look the period scores up, write them, commit) and, when a concurrent
    calculation wrote one of them first, roll back and run it again: it then finds that score.

    The race shows as the unique `period_key` refusing the insert (the winner committed), a
    write conflict (it has not yet) or a changed `modified` (both updated one draft). Its writes
    are rolled back with the unit of work, so this retries only when the unit held nothing else:
    a caller's own uncommitted writes are never thrown away (that caller gets the error).
    """
    uow = ctx.uow
    if uow is not None and uow.writes:
        return await attempt()
    callbacks = list(uow.after_commit) if uow is not None else []
    messages = len(ctx.messages)
    for n in range(CLASH_ATTEMPTS):
        try:
            return await attempt()
        except (exc.UniqueValidationError, exc.TransientError, exc.TimestampMismatchError) as e:
            if n == CLASH_ATTEMPTS - 1 or (isinstance(e, exc.UniqueValidationError) and PERIOD_KEY not in e.fields):
                raise
        await ctx.rollback()
        if uow is not None:
            uow.after_commit = list(callbacks)  # what the caller queued before the attempt
        del ctx.messages[messages:]
        await asyncio.sleep(CLASH_BACKOFF * 2 ** n * random.uniform(0.5, 1.5))  # jitter: losers spread out
    raise AssertionError("unreachable")


async def thresholds(ctx: fw.Context) -> list[dict[str, Any]]:
    """The level bands of Scoring Settings (read once per context; empty means the defaults)."""
    cached = ctx.flags.get(_THRESHOLDS_FLAG)
    if cached is None:
        settings = await fw.get_doc(ctx, SCORING_SETTINGS)
        cached = ctx.flags[_THRESHOLDS_FLAG] = [
            {"level": row.level, "min_pph": row.min_pph, "max_pph": row.max_pph} for row in settings.thresholds]
    return cached  # type: ignore[no-any-return]


def forget_thresholds(ctx: fw.Context) -> None:
    ctx.flags.pop(_THRESHOLDS_FLAG, None)


async def compute(ctx: fw.Context, period: Period, employees: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The Employee Score fields of each employee (rows with EMPLOYEE_FIELDS) for `period`."""
    names = [row["name"] for row in employees]
    in_period = {"$gte": period.first_day, "$lte": period.last_day}
    daily = await fw.aggregate(ctx, EMPLOYEE_SCORE, [
        {"$match": {"employee": {"$in": names}, "source": EXTERNAL_SYSTEM, "date": in_period,
                    "docstatus": {"$ne": 2}}},
        {"$group": {"_id": "$employee", "days": {"$sum": 1}, "total": {"$sum": "$value"}}},
    ])
    penalties = await fw.aggregate(ctx, WAREHOUSE_VIOLATION, [
        {"$match": {"employee": {"$in": names}, "date": in_period, "docstatus": 1}},
        {"$group": {"_id": "$employee", "points": {"$sum": "$penalty_points"}}},
    ])
    days = {row["_id"]: row for row in daily}
    points = {row["_id"]: row["points"] for row in penalties}
    bands = await thresholds(ctx)
    scores: dict[str, dict[str, Any]] = {}
    for employee in employees:
        name = employee["name"]
        day_totals = days.get(name) or {"days": 0, "total": 0.0}
        score = score_from_totals(day_totals["days"], day_totals["total"], points.get(name, 0.0), bands)
        scores[name] = {
            "employee": name, "employee_name": employee.get("employee_name"), "company": employee.get("company"),
            "branch": employee.get("branch"), "period_type": period.period_type, "period_value": period.value,
            "source": CALCULATION, **score.as_fields(),
        }
    return scores


@dataclass(frozen=True)
class StoredScore:
    name: str
    docstatus: int


async def find_scores(ctx: fw.Context, employees: Iterable[str], period: Period) -> dict[str, StoredScore]:
    """The period score of each employee that has one (cancelled ones do not count; the oldest wins)."""
    rows = await fw.get_all(ctx, EMPLOYEE_SCORE, fields=["name", "employee", "docstatus"], filters=[
        ["employee", "in", list(employees)], ["period_type", "=", period.period_type],
        ["period_value", "=", period.value], ["docstatus", "!=", 2]], order_by="creation asc")
    found: dict[str, StoredScore] = {}
    for row in rows:
        found.setdefault(row["employee"], StoredScore(row["name"], int(row["docstatus"] or 0)))
    return found


async def employee_rows(ctx: fw.Context, filters: Any) -> list[dict[str, Any]]:
    return await fw.get_all(ctx, EMPLOYEE, fields=EMPLOYEE_FIELDS, filters=filters, order_by="name asc")


async def write_score(ctx: fw.Context, fields: dict[str, Any], existing: StoredScore | None) -> tuple[str, str]:
    """Insert the score, or update the existing draft; returns (status, name), status being
    `created`, `updated` or `unchanged`. Permissions are the caller's business."""
    if existing is None:
        doc = await fw.new_doc(ctx, EMPLOYEE_SCORE, fields).insert(ignore_permissions=True)
        return "created", doc.name
    doc = await fw.get_doc(ctx, EMPLOYEE_SCORE, existing.name)
    if all(doc.get(key) == value for key, value in fields.items()):
        return "unchanged", doc.name
    doc.update(fields)
    await doc.save(ignore_permissions=True)
    return "updated", doc.name


async def calculate_period(ctx: fw.Context, period: Period, employees: list[dict[str, Any]], *,
                           batch_size: int = 200) -> dict[str, int]:
    """Calculate and store `period` for many employees, never touching submitted scores.

    Works in batches: two aggregations and one lookup per batch, then the writes, then a commit
    (so a long run holds no long transaction and finished batches stay done). A batch that races
    another calculation of the same scores is rolled back and done again (`retry_on_clash`).
    """
    counts = {"created": 0, "updated": 0, "unchanged": 0, "submitted": 0}
    for start in range(0, len(employees), batch_size):
        batch = employees[start:start + batch_size]
        done = await retry_on_clash(ctx, functools.partial(_write_batch, ctx, period, batch))
        for status, n in done.items():
            counts[status] += n
    return counts


async def _write_batch(ctx: fw.Context, period: Period, batch: list[dict[str, Any]]) -> dict[str, int]:
    counts = {"created": 0, "updated": 0, "unchanged": 0, "submitted": 0}
    scores = await compute(ctx, period, batch)
    existing = await find_scores(ctx, scores, period)
    for name, fields in scores.items():
        current = existing.get(name)
        if current is not None and current.docstatus == 1:
            counts["submitted"] += 1
            continue
        status, _name = await write_score(ctx, fields, current)
        counts[status] += 1
    await ctx.commit()
    return counts
