"""The AST and Frappe's `fields`/`order_by`/`group_by` → MongoDB filters, projections, sorts and
aggregation pipelines. Pure: no I/O. The one place where user input becomes a MongoDB query.

Fields are checked against `Meta` again (nodes may be built by code), values are coerced by field
type, and operators map through fixed tables; user text only ever lands in operand position.

    >>> compile_filter(meta, Cond("status", Op.IN, ("Open", "Closed")))
    {'status': {'$in': ['Open', 'Closed']}}
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import orjson

from engine import exceptions as exc
from engine.meta.schema import Meta
from engine.query import parse
from engine.query.ast import TREE_OPS, And, Cond, Node, Not, Op, Or, walk
from engine.query.parse import ChildMeta
from engine.translation import _

AGGREGATES = ("count", "sum", "avg", "min", "max")

_COMPARE = {Op.EQ: "$eq", Op.NE: "$ne", Op.LT: "$lt", Op.GT: "$gt", Op.LE: "$lte", Op.GE: "$gte"}
_EMPTY: tuple[None, str] = (None, "")  # "not set", as Frappe's ifnull(field, '') reads it
_ALIAS = r"(?:\s+[Aa][Ss]\s+(?P<alias>(?!_id$)[A-Za-z_][A-Za-z0-9_]*))?"
_AGGREGATE = re.compile(rf"^(?P<func>[A-Za-z]+)\s*\(\s*(?P<arg>\*|[a-z_][a-z0-9_]*)\s*\){_ALIAS}$")
_COLUMN = re.compile(rf"^`?(?P<field>[a-z_][a-z0-9_]*)`?(?:\.`?(?P<child>[a-z_][a-z0-9_]*)`?)?{_ALIAS}$")
_ORDER = re.compile(r"^`?(?P<field>[A-Za-z_][A-Za-z0-9_]*)`?(?:\s+(?P<dir>[A-Za-z]+))?$")


# --- filters ---------------------------------------------------------------------------------

def compile_filter(meta: Meta, node: Node | None, *, tree_ancestors: Mapping[str, list[str]] | None = None,
                   child_meta: ChildMeta | None = None) -> dict[str, Any]:
    """A MongoDB filter for `node` (`{}` for None). `tree_ancestors[x]` must hold the ancestors of
    each `x` used with `ancestors of` (see `tree_targets`). A child condition holds for a document
    when one of its rows satisfies it (AND-ed conditions on one table: the same row)."""
    return _Compiler(meta, tree_ancestors or {}, child_meta).node(node) if node is not None else {}


def tree_targets(node: Node | None) -> list[str]:
    """The names used with `ancestors of` / `not ancestors of`, whose ancestors the caller fetches."""
    targets = (c.value for c in walk(node) if c.op in (Op.ANCESTORS_OF, Op.NOT_ANCESTORS_OF))
    return list(dict.fromkeys(t for t in targets if isinstance(t, str)))


def like_to_regex(pattern: str) -> str:
    """SQL LIKE → an anchored regex: `%` any text, `_` one character, everything else literal.

    Each piece between two `%` is taken at its first occurrence and kept (an atomic group), which
    gives the same answer for LIKE and leaves a hostile pattern no way to make the regex engine
    backtrack polynomially (`%a%a%a%a%a%b` against a long run of `a`)."""
    pieces = ["".join("." if c == "_" else re.escape(c) for c in piece) for piece in pattern.split("%")]
    if len(pieces) == 1:
        return f"^{pieces[0]}$"
    middle = "".join(f"(?>.*?{piece})" for piece in pieces[1:-1] if piece)
    return f"^{pieces[0]}{middle}.*{pieces[-1]}$"


class _Compiler:
    def __init__(self, meta: Meta, tree_ancestors: Mapping[str, list[str]], child_meta: ChildMeta | None):
        self.meta = meta
        self.tree_ancestors = tree_ancestors
        self.child_meta = child_meta

    def node(self, node: Node) -> dict[str, Any]:
        if isinstance(node, Cond):
            return self.cond(node) if node.table is None else {node.table: {"$elemMatch": self.row(node)}}
        if isinstance(node, Not):
            inner = [self.node(item) for item in node.items]
            if {} in inner:  # not (everything) matches nothing
                return {"_id": {"$in": []}}
            return {"$nor": inner} if inner else {}
        if isinstance(node, Or):
            parts = [self.node(item) for item in _flatten(node)]
            if not parts:
                return {"_id": {"$in": []}}  # an empty OR matches nothing
            if {} in parts:
                return {}
            return parts[0] if len(parts) == 1 else {"$or": parts}
        clauses: list[dict[str, Any]] = []
        rows: dict[str, list[dict[str, Any]]] = {}  # AND-ed child conditions, by table: one row
        for item in _flatten(node):
            if isinstance(item, Cond) and item.table is not None:
                rows.setdefault(item.table, []).append(self.row(item))
            elif clause := self.node(item):
                clauses.append(clause)
        for table, conds in rows.items():
            clauses.append({table: {"$elemMatch": conds[0] if len(conds) == 1 else {"$and": conds}}})
        return {} if not clauses else clauses[0] if len(clauses) == 1 else {"$and": clauses}

    def row(self, cond: Cond) -> dict[str, Any]:
        """A child condition, relative to one row of `cond.table`."""
        table = self.meta.get_field(cond.table or "")
        if table is None or not table.is_table or cond.op in TREE_OPS:
            raise exc.DataError(_("Field not permitted in query: {0}", str(cond.table)), field=cond.table)
        if self.child_meta is None:
            raise exc.DataError(_("Filters on child table {0} are not supported here", str(table.options)))
        child = self.child_meta(str(table.options))
        field = parse.check_field(child, cond.field, child=True)
        return _clause(field, field, parse.field_type(child, field), cond.op, cond.value)

    def cond(self, cond: Cond) -> dict[str, Any]:
        field = parse.check_field(self.meta, cond.field)
        if cond.op in TREE_OPS:
            return self.tree(cond)
        fieldtype = parse.field_type(self.meta, field)
        if parse.is_table_field(self.meta, field):
            if cond.op is not Op.IS or cond.value not in ("set", "not set"):
                raise exc.DataError(_("A table field can only be filtered with is set / is not set"),
                                    field=field)
            return {f"{field}.0": {"$exists": cond.value == "set"}}
        return _clause("_id" if field == "name" else field, field, fieldtype, cond.op, cond.value)

    def tree(self, cond: Cond) -> dict[str, Any]:
        if not self.meta.is_tree or cond.field != "name":
            raise exc.DataError(_("Operator {0} applies to name of a tree doctype", cond.op.value),
                                field=cond.field)
        target = cond.value
        if not isinstance(target, str) or not target:
            raise exc.DataError(_("Invalid value for {0} {1}", cond.field, cond.op.value), field=cond.field)
        if cond.op in (Op.DESCENDANTS_OF, Op.NOT_DESCENDANTS_OF):
            return {"_ancestors": {"$eq" if cond.op is Op.DESCENDANTS_OF else "$ne": target}}
        ancestors = self.tree_ancestors.get(target)
        if ancestors is None:
            raise exc.DoesNotExistError(_("{0} {1} not found", self.meta.name, target))
        return {"_id": {"$in" if cond.op is Op.ANCESTORS_OF else "$nin": list(ancestors)}}


def _flatten(node: And | Or) -> list[Node]:
    """The items of `node`, with nested nodes of the same kind spliced in."""
    out: list[Node] = []
    for item in node.items:
        out.extend(_flatten(item) if isinstance(item, type(node)) else [item])
    return out


def _clause(key: str, field: str, fieldtype: str, op: Op, value: Any) -> dict[str, Any]:
    """`{key: {operator: operand}}` for one condition; every user value is an operand, coerced."""
    def bad() -> exc.DataError:
        return exc.DataError(_("Invalid value for {0} {1}", field, op.value), field=field)

    if op is Op.IS:
        if value not in ("set", "not set"):
            raise bad()
        return {key: {"$nin" if value == "set" else "$in": list(_EMPTY)}}
    if op in (Op.LIKE, Op.NOT_LIKE):
        if not isinstance(value, str) or fieldtype in parse.NUMERIC_TYPES:
            raise exc.DataError(_("Operator {0} needs a text field and a text value", op.value), field=field)
        regex = {"$regex": like_to_regex(value), "$options": "is"}
        # `$nor` rather than `$not` + `$options`, which the in-memory backend cannot read
        return {key: regex} if op is Op.LIKE else {"$nor": [{key: regex}]}
    if op in (Op.IN, Op.NOT_IN):
        if not isinstance(value, list | tuple):
            raise bad()
        values = list(dict.fromkeys(parse.coerce(field, fieldtype, v, allow_empty=True) for v in value))
        if any(v in _EMPTY for v in values):  # like Frappe: "" in the list also means "not set"
            values = list(dict.fromkeys([*values, *_EMPTY]))
        return {key: {"$in" if op is Op.IN else "$nin": values}}
    if op is Op.BETWEEN:
        if not isinstance(value, list | tuple) or len(value) != 2 or None in value:
            raise bad()
        low, high = (parse.coerce(field, fieldtype, v) for v in value)
        if fieldtype == "Datetime" and parse.DATE.match(high):  # a whole last day
            high += " 23:59:59.999999"
        return {key: {"$gte": low, "$lte": high}}
    if op not in _COMPARE or isinstance(value, dict | list | tuple):
        raise bad()
    operand = parse.coerce(field, fieldtype, value, allow_empty=op in (Op.EQ, Op.NE))
    if operand in _EMPTY:
        if op not in (Op.EQ, Op.NE):
            raise bad()
        return {key: {"$in" if op is Op.EQ else "$nin": list(_EMPTY)}}
    return {key: {_COMPARE[op]: operand}}


# --- fields ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Column:
    """One output column. `field` is the source fieldname ("name", a value field, a table
    fieldname), None for `count(*)`; `child` a row field of table `field`; `func` an aggregate."""

    key: str
    field: str | None
    child: str | None = None
    func: str | None = None


@dataclass(frozen=True)
class FieldSpec:
    """`fields` compiled: the output columns in order, a `find()` projection (`_id` stands for
    `name`), and whether the query needs an aggregation (`compile_group_by`)."""

    columns: list[Column]
    projection: dict[str, int] | None  # None: the whole record (the columns name every key it holds)
    has_aggregates: bool
    # output key of a table column → the row fields the caller may read (tables that hide some)
    row_fields: dict[str, frozenset[str]] = dataclasses.field(default_factory=dict)

    @cached_property
    def plain_columns(self) -> tuple[tuple[str, str], ...] | None:
        """(output key, stored key) of each column when every column is a plain field, else None."""
        if self.row_fields:
            return None
        plain: list[tuple[str, str]] = []
        for c in self.columns:
            if c.child is not None or c.func is not None or c.field is None:
                return None
            plain.append((c.key, "_id" if c.field == "name" else c.field))
        return tuple(plain)

    def empty_row(self) -> dict[str, Any]:
        """The one row SQL gives for aggregates without group_by over no rows (MongoDB gives none)."""
        return {c.key: 0 if c.func == "count" else None for c in self.columns}


def compile_fields(meta: Meta, fields: Any, *, readable: frozenset[str] | None = None,
                   child_meta: ChildMeta | None = None, max_fields: int | None = None) -> FieldSpec:
    """Frappe's `fields` (a list or a JSON list; default `["name"]`) → columns and a projection.

    Items: `*` (every readable value field), `name`, `field`, a table fieldname (its rows),
    `table.child_field` (a list of that field of the rows), `count(*)`, `count(f)`, `sum(f)`,
    `avg(f)`, `min(f)`, `max(f)`, each optionally `as alias` (an aggregate's default key is its
    function name). Unknown or unreadable fields → DataError, and so are more than `max_fields` items.
    """
    columns: dict[str, Column] = {}
    for item in (parse.strip_doctype(meta, i) for i in field_items(fields, max_fields=max_fields)):
        new = ([Column(f, f) for f in _star(meta, readable)] if item == "*"
               else [_column(meta, item, readable, child_meta)])
        for column in new:
            if columns.setdefault(column.key, column) != column:
                raise exc.DataError(_("Duplicate column in fields: {0}", column.key), field=column.key)
    projection = {"_id": 0}
    for c in columns.values():
        if c.field == "name":
            projection["_id"] = 1
        elif c.field is not None:
            projection[c.field if c.child is None else f"{c.field}.{c.child}"] = 1
    # MongoDB refuses a projection of both `items` and `items.qty` (a path collision)
    projection = {k: v for k, v in projection.items() if "." not in k or k.split(".")[0] not in projection}
    if projection == {"_id": 0}:
        projection = {"_id": 1}
    row_fields = {c.key: rows for c in columns.values() if c.child is None and c.func is None and c.field
                  and (rows := parse.readable_row_fields(c.field, readable)) is not None}
    spec = FieldSpec(list(columns.values()), projection, any(c.func for c in columns.values()), row_fields)
    if spec.plain_columns is not None and projection.keys() >= _stored_keys(meta):
        # `*` of a doctype whose every field the caller reads (no table, no password): the record is
        # asked for whole, which costs mongod less than a projection naming each key (the rows take
        # only their columns from it)
        return dataclasses.replace(spec, projection=None)
    return spec


def _stored_keys(meta: Meta) -> frozenset[str]:
    """Every top-level key a record of `meta` holds (`name` as `_id`), tables and passwords included."""
    keys = meta.engine_cache.get("stored_keys")
    if keys is None:
        keys = meta.engine_cache["stored_keys"] = frozenset(
            {"_id", *meta.standard, *meta.data_fieldnames, *meta.table_fieldnames} - {"name"})
    return keys


def field_items(fields: Any, *, max_fields: int | None = None) -> list[str]:
    """`fields` as a list of item texts: a list, a JSON list, comma-separated text, or a JSON string
    holding either (`'"*"'`, `'"name, title"'`: what Frappe's Python client sends, and Frappe
    accepts); `["name"]` if empty. More than `max_fields` items → DataError: aliases make any number
    of columns of one field, and each costs every row of the response."""
    if isinstance(fields, str):
        fields = _field_text(fields)
    if fields is None:
        return ["name"]
    if not isinstance(fields, list | tuple) or not all(isinstance(f, str) for f in fields):
        raise exc.DataError(_("fields must be a list of field names"), field="fields")
    if max_fields is not None and len(fields) > max_fields:
        raise exc.DataError(_("Too many fields: {0} (at most {1})", len(fields), max_fields), field="fields")
    return [f.strip() for f in fields if f.strip()] or ["name"]


def _field_text(text: str) -> Any:
    text = text.strip()
    try:
        if text.startswith('"'):  # a JSON string: its text, read as if it had been sent as such
            text = orjson.loads(text)
            if not isinstance(text, str):
                raise ValueError
            text = text.strip()
        return orjson.loads(text) if text.startswith("[") else text.split(",")
    except ValueError as e:
        raise exc.DataError(_("Invalid JSON in {0}", "fields"), field="fields") from e


def _star(meta: Meta, readable: frozenset[str] | None) -> list[str]:
    names = dict.fromkeys([*meta.standard, *(f.fieldname for f in meta.value_fields if f.fieldname in meta.queryable)])
    return [f for f in names if readable is None or f == "name" or f in readable]


def _column(meta: Meta, text: str, readable: frozenset[str] | None, child_meta: ChildMeta | None) -> Column:
    if m := _AGGREGATE.match(text):
        func, arg = m["func"].lower(), m["arg"]
        if func not in AGGREGATES or (arg == "*" and func != "count"):
            raise exc.DataError(_("Invalid field expression: {0}", text), field="fields")
        field = None if arg in ("*", "name") and func == "count" else parse.check_readable(meta, arg, readable)
        if field is not None and (parse.is_table_field(meta, field) or (
                func in ("sum", "avg") and parse.field_type(meta, field) not in parse.NUMERIC_TYPES)):
            raise exc.DataError(_("Invalid field expression: {0}", text), field=field)
        return Column(m["alias"] or func, field, func=func)
    if m := _COLUMN.match(text):
        field, child = parse.check_readable(meta, m["field"], readable), m["child"]
        if child is not None:
            table = meta.get_field(field)
            if table is None or not table.is_table or child_meta is None:
                raise exc.DataError(_("Field not permitted in query: {0}", text), field=field)
            parse.check_field(child_meta(str(table.options)), child, child=True)
            rows = parse.readable_row_fields(field, readable)
            if rows is not None and child not in rows:
                raise exc.DataError(_("Field not permitted in query: {0}", text), field=child)
        return Column(m["alias"] or (field if child is None else f"{field}.{child}"), field, child)
    raise exc.DataError(_("Invalid field expression: {0}", text), field="fields")


# --- order_by and group_by -------------------------------------------------------------------

def compile_order_by(meta: Meta, order_by: str | None, *, default: bool = True,
                     aliases: frozenset[str] = frozenset(),
                     readable: frozenset[str] | None = None) -> list[tuple[str, int]]:
    """`"creation desc, name"` → `[("creation", -1), ("_id", 1)]`. Empty → the doctype's
    sort_field/sort_order (with `default`). `_id` closes every non-empty sort, for stable pages."""
    if order_by and order_by.strip():
        items = [_order_item(meta, part, aliases, readable) for part in order_by.split(",")]
    elif default:
        try:
            items = [_order_item(meta, f"{meta.sort_field} {meta.sort_order}", frozenset(), None)]
        except exc.DataError:
            items = [("creation", -1)]
    else:
        return []
    sort: dict[str, int] = {}
    for field, direction in items:
        sort.setdefault("_id" if field == "name" else field, direction)
    return [*sort.items()] if "_id" in sort else [*sort.items(), ("_id", items[-1][1])]


def _order_item(meta: Meta, part: str, aliases: frozenset[str],
                readable: frozenset[str] | None) -> tuple[str, int]:
    field, direction = _term(meta, part, aliases, readable, "order_by")
    if (direction or "asc").lower() not in ("asc", "desc"):
        raise exc.DataError(_("Invalid {0}: {1}", "order_by", part.strip()), field="order_by")
    return field, -1 if (direction or "").lower() == "desc" else 1


def _term(meta: Meta, part: str, aliases: frozenset[str], readable: frozenset[str] | None,
          what: str) -> tuple[str, str | None]:
    """`field [direction]` of order_by / group_by: a readable, non-table field, or an alias."""
    m = _ORDER.match(parse.strip_doctype(meta, part))
    if m is None:
        raise exc.DataError(_("Invalid {0}: {1}", what, part.strip()), field=what)
    field = m["field"]
    if field not in aliases and parse.is_table_field(meta, parse.check_readable(meta, field, readable)):
        raise exc.DataError(_("Field not permitted in query: {0}", field), field=field)
    return field, m["dir"]


def keyset_sort(meta: Meta, sort: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """A find's sort (stored keys, as `_columns_and_sort` gives it) up to its `_id`, each key checked
    again: the keys that decide where a row stands (nothing after the unique `_id` ever does)."""
    keys: list[tuple[str, int]] = []
    for key, direction in sort:
        if key != "_id" and parse.is_table_field(meta, parse.check_field(meta, key)):
            raise exc.DataError(_("Field not permitted in query: {0}", key), field="order_by")
        keys.append((key, -1 if direction < 0 else 1))
        if key == "_id":
            return keys
    return [*keys, ("_id", keys[-1][1] if keys else 1)]


def compile_after(sort: Sequence[tuple[str, int]], last: Mapping[str, Any],
                  within: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The rows of `within` (a compiled filter; None: all) that come after the stored record `last` in
    the order `sort` (a `keyset_sort`): the next page of a keyset read, with no `skip`.

    `(a desc, _id desc)` after (a=5, _id="X") is `a < 5 or a is null or (a == 5 and _id < "X")`:
    MongoDB's order, where null and a missing key sort before every value (first ascending, last
    descending), hence the null branches. Comparisons are exact (`""` is not null here, unlike a
    filter's `is not set`), and a value compares with the values of its own BSON type, which are the
    values of a field: fw stores each field as its field type's one type, or null."""
    branches: list[dict[str, Any]] = []
    for i, (key, direction) in enumerate(sort):
        value = last.get(key)
        if direction > 0:
            beyond: dict[str, Any] | None = {key: {"$ne": None} if value is None else {"$gt": value}}
        elif value is None:
            beyond = None  # nothing comes after null in a descending order
        elif key == "_id":  # never null
            beyond = {key: {"$lt": value}}
        else:
            beyond = {"$or": [{key: {"$lt": value}}, {key: {"$eq": None}}]}
        if beyond is not None:
            branches.append({**{k: {"$eq": last.get(k)} for k, _d in sort[:i]}, **beyond})
        if key == "_id":
            break
    after: dict[str, Any] = ({"_id": {"$in": []}} if not branches else branches[0] if len(branches) == 1
                             else {"$or": branches})
    return {"$and": [dict(within), after]} if within else after


