"""Link expansion: Link and Dynamic Link values replaced by the documents they name, as the caller
may read them (Frappe's `expand` on lists and `expand_links` on single reads).

One query per target doctype, never one per row. A linked document the caller may not read (no
read right, a row condition, an `if_owner` rule or a `has_permission` hook says no) stays a plain
name: expansion never fails a request and never shows more than reading the document would.
Fields above the caller's permlevels are removed from expanded documents as from any other.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine import permissions
from engine.documents import store
from engine.methods.args import bool_arg
from engine.query import listing
from engine.query.compile import field_items
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.meta.schema import DocFieldSchema, Meta

EXPANDABLE_TYPES = frozenset({"Link", "Dynamic Link"})
Targets = dict[str, set[str]]  # doctype → names to load


def expandable_fields(meta: Meta, expand: Any, readable: frozenset[str] | None) -> list[DocFieldSchema]:
    """The Link / Dynamic Link fields an `expand` argument names (a list, a JSON list or comma-separated
    text); DataError (naming `expand`) for anything else or a field the caller may not read."""
    if isinstance(expand, str) and not expand.lstrip().startswith("["):
        expand = expand.split(",")
    try:
        names: Iterable[Any] = [n for n in field_items(expand) if n != "name"] if expand else []
    except exc.DataError:
        raise exc.DataError(_("expand must be a list of Link fields"), field="expand") from None
    fields = []
    for name in names:
        df = meta.get_field(name) if isinstance(name, str) else None
        if df is None or df.fieldtype not in EXPANDABLE_TYPES:
            raise exc.DataError(_("expand: {0} is not a Link field of {1}", str(name)[:140], _(meta.name)),
                                field="expand")
        if readable is not None and df.fieldname not in readable:
            raise exc.DataError(_("Field not permitted in query: {0}", df.fieldname), field="expand")
        fields.append(df)
    return fields


def with_link_columns(fields: Any, link_fields: list[DocFieldSchema]) -> Any:
    """`fields` (a list, JSON text or None) with the expanded fields, and the doctype field of each
    Dynamic Link, added where they are not asked for already."""
    items = field_items(fields)
    if "*" in items:
        return items
    wanted = [f.fieldname for f in link_fields] + [f.options or "" for f in link_fields if f.fieldtype != "Link"]
    return items + [name for name in dict.fromkeys(wanted) if name not in items]


async def expand_for_list(ctx: Context, doctype: str, expand: Any, fields: Any,
                          as_dict: Any) -> tuple[Any, list[DocFieldSchema]]:
    """Check a list request's `expand`: the `fields` to ask for and the link fields to expand."""
    meta = ctx.meta(doctype)
    link_fields = expandable_fields(meta, expand, await permissions.readable_fields(ctx, meta))
    if not link_fields:
        return fields, []
    if not bool_arg(as_dict, "as_dict"):
        raise exc.DataError(_("expand needs rows as objects (as_dict)"), field="expand")
    return with_link_columns(fields, link_fields), link_fields


async def expand_single(ctx: Context, meta: Meta, data: dict[str, Any], *, expand: Any = None,
                        expand_links: Any = None, no_nulls: bool) -> None:
    """A single read's expansion, in place: every link with `expand_links`, else the `expand` fields."""
    if bool_arg(expand_links, "expand_links"):
        await expand_document(ctx, meta, data, no_nulls=no_nulls)
    elif expand:
        fields = expandable_fields(meta, expand, await permissions.readable_fields(ctx, meta))
        await expand_rows(ctx, [data], fields, no_nulls=no_nulls)


def _target(row: Mapping[str, Any], df: DocFieldSchema) -> tuple[str, str] | None:
    """(doctype, name) a row's link field points at, or None (empty, or not a name)."""
    value = row.get(df.fieldname)
    doctype = df.options if df.fieldtype == "Link" else row.get(df.options or "")
    if isinstance(value, str) and value and isinstance(doctype, str) and doctype:
        return doctype, value
    return None


async def _readable_documents(ctx: Context, targets: Targets, *, no_nulls: bool) -> dict[tuple[str, str], Any]:
    """The linked documents the caller may read, as readable dicts, by (doctype, name)."""
    found: dict[tuple[str, str], Any] = {}
    for doctype, names in targets.items():
        if not ctx.site.meta.exists(doctype):
            continue
        meta = ctx.meta(doctype)
        if meta.istable or meta.issingle or not await permissions.has_permission(ctx, doctype, "read"):
            continue
        query = await listing.readable_rows_filter(ctx, meta)
        ids = {"_id": {"$in": sorted(names)}}
        records = await store.find(ctx, meta, {"$and": [ids, query]} if query else ids)
        controller = ctx.site.apps.controller(doctype)
        hooked = bool(ctx.site.apps.permission_hooks("has_permission", doctype))
        for record in records:
            doc = controller(meta, record, ctx=ctx, stored=True)
            if hooked and not await permissions.has_permission(ctx, doctype, "read", doc):
                continue
            found[(doctype, doc.name)] = await permissions.readable_data(ctx, doc.meta, doc.as_dict(no_nulls=no_nulls))
    return found


async def _expand(ctx: Context, places: list[tuple[dict[str, Any], list[DocFieldSchema]]], *, no_nulls: bool) -> None:
    """Replace the link values at `places` (a row and its link fields), in place. Every target is
    read before anything is replaced: a Dynamic Link's doctype may sit in a Link that is expanded too."""
    resolved = [(row, [(df, _target(row, df)) for df in fields]) for row, fields in places]
    targets: Targets = defaultdict(set)
    for _row, pairs in resolved:
        for _df, target in pairs:
            if target is not None:
                targets[target[0]].add(target[1])
    if not targets:
        return
    found = await _readable_documents(ctx, targets, no_nulls=no_nulls)
    for row, pairs in resolved:
        for df, target in pairs:
            if target is not None and target in found:
                row[df.fieldname] = found[target]


async def expand_rows(ctx: Context, rows: list[dict[str, Any]], fields: list[DocFieldSchema], *,
                      no_nulls: bool) -> None:
    """Replace each list row's value of `fields` by the linked document, in place."""
    await _expand(ctx, [(row, fields) for row in rows], no_nulls=no_nulls)


def _link_fields(meta: Meta) -> list[DocFieldSchema]:
    return [f for f in meta.fields if f.fieldtype in EXPANDABLE_TYPES]


async def expand_document(ctx: Context, meta: Meta, data: dict[str, Any], *, no_nulls: bool) -> None:
    """Replace every Link and Dynamic Link value of a document dict, child rows included, in place."""
    places: list[tuple[dict[str, Any], list[DocFieldSchema]]] = [(data, _link_fields(meta))]
    for table in meta.table_fields:
        child_fields = _link_fields(ctx.meta(table.options or ""))
        if child_fields:
            places += [(row, child_fields) for row in data.get(table.fieldname) or [] if isinstance(row, dict)]
    await _expand(ctx, places, no_nulls=no_nulls)
