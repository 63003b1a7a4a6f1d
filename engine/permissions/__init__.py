"""Who may do what: DocPerm rights by role, `if_owner`, `has_permission` hooks, row conditions,
User Permissions (`user_access`), shared documents (`shares`) and field permlevels, plus the core
doctypes' own row rules (`core_rules`: File). One component feeds single reads, lists, counts,
reports, search, realtime and writes, so a rule added here holds on every path.

A share grants what it names on its document whatever the roles, the owner rule, the row conditions
and the User Permissions say; `has_permission` hooks and core rules still judge it.

`has_permission` hooks can only deny: a hook must return a truthy value to let the check pass
(Frappe v16's stricter rule; a hook that forgets to return denies, which shows up at once).
"""

from __future__ import annotations

import inspect
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.apps.callables import call_with_supported
from engine.meta import fieldtypes
from engine.meta.schema import RIGHTS
from engine.permissions import core_rules, rows, shares, user_access
from engine.permissions.roles import Grant, rights_for
from engine.query.ast import Cond, Op, Or, conjoin
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument
    from engine.meta.schema import DocFieldSchema, Meta
    from engine.query.ast import Node

__all__ = ["check_doctype", "check_document", "check_restricted_values", "creates_any", "doctype_rights",
           "guard_field_writes", "has_permission", "keep_unwritable_row_values", "link_defaults", "readable_data",
           "readable_fields", "readable_row_fields", "row_filter", "writable_levels", "writes_every_row"]


async def _grant(ctx: Context, meta: Meta, ptype: str) -> Grant:
    if ptype in ("submit", "cancel", "amend") and not meta.is_submittable:
        return Grant.NONE
    return rights_for(meta, await ctx.roles()).get(ptype, Grant.NONE)


async def has_permission(ctx: Context, doctype: str, ptype: str = "read", doc: BaseDocument | None = None) -> bool:
    """Whether `ctx.user` has `ptype` on the doctype (or on `doc`, when given). On the doctype alone,
    a user without the role right who has documents of it shared with that right has it."""
    if ctx.is_admin:
        return True
    meta = ctx.meta(doctype)
    if meta.istable:
        return False
    grant = await _grant(ctx, meta, ptype)
    if grant is Grant.NONE and doc is not None and core_rules.self_permission(ctx, doc, ptype):
        grant = Grant.ALL  # a user reads and edits their own User
    if doc is None:
        return grant is not Grant.NONE or bool(await shares.shared_names(ctx, doctype, ptype))
    if not await _granted_on(ctx, meta, grant, ptype, doc) \
            and not await shares.is_shared(ctx, doctype, doc.get("name"), ptype):
        return False
    for hook in ctx.site.apps.permission_hooks("has_permission", doctype):
        verdict = call_with_supported(hook, doc=doc, ptype=ptype, user=ctx.user, ctx=ctx)
        if inspect.isawaitable(verdict):
            verdict = await verdict
        if not verdict:
            return False
    rule = core_rules.rule_for(doctype)
    return rule is None or bool(await rule.has_permission(ctx, doc, ptype))


async def _granted_on(ctx: Context, meta: Meta, grant: Grant, ptype: str, doc: BaseDocument) -> bool:
    """Whether the role right `grant` reaches `doc`: the owner rule, the row conditions and the User
    Permissions, judged on the stored document, never on unsaved edits (changing `owner` or a Link in
    memory must not hand someone else's document over)."""
    if grant is Grant.NONE:
        return False
    if grant is Grant.OWNER and ptype != "create":
        owner = doc.get("owner") if doc.is_new() else doc.stored_value("owner")
        if (owner or ctx.user) != ctx.user:
            return False
    if ptype != "create" and ctx.site.apps.permission_hooks("permission_query_conditions", meta.name) \
            and not doc.is_new() and doc.get("name") and not await rows.document_matches(ctx, meta, doc.name):
        return False
    restriction = await user_access.restriction_for(ctx, meta)
    return restriction is None or restriction.violation(user_access.judged_record(doc),
                                                        check_name=not doc.is_new()) is None


