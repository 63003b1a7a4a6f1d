"""Python signatures as JSON Schema: the parameters a whitelisted function takes from a request
and its return value, through pydantic's `TypeAdapter` (pydantic models become `py.<Model>`
components)."""

from __future__ import annotations

import inspect
import typing
from typing import Any

from pydantic import TypeAdapter
from pydantic.json_schema import JsonSchemaMode

from engine.documents.document import Document
from engine.methods import dispatch
from server.openapi.doctypes import TEXT

# -- python signatures -----------------------------------------------------------------------------

class Schemas:
    """Collects the `$defs` pydantic emits (pydantic models in signatures) as `py.<Model>` components."""

    def __init__(self, components: dict[str, Any]) -> None:
        self.components = components

    def of(self, annotation: Any, *, mode: JsonSchemaMode) -> dict[str, Any]:
        if annotation is Any or annotation is inspect.Parameter.empty:
            return {}
        try:
            schema = TypeAdapter(annotation).json_schema(mode=mode,
                                                         ref_template="#/components/schemas/py.{model}")
        except Exception:  # a type pydantic cannot describe: say nothing rather than something wrong
            return {}
        for key, value in schema.pop("$defs", {}).items():
            self.components.setdefault(f"py.{key}", value)
        return schema


def type_hints(fn: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn)
    except Exception:
        return {}


def _json_default(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def signature_params(fn: Any, *, bound: bool = False) -> tuple[list[tuple[str, Any, bool, Any]], bool]:
    """[(name, annotation, required, default)] of the parameters taken from a request, and whether the
    function takes `**kwargs`."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return [], True
    if bound:
        params = params[1:]
    hints = type_hints(fn)
    out = []
    var_kw = False
    for p in params:
        if p.kind is p.VAR_KEYWORD:
            var_kw = True
            continue
        if p.kind is p.VAR_POSITIONAL or p.name in dispatch.RESERVED:
            continue
        out.append((p.name, hints.get(p.name, Any), p.default is p.empty, p.default))
    return out, var_kw


SCALARS = frozenset({"string", "integer", "number", "boolean"})


def query_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
    """A parameter schema as a query string can carry it: an untyped one (`Any`: Frappe-style functions
    decode JSON text themselves) as text, scalars as they are (null dropped); None for an object or
    list type, which only a JSON body can carry."""
    if not schema:
        return dict(TEXT)
    options = schema.get("anyOf")
    if options:
        kept = [o for o in options if o.get("type") != "null"]
        if len(kept) == 1:
            return query_schema({**{k: v for k, v in schema.items() if k != "anyOf"}, **kept[0]})
        if all(o.get("type") in SCALARS for o in kept):
            return {**schema, "anyOf": kept}
        return None
    if schema.get("type") in SCALARS or "enum" in schema or "const" in schema:
        return schema
    return None


JSON_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,), "number": (int, float),
                                           "boolean": (bool,), "null": (type(None),)}


def _fits(schema: dict[str, Any], value: Any) -> bool:
    """Whether a default plainly fits a schema (only then is it declared: the document must stay valid)."""
    if "anyOf" in schema:
        return any(_fits(option, value) for option in schema["anyOf"])
    if "enum" in schema:
        return value in schema["enum"]
    kinds = schema.get("type")
    if kinds is None:
        return not schema
    names = [kinds] if isinstance(kinds, str) else kinds
    if isinstance(value, bool) and "boolean" not in names:
        return False
    return any(isinstance(value, JSON_TYPES.get(name, ())) for name in names)


# What pydantic's lax validation (`TypeAdapter.validate_python`, engine/methods/dispatch.py) takes besides
# the JSON type: an int or a float also from a bool or its text (underscores, blanks around), a bool
# also from 0/1 or words such as "yes"/"off"; so a request schema describes every argument accepted.
LAX_INT = r"^\s*[+-]?[0-9][0-9_]*(\.0*)?\s*$"
LAX_FLOAT = (r"^\s*([+-]?([0-9][0-9_]*\.?[0-9_]*|\.[0-9]+)([eE][+-]?[0-9]+)?"
             r"|[+-]?([Ii][Nn][Ff]([Ii][Nn][Ii][Tt][Yy])?|[Nn][Aa][Nn]))\s*$")
LAX_BOOL = (r"^\s*(0|1|[Oo][Nn]|[Oo][Ff][Ff]|[Tt]([Rr][Uu][Ee])?|[Ff]([Aa][Ll][Ss][Ee])?|[Yy]([Ee][Ss])?"
            r"|[Nn][Oo]?)\s*$")


def lax(schema: dict[str, Any]) -> dict[str, Any]:
    """A validation schema widened to what lax validation accepts (nested schemas too)."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        if isinstance(out.get(key), list):
            out[key] = [lax(option) for option in out[key]]
    for key in ("items", "additionalProperties"):
        if isinstance(out.get(key), dict):
            out[key] = lax(out[key])
    if isinstance(out.get("properties"), dict):
        out["properties"] = {name: lax(value) for name, value in out["properties"].items()}
    kind = out.get("type")
    if kind == "integer":
        out |= {"type": ["integer", "boolean", "string"], "pattern": LAX_INT}
    elif kind == "number":
        out |= {"type": ["number", "boolean", "string"], "pattern": LAX_FLOAT}
    elif kind == "boolean":
        out |= {"type": ["boolean", "integer", "string"], "pattern": LAX_BOOL, "minimum": 0, "maximum": 1,
                "multipleOf": 1}
    return out


def with_default(schema: dict[str, Any], default: Any, *, required: bool) -> dict[str, Any]:
    if not required and _json_default(default) and default is not None and _fits(schema, default):
        return {**schema, "default": default}
    return schema


def return_schema(annotation: Any, schemas: Schemas) -> tuple[dict[str, Any], bool]:
    """(schema of `message`, whether `message` is always present)."""
    if annotation is None or annotation is type(None):
        return {}, False
    if inspect.isclass(annotation) and issubclass(annotation, Document):
        return {"type": "object", "description": "The document, as the caller may read it"}, True
    schema = schemas.of(annotation, mode="serialization")
    nullable = annotation is Any or annotation is inspect.Parameter.empty or _allows_none(annotation)
    return schema, not nullable


def _allows_none(annotation: Any) -> bool:
    return type(None) in typing.get_args(annotation)
