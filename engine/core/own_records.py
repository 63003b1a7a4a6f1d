"""Row rules of records that belong to people: Notification Log and ToDo (engine/permissions/core_rules.py lists them).

- Notification Log: its `for_user` alone (Administrator: every log), as Frappe's
  `notification_log.get_permission_query_conditions`.
- ToDo: a System Manager every ToDo; anyone else those allocated to them, assigned by them or
  created by them (Frappe's `todo.get_permission_query_conditions`).
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
    if doc.is_new() or ctx.is_admin:
        return True
    return bool(doc.stored_value("for_user") == ctx.user)


async def query_conditions(ctx: Context, meta: Meta) -> Node | None:
    if meta.name == "ToDo":
        if MANAGER in await ctx.roles():
            return None
        return Or(tuple(Cond(field, Op.EQ, ctx.user) for field in TODO_PEOPLE))
    return None if ctx.is_admin else Cond("for_user", Op.EQ, ctx.user)
