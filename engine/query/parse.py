"""User filters (Frappe's shapes) → the AST in `ast.py`. Pure: no I/O.

Accepted shapes (also as a JSON string):

    {"status": "Open", "qty": [">", 5], "owner": None}         # None means "is not set"
    [["status", "=", "Open"], ["Task", "qty", ">", 5]]          # [field, op, value] / [doctype, ...]
    [["ToDo Item", "description", "like", "%x%"]]             # a child doctype: a table row field

Only fields in `meta.queryable` and the operators of `Op` get through. A value is always data: a
dict anywhere in a value is refused, so nothing a caller sends can become a MongoDB operator.
The field and value checks by field type that `compile.py` applies live here too.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from typing import Any

import orjson

from engine import exceptions as exc
from engine.meta.schema import Meta
from engine.query.ast import TREE_OPS, And, Cond, Node, Op, Or
from engine.translation import _

ChildMeta = Callable[[str], Meta]

OPERATORS: dict[str, Op] = {op.value: op for op in Op} | {"==": Op.EQ, "<>": Op.NE}
_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")
_SCALARS = (str, int, float)  # bool is an int
INT_TYPES = frozenset({"Int", "Long Int", "Check"})
NUMERIC_TYPES = INT_TYPES | {"Float", "Currency", "Percent", "Duration", "Rating"}
STANDARD_TYPES = {"creation": "Datetime", "modified": "Datetime", "docstatus": "Int", "idx": "Int"}
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
MAX_LIKE_LENGTH = 1000  # characters of a like pattern: search text, not documents


def parse_filters(meta: Meta, filters: Any, *, child_meta: ChildMeta | None = None) -> Node | None:
    """Parse `filters` (AND-ed). Empty input → None; one condition → a `Cond`; several → `And`."""
    conds = _parse(meta, filters, child_meta, "filters")
    if not conds:
        return None
    return conds[0] if len(conds) == 1 else And(tuple(conds))


def parse_or_filters(meta: Meta, filters: Any, *, child_meta: ChildMeta | None = None) -> Node | None:
    """Parse `or_filters` (OR-ed). Empty input → None; one condition → a `Cond`; several → `Or`."""
    conds = _parse(meta, filters, child_meta, "or_filters")
    if not conds:
        return None
    return conds[0] if len(conds) == 1 else Or(tuple(conds))


def _parse(meta: Meta, filters: Any, child_meta: ChildMeta | None, param: str) -> list[Node]:
    if isinstance(filters, str):
        if not filters.strip():
            return []
        try:
            filters = orjson.loads(filters)  # (a depth limit: deep nesting is a ValueError, not a RecursionError)
        except ValueError as e:
            raise exc.DataError(_("Invalid JSON in {0}", param), field=param) from e
    if filters is None:
        return []
    if isinstance(filters, dict):
        return [_parse_dict_item(meta, key, value) for key, value in filters.items()]
    if isinstance(filters, list | tuple):
        return [_parse_list_item(meta, item, child_meta) for item in filters]
    raise exc.DataError(_("{0} must be a list or an object", param), field=param)


def _parse_dict_item(meta: Meta, field: Any, value: Any) -> Node:
    if isinstance(value, list | tuple):
        if len(value) != 2:
            raise exc.DataError(_("Invalid filter for {0}: expected [operator, value]", str(field)),
                                field=str(field))
        return make_cond(meta, field, value[0], value[1])
    if value is None:
        return make_cond(meta, field, "is", "not set")
    return make_cond(meta, field, "=", value)


def _parse_list_item(meta: Meta, item: Any, child_meta: ChildMeta | None) -> Node:
    if not isinstance(item, list | tuple):
        raise exc.DataError(_("Invalid filter: each filter must be a list [field, operator, value]"))
    # Frappe's list view sends a fifth element (a "hidden" flag); it does not change the filter.
    if len(item) == 5 and isinstance(item[4], bool | None):
        item = item[:4]
    if len(item) == 3:
        return make_cond(meta, item[0], item[1], item[2])
    if len(item) != 4:
        raise exc.DataError(_("Invalid filter: expected [field, operator, value] or "
                              "[doctype, field, operator, value]"))
    doctype, field, op, value = item
    if doctype == meta.name:
        return make_cond(meta, field, op, value)
    tables = [t.fieldname for t in meta.table_fields if t.options == doctype]
    if not isinstance(doctype, str) or not tables:
        raise exc.DataError(_("{0} is not {1} or one of its child tables", str(doctype), meta.name))
    if child_meta is None:
        raise exc.DataError(_("Filters on child table {0} are not supported here", doctype))
    child = child_meta(doctype)
    conds = tuple(make_cond(child, field, op, value, table=t) for t in tables)
    # A child doctype used by several tables of the parent: a row of any of them may match.
    return conds[0] if len(conds) == 1 else Or(conds)


def make_cond(meta: Meta, field: Any, op: Any, value: Any, *, table: str | None = None) -> Cond:
    """One checked condition. `meta` is the child's meta when `table` is given."""
    fieldname = check_field(meta, field, child=table is not None)
    operator = parse_operator(op)
    _refuse_operators(value, fieldname)
    if operator in TREE_OPS:
        if table is not None or not meta.is_tree:
            raise exc.DataError(_("Operator {0} needs a tree doctype; {1} is not one",
                                  operator.value, meta.name), field=fieldname)
        if fieldname != "name":
            raise exc.DataError(_("Operator {0} applies to name only", operator.value), field=fieldname)
    if operator in (Op.EQ, Op.NE) and value is None:
        operator, value = Op.IS, "not set" if operator is Op.EQ else "set"
    return Cond(fieldname, operator, _check_value(fieldname, operator, value), table)


