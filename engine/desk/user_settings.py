"""Per-user list settings (Frappe's `frappe.model.utils.user_settings`): what the Desk remembers of a
user's list of a doctype (last filters, sort, columns, page length...), as one JSON object per
(user, doctype). Saving merges the given keys into what is stored, as Frappe does; getdoctype sends
the stored object as `user_settings`. Kept in their own collection, outside any transaction (a
setting is not part of a document's change), and only for doctypes the user may read.
"""

from __future__ import annotations

from typing import Any

import orjson

from engine import exceptions as exc
from engine import permissions
from engine.context import Context
from engine.translation import _

COLLECTION = "__user_settings"
MAX_BYTES = 64 * 1024  # one user's settings of one doctype, as JSON


def _key(ctx: Context, doctype: str) -> str:
    return f"{ctx.user}::{doctype}"


async def _check(ctx: Context, doctype: str) -> None:
    if ctx.user == "Guest":
        raise exc.PermissionError(_("You are not permitted to access this resource: please log in"))
    ctx.meta(doctype)  # unknown: 404
    await permissions.check_doctype(ctx, doctype, "read")


async def get(ctx: Context, doctype: str) -> dict[str, Any]:
    """The caller's stored settings of `doctype` ({} when none)."""
    await _check(ctx, doctype)
    row = await ctx.db.collection(COLLECTION).find_one({"_id": _key(ctx, doctype)})
    return dict(orjson.loads(row["data"])) if row else {}


async def save(ctx: Context, doctype: str, settings: Any) -> dict[str, Any]:
    """Merge `settings` (an object) into the stored ones; the result. A key set to null is removed."""
    if not isinstance(settings, dict):
        raise exc.ValidationError(_("user_settings must be an object"), field="user_settings")
    current = await get(ctx, doctype)
    current.update(settings)
    current = {k: v for k, v in current.items() if v is not None}
    data = orjson.dumps(current)
    if len(data) > MAX_BYTES:
        raise exc.ValidationError(_("The settings are too large ({0} KB at most)", MAX_BYTES // 1024),
                                  field="user_settings")
    await ctx.db.collection(COLLECTION).update_one(  # no session: a setting is not part of a transaction
        {"_id": _key(ctx, doctype)}, {"$set": {"data": data.decode(), "user": ctx.user, "doctype": doctype}},
        upsert=True)
    return current


async def stored_text(ctx: Context, doctype: str) -> str:
    """The stored settings as JSON text (getdoctype's `user_settings`), "{}" when none or unreadable."""
    if ctx.user == "Guest":
        return "{}"
    row = await ctx.db.collection(COLLECTION).find_one({"_id": _key(ctx, doctype)})
    return str(row["data"]) if row else "{}"