async def doctype_rights(ctx: Context, meta: Meta) -> dict[str, Any]:
    """The user's rights on a doctype as the Desk's boot lists them: `{right: 1}` for each right held
    (on every document, or only on their own), and `if_owner` naming the rights held only on their
    own documents. Child tables get {} (their rows are reached through the parent)."""
    if meta.istable:
        return {}
    out: dict[str, Any] = {}
    own: list[str] = []
    for right in RIGHTS:
        grant = Grant.ALL if ctx.is_admin else await _grant(ctx, meta, right)
        if ctx.is_admin and right in ("submit", "cancel", "amend") and not meta.is_submittable:
            grant = Grant.NONE
        if grant is not Grant.NONE:
            out[right] = 1
            if grant is Grant.OWNER:
                own.append(right)
    if own:
        out["if_owner"] = own
    return out


def _denied(doctype: str, ptype: str, name: str | None = None) -> exc.PermissionError:
    if name:
        return exc.PermissionError(_("You need the {0} permission on {1} {2} to perform this action",
                                     _(ptype), _(doctype), name))
    return exc.PermissionError(_("You need the {0} permission on {1} to perform this action", _(ptype), _(doctype)))


async def check_doctype(ctx: Context, doctype: str, ptype: str = "read") -> None:
    if not await has_permission(ctx, doctype, ptype):
        raise _denied(doctype, ptype)


async def check_document(ctx: Context, doc: BaseDocument, ptype: str = "read") -> None:
    """`ptype` on `doc`, or PermissionError; one that changes the document also checks the values it
    would store against the user's User Permissions (`check_restricted_values`)."""
    if not await has_permission(ctx, doc.doctype, ptype, doc):
        if ptype in CHANGES:  # say which value a refused change stumbled on, when one did
            await check_restricted_values(ctx, doc, ptype)
        raise _denied(doc.doctype, ptype, doc.get("name"))
    if ptype in CHANGES and not doc.is_new():
        await check_restricted_values(ctx, doc, ptype)


async def link_defaults(ctx: Context, meta: Meta) -> dict[str, str]:
    """{Link fieldname: value} a new document of `meta` starts from (the user's `is_default` User
    Permissions)."""
    return await user_access.link_defaults(ctx, meta)


#: the rights whose use stores a document's current values
CHANGES = frozenset({"create", "write", "submit", "cancel", "amend"})


async def check_restricted_values(ctx: Context, doc: BaseDocument, ptype: str = "write") -> None:
    """A document's current values must be allowed by the user's User Permissions (a share with
    `ptype` on the stored document exempts it): a Link set outside them is refused, naming the field."""
    restriction = await user_access.restriction_for(ctx, doc.meta)
    if restriction is None:
        return
    found = restriction.violation(doc.to_record(), check_name=False)
    if found is None or found.check is None:
        return
    if not doc.is_new() and await shares.is_shared(ctx, doc.doctype, doc.get("name"), ptype):
        return
    check = found.check
    label = _(check.fieldname)
    field = doc.meta.get_field(check.table or check.fieldname)
    if check.table is None and field is not None:
        label = _(field.display_label)
    if found.row_idx is not None:
        raise exc.PermissionError(_("Not allowed for {0}: {1} in row {2}. Restricted field: {3}", _(check.target),
                                    found.value or "", found.row_idx, label), field=check.fieldname)
    raise exc.PermissionError(_("Not allowed for {0}: {1}. Restricted field: {2}", _(check.target),
                                found.value or "", label), field=check.fieldname)


async def row_filter(ctx: Context, meta: Meta, ptype: str = "read") -> Node | None:
    """Conditions every row the user reads must meet (None = no restriction).

    Raises PermissionError when the user may not read the doctype at all.
    """
    if ctx.is_admin:
        return None
    grant = await _grant(ctx, meta, ptype)
    if grant is Grant.NONE and ptype == "read":
        grant = await _grant(ctx, meta, "select")
    shared = await shares.shared_names(ctx, meta.name, ptype)
    if grant is Grant.NONE:
        if not shared:
            raise _denied(meta.name, ptype)
        return Cond("name", Op.IN, tuple(sorted(shared)))
    node = await rows.build_row_filter(ctx, meta, owner_only=grant is Grant.OWNER)
    restriction = await user_access.restriction_for(ctx, meta)
    if restriction is not None:
        node = conjoin(node, restriction.node())
    if node is not None and shared:  # shared documents are readable whatever else narrows the rest
        node = Or((node, Cond("name", Op.IN, tuple(sorted(shared)))))
    return node


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


