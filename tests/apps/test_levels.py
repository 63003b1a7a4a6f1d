"""Performance levels: pure logic, no server and no database."""

from __future__ import annotations

import pytest
from workforce_scoring.scoring.levels import (
    DEFAULT_THRESHOLDS,
    LEVELS,
    Threshold,
    classify_level,
    level_gte,
)


def test_level_order_lowest_to_highest() -> None:
    assert LEVELS == ("needs_improvement", "average", "good", "excellent")


def test_default_bands() -> None:
    assert [(t.level, t.min_pph, t.max_pph) for t in DEFAULT_THRESHOLDS] == [
        ("needs_improvement", 0, 35), ("average", 35, 55), ("good", 55, 75), ("excellent", 75, None)]


@pytest.mark.parametrize(("value", "level"), [
    (0, "needs_improvement"), (34.9, "needs_improvement"), (35, "average"), (54.99, "average"), (55, "good"),
    (60, "good"), (74.9, "good"), (75, "excellent"), (1000, "excellent")])
def test_defaults_lower_bound_inclusive(value: float, level: str) -> None:
    assert classify_level(value, DEFAULT_THRESHOLDS) == level


def test_empty_thresholds_mean_the_defaults() -> None:
    assert classify_level(60, []) == "good"
    assert classify_level(60, None) == "good"
    assert classify_level(35, []) == "average"


def test_thresholds_as_dicts_rows_or_objects_in_any_order() -> None:
    rows = [{"level": "excellent", "min_pph": 90, "max_pph": None}, {"level": "needs_improvement", "min_pph": 0,
                                                                     "max_pph": 50},
            {"level": "good", "min_pph": 70, "max_pph": 90}, {"level": "average", "min_pph": 50, "max_pph": 70}]
    assert classify_level(60, rows) == "average"
    assert classify_level(89.9, rows) == "good"
    assert classify_level(90, rows) == "excellent"

    class Row:  # a document row: attributes, an empty max stored as 0
        def __init__(self, level: str, low: float, high: float) -> None:
            self.level, self.min_pph, self.max_pph = level, low, high

    assert classify_level(500, [Row("needs_improvement", 0, 10), Row("excellent", 10, 0)]) == "excellent"


def test_values_outside_every_band() -> None:
    bands = [Threshold("average", 10, 20), Threshold("excellent", 30, None)]
    assert classify_level(5, bands) == "average"  # below every band: the lowest one
    assert classify_level(25, bands) == "average"  # in a gap: the band below


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown performance level"):
        classify_level(10, [{"level": "stellar", "min_pph": 0}])
    with pytest.raises(ValueError, match="unknown performance level"):
        level_gte("stellar", "good")


def test_level_gte() -> None:
    assert level_gte("excellent", "good") is True
    assert level_gte("average", "good") is False
    assert level_gte("good", "good") is True
    assert level_gte("needs_improvement", "needs_improvement") is True
    assert level_gte("needs_improvement", "average") is False
