"""Employee controller: keeps the master data consistent for the apps that copy from it."""

from __future__ import annotations

import engine as fw


class Employee(fw.Document):
    async def validate(self) -> None:
        self.employee_name = (self.employee_name or "").strip()
        self.employee_number = (self.employee_number or "").strip()
        await self._check_branch_company()

    async def _check_branch_company(self) -> None:
        """A branch belongs to one company: an employee's branch must be one of their company's
        (reports group by company and copy both fields, so a mismatch would split an employee)."""
        if not self.branch or not self.company:
            return
        # (read once per unit of work: an import checks a batch of employees of the same branch)
        branch_company = await fw.get_cached_value(self.ctx, "Branch", self.branch, "company")
        if branch_company and branch_company != self.company:
            fw.throw(fw._("Branch {0} belongs to company {1}, not {2}", self.branch, branch_company, self.company),
                     field="branch")
