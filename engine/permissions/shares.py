"""Shared documents (Frappe's DocShare): a share grants the rights it names on one document to one
user, or to everyone, even without a role permission on the doctype.

A user's shares of a doctype are read once and kept on the site beside their User Permissions
(`Site.user_access`, ROLE_CACHE_SECONDS), dropped in every process when a share of theirs changes.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from engine.documents import store

if TYPE_CHECKING:
    from engine.context import Context

DOCSHARE = "DocShare"
SHARE_RIGHTS = ("read", "write", "submit", "share")
# the rights a share's flags stand for: reading a document lets one select, print, mail and report it
RIGHT_OF = {"read": "read", "select": "read", "print": "read", "email": "read", "report": "read",
            "export": "read", "write": "write", "submit": "submit", "share": "share"}
CACHE_SECONDS = 2.0


async def shared_of(ctx: Context, doctype: str) -> dict[str, frozenset[str]]:
    """{document name: the share rights it holds} of `doctype`'s documents shared with the acting
    user, or with everyone."""
    if ctx.user == "Guest" or not ctx.site.meta.exists(DOCSHARE):
        return {}
    cache = ctx.site.user_access.setdefault(ctx.user, {})
    key = ("shares", doctype)
    hit = cache.get(key)
    now = time.monotonic()
    if hit is not None and now - hit[0] < CACHE_SECONDS:
        found: dict[str, frozenset[str]] = hit[1]
        return found
    records = await store.find(ctx, ctx.meta(DOCSHARE),
                               {"share_doctype": doctype, "$or": [{"user": ctx.user}, {"everyone": 1}]},
                               projection={"share_name": 1, **{right: 1 for right in SHARE_RIGHTS}})
    rights: dict[str, set[str]] = {}
    for record in records:
        name = record.get("share_name")
        if name:
            rights.setdefault(str(name), set()).update(r for r in SHARE_RIGHTS if record.get(r))
    found = {name: frozenset(held) for name, held in rights.items() if held}
    cache[key] = (now, found)
    return found


async def shared_names(ctx: Context, doctype: str, ptype: str) -> frozenset[str]:
    """The documents of `doctype` shared with the acting user with the right `ptype` stands for."""
    right = RIGHT_OF.get(ptype)
    if right is None:
        return frozenset()
    return frozenset(name for name, held in (await shared_of(ctx, doctype)).items() if right in held)


async def is_shared(ctx: Context, doctype: str, name: str | None, ptype: str) -> bool:
    """Whether document `name` is shared with the acting user with the right `ptype` stands for."""
    right = RIGHT_OF.get(ptype)
    if right is None or not name:
        return False
    return right in (await shared_of(ctx, doctype)).get(name, frozenset())
