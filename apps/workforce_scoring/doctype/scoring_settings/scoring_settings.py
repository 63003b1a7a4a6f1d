"""Scoring Settings: the performance level bands. Bands must not overlap, so every score has
exactly one level."""

from __future__ import annotations

from itertools import pairwise

import engine as fw
from workforce_scoring.scoring import service


class ScoringSettings(fw.Document):
    def validate(self) -> None:
        rows = sorted(self.thresholds, key=lambda row: row.min_pph or 0)
        for row in rows:
            if row.max_pph and row.max_pph <= (row.min_pph or 0):
                fw.throw(fw._("Row {0}: Max must be greater than Min", row.idx), field="thresholds")
        for lower, upper in pairwise(rows):
            if not lower.max_pph or lower.max_pph > (upper.min_pph or 0):
                fw.throw(fw._("Levels {0} and {1} overlap", lower.level, upper.level), field="thresholds")
        levels = [row.level for row in rows]
        duplicate = next((level for level in levels if levels.count(level) > 1), None)
        if duplicate:
            fw.throw(fw._("Level {0} appears more than once", duplicate), field="thresholds")

    def on_update(self) -> None:
        service.forget_thresholds(self.ctx)
