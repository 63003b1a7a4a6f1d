"""Row rules of core doctypes: the framework's own `has_permission` and
`permission_query_conditions`, written beside the doctype's controller and listed here, so the
permission component applies them exactly where it applies the apps' hooks (single documents,
lists, counts). Like those hooks, a rule can only narrow what DocPerm rows grant.

One core rule grants instead: a user may read and write their own User document when no DocPerm
row grants it (`self_permission`; the User controller keeps the rest of contract §2.5).

A rule module defines `async has_permission(ctx, doc, ptype) -> bool` and
`async query_conditions(ctx, meta) -> Node | None` (a filter AST, None for no restriction).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.documents.base import BaseDocument
    from engine.site import Context

RULES = {"File": "engine.core.file_permission", "Notification Log": "engine.core.own_records",
         "ToDo": "engine.core.own_records", "User Permission": "engine.core.own_records",
         "DocShare": "engine.core.own_records"}
SELF_RIGHTS = frozenset({"read", "select", "write"})
_loaded: dict[str, ModuleType] = {}


def rule_for(doctype: str) -> ModuleType | None:
    path = RULES.get(doctype)
    if path is None:
        return None
    module = _loaded.get(path)
    if module is None:  # imported on first use: the rule modules import the permission component
        module = _loaded[path] = importlib.import_module(path)
    return module


def self_permission(ctx: Context, doc: BaseDocument, ptype: str) -> bool:
    """Whether `ctx.user` may `ptype` the stored User `doc` because it is their own."""
    if doc.doctype != "User" or ptype not in SELF_RIGHTS or doc.is_new() or ctx.user == "Guest":
        return False
    return bool(doc.stored_value("name") == ctx.user)