async def writes_every_row(ctx: Context, meta: Meta) -> bool:
    """Whether the user may write every document of `meta` whatever it holds: the write right with no
    owner rule, row condition, `has_permission` hook or core rule narrowing it, so a write is allowed
    without a look at the stored document (engine/documents/one_call.py)."""
    if meta.istable:
        return False
    if ctx.is_admin:
        return True
    if await _grant(ctx, meta, "write") is not Grant.ALL:
        return False
    apps = ctx.site.apps
    return not (apps.permission_hooks("has_permission", meta.name)
                or apps.permission_hooks("permission_query_conditions", meta.name)
                or core_rules.rule_for(meta.name)
                or await user_access.restriction_for(ctx, meta) is not None)


async def creates_any(ctx: Context, meta: Meta) -> bool:
    """Whether the user may create a document of `meta` whatever it holds: the create right (an owner
    rule does not narrow a create), with no `has_permission` hook or core rule judging the document,
    so a create is allowed without building one (engine/documents/direct_create.py)."""
    if meta.istable:
        return False
    if ctx.is_admin:
        return True
    if await _grant(ctx, meta, "create") is Grant.NONE:
        return False
    return not (ctx.site.apps.permission_hooks("has_permission", meta.name) or core_rules.rule_for(meta.name)
                or await user_access.restriction_for(ctx, meta) is not None)


async def writable_levels(ctx: Context, meta: Meta) -> frozenset[int] | None:
    """The permlevels whose fields the user may change, or None when no permlevel restricts them."""
    if not _restricted(ctx, meta):
        return None
    return rights_for(meta, await ctx.roles()).writable_levels


def _restricted(ctx: Context, meta: Meta) -> bool:
    """Whether field permlevels could hide anything of `meta` (its own fields or its tables' rows)."""
    return not ctx.is_admin and (meta.has_permlevels or meta.rows_have_permlevels)


@lru_cache(maxsize=4096)
def _field_access(meta: Meta, roles: frozenset[str]) -> tuple[frozenset[str] | None, dict[str, frozenset[str]]]:
    """(readable fieldnames, or None for all; readable row fields of each table that hides some).
    A child doctype's permlevels are judged by the parent's DocPerm rows, as in Frappe. Tables that
    hide row fields also enter the first set as `table.field` entries, so that what is cached per
    readable set (list query plans) tells such users apart."""
    levels = rights_for(meta, roles).readable_levels
    rows: dict[str, frozenset[str]] = {}
    for table in meta.table_fields:
        child = meta.registry.get(table.options or "") if meta.registry is not None else None
        if child is not None and not child.permlevels <= levels:
            rows[table.fieldname] = frozenset(child.standard) | frozenset(
                f.fieldname for f in child.fields if f.fieldname and f.permlevel in levels)
    if meta.permlevels <= levels and not rows:
        return None, rows
    own = meta.standard_readable | frozenset(
        f.fieldname for f in meta.fields if f.fieldname and f.permlevel in levels)
    return own | frozenset(f"{table}.{field}" for table, fields in rows.items() for field in fields), rows


async def readable_fields(ctx: Context, meta: Meta) -> frozenset[str] | None:
    """Fieldnames the user may read, or None when every permlevel is readable (the common case).
    Row fields of tables that hide some appear as `table.field` too (see `readable_row_fields`)."""
    if not _restricted(ctx, meta):
        return None
    return _field_access(meta, await ctx.roles())[0]


async def readable_row_fields(ctx: Context, meta: Meta) -> dict[str, frozenset[str]]:
    """The row fields the user may read, for each table of `meta` whose rows hide some."""
    if not _restricted(ctx, meta):
        return {}
    return _field_access(meta, await ctx.roles())[1]


