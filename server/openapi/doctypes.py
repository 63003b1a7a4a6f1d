"""Component schemas of the doctypes: one field's value (`field_schema`) and a doctype's response,
create, update and child-row shapes (`doctype_schemas`), with the component names and references
they use."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from engine.meta.fieldtypes import (
    DEFAULT_LENGTH,
    INT_RANGE,
    LENGTH_TYPES,
    LONG_INT_RANGE,
    LONG_TEXT_TYPES,
    NUMERIC_TYPES,
    TEXT_TYPES,
)
from engine.meta.schema import Meta

TEXT: dict[str, Any] = {"type": "string"}
DATETIME_OUT = r"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?$"
DATETIME_IN = (r"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?"
               r"\s*(Z|[+-][0-9]{2}(:?[0-9]{2})?)?)?$")
TIME_OUT = r"^[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?$"
TIME_IN = r"^[0-9]{1,2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?$"
STANDARD_SCHEMAS: dict[str, dict[str, Any]] = {
    "name": {"type": "string"},
    "owner": {"type": "string"},
    "creation": {"type": "string", "pattern": DATETIME_OUT},
    "modified": {"type": "string", "pattern": DATETIME_OUT},
    "modified_by": {"type": "string"},
    "docstatus": {"type": "integer", "enum": [0, 1, 2]},
    "idx": {"type": "integer"},
    "parent": {"type": "string"},
    "parentfield": {"type": "string"},
    "parenttype": {"type": "string"},
}
INTEGER_TYPES = {"Int": INT_RANGE, "Long Int": LONG_INT_RANGE}
NUMBER_TYPES = frozenset({"Float", "Currency", "Percent"})
ZERO_WHEN_EMPTY = NUMERIC_TYPES | {"Check"}
# the fields the engine takes as text (numbers too): its short and long text types
TEXT_FIELD_TYPES = TEXT_TYPES | LONG_TEXT_TYPES | (LENGTH_TYPES - {"Link", "Dynamic Link", "Select"})


def component_name(doctype: str) -> str:
    """A component key (`^[A-Za-z0-9._-]+$`) for a doctype: 'Test Note' -> 'Test_Note'."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", doctype)


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def with_null(schema: dict[str, Any]) -> dict[str, Any]:
    out = dict(schema)
    if "anyOf" in out:
        out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        return out
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = [*kind, "null"]
    return out


# -- doctype fields --------------------------------------------------------------------------------

def field_schema(field: Any, *, write: bool, table_ref: Callable[[str], dict[str, Any]],
                 nullable: bool = True) -> dict[str, Any]:
    """JSON Schema of one field's value, as sent by clients (`write`: null clears a field, unless
    `nullable` is off) or as responses carry it."""
    ftype = field.fieldtype
    schema: dict[str, Any]
    if field.is_table:
        schema = {"type": "array", "items": table_ref(field.options or "")}
    elif write and (accepted := _accepted(field)) is not None:
        schema = accepted
    elif ftype in INTEGER_TYPES:
        low, high = INTEGER_TYPES[ftype]
        schema = {"type": "integer"}
        if write:
            schema |= {"minimum": 0 if field.non_negative else low, "maximum": high}
    elif ftype in NUMBER_TYPES:
        schema = {"type": "number"}
        if write and field.non_negative:
            schema["minimum"] = 0
    elif ftype == "Duration":
        schema = {"type": "number", "minimum": 0, "description": "seconds"}
    elif ftype == "Rating":
        schema = {"type": "number", "minimum": 0, "maximum": 1}
    elif ftype == "Check":
        schema = {"type": "integer", "enum": [0, 1]}
    elif ftype == "Date":
        schema = {"type": "string", "format": "date"}
    elif ftype == "Datetime":
        schema = {"type": "string", "pattern": DATETIME_IN if write else DATETIME_OUT,
                  "description": "YYYY-MM-DD HH:MM:SS[.ffffff]" + (" (an ISO 8601 offset is converted to UTC)"
                                                                    if write else "")}
    elif ftype == "Time":
        schema = {"type": "string", "pattern": TIME_IN if write else TIME_OUT, "description": "HH:MM:SS[.ffffff]"}
    elif ftype == "JSON":
        schema = {"type": ["object", "array"]}
    elif ftype == "Select" and field.select_options and field.fieldname != "naming_series":
        schema = {"type": "string", "enum": list(field.select_options)}
    else:
        schema = {"type": "string"}
        if write and ftype in LENGTH_TYPES:
            schema["maxLength"] = field.length if field.length > 0 else DEFAULT_LENGTH
        if ftype == "Data" and field.options in ("Email", "Phone", "URL", "Name"):
            schema["description"] = f"Data ({field.options})"
        if ftype == "Password":
            schema["writeOnly"] = True
    if field.label:
        schema["title"] = field.label
    expanded = "" if write else "; with `expand`/`expand_links`, the linked document the caller may read"
    if ftype in ("Link", "Dynamic Link") and not write:
        schema["type"] = ["string", "object"]
    if ftype == "Link":
        schema["description"] = f"Link to {field.options}{expanded}"
    elif ftype == "Dynamic Link":
        schema["description"] = f"Name of a document of the doctype in `{field.options}`{expanded}"
    elif field.description and "description" not in schema:
        schema["description"] = field.description
    if nullable and (ftype == "Select" or (write and not field.is_table)):
        return with_null(schema)
    return schema


