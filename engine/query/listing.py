"""Running queries: `get_list` and friends. Caller filters are AND-ed with the permission filter,
so they can never widen it; fields the caller may not read cannot be returned nor filtered on."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from engine import exceptions as exc
from engine import permissions
from engine.documents import store, tree
from engine.methods.args import MAX_OFFSET as MAX_OFFSET  # re-exported: its home is the arguments module
from engine.methods.args import offset_arg, page_length
from engine.query import parse
from engine.query.ast import Node, conjoin, referenced_fields, referenced_row_fields
from engine.query.compile import (
    FieldSpec,
    compile_after,
    compile_fields,
    compile_filter,
    compile_group_by,
    compile_order_by,
    keyset_sort,
    tree_targets,
)
from engine.query.parse import parse_filters, parse_or_filters
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.meta.schema import Meta

_T = TypeVar("_T")
PLANS_PER_DOCTYPE = 256  # parsed queries kept per meta (a dashboard asks the same few again and again)
_KEY_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS


def _plan_key(*parts: Any) -> bytes | None:
    """A cache key for JSON-shaped arguments; None (no caching) when anything else is inside."""
    try:
        return orjson.dumps(parts, option=_KEY_OPTIONS)
    except TypeError:
        return None


def _planned(meta: Meta, key: tuple[str, bytes | None, frozenset[str] | None], build: Callable[[], _T]) -> _T:
    """`build()`, remembered on `meta` under `key` (what, the arguments' key, the readable fields):
    parsing and compiling is pure, and the same queries come again and again. What is remembered
    is never mutated by its users."""
    if key[1] is None:
        return build()
    plans = meta.query_plans
    plan = plans.get(key)
    if plan is None:
        plan = build()
        if len(plans) >= PLANS_PER_DOCTYPE:
            plans.clear()
        plans[key] = plan
    return plan


def _caller_filter(ctx: Context, meta: Meta, filters: Any, or_filters: Any,
                   readable: frozenset[str] | None) -> tuple[Node | None, dict[str, Any] | None]:
    """The caller's filters parsed and checked, and compiled alone when that needs no database read
    (None otherwise: the full filter is compiled after the permission check, which reports first)."""
    caller: Node | None = conjoin(parse_filters(meta, filters, child_meta=ctx.meta),
                                  parse_or_filters(meta, or_filters, child_meta=ctx.meta))
    if readable is not None:
        hidden = sorted(referenced_fields(caller) - readable - {"name"})
        hidden += sorted(field for table, field in referenced_row_fields(caller)
                         if (rows := parse.readable_row_fields(table, readable)) is not None and field not in rows)
        if hidden:
            raise exc.DataError(_("Field not permitted in query: {0}", hidden[0]), field=hidden[0])
    if tree_targets(caller):
        return caller, None
    try:
        return caller, compile_filter(meta, caller, child_meta=ctx.meta)
    except exc.FwError:
        return caller, None


async def _filter_for(ctx: Context, meta: Meta, filters: Any, or_filters: Any, *,
                      ignore_permissions: bool, readable: frozenset[str] | None) -> dict[str, Any]:
    caller, compiled = _planned(meta, ("filter", _plan_key(filters, or_filters), readable),
                                lambda: _caller_filter(ctx, meta, filters, or_filters, readable))
    perm = None if ignore_permissions else await permissions.row_filter(ctx, meta)
    if perm is None and compiled is not None:
        return compiled
    node = conjoin(caller, perm)
    ancestors = {name: await tree.ancestors_of(ctx, meta.name, name) for name in tree_targets(node)}
    return compile_filter(meta, node, tree_ancestors=ancestors, child_meta=ctx.meta)


def _columns_and_sort(ctx: Context, meta: Meta, fields: Any, order_by: str | None, readable: frozenset[str] | None
                      ) -> tuple[FieldSpec, list[tuple[str, int]], list[tuple[str, int]]]:
    """The columns, the sort by output keys (for a grouped pipeline, which sorts its output) and the
    sort of a plain find, where an alias must mean its source field: sorting a find by the alias text
    would sort by whatever stored field happens to carry that name (perhaps one the caller may not read)."""
    spec = compile_fields(meta, fields, readable=readable, child_meta=ctx.meta,
                          max_fields=ctx.site.settings.max_query_fields)
    columns = {c.key: c for c in spec.columns}
    sort = compile_order_by(meta, order_by, aliases=frozenset(columns), readable=readable)
    find_sort: dict[str, int] = {}
    for key, direction in sort:
        column = columns.get(key)
        if column is None or key == "_id" or (column.field == key and column.child is None):
            find_sort.setdefault(key, direction)
        elif column.child is not None or (column.func is None and parse.is_table_field(meta, column.field or "")):
            raise exc.DataError(_("Field not permitted in query: {0}", key), field="order_by")
        elif column.func is None:  # (an aggregate's key only exists in a grouped pipeline's output)
            find_sort.setdefault("_id" if column.field == "name" else str(column.field), direction)
    return spec, sort, list(find_sort.items())


def _shape(raw: dict[str, Any], spec: FieldSpec, drop_nulls: bool) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for col in spec.columns:
        field = col.field
        if field is None:  # `count(*)`, a function's column: no stored key holds it
            value = None
        elif field == "name":
            value = raw.get("_id")
        elif col.child is None:
            value = raw.get(field)
            if col.key in spec.row_fields and value:  # a table whose rows hide fields from the caller
                value = [permissions.without_hidden_row_fields(row, spec.row_fields[col.key]) for row in value]
        else:  # a table's row field (such a column always has its table's `field`)
            value = [r.get(col.child) for r in raw.get(field) or []]
        if value is not None or not drop_nulls:
            row[col.key] = value
    return row


def _rows(raws: list[dict[str, Any]], spec: FieldSpec, drop_nulls: bool) -> list[dict[str, Any]]:
    plain = spec.plain_columns
    if plain is None:
        return [_shape(raw, spec, drop_nulls) for raw in raws]
    if drop_nulls:  # the common case, in one comprehension
        return [{key: value for key, stored in plain if (value := raw.get(stored)) is not None} for raw in raws]
    return [{key: raw.get(stored) for key, stored in plain} for raw in raws]


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
    columns = [pluck] if pluck else fields
    spec, sort, find_sort = _planned(meta, ("columns", _plan_key(columns, order_by), readable),
                                     lambda: _columns_and_sort(ctx, meta, columns, order_by, readable))
    skip = offset_arg(limit_start)
    drop_nulls = drop_nulls and as_dict and not pluck
    length = page_length(limit if limit not in (None, "") else limit_page_length, default=default_page_length,
                         cap=max_page_length)
    if group_by or spec.has_aggregates:
        pipeline = compile_group_by(meta, group_by, spec, mfilter, sort, skip, length, readable=readable)
        rows = await store.aggregate(ctx, meta, pipeline)
        if not rows and not group_by and skip == 0:  # SQL answers one row for aggregates over nothing
            rows = [spec.empty_row()]
        if drop_nulls:
            rows = [{k: v for k, v in row.items() if v is not None} for row in rows]
    else:
        raw = await store.find(ctx, meta, mfilter, projection=spec.projection, sort=find_sort, skip=skip,
                               limit=length)
        rows = _rows(raw, spec, drop_nulls)
    if pluck:
        return [r.get(pluck) for r in rows]
    if not as_dict:
        return [[r.get(c.key) for c in spec.columns] for r in rows]
    return rows


async def list_pages(ctx: Context, doctype: str, *, fields: Any = None, filters: Any = None,
                     or_filters: Any = None, order_by: str | None = None, page_length: int = 1000,
                     as_dict: bool = True, ignore_permissions: bool = False) -> AsyncIterator[list[Any]]:
    """Every row `get_list` gives without a page limit (the same filter, row rules, user permissions
    and readable fields, the same order), as pages of `page_length` rows. Each page starts after the
    previous page's last row by its sort key (`compile_after`), never by `skip`: with an index on the
    sort a page costs its own rows, where an offset costs every row before it again (quadratic over
    an export of 100,000 rows). Aggregates and group_by are `get_list`'s only."""
    meta = ctx.meta(doctype)
    if meta.issingle or meta.istable:
        raise exc.DataError(_("{0} cannot be listed: it is a single or child doctype", doctype))
    if page_length < 1:
        raise exc.DataError(_("page_length must be at least 1"), field="page_length")
    readable = None if ignore_permissions else await permissions.readable_fields(ctx, meta)
    mfilter = await _filter_for(ctx, meta, filters, or_filters, ignore_permissions=ignore_permissions,
                                readable=readable)
    spec, _sort, find_sort = _planned(meta, ("columns", _plan_key(fields, order_by), readable),
                                      lambda: _columns_and_sort(ctx, meta, fields, order_by, readable))
    if spec.has_aggregates:
        raise exc.DataError(_("Aggregates cannot be read page by page"), field="fields")
    sort = keyset_sort(meta, find_sort)
    # the sort keys come along (the next page starts after the last row's); the rows show the columns only
    projection = None if spec.projection is None else {**spec.projection, **dict.fromkeys((k for k, _d in sort), 1)}
    last: dict[str, Any] | None = None
    while True:
        page_filter = mfilter if last is None else compile_after(sort, last, mfilter)
        raw = await store.find(ctx, meta, page_filter, projection=projection, sort=sort, limit=page_length)
        if raw:
            rows = _rows(raw, spec, drop_nulls=False)
            yield rows if as_dict else [[r.get(c.key) for c in spec.columns] for r in rows]
        if len(raw) < page_length:
            return
        last = raw[-1]


async def get_all(ctx: Context, doctype: str, **kwargs: Any) -> list[Any]:
    """`get_list` without permission checks and, by default, without a page limit."""
    kwargs.setdefault("default_page_length", 0)
    return await get_list(ctx, doctype, ignore_permissions=True, **kwargs)


async def readable_rows_filter(ctx: Context, meta: Meta) -> dict[str, Any]:
    """The MongoDB filter every row the caller reads must match (`{}`: no restriction); raises
    PermissionError without read. For callers that add their own conditions (link expansion)."""
    readable = await permissions.readable_fields(ctx, meta)
    return await _filter_for(ctx, meta, None, None, ignore_permissions=False, readable=readable)


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


async def get_cached_value(ctx: Context, doctype: str, name: str, fieldname: str | list[str] = "name", *,
                           as_dict: bool = False) -> Any:
    """`get_value` of one document by name, read once per unit of work (Frappe's `get_cached_value`,
    for master data a hook looks up on every save): the unit keeps the answer until it writes
    anything, so a batch of documents checking the same Branch reads it once, and a unit never reads
    a value it has since changed. Outside a unit of work it is `get_value`. No name, no value (None),
    never the first document's.
    """
    if not name:
        return None
    uow = ctx.uow
    if uow is None:
        return await get_value(ctx, doctype, name, fieldname, as_dict=as_dict)
    key = (doctype, name, fieldname if isinstance(fieldname, str) else tuple(fieldname), as_dict)
    if key in uow.reads:
        value = uow.reads[key]
    else:
        value = uow.reads[key] = await get_value(ctx, doctype, name, fieldname, as_dict=as_dict)
    return value.copy() if isinstance(value, dict | list) else value  # (the caller may change its copy)


async def exists(ctx: Context, doctype: str, filters: Any) -> str | None:
    """The name of the first matching document, or None."""
    if isinstance(filters, Mapping) and not filters:
        return None
    return await get_value(ctx, doctype, filters, "name")
