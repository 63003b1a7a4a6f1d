"""Performance levels: which level a score falls in, and how levels compare. Pure logic.

A threshold is a band `[min_pph, max_pph)` with a level name: the lower bound is inclusive, the
upper one exclusive, and an empty (or zero) `max_pph` means "no upper bound". Thresholds come from
Scoring Settings as child rows or dicts; an empty list means the defaults below.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

NEEDS_IMPROVEMENT = "needs_improvement"
AVERAGE = "average"
GOOD = "good"
EXCELLENT = "excellent"
LEVELS: tuple[str, ...] = (NEEDS_IMPROVEMENT, AVERAGE, GOOD, EXCELLENT)  # lowest to highest


@dataclass(frozen=True)
class Threshold:
    level: str
    min_pph: float
    max_pph: float | None = None  # None: no upper bound

    def contains(self, value: float) -> bool:
        return self.min_pph <= value and (self.max_pph is None or value < self.max_pph)


DEFAULT_THRESHOLDS: tuple[Threshold, ...] = (
    Threshold(NEEDS_IMPROVEMENT, 0, 35),
    Threshold(AVERAGE, 35, 55),
    Threshold(GOOD, 55, 75),
    Threshold(EXCELLENT, 75, None),
)


def _field(row: Any, name: str) -> Any:
    return row.get(name) if isinstance(row, Mapping) else getattr(row, name, None)


def as_threshold(row: Threshold | Mapping[str, Any] | Any) -> Threshold:
    """A Threshold from a dict or a document row with `level`, `min_pph` and `max_pph`."""
    if isinstance(row, Threshold):
        return row
    level = _field(row, "level")
    if level not in LEVELS:
        raise ValueError(f"unknown performance level {level!r}; expected one of {', '.join(LEVELS)}")
    upper = _field(row, "max_pph")
    return Threshold(level, float(_field(row, "min_pph") or 0), float(upper) if upper else None)


def normalise(thresholds: Iterable[Threshold | Mapping[str, Any] | Any] | None) -> tuple[Threshold, ...]:
    """The thresholds sorted by lower bound; the defaults when none are given."""
    bands = tuple(as_threshold(row) for row in thresholds or ())
    return tuple(sorted(bands, key=lambda t: t.min_pph)) if bands else DEFAULT_THRESHOLDS


def classify_level(value: float, thresholds: Iterable[Threshold | Mapping[str, Any] | Any] | None) -> str:
    """The level whose band holds `value` (`[min, max)`).

    A value in a gap between configured bands gets the band below it, and a value below every
    band the lowest one, so every value has a level.
    """
    bands = normalise(thresholds)
    for band in bands:
        if band.contains(value):
            return band.level
    below = [band for band in bands if band.min_pph <= value]
    return (below[-1] if below else bands[0]).level


def level_gte(a: str, b: str) -> bool:
    """Whether level `a` is at or above level `b` (`level_gte("excellent", "good")` is true)."""
    return _rank(a) >= _rank(b)


def _rank(level: str) -> int:
    try:
        return LEVELS.index(level)
    except ValueError:
        raise ValueError(f"unknown performance level {level!r}; expected one of {', '.join(LEVELS)}") from None
