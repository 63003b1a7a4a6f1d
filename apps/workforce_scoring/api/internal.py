"""`calculate_for_employee`: an employee's period score, calculated on request.

```
POST /api/method/workforce_scoring.api.internal.calculate_for_employee
{"employee": "HR-EMP-00001", "period_type": "Monthly", "period_value": "2024-03", "overwrite": false}
→ {"message": {"status": "created", "name": "ES-0000001"}}
```
`status` is `created`, `updated` (an unsubmitted score recalculated with `overwrite`) or `exists`
(a score is stored and `overwrite` is false). A submitted score is final: overwriting it fails.
Concurrent calls for one (employee, period) store one score: the others answer as if they had
come after it (`exists`, or `updated` with `overwrite`).
"""

from __future__ import annotations

from typing import Any

import engine as fw
from engine import exceptions as exc
from workforce_scoring.constants import EMPLOYEE_SCORE
from workforce_scoring.scoring import service


@fw.whitelist(methods=["POST"])
async def calculate_for_employee(ctx: fw.Context, employee: str, period_type: str, period_value: str,
                                 overwrite: bool = False) -> dict[str, Any]:
    if not await fw.has_permission(ctx, EMPLOYEE_SCORE, "write"):
        raise exc.PermissionError(fw._("Permission denied"))
    period = service.parse_period_or_throw(period_type, period_value)
    rows = await service.employee_rows(ctx, {"name": employee})
    if not rows:
        raise exc.DoesNotExistError(fw._("{0} {1} not found", fw._("Employee"), employee), field="employee")

    async def attempt() -> dict[str, Any]:
        fields = (await service.compute(ctx, period, rows))[employee]
        existing = (await service.find_scores(ctx, [employee], period)).get(employee)
        if existing is not None and not overwrite:
            return {"status": "exists", "name": existing.name}
        if existing is not None and existing.docstatus == 1:
            fw.throw(fw._("Cannot overwrite submitted record"))
        status, name = await service.write_score(ctx, fields, existing)
        await ctx.commit()
        return {"status": "updated" if existing is not None else status, "name": name}

    # a concurrent calculation of the same score may store it first: then start over and find it
    return await service.retry_on_clash(ctx, attempt)