def check_field(meta: Meta, field: Any, *, child: bool = False) -> str:
    """`field` if it is a plain identifier that `meta` lets be queried, else DataError."""
    if (not isinstance(field, str) or not _IDENTIFIER.match(field) or field not in meta.queryable
            or (child and is_table_field(meta, field))):
        raise exc.DataError(_("Field not permitted in query: {0}", str(field)), field=str(field))
    return field


def check_readable(meta: Meta, field: str, readable: frozenset[str] | None) -> str:
    """`check_field`, and `field` among the `readable` ones when given (`name` always is)."""
    check_field(meta, field)
    if readable is not None and field != "name" and field not in readable:
        raise exc.DataError(_("Field not permitted in query: {0}", field), field=field)
    return field


def readable_row_fields(table: str, readable: frozenset[str] | None) -> frozenset[str] | None:
    """The row fields of `table` a caller may read, from the `table.field` entries that
    `permissions.readable_fields` gives for tables hiding some; None when every row field is."""
    if readable is None or f"{table}.name" not in readable:
        return None
    prefix = f"{table}."
    return frozenset(entry[len(prefix):] for entry in readable if entry.startswith(prefix))


def is_table_field(meta: Meta, field: str) -> bool:
    f = meta.get_field(field)
    return f is not None and f.is_table


def strip_doctype(meta: Meta, text: str) -> str:
    """Frappe's `` `tabToDo`.field `` / `tabToDo.field` → `field`, for this doctype only."""
    text = text.strip()
    for prefix in (f"`tab{meta.name}`.", f"tab{meta.name}."):
        if text.startswith(prefix):
            return text[len(prefix):]
    return text


def parse_operator(op: Any) -> Op:
    key = " ".join(op.split()).lower() if isinstance(op, str) else None
    operator = OPERATORS.get(key) if key is not None else None
    if operator is None:
        raise exc.DataError(_("Unknown filter operator: {0}", str(op)))
    return operator


def _refuse_operators(value: Any, field: str) -> None:
    """A dict anywhere inside a value is refused. Iterative: a value may nest as deep as the JSON
    parser allows, deeper than Python's recursion limit."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            raise exc.DataError(_("Invalid filter value: values are data, never query operators"), field=field)
        if isinstance(item, list | tuple):
            pending.extend(item)


def _check_value(field: str, op: Op, value: Any) -> Any:
    """The value in its canonical shape for `op` (lists become tuples), or DataError."""
    def bad(expected: str) -> exc.DataError:
        return exc.DataError(_("Invalid value for {0} {1}: expected {2}", field, op.value, expected),
                             field=field)

    if op in (Op.IN, Op.NOT_IN):
        if isinstance(value, str):
            return tuple(v.strip() for v in value.split(",") if v.strip())
        if not isinstance(value, list | tuple) or not all(v is None or isinstance(v, _SCALARS)
                                                          for v in value):
            raise bad(_("a list of values"))
        return tuple(value)
    if op is Op.BETWEEN:
        if (not isinstance(value, list | tuple) or len(value) != 2
                or not all(isinstance(v, _SCALARS) for v in value)):
            raise bad(_("a list of two values"))
        return tuple(value)
    if op is Op.IS:
        normal = " ".join(value.split()).lower() if isinstance(value, str) else None
        if normal not in ("set", "not set"):
            raise bad('"set" or "not set"')
        return normal
    if op in (Op.LIKE, Op.NOT_LIKE) or op in TREE_OPS:
        if not isinstance(value, str) or (op in TREE_OPS and not value):
            raise bad(_("a text"))
        if op in (Op.LIKE, Op.NOT_LIKE) and len(value) > MAX_LIKE_LENGTH:  # MongoDB refuses huge regexes
            raise bad(_("a pattern of at most {0} characters", MAX_LIKE_LENGTH))
        return value
    if not isinstance(value, _SCALARS):
        raise bad(_("a single value"))
    return value


# --- values, by field type (used by compile.py) ----------------------------------------

def field_type(meta: Meta, fieldname: str) -> str:
    f = meta.get_field(fieldname)
    return f.fieldtype if f is not None else STANDARD_TYPES.get(fieldname, "Data")


def coerce(field: str, fieldtype: str, value: Any, *, allow_empty: bool = False) -> Any:
    """`value` as stored for `fieldtype`, or DataError naming the field. "" stays "" when allowed."""
    if value is None or (allow_empty and value == ""):
        return value
    if isinstance(value, bool):
        value = int(value)
    if fieldtype in NUMERIC_TYPES:
        if (number := _number(value, integral=fieldtype in INT_TYPES)) is not None:
            return number
    elif fieldtype in ("Date", "Datetime"):
        if (text := _date_text(value, fieldtype)) is not None:
            return text
    elif isinstance(value, str | int | float):
        return value if isinstance(value, str) else str(value)
    raise exc.DataError(_("Invalid value for {0}: {1}", field, str(value)), field=field)


def _number(value: Any, *, integral: bool) -> int | float | None:
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        try:
            value = int(value)
        except ValueError:
            value = float(value)
    if isinstance(value, float) and integral and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and -(2**63) <= value < 2**63:  # what BSON can hold
        return value if integral else float(value)
    return value if isinstance(value, float) and math.isfinite(value) else None


def _date_text(value: Any, fieldtype: str) -> str | None:
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ") if fieldtype == "Datetime" and value.tzinfo is None else None
    if isinstance(value, dt.date):
        return value.isoformat()
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        if DATE.match(text):
            return dt.date.fromisoformat(text).isoformat()
        if fieldtype == "Datetime" and _DATETIME.match(text):
            parsed = dt.datetime.fromisoformat(text.replace("T", " "))
            return parsed.strftime("%Y-%m-%d %H:%M:%S.%f" if parsed.microsecond else "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    return None
