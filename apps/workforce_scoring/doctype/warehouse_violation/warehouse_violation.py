"""Warehouse Violation: a penalty recorded against an employee, confirmed through a workflow.

Every save derives the employee's company, branch and name, the period (`YYYY-MM`) of the date,
and the penalty points of the violation type when none are given. Submitting (the workflow's
Confirm) records who confirmed it and when.
"""

from __future__ import annotations

from datetime import datetime

import engine as fw
from workforce_scoring.constants import EMPLOYEE, VIOLATION_TYPE
from workforce_scoring.scoring.calculation import month_of


class WarehouseViolation(fw.Document):
    async def validate(self) -> None:
        await self.copy_employee_details()
        self.set_period()
        await self.fill_penalty_points()

    async def copy_employee_details(self) -> None:
        if not self.employee:
            return
        employee = await fw.get_value(self.ctx, EMPLOYEE, self.employee, ["employee_name", "company", "branch"],
                                      as_dict=True)
        if employee is None:  # the link check names the missing employee
            return
        self.employee_name = employee["employee_name"]
        self.company = employee["company"]
        self.branch = employee["branch"]

    def set_period(self) -> None:
        if self.date:
            self.period = month_of(str(self.date))

    async def fill_penalty_points(self) -> None:
        if not self.violation_type or self.penalty_points:
            return
        points = await fw.get_value(self.ctx, VIOLATION_TYPE, self.violation_type, "penalty_points")
        if points:  # a type without points leaves the violation's value as it is
            self.penalty_points = points

    async def on_submit(self) -> None:
        # after the write, so db_set persists both fields without touching `modified` again
        await self.db_set({"confirmed_by": self.ctx.user,
                           "confirmed_at": datetime.now().strftime("%Y-%m-%d %H:%M:%S")}, update_modified=False)
        self.ctx.msgprint(fw._("Violation confirmed: {0} penalty points for {1}", _points(self.penalty_points),
                               self.employee_name or self.employee),
                          title=fw._("Violation Confirmed"), indicator="orange", alert=True)

    def on_cancel(self) -> None:
        self.ctx.msgprint(fw._("Violation of {0} cancelled", self.employee_name or self.employee),
                          title=fw._("Violation Cancelled"), indicator="blue", alert=True)


def _points(value: float | None) -> str:
    """5.0 → "5", 2.5 → "2.5": how people write points."""
    return f"{value or 0:g}"
