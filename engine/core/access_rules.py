"""Row rules of the record-access doctypes (engine/permissions/core_rules.py lists them): a user who
is not a System Manager reads only their own User Permission records and the DocShare records of
shares with them (or with everyone); writing either is the System Manager's, or `fw.share`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.query.ast import Cond, Node, Op, Or

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument
    from engine.meta.schema import Meta

MANAGER = "System Manager"


async def has_permission(ctx: Context, doc: BaseDocument, ptype: str) -> bool:
    if MANAGER in await ctx.roles():
        return True
    values = doc.to_record() if doc.is_new() else (doc._stored or {})
    if doc.doctype == "DocShare" and values.get("everyone"):
        return True
    return bool(values.get("user") == ctx.user)


async def query_conditions(ctx: Context, meta: Meta) -> Node | None:
    if MANAGER in await ctx.roles():
        return None
    own = Cond("user", Op.EQ, ctx.user)
    return Or((own, Cond("everyone", Op.EQ, 1))) if meta.name == "DocShare" else own
