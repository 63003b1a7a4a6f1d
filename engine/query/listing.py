"""Running queries: `get_list` and friends. Caller filters are AND-ed with the permission filter,
so they can never widen it; fields the caller may not read cannot be returned nor filtered on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine import permissions
from engine.documents import store, tree
from engine.query.ast import Node, conjoin, referenced_fields
from engine.query.compile import (
    FieldSpec,
    compile_fields,
    compile_filter,
    compile_group_by,
    compile_order_by,
    tree_targets,
)
from engine.query.parse import parse_filters, parse_or_filters
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.meta.schema import Meta


MAX_OFFSET = 2**62  # MongoDB's skip is a 64-bit integer


def page_length(value: Any, *, default: int, cap: int | None) -> int:
    """0 means "up to the cap" (unlimited for trusted callers with no cap)."""
    if value in (None, ""):
        length = default
    else:
        try:
            length = int(value)
        except (TypeError, ValueError):
            raise exc.DataError(_("limit_page_length must be a whole number"), field="limit_page_length") from None
        if length < 0:
            raise exc.DataError(_("limit_page_length cannot be negative"), field="limit_page_length")
    if cap:
        return cap if length == 0 else min(length, cap)
    return length


def _offset(value: Any) -> int:
    try:
        start = int(value or 0)
    except (TypeError, ValueError):
        raise exc.DataError(_("limit_start must be a whole number"), field="limit_start") from None
    if not 0 <= start <= MAX_OFFSET:
        raise exc.DataError(_("limit_start must be between 0 and {0}", MAX_OFFSET), field="limit_start")
    return start


async def _filter_for(ctx: Context, meta: Meta, filters: Any, or_filters: Any, *,
                      ignore_permissions: bool, readable: frozenset[str] | None) -> dict[str, Any]:
    caller: Node | None = conjoin(parse_filters(meta, filters, child_meta=ctx.meta),
                                  parse_or_filters(meta, or_filters, child_meta=ctx.meta))
    if readable is not None:
        hidden = sorted(referenced_fields(caller) - readable - {"name"})
        if hidden:
            raise exc.DataError(_("Field not permitted in query: {0}", hidden[0]), field=hidden[0])
    perm = None if ignore_permissions else await permissions.row_filter(ctx, meta)
    node = conjoin(caller, perm)
    ancestors = {name: await tree.ancestors_of(ctx, meta.name, name) for name in tree_targets(node)}
    return compile_filter(meta, node, tree_ancestors=ancestors, child_meta=ctx.meta)


def _shape(raw: dict[str, Any], spec: FieldSpec, drop_nulls: bool) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for col in spec.columns:
        field = col.field
        if field == "name":
            value = raw.get("_id")
        elif col.child is None:
            value = raw.get(field)  # type: ignore[arg-type]
        else:
            value = [r.get(col.child) for r in raw.get(field) or []]  # type: ignore[arg-type]
        if value is not None or not drop_nulls:
            row[col.key] = value
    return row


async def get_list(ctx: Context, doctype: str, *, fields: Any = None, filters: Any = None, or_filters: Any = None,
                   order_by: str | None = None, group_by: str | None = None, limit_start: Any = 0,
                   limit_page_length: Any = None, limit: Any = None, pluck: str | None = None,
                   as_dict: bool = True, ignore_permissions: bool = False, default_page_length: int = 20,
                   max_page_length: int | None = None, drop_nulls: bool = False) -> list[Any]:
    """Frappe's `get_list`: permission-aware rows of `doctype`, stable ordered, paged.

    `drop_nulls` leaves null values out of dict rows (Frappe's v1 REST list) in the same pass."""
    meta = ctx.meta(doctype)
    if meta.issingle or meta.istable:
        raise exc.DataError(_("{0} cannot be listed: it is a single or child doctype", doctype))
    readable = None if ignore_permissions else await permissions.readable_fields(ctx, meta)
    mfilter = await _filter_for(ctx, meta, filters, or_filters, ignore_permissions=ignore_permissions,
                                readable=readable)
    spec = compile_fields(meta, [pluck] if pluck else fields, readable=readable, child_meta=ctx.meta)
    aliases = frozenset(c.key for c in spec.columns)
    sort = compile_order_by(meta, order_by, aliases=aliases, readable=readable)
    skip = _offset(limit_start)
    length = page_length(limit if limit not in (None, "") else limit_page_length, default=default_page_length,
                         cap=max_page_length)
    if group_by or spec.has_aggregates:
        pipeline = compile_group_by(meta, group_by, spec, mfilter, sort, skip, length, readable=readable)
        rows = await store.aggregate(ctx, meta, pipeline)
        if not rows and not group_by and skip == 0:  # SQL answers one row for aggregates over nothing
            rows = [spec.empty_row()]
    else:
        raw = await store.find(ctx, meta, mfilter, projection=spec.projection, sort=sort, skip=skip, limit=length)
        rows = [_shape(r, spec, drop_nulls and as_dict and not pluck) for r in raw]
    if pluck:
        return [r.get(pluck) for r in rows]
    if not as_dict:
        return [[r.get(c.key) for c in spec.columns] for r in rows]
    return rows


async def get_all(ctx: Context, doctype: str, **kwargs: Any) -> list[Any]:
    """`get_list` without permission checks and, by default, without a page limit."""
    kwargs.setdefault("default_page_length", 0)
    return await get_list(ctx, doctype, ignore_permissions=True, **kwargs)


async def count(ctx: Context, doctype: str, filters: Any = None, *, or_filters: Any = None,
                ignore_permissions: bool = False) -> int:
    """Rows the user may read that match `filters` (permission-aware, unlike Frappe's)."""
    meta = ctx.meta(doctype)
    readable = None if ignore_permissions else await permissions.readable_fields(ctx, meta)
    mfilter = await _filter_for(ctx, meta, filters, or_filters, ignore_permissions=ignore_permissions,
                                readable=readable)
    return await store.count(ctx, meta, mfilter)


def _name_or_filters(filters: Any) -> Any:
    if isinstance(filters, str):
        return {"name": filters}
    return filters


async def get_value(ctx: Context, doctype: str, filters: Any = None, fieldname: str | list[str] = "name", *,
                    as_dict: bool = False, order_by: str | None = None, ignore_permissions: bool = True) -> Any:
    """One value (or a dict / list of values) from the first matching row; None when nothing matches.

    Like Frappe's `frappe.db.get_value`, internal callers skip permission checks by default.
    """
    meta = ctx.meta(doctype)
    fields = [fieldname] if isinstance(fieldname, str) else list(fieldname)
    if meta.issingle:
        record = await store.load(ctx, meta, meta.name) or {}
        values = {f: record.get(f) for f in fields}
    else:
        rows = await get_list(ctx, doctype, fields=fields, filters=_name_or_filters(filters), order_by=order_by,
                              limit_page_length=1, ignore_permissions=ignore_permissions)
        if not rows:
            return None
        values = rows[0]
    if as_dict:
        return values
    return values[fields[0]] if isinstance(fieldname, str) else [values[f] for f in fields]


async def exists(ctx: Context, doctype: str, filters: Any) -> str | None:
    """The name of the first matching document, or None."""
    if isinstance(filters, Mapping) and not filters:
        return None
    return await get_value(ctx, doctype, filters, "name")  # type: ignore[no-any-return]
