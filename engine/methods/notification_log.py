"""The bell's methods under Frappe's paths (`frappe.desk.doctype.notification_log.notification_log.*`);
engine/notifications/log.py has the rules (a user reads and marks only their own logs)."""

from __future__ import annotations

from typing import Any

from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.notifications import log

PATH = "fw.desk.doctype.notification_log.notification_log"


@whitelist(path=f"{PATH}.get_notification_logs", methods=["GET", "POST"])
async def get_notification_logs(ctx: Context, limit: int = 20) -> dict[str, Any]:
    """The caller's newest Notification Logs, who sent them, and how many are unread."""
    return await log.latest(ctx, limit)


@whitelist(path=f"{PATH}.mark_as_read", methods=["POST"])
async def mark_as_read(ctx: Context, docname: str) -> None:
    """Mark one of the caller's Notification Logs read."""
    await log.mark_as_read(ctx, docname)


@whitelist(path=f"{PATH}.mark_all_as_read", methods=["POST"])
async def mark_all_as_read(ctx: Context) -> int:
    """Mark every Notification Log of the caller read; how many were unread."""
    return await log.mark_all_as_read(ctx)
