"""Row rules of records that belong to people (engine/permissions/core_rules.py lists them).

- Notification Log: its `for_user` alone (Administrator: every log), as Frappe's
  `notification_log.get_permission_query_conditions`.
- ToDo: a System Manager every ToDo; anyone else those allocated to them, assigned by them or
  created by them (Frappe's `todo.get_permission_query_conditions`).
- User Permission: a System Manager every record; anyone else their own (`user`).
- DocShare: a System Manager every share; anyone else the shares with them or with everyone
  (writing either is the System Manager's, or `fw.share`'s).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.query.ast import Cond, Node, Op, Or

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument
    from engine.meta.schema import Meta

MANAGER = "System Manager"
TODO_PEOPLE = ("allocated_to", "assigned_by", "owner")


async def has_permission(ctx: Context, doc: BaseDocument, ptype: str) -> bool:
    if doc.doctype == "ToDo":
        if doc.is_new() or MANAGER in await ctx.roles():
            return True
        return any(doc.stored_value(field) == ctx.user for field in TODO_PEOPLE)
    if doc.doctype in ("User Permission", "DocShare"):
        if MANAGER in await ctx.roles():
            return True
        values = doc.to_record() if doc.is_new() else (doc._stored or {})
        return bool(values.get("user") == ctx.user or (doc.doctype == "DocShare" and values.get("everyone")))
    if doc.is_new() or ctx.is_admin:
        return True
    return bool(doc.stored_value("for_user") == ctx.user)


async def query_conditions(ctx: Context, meta: Meta) -> Node | None:
    if meta.name == "ToDo":
        if MANAGER in await ctx.roles():
            return None
        return Or(tuple(Cond(field, Op.EQ, ctx.user) for field in TODO_PEOPLE))
    if meta.name in ("User Permission", "DocShare"):
        if MANAGER in await ctx.roles():
            return None
        own = Cond("user", Op.EQ, ctx.user)
        return Or((own, Cond("everyone", Op.EQ, 1))) if meta.name == "DocShare" else own
    return None if ctx.is_admin else Cond("for_user", Op.EQ, ctx.user)