# What the engine's coercion (engine/meta/fieldtypes.py) accepts for a field, so that the request
# schemas describe every value the server takes: numbers and checks also as text (form bodies carry
# nothing else; Frappe accepts them in JSON too), text fields also as numbers, and the empty string
# (or blank text, outside text fields) for "no value". Values outside these are refused with 417.
INT_TEXT = r"^\s*([+-]?[0-9]+(\.0+)?)?\s*$"
FLOAT_TEXT = r"^\s*([+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)?\s*$"
CHECK_TEXT = r"^\s*([01]|[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])?\s*$"
DATE_IN = r"^\s*([0-9]{4}-[0-9]{2}-[0-9]{2})?\s*$"
NUMBER_AS_TEXT = "; numbers are taken as text"


def _accepted(field: Any) -> dict[str, Any] | None:
    """The request schema of a field's value where the server accepts more than the response's type;
    None where the response's schema (with null) is already exact."""
    ftype = field.fieldtype
    if ftype in INTEGER_TYPES:
        low, high = INTEGER_TYPES[ftype]
        return {"type": ["integer", "boolean", "string"], "minimum": 0 if field.non_negative else low,
                "maximum": high, "pattern": INT_TEXT,
                "description": "an integer, or its digits as text (blank: 0); true/false count as 1/0"}
    if ftype in NUMBER_TYPES or ftype in ("Duration", "Rating"):
        schema: dict[str, Any] = {"type": ["number", "boolean", "string"], "pattern": FLOAT_TEXT,
                                  "description": "a number, or its digits as text (blank: 0)"}
        if field.non_negative or ftype in ("Duration", "Rating"):
            schema["minimum"] = 0
        if ftype == "Rating":
            schema["maximum"] = 1
        return schema
    if ftype == "Check":
        return {"anyOf": [{"type": ["integer", "boolean"], "enum": [0, 1, True, False]},
                          {"type": "string", "pattern": CHECK_TEXT}],
                "description": "0 or 1 (also true/false, as JSON or text; blank: 0)"}
    if ftype == "Date":
        return {"type": "string", "pattern": DATE_IN, "description": "YYYY-MM-DD (blank: no date)"}
    if ftype == "Datetime":
        return {"type": "string", "pattern": DATETIME_IN.replace("^", "^\\s*(", 1).replace("$", ")?\\s*$"),
                "description": "YYYY-MM-DD HH:MM:SS[.ffffff] (an ISO 8601 offset is converted to UTC; blank: none)"}
    if ftype == "Time":
        return {"type": "string", "pattern": TIME_IN.replace("^", "^\\s*(", 1).replace("$", ")?\\s*$"),
                "description": "HH:MM:SS[.ffffff] (blank: none)"}
    if ftype == "JSON":
        return {"type": ["object", "array", "string"], "description": "an object or a list, or its JSON text"}
    if ftype == "Select" and field.select_options and field.fieldname != "naming_series":
        return {"type": "string", "enum": [*field.select_options, ""], "description": "one of the options "
                "(blank: none)"}
    if ftype in ("Link", "Dynamic Link"):
        return {"type": ["string", "integer"], "maxLength": field.length if field.length > 0 else DEFAULT_LENGTH}
    if ftype != "Password" and (ftype in TEXT_FIELD_TYPES or ftype == "Select"):
        schema = {"type": ["string", "number"]}
        if ftype in LENGTH_TYPES:
            schema["maxLength"] = field.length if field.length > 0 else DEFAULT_LENGTH
        description = f"Data ({field.options})" if ftype == "Data" and field.options in (
            "Email", "Phone", "URL", "Name") else "text"
        schema["description"] = description + NUMBER_AS_TEXT
        return schema
    return None


