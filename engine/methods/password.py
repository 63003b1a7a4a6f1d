"""Passwords by mail over HTTP, under Frappe's paths (business.md §2.2); the work is
engine/core/password_reset.py's."""

from __future__ import annotations

from typing import Any

from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.core import password_reset
from engine.translation import _


@whitelist(path="fw.core.doctype.user.user.reset_password", allow_guest=True, methods=["POST"])
async def reset_password(ctx: Context, user: str) -> str:
    """Mail a link to set a new password; the same answer whether or not `user` exists."""
    await password_reset.send_reset_link(ctx, user)
    return _("If an account exists for this address, a link to set a new password is on its way by mail.")


@whitelist(path="fw.core.doctype.user.user.update_password", allow_guest=True, methods=["POST"])
async def update_password(ctx: Context, new_password: str, key: str | None = None, old_password: str | None = None,
                          logout_all_sessions: Any = None) -> str:
    """Set the password (by the mailed key, or logged in with the old one); answers where to go next."""
    return await password_reset.update_password(ctx, new_password, key=key, old_password=old_password)
