"""The records every site needs: the automatic roles, System Manager, Administrator and Guest."""

from __future__ import annotations

import logging
import secrets
from typing import TYPE_CHECKING

from engine import db
from engine.clock import now_str
from engine.constants import CORE_ROLES, PASSWORD_KEY
from engine.context import run_in_unit_of_work
from engine.core import passwords
from engine.documents import store

if TYPE_CHECKING:
    from engine.site import Site

log = logging.getLogger("fw.bootstrap")


async def ensure_bootstrap(site: Site) -> str | None:
    """Create what is missing; returns a generated Administrator password (printed once) or None.

    Upserts only, retried on a write conflict: safe when several processes bootstrap at once."""
    now = now_str()
    base = {"owner": "Administrator", "modified_by": "Administrator", "creation": now, "modified": now,
            "docstatus": 0, "idx": 0}
    ctx = site.context("Administrator")
    users = store.collection_of(site, "User")
    password: str | None = None
    if await users.find_one({"_id": "Administrator"}, {"_id": 1}) is None:
        password = site.settings.admin_password or secrets.token_urlsafe(12)
    password_hash = passwords.hash_password(password) if password else None

    async def create() -> bool:
        session = await ctx.write_session()
        roles = store.collection_of(site, "Role")
        for role in CORE_ROLES:
            await roles.update_one({"_id": role}, {"$setOnInsert": {**base, "role_name": role, "desk_access": 1}},
                                   upsert=True, session=session)
        await users.update_one({"_id": "Guest"}, {"$setOnInsert": {
            **base, "email": "guest@example.com", "first_name": "Guest", "full_name": "Guest", "enabled": 1,
            "user_type": "Website User", "roles": [_row("Guest", "Guest", 1, now)]}}, upsert=True, session=session)
        if password_hash is None:
            return False
        result = await users.update_one({"_id": "Administrator"}, {"$setOnInsert": {
            **base, "email": "admin@example.com", "first_name": "Administrator", "full_name": "Administrator",
            "enabled": 1, "user_type": "System User",
            "roles": [_row("Administrator", "Administrator", 1, now), _row("Administrator", "System Manager", 2, now)],
            PASSWORD_KEY: password_hash}}, upsert=True, session=session)
        return result.upserted_id is not None

    with db.translate_errors():
        created = await run_in_unit_of_work(ctx, create)
    generated = password if created and not site.settings.admin_password else None
    if generated:
        log.warning("Administrator password (shown once; set FW_ADMIN_PASSWORD to choose it): %s", generated)
    return generated


def _row(parent: str, role: str, idx: int, now: str) -> dict[str, object]:
    return {"name": secrets.token_hex(5), "role": role, "idx": idx, "parent": parent, "parentfield": "roles",
            "parenttype": "User", "docstatus": 0, "owner": "Administrator", "creation": now, "modified": now,
            "modified_by": "Administrator"}
