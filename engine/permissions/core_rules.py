"""Row rules of core doctypes: the framework's own `has_permission` and
`permission_query_conditions`, written beside the doctype's controller and listed here, so the
permission component applies them exactly where it applies the apps' hooks (single documents,
lists, counts). Like those hooks, a rule can only narrow what DocPerm rows grant.

A rule module defines `async has_permission(ctx, doc, ptype) -> bool` and
`async query_conditions(ctx, meta) -> Node | None` (a filter AST, None for no restriction).
"""

from __future__ import annotations

import importlib
from types import ModuleType

RULES = {"File": "engine.core.file_permission"}
_loaded: dict[str, ModuleType] = {}


def rule_for(doctype: str) -> ModuleType | None:
    path = RULES.get(doctype)
    if path is None:
        return None
    module = _loaded.get(path)
    if module is None:  # imported on first use: the rule modules import the permission component
        module = _loaded[path] = importlib.import_module(path)
    return module
