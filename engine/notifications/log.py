"""Notification Log: what the Desk's bell lists (business.md §2.3). `notify` writes one log per user
in the caller's unit of work and sends each user the realtime event `notification` once it commits;
the Notifications (engine/notifications/alerts.py), assignments (engine/desk/assign_to.py), workflow
alerts and shares call it. A user reads and marks only their own logs (their row rule:
engine/core/notification_log.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents import store
from engine.documents.factory import get_doc, new_doc
from engine.query import listing
from engine.translation import _

DOCTYPE = "Notification Log"
TYPES = ("Alert", "Assignment", "Share", "Mention")
EVENT = "notification"
MAX_LIMIT = 100  # entries one call of get_notification_logs may ask for
FIELDS = ("name", "creation", "for_user", "from_user", "type", "document_type", "document_name", "subject",
          "email_content", "read")


async def notify(ctx: Context, users: Iterable[str], *, type: str, subject: str, document_type: str | None = None,
                 document_name: str | None = None, from_user: str | None = None,
                 email_content: str | None = None) -> list[str]:
    """A Notification Log for each enabled user of `users` (each once; Guest and unknown users are
    skipped), written in the caller's unit of work; the realtime `notification` event reaches
    `user:<user>` after the commit. Returns the names of the logs written."""
    if type not in TYPES:
        raise exc.ValidationError(_("Notification type must be one of {0}", ", ".join(TYPES)), field="type")
    wanted = [u for u in dict.fromkeys(users) if isinstance(u, str) and u and u != "Guest"]
    if not wanted:
        return []
    enabled = set(await listing.get_all(ctx, "User", filters=[["name", "in", wanted], ["enabled", "=", 1]],
                                        pluck="name"))
    names: list[str] = []
    async with unit_of_work(ctx):
        for user in (u for u in wanted if u in enabled):
            log = new_doc(ctx, DOCTYPE, for_user=user, from_user=from_user or ctx.user, type=type,
                          subject=subject, document_type=document_type, document_name=document_name,
                          email_content=email_content, read=0)
            await log.insert(ignore_permissions=True, ignore_links=True)
            names.append(str(log.name))
            ctx.emit_soon(EVENT, {"name": log.name, "type": type, "subject": subject,
                                  "document_type": document_type, "document_name": document_name},
                          f"user:{user}")
    return names


async def unread_count(ctx: Context) -> int:
    """How many of the caller's Notification Logs are unread (the Desk's boot carries it for the bell)."""
    if ctx.user == "Guest":
        return 0
    return await listing.count(ctx, DOCTYPE, [["for_user", "=", ctx.user], ["read", "=", 0]], ignore_permissions=True)


async def latest(ctx: Context, limit: Any = 20) -> dict[str, Any]:
    """The caller's newest logs (`notification_logs`), the full names of who sent them (`user_info`)
    and how many of the caller's logs are unread (`unread_count`)."""
    try:
        count = int(limit)
    except (TypeError, ValueError):
        raise exc.DataError(_("{0} must be a whole number", "limit"), field="limit") from None
    if not 1 <= count <= MAX_LIMIT:
        raise exc.DataError(_("{0} must be between {1} and {2}", "limit", 1, MAX_LIMIT), field="limit")
    mine = [["for_user", "=", ctx.user]]
    logs = await listing.get_list(ctx, DOCTYPE, fields=list(FIELDS), filters=mine, order_by="creation desc",
                                  limit_page_length=count)
    unread = await unread_count(ctx)
    senders = sorted({str(row["from_user"]) for row in logs if row.get("from_user")})
    names = {r["name"]: r for r in await listing.get_all(ctx, "User", fields=["name", "full_name"],
                                                          filters=[["name", "in", senders]])} if senders else {}
    user_info = {u: {"fullname": (names.get(u) or {}).get("full_name") or u} for u in senders}
    return {"notification_logs": logs, "user_info": user_info, "unread_count": unread}


async def mark_as_read(ctx: Context, docname: Any) -> None:
    """Mark one of the caller's logs read (another user's is 'not found', as it is in their lists)."""
    if not isinstance(docname, str) or not docname:
        raise exc.DataError(_("{0} is required", "docname"), field="docname")
    log = await get_doc(ctx, DOCTYPE, docname)
    if log.get("for_user") != ctx.user:
        raise exc.DoesNotExistError(_("{0} {1} not found", _(DOCTYPE), docname))
    if not log.get("read"):
        async with unit_of_work(ctx):
            await store.update(ctx, ctx.meta(DOCTYPE), docname, {"read": 1})
            ctx.emit_soon(EVENT, {"read": [docname]}, f"user:{ctx.user}")


async def mark_all_as_read(ctx: Context) -> int:
    """Mark every unread log of the caller read; how many were."""
    async with unit_of_work(ctx):
        changed = await store.update_many(ctx, ctx.meta(DOCTYPE), {"for_user": ctx.user, "read": {"$ne": 1}},
                                          {"$set": {"read": 1}})
        if changed:
            ctx.emit_soon(EVENT, {"read": "all"}, f"user:{ctx.user}")
    return changed
