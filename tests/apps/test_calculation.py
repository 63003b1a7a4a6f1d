"""The period calculation of contract §5: pure logic, no server and no database."""

from __future__ import annotations

from datetime import date

import pytest
from workforce_scoring.scoring.calculation import (
    MONTHLY,
    WEEKLY,
    InvalidPeriodError,
    average,
    calculate,
    month_of,
    parse_period,
    period_of,
    previous_month,
    score_from_totals,
    score_value,
)


@pytest.mark.parametrize(("value", "first", "last"), [
    ("2024-01", "2024-01-01", "2024-01-31"), ("2024-02", "2024-02-01", "2024-02-29"),
    ("2023-02", "2023-02-01", "2023-02-28"), ("2024-12", "2024-12-01", "2024-12-31"),
    ("2024-04", "2024-04-01", "2024-04-30")])
def test_monthly_bounds(value: str, first: str, last: str) -> None:
    period = parse_period(MONTHLY, value)
    assert (period.first_day, period.last_day) == (first, last)
    assert period.contains(first) and period.contains(last)


@pytest.mark.parametrize(("value", "first", "last"), [
    ("2024-W01", "2024-01-01", "2024-01-07"), ("2020-W53", "2020-12-28", "2021-01-03"),
    ("2021-W01", "2021-01-04", "2021-01-10"), ("2025-W01", "2024-12-30", "2025-01-05")])
def test_weekly_iso_bounds(value: str, first: str, last: str) -> None:
    period = parse_period(WEEKLY, value)
    assert (period.first_day, period.last_day) == (first, last)


@pytest.mark.parametrize(("period_type", "value"), [
    (MONTHLY, "2024-13"), (MONTHLY, "2024-00"), (MONTHLY, "2024-3"), (MONTHLY, "24-03"), (MONTHLY, "2024-03-01"),
    (MONTHLY, ""), (MONTHLY, None), (WEEKLY, "2024-W00"), (WEEKLY, "2021-W53"), (WEEKLY, "2024-03"),
    ("Yearly", "2024"), ("monthly", "2024-03")])
def test_invalid_periods(period_type: str, value: str) -> None:
    with pytest.raises(InvalidPeriodError):
        parse_period(period_type, value)


def test_period_of_and_month_helpers() -> None:
    assert period_of(MONTHLY, date(2024, 3, 15)) == "2024-03"
    assert period_of(WEEKLY, date(2021, 1, 1)) == "2020-W53"
    assert month_of("2024-03-15") == "2024-03"
    assert previous_month(date(2024, 1, 1)) == "2023-12"
    assert previous_month(date(2024, 3, 31)) == "2024-02"


def test_average_and_value() -> None:
    assert average([]) == 0.0
    assert average([40, 50, 60]) == 50.0
    assert score_value(50.0, 7.5) == 42.5
    assert score_value(10.0, 15.0) == 0.0  # never negative
    assert score_value(33.333333, 0) == 33.3
    assert score_value(66.68, 0.01) == 66.7


def test_calculate_formula() -> None:
    score = calculate([60.0, 70.0, 80.0], [5.0, 2.5], [])
    assert score.days_counted == 3
    assert score.average == 70.0
    assert score.penalty_points == 7.5
    assert score.value == 62.5
    assert score.level == "good"
    assert score.as_fields() == {"days_counted": 3, "penalty_points": 7.5, "value": 62.5, "level": "good"}


def test_no_days_means_average_zero() -> None:
    score = calculate([], [3.0], None)
    assert (score.days_counted, score.average, score.value, score.level) == (0, 0.0, 0.0, "needs_improvement")


def test_thresholds_decide_the_level() -> None:
    bands = [{"level": "needs_improvement", "min_pph": 0, "max_pph": 80}, {"level": "excellent", "min_pph": 80}]
    assert calculate([79.0], [], bands).level == "needs_improvement"
    assert calculate([80.0], [], bands).level == "excellent"


def test_totals_from_an_aggregation() -> None:
    score = score_from_totals(4, 200.0, 0.1 + 0.2, None)
    assert score.penalty_points == 0.3  # float noise of the sum dropped
    assert score.value == 49.7
    assert score.level == "average"