IGNORED_DOCTYPE: dict[str, Any] = {"description": "Ignored: the path names the doctype"}


def docstatus_schema(allowed: str) -> dict[str, Any]:
    """A docstatus as engine/documents/docstatus.py's `coerce` takes it: the number, its text, or
    blank/null for 0."""
    numbers: list[Any] = [int(d) for d in allowed]
    return {"anyOf": [{"type": ["integer", "boolean", "null"], "enum": [*numbers, True, False, None]},
                      {"type": "string", "pattern": rf"^\s*([+-]?0*[{allowed}])?\s*$"}]}


def doctype_schemas(meta: Meta) -> dict[str, dict[str, Any]]:
    """Component schemas of one doctype: the response shape, and (for non-child doctypes) the
    create and update request bodies."""
    name = component_name(meta.name)

    def table_read(child: str) -> dict[str, Any]:
        return ref(component_name(child))

    def table_write(child: str) -> dict[str, Any]:
        return ref(component_name(child) + ".row")

    read_props: dict[str, Any] = {"doctype": {"type": "string", "const": meta.name}}
    read_props |= {key: STANDARD_SCHEMAS[key] for key in meta.standard}
    passwords = [f.fieldname for f in meta.password_fields]
    for field in meta.fields:
        if not field.fieldname or not (field.has_value or field.is_table) or field.fieldtype == "Password":
            continue
        read_props[field.fieldname] = field_schema(field, write=False, table_ref=table_read)
    read: dict[str, Any] = {"type": "object", "title": meta.name, "properties": read_props}
    if passwords:
        read["propertyNames"] = {"not": {"enum": passwords}}
    out = {name: read}

    writable = [f for f in meta.fields if f.fieldname and (f.has_value or f.is_table)
                and not (f.read_only and not f.is_table)]
    required = [f.fieldname for f in writable if f.reqd and f.default in (None, "") and not f.fetch_from
                and not f.is_table]
    # null clears a field, except a mandatory one (a number or a check takes null as 0, a value)
    write_props = {f.fieldname: field_schema(f, write=True, table_ref=table_write,
                                             nullable=not f.reqd or f.fieldtype in ZERO_WHEN_EMPTY)
                   for f in writable}
    if meta.istable:
        row_props = {"doctype": {"type": "string", "const": meta.name}, "name": {"type": "string"},
                     "idx": {"type": "integer"}} | write_props
        row = out[name + ".row"] = {"type": "object", "title": f"{meta.name} row", "properties": row_props,
                                    "additionalProperties": False}
        if required:
            row["required"] = required
        return out
    create_props: dict[str, Any] = {"doctype": IGNORED_DOCTYPE}
    if meta.autoname.lower() in ("prompt", "uuid"):
        create_props["name"] = {"type": "string", "minLength": 1, "maxLength": DEFAULT_LENGTH}
    if meta.is_submittable:
        create_props["docstatus"] = docstatus_schema("01")
    create_props |= write_props
    create: dict[str, Any] = {"type": "object", "title": f"New {meta.name}", "properties": create_props,
                              "additionalProperties": False}
    if required:
        create["required"] = required
    update_props: dict[str, Any] = {"modified": {
        "type": ["string", "null"], "description": "The `modified` the client last read; a mismatch is a 417 "
                                                   "TimestampMismatchError and nothing is written (null or "
                                                   "absent: not checked, the last writer wins)"}}
    if meta.is_submittable:
        update_props["docstatus"] = {**docstatus_schema("012"), "description": "1 submits, 2 cancels"}
    update_props |= write_props
    out[name + ".create"] = create
    out[name + ".update"] = {"type": "object", "title": f"Changes to a {meta.name}", "properties": update_props,
                             "additionalProperties": False,
                             "description": "Top-level merge; a child table given replaces the table"}
    return out
