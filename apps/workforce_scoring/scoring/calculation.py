"""The period score of one employee (contract §5), as pure functions over plain data.

    average        = mean of the employee's daily external values in the period (0 without any)
    penalty_points = sum of the penalty points of their submitted violations in the period
    value          = max(0, round(average - penalty_points, 1))
    level          = classify_level(value, thresholds)

Periods are `Monthly` (`YYYY-MM`) or `Weekly` (ISO week `YYYY-Www`, Monday to Sunday). Dates are
compared as `YYYY-MM-DD` text, which is how the engine stores them (so text order is date order).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from typing import Any

from workforce_scoring.scoring.levels import classify_level

MONTHLY = "Monthly"
WEEKLY = "Weekly"
PERIOD_TYPES: tuple[str, ...] = (MONTHLY, WEEKLY)
PERIOD_FORMATS = {MONTHLY: "YYYY-MM", WEEKLY: "YYYY-Www"}

_MONTH = re.compile(r"(\d{4})-(\d{2})")
_WEEK = re.compile(r"(\d{4})-W(\d{2})")


class InvalidPeriodError(ValueError):
    """A period type or value that does not name a period (the caller turns it into a user message)."""

    def __init__(self, period_type: Any, period_value: Any) -> None:
        self.period_type = period_type
        self.period_value = period_value
        expected = PERIOD_FORMATS.get(period_type, " or ".join(PERIOD_TYPES))
        super().__init__(f"invalid period {period_value!r} for period type {period_type!r} (expected {expected})")


@dataclass(frozen=True)
class Period:
    period_type: str
    value: str
    start: date
    end: date  # inclusive

    @property
    def first_day(self) -> str:
        return self.start.isoformat()

    @property
    def last_day(self) -> str:
        return self.end.isoformat()

    def contains(self, day: str) -> bool:
        return self.first_day <= day <= self.last_day


def parse_period(period_type: str, period_value: str) -> Period:
    """The period named by (`Monthly`, `2024-03`) or (`Weekly`, `2024-W09`)."""
    text = period_value.strip() if isinstance(period_value, str) else ""
    if period_type == MONTHLY and (m := _MONTH.fullmatch(text)) and 1 <= int(m.group(2)) <= 12:
        start = date(int(m.group(1)), int(m.group(2)), 1)
        following = date(start.year + start.month // 12, start.month % 12 + 1, 1)
        return Period(MONTHLY, text, start, following - timedelta(days=1))
    if period_type == WEEKLY and (m := _WEEK.fullmatch(text)):
        try:
            start = date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
        except ValueError:  # week 00, or week 53 of a 52-week year
            raise InvalidPeriodError(period_type, period_value) from None
        return Period(WEEKLY, text, start, start + timedelta(days=6))
    raise InvalidPeriodError(period_type, period_value)


def period_of(period_type: str, day: date) -> str:
    """The value of the period of `period_type` that holds `day`."""
    if period_type == MONTHLY:
        return f"{day.year:04d}-{day.month:02d}"
    if period_type == WEEKLY:
        year, week, _weekday = day.isocalendar()
        return f"{year:04d}-W{week:02d}"
    raise InvalidPeriodError(period_type, day)


def month_of(day: str) -> str:
    """`2024-03-15` → `2024-03` (a violation's `period`)."""
    return day[:7]


def previous_month(day: date) -> str:
    return period_of(MONTHLY, day.replace(day=1) - timedelta(days=1))


def average(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def score_value(average_value: float, penalty_points: float) -> float:
    return max(0.0, round(average_value - penalty_points, 1))


@dataclass(frozen=True)
class Score:
    days_counted: int
    average: float
    penalty_points: float
    value: float
    level: str

    def as_fields(self) -> dict[str, Any]:
        """The Employee Score fields this result sets (the average itself is not stored)."""
        fields = asdict(self)
        del fields["average"]
        return fields


def score_from_totals(days_counted: int, value_sum: float, penalty_points: float,
                      thresholds: Iterable[Mapping[str, Any] | Any] | None) -> Score:
    """The score from what a database aggregation returns: count and sum of the daily values, and
    the sum of the penalty points."""
    mean = value_sum / days_counted if days_counted else 0.0
    penalty = round(penalty_points, 6)  # drop float noise from summing decimals (0.1 + 0.2)
    value = score_value(mean, penalty)
    return Score(days_counted, mean, penalty, value, classify_level(value, thresholds))


def calculate(daily_values: Sequence[float], penalties: Iterable[float],
              thresholds: Iterable[Mapping[str, Any] | Any] | None) -> Score:
    """The score of one employee for one period from the daily values and violation points in it."""
    return score_from_totals(len(daily_values), sum(daily_values), sum(penalties), thresholds)
