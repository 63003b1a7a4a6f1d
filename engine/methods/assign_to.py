"""Assign To under Frappe's paths (`frappe.desk.form.assign_to.add` / `remove`); engine/desk/assign_to.py
has the rules (assignees who may read the document, `_assign`, the assignee's Notification Log)."""

from __future__ import annotations

from typing import Any

from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.desk import assign_to as assignments

PATH = "fw.desk.form.assign_to"


@whitelist(path=f"{PATH}.add", methods=["POST"])
async def add(ctx: Context, doctype: str, name: str, assign_to: Any, description: str | None = None,
              date: str | None = None, priority: str | None = None, notify: Any = 0) -> list[dict[str, Any]]:
    """Assign a document the caller may read to users who may read it; its open assignments."""
    return await assignments.add(ctx, doctype, name, assign_to, description, date, priority, notify)


@whitelist(path=f"{PATH}.remove", methods=["POST", "DELETE"])
async def remove(ctx: Context, doctype: str, name: str, assign_to: Any) -> list[dict[str, Any]]:
    """Take a user's assignment off a document; its open assignments."""
    return await assignments.remove(ctx, doctype, name, assign_to)

