"""Employee Score: one employee's score, either a day's value from the external system or a
period score (Monthly, Weekly) calculated from those days and the month's violations.

Employee name, company and branch are fetched from the Employee (`fetch_from`). Saving a period
or manual score re-derives its level from the value, so the level never disagrees with it.

A period score that is not cancelled carries `period_key` (employee, period type, period), a
field with a unique index: two calculations racing for the same period cannot both store a
score (the loser retries and finds the winner's, see `scoring.service.retry_on_clash`), and
cancelling a score clears the key, so the period can be scored again.
"""

from __future__ import annotations

import engine as fw
from workforce_scoring.constants import DAILY, EXTERNAL_SYSTEM
from workforce_scoring.scoring import service
from workforce_scoring.scoring.levels import classify_level


class EmployeeScore(fw.Document):
    async def validate(self) -> None:
        if self.period_type and self.period_type != DAILY:
            service.parse_period_or_throw(self.period_type, self.period_value)
        if self.source != EXTERNAL_SYSTEM:  # a day's raw value has no level
            self.level = classify_level(self.value or 0, await service.thresholds(self.ctx))
        self.period_key = service.period_key(self.employee, self.period_type, self.period_value)

    def before_cancel(self) -> None:
        self.period_key = None  # a cancelled score is history: it no longer holds its period
