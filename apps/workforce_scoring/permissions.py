"""Row-level access to Employee Score (`permission_query_conditions` in hooks.py).

| the user                                             | sees                 |
|------------------------------------------------------|----------------------|
| holds System Manager, HR Reviewer or Department Manager | every score (no filter) |
| is linked to an Employee through `user_id`            | that employee's scores |
| anyone else                                          | nothing              |

The same restriction applies to lists, counts, the report and reading one document.
"""

from __future__ import annotations

from typing import Any

import engine as fw
from workforce_scoring.constants import EMPLOYEE, SEE_ALL_SCORES

NO_ROWS: list[list[Any]] = [["name", "in", []]]  # the always-false condition


async def employee_score_conditions(user: str, ctx: fw.Context) -> str | list[list[Any]]:
    roles = await ctx.roles() if user == ctx.user else await ctx.site.load_roles(user)
    if user == "Administrator" or roles & SEE_ALL_SCORES:
        return ""
    employee = await fw.get_value(ctx, EMPLOYEE, {"user_id": user}, "name")
    if employee:
        return [["employee", "=", employee]]
    return NO_ROWS
