"""Property Setters (business.md §7, Frappe's Customize Form): a site's changes to a field's
properties and to the fields' order, applied over the doctype's JSON (and its Custom Fields) when
the meta registry builds a Meta. Pure: the registry reads the records, the Property Setter
controller and the Customize Form API check them with the same rules.

Values are stored as text, as Frappe stores them (`"1"`, `"2"`, a JSON list for `field_order`), and
read back typed by the property's type.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.meta.schema import TABLE_TYPES, DocFieldSchema

# property -> its type: the field properties Customize Form changes (business.md §7)
FIELD_PROPERTIES: dict[str, str] = {
    "label": "Data", "description": "Text", "reqd": "Check", "hidden": "Check", "read_only": "Check",
    "options": "Text", "default": "Text", "in_list_view": "Check", "in_standard_filter": "Check",
    "bold": "Check", "allow_on_submit": "Check", "print_hide": "Check", "permlevel": "Int",
}
# DocType-level properties: the fields' order, a JSON list of fieldnames
DOCTYPE_PROPERTIES: dict[str, str] = {"field_order": "JSON"}
LINKED_OPTIONS = frozenset({"Link", *TABLE_TYPES})
MAX_PERMLEVEL = 9


@dataclass
class DocTypeProperties:
    """One doctype's property setters, typed: fieldname -> {property: value}, and the fields' order."""

    fields: dict[str, dict[str, Any]] = field(default_factory=dict)
    field_order: list[str] | None = None

    def __bool__(self) -> bool:
        return bool(self.fields) or self.field_order is not None


def typed_value(prop: str, value: Any, *, doctype_level: bool = False) -> Any:
    """`value` as property `prop` holds it (ValueError saying what is wrong): 0/1 for a Check, an
    int for an Int, a list of fieldnames for `field_order`, text otherwise."""
    kinds = DOCTYPE_PROPERTIES if doctype_level else FIELD_PROPERTIES
    kind = kinds.get(prop)
    if kind is None:
        raise ValueError(f"unknown property {prop!r} (one of {', '.join(sorted(kinds))})")
    if kind == "Check":
        text = str(value).strip().lower() if value is not None else "0"
        if isinstance(value, bool) or value in (0, 1) or text in ("0", "1", "true", "false", ""):
            return 1 if text in ("1", "true") else 0
        raise ValueError(f"{prop} takes 0 or 1, not {value!r}")
    if kind == "Int":
        try:
            number = int(str(value).strip()) if not isinstance(value, bool) else None
        except ValueError:
            number = None
        if number is None or not 0 <= number <= MAX_PERMLEVEL:
            raise ValueError(f"{prop} takes a whole number from 0 to {MAX_PERMLEVEL}, not {value!r}")
        return number
    if kind == "JSON":
        order = json.loads(value) if isinstance(value, str) else value
        if not isinstance(order, list) or not all(isinstance(n, str) and n for n in order):
            raise ValueError(f"{prop} takes a list of fieldnames, not {value!r}")
        return order
    if value is not None and not isinstance(value, str | int | float):
        raise ValueError(f"{prop} takes text, not {value!r}")
    return None if value in (None, "") and prop == "default" else ("" if value is None else str(value))


def stored_value(prop: str, value: Any, *, doctype_level: bool = False) -> str:
    """The text a Property Setter record keeps for `value` (checked by `typed_value`)."""
    typed = typed_value(prop, value, doctype_level=doctype_level)
    if isinstance(typed, list):
        return json.dumps(typed)
    return "" if typed is None else str(typed)


def property_problem(fields: Mapping[str, DocFieldSchema], prop: str, fieldname: str | None, value: Any,
                     doctype_exists: Any) -> str | None:
    """Why this property setter cannot apply to a doctype whose fields are `fields`, or None.
    `doctype_exists(name)` answers for a Link's new options."""
    if not fieldname:
        try:
            order = typed_value(prop, value, doctype_level=True)
        except ValueError as e:
            return str(e)
        unknown = [n for n in order if n not in fields]
        if unknown:
            return f"field_order names fields that do not exist: {', '.join(map(repr, unknown))}"
        return None
    target = fields.get(fieldname)
    if target is None:
        return f"field {fieldname!r} does not exist"
    try:
        typed = typed_value(prop, value)
    except ValueError as e:
        return f"field {fieldname!r}: {e}"
    if prop == "options" and target.fieldtype in LINKED_OPTIONS:
        if target.fieldtype in TABLE_TYPES:
            return f"field {fieldname!r}: a table's child doctype cannot be changed"
        if not doctype_exists(typed):
            return f"field {fieldname!r}: options must name a doctype, and {typed!r} does not exist"
    try:  # the field as it would be must still be a valid DocField
        DocFieldSchema.model_validate({**target.model_dump(), prop: typed})
    except ValueError as e:
        return f"field {fieldname!r}: {e}"
    return None


def select_default_problem(fieldname: str, options: Any, default: Any) -> str | None:
    """Why `default` cannot be the default of a Select field whose options are `options`, or None."""
    if default in (None, ""):
        return None
    choices = [o for o in str(options or "").split("\n") if o.strip()]
    if str(default) not in choices:
        return f"field {fieldname!r}: default {default!r} is not one of its options ({', '.join(choices) or 'none'})"
    return None


def apply_properties(fields: list[DocFieldSchema], props: DocTypeProperties) -> list[DocFieldSchema]:
    """`fields` with the property setters applied: each changed field re-validated as a new
    DocFieldSchema, then ordered by `field_order` (fields it does not name keep their place after it)."""
    out = []
    for f in fields:
        changes = props.fields.get(f.fieldname) if f.fieldname else None
        out.append(DocFieldSchema.model_validate({**f.model_dump(), **changes}) if changes else f)
    if props.field_order:
        rank = {name: i for i, name in enumerate(props.field_order)}
        named = sorted((f for f in out if f.fieldname in rank), key=lambda f: rank[f.fieldname])
        rest = [f for f in out if f.fieldname not in rank]
        out = named + rest
    return out
