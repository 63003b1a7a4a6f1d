"""The records every site needs: the automatic roles, System Manager, Administrator and Guest."""

from __future__ import annotations

import logging
import secrets
from typing import TYPE_CHECKING

from engine.context import unit_of_work
from engine.core import passwords
from engine.core.user import PASSWORD_KEY

if TYPE_CHECKING:
    from engine.site import Site

log = logging.getLogger("fw.bootstrap")
CORE_ROLES = ("Administrator", "System Manager", "All", "Guest", "Desk User")


async def ensure_bootstrap(site: Site) -> str | None:
    """Create what is missing; returns a generated Administrator password (printed once) or None."""
    from engine.documents.lifecycle import now_str

    now = now_str()
    base = {"owner": "Administrator", "modified_by": "Administrator", "creation": now, "modified": now,
            "docstatus": 0, "idx": 0}
    ctx = site.context("Administrator")
    generated: str | None = None
    async with unit_of_work(ctx):
        session = await ctx.write_session()
        roles = site.db.collection("role")
        for role in CORE_ROLES:
            await roles.update_one({"_id": role}, {"$setOnInsert": {**base, "role_name": role, "desk_access": 1}},
                                   upsert=True, session=session)
        users = site.db.collection("user")
        if await users.find_one({"_id": "Guest"}, {"_id": 1}, session=session) is None:
            await users.insert_one({**base, "_id": "Guest", "email": "guest@example.com", "first_name": "Guest",
                                    "full_name": "Guest", "enabled": 1, "user_type": "Website User",
                                    "roles": [_row("Guest", "Guest", 1, now)]}, session=session)
        if await users.find_one({"_id": "Administrator"}, {"_id": 1}, session=session) is None:
            password = site.settings.admin_password
            if not password:
                password = generated = secrets.token_urlsafe(12)
            await users.insert_one({
                **base, "_id": "Administrator", "email": "admin@example.com", "first_name": "Administrator",
                "full_name": "Administrator", "enabled": 1, "user_type": "System User",
                "roles": [_row("Administrator", "Administrator", 1, now),
                          _row("Administrator", "System Manager", 2, now)],
                PASSWORD_KEY: passwords.hash_password(password)}, session=session)
    if generated:
        log.warning("Administrator password (shown once; set FW_ADMIN_PASSWORD to choose it): %s", generated)
    return generated


def _row(parent: str, role: str, idx: int, now: str) -> dict[str, object]:
    return {"name": secrets.token_hex(5), "role": role, "idx": idx, "parent": parent, "parentfield": "roles",
            "parenttype": "User", "docstatus": 0, "owner": "Administrator", "creation": now, "modified": now,
            "modified_by": "Administrator"}
