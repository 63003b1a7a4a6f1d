"""User-related built-in methods under Frappe's paths (`fw.core.doctype.user.user.*`, `fw.auth.*`)."""

from __future__ import annotations

from engine import auth
from engine import exceptions as exc
from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.translation import _


@whitelist(path="fw.core.doctype.user.user.generate_keys", methods=["POST"])
async def generate_keys(ctx: Context, user: str) -> dict[str, str]:
    """A new API secret for `user` (and a key if it has none). System Manager only."""
    if "System Manager" not in await ctx.roles() and not ctx.is_admin:
        raise exc.PermissionError(_("Only a System Manager may generate API keys"))
    if user == "Guest":
        raise exc.ValidationError(_("Guest cannot have API keys"), field="user")
    return await auth.generate_keys_for(ctx.site, user)


@whitelist(path="fw.auth.get_logged_user")
async def get_logged_user(ctx: Context) -> str:
    return ctx.user


@whitelist(path="ping", allow_guest=True)
def ping() -> str:
    return "pong"