def without_hidden_row_fields(row: Any, readable: frozenset[str]) -> Any:
    return {k: v for k, v in row.items() if k == "doctype" or k in readable} if isinstance(row, dict) else row


async def readable_data(ctx: Context, meta: Meta, data: dict[str, Any]) -> dict[str, Any]:
    """A document dict without the fields, and the child-row fields, the user may not read."""
    readable = await readable_fields(ctx, meta)
    if readable is None:
        return data
    data = {k: v for k, v in data.items() if k == "doctype" or k in readable}
    for table, fields in (await readable_row_fields(ctx, meta)).items():
        if data.get(table):
            data[table] = [without_hidden_row_fields(row, fields) for row in data[table]]
    return data


async def keep_unwritable_row_values(ctx: Context, doc: BaseDocument, ignore_permissions: bool) -> None:
    """Rows sent without fields the user may not write get their stored values back: a client
    replaces a table with the rows it could see, and must not erase what it could not (Frappe
    restores them likewise). A row that sends such a field is judged by `guard_field_writes`."""
    meta = doc.meta
    if ignore_permissions or doc.is_new() or ctx.is_admin or not meta.rows_have_permlevels:
        return
    levels = rights_for(meta, await ctx.roles()).writable_levels
    for table, fields in _unwritable_row_fields(ctx, meta, levels):
        stored = _stored_rows(doc, table.fieldname)
        for row in doc._data.get(table.fieldname) or []:
            before = stored.get(row._data.get("name"))
            if before is not None:
                for field in fields:
                    if field.fieldname not in row._data and field.fieldname in before:
                        row._data[field.fieldname] = before[field.fieldname]


def _stored_rows(doc: BaseDocument, table: str) -> dict[Any, dict[str, Any]]:
    """The stored rows of a table by row name (none for a new document)."""
    return {row.get("name"): row for row in doc.stored_value(table) or [] if isinstance(row, dict)}


def _unwritable_row_fields(ctx: Context, meta: Meta, levels: frozenset[int]
                           ) -> list[tuple[DocFieldSchema, list[DocFieldSchema]]]:
    """(table, its row fields above the writable `levels`) for each table that has some."""
    found = []
    for table in meta.table_fields:
        child = ctx.meta(table.options or "")
        fields = [f for f in child.fields if f.fieldname and f.has_value and f.permlevel not in levels]
        if fields:
            found.append((table, fields))
    return found


async def guard_field_writes(ctx: Context, doc: BaseDocument, ignore_permissions: bool) -> None:
    """A change to a field (or a child-row field) at a permlevel the user cannot write is refused,
    naming the field."""
    meta = doc.meta
    if ignore_permissions or not _restricted(ctx, meta):
        return
    levels = rights_for(meta, await ctx.roles()).writable_levels
    if meta.rows_have_permlevels:
        _guard_row_writes(ctx, doc, levels)
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


def _guard_row_writes(ctx: Context, doc: BaseDocument, levels: frozenset[int]) -> None:
    for table, fields in _unwritable_row_fields(ctx, doc.meta, levels):
        stored = _stored_rows(doc, table.fieldname)
        for row in doc._data.get(table.fieldname) or []:
            before = stored.get(row._data.get("name"))
            for field in fields:
                current = row._data.get(field.fieldname)
                if before is None:  # a new row: the field keeps its default, or stays empty
                    unchanged = _same_value(field, current, None, row.doctype) or (
                        field.default is not None and current == _default(row, field))
                else:
                    unchanged = _same_value(field, current, before.get(field.fieldname), row.doctype)
                if not unchanged:
                    raise exc.PermissionError(_("You are not allowed to change {0}", _(field.display_label)),
                                              field=field.fieldname)


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


def _default(doc: BaseDocument, field: DocFieldSchema) -> Any:
    """The value insert's defaults gave the field (`Today`/`Now` resolved against `creation`)."""
    now = str(doc.get("creation") or "")
    try:
        return fieldtypes.default_value(field, now=now, today=now[:10], doctype=doc.doctype)
    except exc.FwError:
        return field.default
