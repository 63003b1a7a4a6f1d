"""Row conditions: the owner rule for `if_owner` rights and `permission_query_conditions` hooks.

Hooks return filters in the resource filter language (never SQL, never raw MongoDB), which go
through the same parser as a caller's filters and are AND-ed with them.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from engine import exceptions as exc
from engine.apps.callables import call_with_supported
from engine.documents import store, tree
from engine.permissions.core_rules import rule_for as core_rule_for
from engine.query.ast import And, Cond, Node, Op
from engine.query.compile import compile_filter, tree_targets
from engine.query.parse import parse_filters

if TYPE_CHECKING:
    from engine.context import Context
    from engine.meta.schema import Meta


async def build_row_filter(ctx: Context, meta: Meta, *, owner_only: bool) -> Node | None:
    parts: list[Node] = []
    if owner_only:
        parts.append(Cond("owner", Op.EQ, ctx.user))
    for fn in ctx.site.apps.permission_hooks("permission_query_conditions", meta.name):
        result = call_with_supported(fn, user=ctx.user, doctype=meta.name, ctx=ctx)
        if inspect.isawaitable(result):
            result = await result
        if result in (None, "", [], {}):
            continue
        if isinstance(result, str):
            raise exc.ConfigurationError(
                f"permission_query_conditions for {meta.name} returned a string; return filters like "
                f"[['employee', '=', 'HR-EMP-00001']] instead of SQL")
        node = parse_filters(meta, result, child_meta=ctx.meta)
        if node is not None:
            parts.append(node)
    rule = core_rule_for(meta.name)  # a core doctype's own rule (File), already a filter AST
    if rule is not None and (node := await rule.query_conditions(ctx, meta)) is not None:
        parts.append(node)
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else And(tuple(parts))


async def document_matches(ctx: Context, meta: Meta, name: str) -> bool:
    """Whether the stored document `name` meets the `permission_query_conditions` hooks' filters
    (so reading one document obeys the same restriction as listing). No hooks: no query."""
    node = await build_row_filter(ctx, meta, owner_only=False)
    if node is None:
        return True
    ancestors = {target: await tree.ancestors_of(ctx, meta.name, target) for target in tree_targets(node)}
    compiled = compile_filter(meta, node, tree_ancestors=ancestors, child_meta=ctx.meta)
    return await store.find_one(ctx, meta, {"$and": [{"_id": name}, compiled]}, {"_id": 1}) is not None