def compile_group_by(meta: Meta, group_by: str | None, fields: FieldSpec, filter: Mapping[str, Any],
                     sort: Sequence[tuple[str, int]] = (), skip: int = 0, limit: int = 0, *,
                     readable: frozenset[str] | None = None) -> list[dict[str, Any]]:
    """An aggregation pipeline: `$match`, `$group` by the group_by fields (everything in one group
    without), `$sort`, `$skip`, `$limit`, `$project` to flat rows keyed like `fields.columns`.

    Sort keys that are neither output columns nor group fields (such as the default `creation`)
    are dropped; the group key closes the sort. A plain column not grouped by gives its first value.
    """
    groups: list[str] = []
    for part in (group_by or "").split(",") if group_by and group_by.strip() else ():
        field, direction = _term(meta, part, frozenset(), readable, "group_by")
        if direction is not None:
            raise exc.DataError(_("Invalid {0}: {1}", "group_by", part.strip()), field="group_by")
        groups.append(field)
    groups = list(dict.fromkeys(groups))
    if not groups and not fields.has_aggregates:
        raise exc.DataError(_("group_by needs a field or an aggregate"), field="group_by")
    group: dict[str, Any] = {"_id": {g: "$_id" if g == "name" else f"${g}" for g in groups} or None}
    project: dict[str, Any] = {"_id": 0}
    paths: dict[str, str] = {g: f"_id.{g}" for g in groups}  # sort key → path in the $group output
    for c in fields.columns:
        if c.child is not None or (c.func is None and parse.is_table_field(meta, c.field or "")):
            raise exc.DataError(_("Child table fields cannot be grouped: {0}", c.key), field=c.field)
        source = "$_id" if c.field == "name" else f"${c.field}"
        if c.func is None and c.field in groups:
            project[c.key] = f"$_id.{c.field}"
            paths.setdefault(c.key, f"_id.{c.field}")
            continue
        group[c.key] = _accumulator(c.func, c.field, source)
        project[c.key] = 1
        paths[c.key] = c.key
    order = {paths[k]: d for k, d in ((("name" if k == "_id" else k), d) for k, d in sort) if k in paths}
    order.setdefault("_id", 1)
    pipeline: list[dict[str, Any]] = [{"$match": dict(filter)}] if filter else []
    pipeline += [{"$group": group}, {"$sort": order}]
    pipeline += [{"$skip": int(skip)}] if skip else []
    pipeline += [{"$limit": int(limit)}] if limit else []
    return [*pipeline, {"$project": project}]


def _accumulator(func: str | None, field: str | None, source: str) -> dict[str, Any]:
    if func is None:
        return {"$first": source}
    if func == "count":  # SQL's count(f) counts values that are not null
        return {"$sum": 1 if field is None else {"$cond": [{"$gt": [source, None]}, 1, 0]}}
    return {f"${func}": source}
