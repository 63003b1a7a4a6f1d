"""Who may do what: DocPerm rights by role, `if_owner`, `has_permission` hooks, row conditions
and field permlevels, plus the core doctypes' own row rules (`core_rules`: File). One component
feeds single reads, lists, counts, reports and writes.

`has_permission` hooks can only deny: a hook must return a truthy value to let the check pass
(Frappe v16's stricter rule; a hook that forgets to return denies, which shows up at once).
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.hooks import call_with_supported
from engine.meta import fieldtypes
from engine.permissions import core_rules, rows
from engine.permissions.roles import Grant, rights_for
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.document import Document
    from engine.meta.schema import DocFieldSchema, Meta
    from engine.query.ast import Node

__all__ = ["check_doctype", "check_document", "guard_field_writes", "has_permission", "readable_fields",
           "row_filter"]


async def _grant(ctx: Context, meta: Meta, ptype: str) -> Grant:
    if ptype in ("submit", "cancel", "amend") and not meta.is_submittable:
        return Grant.NONE
    return rights_for(meta, await ctx.roles()).get(ptype, Grant.NONE)


async def has_permission(ctx: Context, doctype: str, ptype: str = "read", doc: Document | None = None) -> bool:
    """Whether `ctx.user` has `ptype` on the doctype (or on `doc`, when given)."""
    if ctx.is_admin:
        return True
    meta = ctx.meta(doctype)
    if meta.istable:
        return False
    grant = await _grant(ctx, meta, ptype)
    if grant is Grant.NONE:
        from engine.core.user import self_permission  # core rule: a user reads and edits their own User

        if doc is None or not self_permission(ctx, doc, ptype):
            return False
        grant = Grant.ALL
    if doc is None:
        return True
    stored = not doc.is_new()
    # the owner and the row conditions are judged on the stored document, never on unsaved edits
    # (changing `owner` in memory must not hand someone else's document over)
    owner = doc.stored_value("owner") if stored else doc.get("owner")
    if grant is Grant.OWNER and ptype != "create" and (owner or ctx.user) != ctx.user:
        return False
    if stored and ptype != "create" and ctx.site.apps.permission_hooks("permission_query_conditions", doctype) \
            and doc.get("name") and not await rows.document_matches(ctx, meta, doc.name):
        return False
    for hook in ctx.site.apps.permission_hooks("has_permission", doctype):
        verdict = call_with_supported(hook, doc=doc, ptype=ptype, user=ctx.user, ctx=ctx)
        if inspect.isawaitable(verdict):
            verdict = await verdict
        if not verdict:
            return False
    rule = core_rules.rule_for(doctype)
    return rule is None or bool(await rule.has_permission(ctx, doc, ptype))


def _denied(doctype: str, ptype: str, name: str | None = None) -> exc.PermissionError:
    if name:
        return exc.PermissionError(_("You need the {0} permission on {1} {2} to perform this action",
                                     _(ptype), _(doctype), name))
    return exc.PermissionError(_("You need the {0} permission on {1} to perform this action", _(ptype), _(doctype)))


async def check_doctype(ctx: Context, doctype: str, ptype: str = "read") -> None:
    if not await has_permission(ctx, doctype, ptype):
        raise _denied(doctype, ptype)


async def check_document(ctx: Context, doc: Document, ptype: str = "read") -> None:
    if not await has_permission(ctx, doc.doctype, ptype, doc):
        raise _denied(doc.doctype, ptype, doc.get("name"))


async def row_filter(ctx: Context, meta: Meta, ptype: str = "read") -> Node | None:
    """Conditions every row the user reads must meet (None = no restriction).

    Raises PermissionError when the user may not read the doctype at all.
    """
    if ctx.is_admin:
        return None
    grant = await _grant(ctx, meta, ptype)
    if grant is Grant.NONE and ptype == "read":
        grant = await _grant(ctx, meta, "select")
    if grant is Grant.NONE:
        raise _denied(meta.name, ptype)
    return await rows.build_row_filter(ctx, meta, owner_only=grant is Grant.OWNER)


async def reads_every_row(ctx: Context, doctype: str) -> bool:
    """Whether the user may read every row of `doctype`: read on the doctype with no owner, row
    condition or `has_permission` hook narrowing it (who may hear every record's name)."""
    if ctx.is_admin:
        return True
    meta = ctx.meta(doctype)
    if meta.istable or not await has_permission(ctx, doctype, "read"):
        return False
    if ctx.site.apps.permission_hooks("has_permission", meta.name):
        return False
    return await row_filter(ctx, meta, "read") is None


async def readable_fields(ctx: Context, meta: Meta) -> frozenset[str] | None:
    """Fieldnames the user may read, or None when every permlevel is readable (the common case)."""
    if ctx.is_admin or not meta.has_permlevels:
        return None
    levels = rights_for(meta, await ctx.roles()).readable_levels
    if meta.permlevels <= levels:
        return None
    return frozenset(meta.standard) | frozenset(
        f.fieldname for f in meta.fields if f.fieldname and f.permlevel in levels)


async def guard_field_writes(ctx: Context, doc: Document, ignore_permissions: bool) -> None:
    """A change to a field at a permlevel the user cannot write is refused, naming the field."""
    meta = doc.meta
    if ignore_permissions or ctx.is_admin or not meta.has_permlevels:
        return
    levels = rights_for(meta, await ctx.roles()).writable_levels
    record: dict[str, Any] | None = None
    for field in meta.fields:
        if field.fieldname and field.permlevel not in levels and (field.has_value or field.is_table):
            record = doc.to_record() if record is None else record
            current = record.get(field.fieldname)
            if doc.is_new():
                unchanged = _same_value(field, current, None, meta.name) or (
                    field.default is not None and current == _default(doc, field))
            else:
                unchanged = _same_value(field, current, doc.stored_value(field.fieldname), meta.name)
            if not unchanged:
                raise exc.PermissionError(
                    _("You are not allowed to change {0}", _(field.display_label)), field=field.fieldname)


def _same_value(field: DocFieldSchema, current: Any, before: Any, doctype: str) -> bool:
    """Equal once both are normalised by the field type: a missing Int is 0, a missing Check is 0,
    blank text is empty. (Values are already coerced when this runs; `before` may be absent.)"""
    if current == before:
        return True
    if field.is_table:
        return not current and not before
    try:
        return bool(fieldtypes.coerce_value(field, current, doctype=doctype)
                    == fieldtypes.coerce_value(field, before, doctype=doctype))
    except exc.FwError:
        return False


def _default(doc: Document, field: DocFieldSchema) -> Any:
    """The value insert's defaults gave the field (`Today`/`Now` resolved against `creation`)."""
    now = str(doc.get("creation") or "")
    try:
        return fieldtypes.default_value(field, now=now, today=now[:10], doctype=doc.doctype)
    except exc.FwError:
        return field.default
