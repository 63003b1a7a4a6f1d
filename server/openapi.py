"""`GET /api/openapi.json`: an OpenAPI 3.1 description of the site's REST API, generated from the
doctypes and the whitelisted functions' signatures (one source of truth, nothing written by hand
per doctype or per function).

What is generated:

- **Resources.** For every doctype that is neither a child table nor a Single:
  `GET /api/resource/{Doctype}` (list; query parameters `fields`, `filters`, `or_filters` as JSON
  text (`content: application/json`), `order_by`, `group_by` as text, `limit_start`,
  `limit_page_length`, `limit` as integers, `as_dict` as 0/1), `POST /api/resource/{Doctype}`
  (create, body `<Doctype>.create`), `GET|PUT|DELETE /api/resource/{Doctype}/{name}` (read, update
  with body `<Doctype>.update`, delete → 202 `{"data": "ok"}`) and
  `POST /api/resource/{Doctype}/{name}` (`run_method`: one of the controller's whitelisted
  methods, with that method's own arguments). The same routes are also served under `/api/v1`;
  they are not repeated here.
- **Component schemas per doctype** (names with characters other than letters, digits, `.`, `-`
  and `_` replaced by `_`, e.g. `Test_Note`): `<Doctype>` is the document as responses carry it
  (standard fields, value fields, child tables as arrays of `<Child>` rows). Responses omit null
  fields, so nothing in a response schema is `required`; Password fields never appear in a
  response (`propertyNames` forbids them). `<Doctype>.create` / `<Doctype>.update` (and
  `<Child>.row`) are request bodies: fields a client may set (read-only ones are left out),
  mandatory fields without a default `required` on create, every field but a mandatory one
  nullable (null clears it), unknown keys refused (`additionalProperties: false`, as the server
  answers 417 for them), Password fields `writeOnly`. Field types: Data/Text/Link/... → string
  (with `maxLength` where the server enforces one), Select → enum of its options plus null,
  Date → string `format: date`, Datetime/Time → string (Frappe's `YYYY-MM-DD HH:MM:SS.ffffff`,
  see `pattern`), Int/Long Int → integer (with their ranges), Float/Currency/Percent/Duration/
  Rating → number, Check → integer 0 or 1, JSON → object or array, Table → array of the child's
  row schema.
- **Methods.** Every registered `@whitelist` function as `/api/method/<dotted.path>` with each of
  its allowed HTTP methods (an app's `override_whitelisted_methods` target describes the path it
  overrides). GET and DELETE take the arguments as query parameters, POST and PUT as a JSON object
  body. Parameters come from the signature (`ctx` and the reserved `ignore_permissions`/`flags` are
  skipped); type hints become JSON Schema through pydantic's `TypeAdapter(annotation).json_schema()`
  (`Any` or no hint → any JSON value in a body, text in a query string; an object- or list-typed
  argument cannot travel in a query string, so it is left out of GET/DELETE, which are not listed
  at all when such an argument is required); a parameter without a default is required; other
  arguments are not allowed by the schema (`additionalProperties: false`: the server would drop
  them) unless the function takes `**kwargs`. The response is `{"message": <return value>}` typed from the
  return annotation (`message` is absent when the function returns None). `login`, `logout` and
  `fw.auth.get_csrf_token` (served by the session routes) are added by hand. The `frappe.*`
  aliases of `fw.*` paths are accepted by the server but not listed.
- **The v2 API** (`/api/v2`, server/routes/v2.py), from the same doctype schemas and signatures:
  `/api/v2/document/{Doctype}` (list with `start`/`limit` and `has_next_page`; create),
  `/api/v2/document/{Doctype}/{name}` (GET, PUT, PATCH, DELETE), `.../{name}/copy`,
  `.../{name}/method/<m>` per whitelisted controller method (GET if the method allows it, POST;
  the document afterwards in `docs`), `/api/v2/doctype/{Doctype}/count`,
  `/api/v2/doctype/{doctype}/meta`, `/api/v2/method/<path>` (`upload_file` too) for every
  whitelisted function, `/api/v2/method/{Doctype}/<fn>` for those whitelisted in a doctype's
  controller module, and `login`/`logout`/`fw.auth.get_csrf_token`. Results are in
  `data`, msgprints in `messages`. v2 keeps null fields, so documents are `<Doctype>.v2`: the
  response schema with every value nullable (a copy leaves nulls out and uses `<Doctype>`).
  Errors are `Error.v2` (`errors: [{type, message, title, indicator, [field], [exception]}]`)
  through the `<Name>.v2` responses.
- **Errors.** One shared `Error` schema (`exc_type`, `exception`, `_server_messages` (a JSON string
  of a list of JSON strings), `errors` `[{type, message, field}]`, and the optional `exc`,
  `_error_message`, `message`), referenced by every operation for 400, 401, 403, 404, 409, 413,
  417 and 429.
- **Security.** Schemes `token` (`Authorization: token <api_key>:<api_secret>`), `basic` (HTTP
  Basic with the API key and secret) and `sid` (the session cookie). Every operation requires one
  of them, except guest-callable methods and this document itself, which is public.

The document is cached per site and rebuilt when the meta (custom fields) or the registry of
whitelisted functions changes; the handler serves the cached JSON bytes.
"""

from __future__ import annotations

import inspect
import re
import typing
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import TypeAdapter
from starlette.requests import Request
from starlette.responses import Response

from engine import whitelisted
from engine.documents.document import Document
from engine.meta.fieldtypes import DEFAULT_LENGTH, INT_RANGE, LENGTH_TYPES, LONG_INT_RANGE
from engine.meta.schema import Meta
from server.responses import dumps
from server.routes.v2 import doctype_modules

if TYPE_CHECKING:
    from engine.site import Site

OPENAPI_VERSION = "3.1.0"
RESERVED_PARAMS = frozenset({"ctx", "self", "ignore_permissions", "flags"})
ERROR_RESPONSES: dict[str, tuple[str, str]] = {
    "400": ("BadRequest", "Malformed request: bad JSON body, bad Authorization header, missing CSRF token"),
    "401": ("Unauthorized", "Authentication failed (wrong credentials or API key)"),
    "403": ("Forbidden", "Not permitted (missing permission, not whitelisted, method not allowed)"),
    "404": ("NotFound", "The document, doctype or route does not exist"),
    "409": ("Conflict", "Duplicate entry, or a transient write conflict (retry)"),
    "413": ("PayloadTooLarge", "The request body is over the size limit"),
    "417": ("ValidationFailed", "Invalid input (ValidationError and its subclasses), nothing was changed"),
    "429": ("TooManyRequests", "Rate limited or login locked out; see Retry-After"),
}
SECURITY: list[dict[str, list[str]]] = [{"token": []}, {"basic": []}, {"sid": []}]
TEXT: dict[str, Any] = {"type": "string"}
DATETIME_OUT = r"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?$"
DATETIME_IN = (r"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?"
               r"(Z|[+-][0-9]{2}(:?[0-9]{2})?)?)?$")
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

_cache: weakref.WeakKeyDictionary[Any, tuple[Any, bytes]] = weakref.WeakKeyDictionary()


def component_name(doctype: str) -> str:
    """A component key (`^[A-Za-z0-9._-]+$`) for a doctype: 'Test Note' -> 'Test_Note'."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", doctype)


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    out = dict(schema)
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
    if ftype == "Link":
        schema["description"] = f"Link to {field.options}"
    elif ftype == "Dynamic Link":
        schema["description"] = f"Name of a document of the doctype in `{field.options}`"
    elif field.description and "description" not in schema:
        schema["description"] = field.description
    if nullable and (ftype == "Select" or (write and not field.is_table)):
        return _nullable(schema)
    return schema


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
    # null clears a field, except a mandatory one
    write_props = {f.fieldname: field_schema(f, write=True, table_ref=table_write, nullable=not f.reqd)
                   for f in writable}
    if meta.istable:
        row_props = {"doctype": {"type": "string", "const": meta.name}, "name": {"type": "string"},
                     "idx": {"type": "integer"}} | write_props
        row = out[name + ".row"] = {"type": "object", "title": f"{meta.name} row", "properties": row_props,
                                    "additionalProperties": False}
        if required:
            row["required"] = required
        return out
    create_props: dict[str, Any] = {"doctype": {"type": "string", "const": meta.name}}
    if meta.autoname.lower() in ("prompt", "uuid"):
        create_props["name"] = {"type": "string", "minLength": 1, "maxLength": DEFAULT_LENGTH}
    if meta.is_submittable:
        create_props["docstatus"] = {"type": "integer", "enum": [0, 1]}
    create_props |= write_props
    create: dict[str, Any] = {"type": "object", "title": f"New {meta.name}", "properties": create_props,
                              "additionalProperties": False}
    if required:
        create["required"] = required
    update_props: dict[str, Any] = {"modified": {
        "type": "string", "description": "The `modified` the client last read; a mismatch is a 417 "
                                         "TimestampMismatchError and nothing is written"}}
    if meta.is_submittable:
        update_props["docstatus"] = {"type": "integer", "enum": [0, 1, 2],
                                     "description": "1 submits, 2 cancels"}
    update_props |= write_props
    out[name + ".create"] = create
    out[name + ".update"] = {"type": "object", "title": f"Changes to a {meta.name}", "properties": update_props,
                             "additionalProperties": False,
                             "description": "Top-level merge; a child table given replaces the table"}
    return out


# -- python signatures -----------------------------------------------------------------------------

class _Schemas:
    """Collects the `$defs` pydantic emits (pydantic models in signatures) as `py.<Model>` components."""

    def __init__(self, components: dict[str, Any]) -> None:
        self.components = components

    def of(self, annotation: Any, *, mode: str) -> dict[str, Any]:
        if annotation is Any or annotation is inspect.Parameter.empty:
            return {}
        try:
            schema = TypeAdapter(annotation).json_schema(mode=mode,  # type: ignore[arg-type]
                                                         ref_template="#/components/schemas/py.{model}")
        except Exception:  # a type pydantic cannot describe: say nothing rather than something wrong
            return {}
        for key, value in schema.pop("$defs", {}).items():
            self.components.setdefault(f"py.{key}", value)
        return schema


def _hints(fn: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn)
    except Exception:
        return {}


def _json_default(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _signature_params(fn: Any, *, bound: bool = False) -> tuple[list[tuple[str, Any, bool, Any]], bool]:
    """[(name, annotation, required, default)] of the parameters taken from a request, and whether the
    function takes `**kwargs`."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return [], True
    if bound:
        params = params[1:]
    hints = _hints(fn)
    out = []
    var_kw = False
    for p in params:
        if p.kind is p.VAR_KEYWORD:
            var_kw = True
            continue
        if p.kind is p.VAR_POSITIONAL or p.name in RESERVED_PARAMS:
            continue
        out.append((p.name, hints.get(p.name, Any), p.default is p.empty, p.default))
    return out, var_kw


SCALARS = frozenset({"string", "integer", "number", "boolean"})


def _query_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
    """A parameter schema as a query string can carry it: an untyped one (`Any`: Frappe-style functions
    decode JSON text themselves) as text, scalars as they are (null dropped); None for an object or
    list type, which only a JSON body can carry."""
    if not schema:
        return dict(TEXT)
    options = schema.get("anyOf")
    if options:
        kept = [o for o in options if o.get("type") != "null"]
        if len(kept) == 1:
            return _query_schema({**{k: v for k, v in schema.items() if k != "anyOf"}, **kept[0]})
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


def _with_default(schema: dict[str, Any], default: Any, *, required: bool) -> dict[str, Any]:
    if not required and _json_default(default) and default is not None and _fits(schema, default):
        return {**schema, "default": default}
    return schema


def _return_schema(annotation: Any, schemas: _Schemas) -> tuple[dict[str, Any], bool]:
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


# -- the document ----------------------------------------------------------------------------------

def _error_refs(*, v2: bool = False) -> dict[str, Any]:
    suffix = V2_SUFFIX if v2 else ""
    return {code: {"$ref": f"#/components/responses/{name}{suffix}"} for code, (name, _d) in ERROR_RESPONSES.items()}


def _json_content(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def _envelope(key: str, schema: dict[str, Any], *, required: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": {
        key: schema, "_server_messages": {"type": "string", "description": "JSON list of JSON messages"}}}
    if required:
        out["required"] = [key]
    return out


def _operation(op_id: str, summary: str, tags: list[str], ok: dict[str, Any], *, status: str = "200",
               parameters: list[dict[str, Any]] | None = None, body: dict[str, Any] | None = None,
               body_required: bool = False, guest: bool = False, description: str | None = None,
               v2: bool = False) -> dict[str, Any]:
    op: dict[str, Any] = {"operationId": op_id, "summary": summary, "tags": tags}
    if description:
        op["description"] = description
    if parameters:
        op["parameters"] = parameters
    if body is not None:
        op["requestBody"] = {"required": body_required, "content": _json_content(body)}
    op["responses"] = {status: {"description": "Success", "content": _json_content(ok)}, **_error_refs(v2=v2)}
    if guest:
        op["security"] = [{}, *SECURITY]
    return op


def _json_param(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description,
            "content": {"application/json": {"schema": schema}}}


def _list_parameters() -> list[dict[str, Any]]:
    filters = {"anyOf": [{"type": "object"}, {"type": "array", "items": {"type": "array"}}]}
    integer = {"type": "integer", "minimum": 0}
    return [
        _json_param("fields", {"type": "array", "items": {"type": "string"}, "examples": [["*"], ["name", "modified"]]},
                    'Fields to return, JSON list (default ["name"]; ["*"] = every readable field)'),
        _json_param("filters", {**filters, "examples": [{"docstatus": 0}, [["name", "like", "%a%"]]]},
                    'JSON: {"field": value}, {"field": [op, value]} or [[field, op, value], ...]'),
        _json_param("or_filters", filters, "JSON, as filters, combined with OR"),
        {"name": "order_by", "in": "query", "schema": {**TEXT, "examples": ["modified desc"]},
         "description": "e.g. `modified desc`"},
        {"name": "group_by", "in": "query", "schema": TEXT},
        {"name": "limit_start", "in": "query", "schema": integer},
        {"name": "limit_page_length", "in": "query", "schema": integer,
         "description": "Page length (default 20, capped; 0 = up to the cap)"},
        {"name": "limit", "in": "query", "schema": integer, "description": "Alias of limit_page_length"},
        {"name": "as_dict", "in": "query", "schema": {"type": "integer", "enum": [0, 1]},
         "description": "0: rows as lists of values"},
    ]


def _document_methods(controller: type, submittable: bool) -> list[tuple[str, Any, whitelisted.Whitelisted]]:
    """(name, function, whitelist entry) of a controller's whitelisted methods (`submit` and `cancel`
    only on a submittable doctype)."""
    out = []
    for attr in sorted(dir(controller)):
        if attr.startswith("_") or (attr in ("submit", "cancel") and not submittable):
            continue
        fn = inspect.getattr_static(controller, attr, None)
        info = whitelisted.method_info(fn)
        if info is not None:
            out.append((attr, fn, info))
    return out


def _method_return(fn: Any, schemas: _Schemas, doc_schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """(schema of a document method's result, whether it is always present); a returned Document
    is `doc_schema`."""
    annotation = _hints(fn).get("return", Any)
    if inspect.isclass(annotation) and issubclass(annotation, Document):
        return doc_schema, True
    return _return_schema(annotation, schemas)


def _run_method_body(controller: type, schemas: _Schemas, submittable: bool,
                     doc_schema: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(request body, schema of `data`) for `run_method` on a controller's whitelisted methods."""
    variants = []
    returns = []
    for attr, fn, info in _document_methods(controller, submittable):
        if "POST" not in info.methods:
            continue
        params, var_kw = _signature_params(fn, bound=True)
        props: dict[str, Any] = {"run_method": {"type": "string", "const": attr}}
        required = ["run_method"]
        for pname, annotation, req, default in params:
            props[pname] = _with_default(schemas.of(annotation, mode="validation"), default, required=req)
            if req:
                required.append(pname)
        variants.append({"type": "object", "title": attr, "properties": props, "required": required,
                         "additionalProperties": var_kw})
        returns.append(_method_return(fn, schemas, doc_schema)[0])
    if not variants:
        return None
    body = variants[0] if len(variants) == 1 else {"oneOf": variants}
    distinct = [r for i, r in enumerate(returns) if r not in returns[:i]]
    return body, distinct[0] if len(distinct) == 1 else {"anyOf": distinct} if all(distinct) else {}


def _resource_paths(meta: Meta, site: Site, schemas: _Schemas) -> dict[str, Any]:
    doctype = meta.name
    comp = component_name(doctype)
    tags = [doctype]
    list_path = f"/api/resource/{doctype}"
    row = {"anyOf": [ref(comp), {"type": "array", "description": "with as_dict=0"}]}
    name_param = {"name": "name", "in": "path", "required": True, "schema": {"type": "string", "minLength": 1}}
    doc_path: dict[str, Any] = {
        "parameters": [name_param],
        "get": _operation(f"get_{comp}", f"Read a {doctype}", tags, _envelope("data", ref(comp))),
        "put": _operation(f"update_{comp}", f"Update a {doctype}", tags, _envelope("data", ref(comp)),
                          body=ref(f"{comp}.update"), body_required=True),
        "delete": _operation(f"delete_{comp}", f"Delete a {doctype}", tags,
                             _envelope("data", {"type": "string", "const": "ok"}), status="202"),
    }
    run = _run_method_body(site.apps.controller(doctype), schemas, meta.is_submittable, ref(comp))
    if run is not None:
        doc_path["post"] = _operation(
            f"run_method_{comp}", f"Run a whitelisted method of a {doctype} (`run_method`)", tags,
            _envelope("data", run[1]), body=run[0], body_required=True)
    return {
        list_path: {
            "get": _operation(f"list_{comp}", f"List {doctype}", tags,
                              _envelope("data", {"type": "array", "items": row}), parameters=_list_parameters()),
            "post": _operation(f"create_{comp}", f"Create a {doctype}", tags, _envelope("data", ref(comp)),
                               body=ref(f"{comp}.create"), body_required=True),
        },
        f"{list_path}/{{name}}": doc_path,
    }


def _method_path(info: whitelisted.Whitelisted, schemas: _Schemas, path: str, *, v2: bool = False) -> dict[str, Any]:
    """The operations of `/api/method/<path>` (or `/api/v2/method/<path>`), served by `info` (itself,
    or an app's override)."""
    ret, always = _return_schema(_hints(info.fn).get("return", Any), schemas)
    ok = _envelope_v2(ret, required=always) if v2 else _envelope("message", ret, required=always)
    doc = inspect.getdoc(info.fn)
    summary = doc.splitlines()[0] if doc else path
    tag = path.rsplit(".", 1)[0] if "." in path else "methods"
    op_id = ("v2_method_" if v2 else "method_") + re.sub(r"[^A-Za-z0-9_]", "_", path)
    return _call_operations(info.fn, sorted(info.methods), schemas, op_id=op_id, summary=summary, tags=[tag], ok=ok,
                            guest=info.allow_guest, description=doc, v2=v2)


def _call_operations(fn: Any, methods: list[str], schemas: _Schemas, *, op_id: str, summary: str, tags: list[str],
                     ok: dict[str, Any], guest: bool, description: str | None, v2: bool,
                     bound: bool = False) -> dict[str, Any]:
    """One operation per HTTP method of a call: GET and DELETE take the arguments as query parameters
    (left out when a required argument is an object or list), the others as a JSON body."""
    params, var_kw = _signature_params(fn, bound=bound)
    item: dict[str, Any] = {}
    for method in methods:
        method_op_id = f"{op_id}_{method.lower()}"
        if method in ("GET", "DELETE"):
            query = []
            for pname, annotation, req, default in params:
                schema = _query_schema(schemas.of(annotation, mode="validation"))
                if schema is not None:
                    query.append({"name": pname, "in": "query", "required": req,
                                  "schema": _with_default(schema, default, required=req)})
                elif req:  # a required object or list argument: this method cannot be called this way
                    break
            else:
                item[method.lower()] = _operation(method_op_id, summary, tags, ok, parameters=query, guest=guest,
                                                  description=description, v2=v2)
        else:
            props = {}
            required = []
            for pname, annotation, req, default in params:
                props[pname] = _with_default(schemas.of(annotation, mode="validation"), default, required=req)
                if req:
                    required.append(pname)
            body: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": var_kw}
            if required:
                body["required"] = required
            item[method.lower()] = _operation(method_op_id, summary, tags, ok, body=body, body_required=bool(required),
                                              guest=guest, description=description, v2=v2)
    return item


def _session_paths() -> dict[str, Any]:
    login_body = {"type": "object", "properties": {"usr": TEXT, "pwd": {"type": "string", "writeOnly": True}},
                  "required": ["usr", "pwd"]}
    logged_in = {"type": "object", "properties": {"message": TEXT, "home_page": TEXT, "full_name": TEXT},
                 "required": ["message"]}
    logout = _operation("logout_get", "Log out (end the cookie session)", ["session"], {"type": "object"},
                        guest=True)
    return {
        "/api/method/login": {"post": _operation(
            "login", "Log in with usr and pwd; sets the `sid` cookie", ["session"], logged_in, body=login_body,
            body_required=True, guest=True)},
        "/api/method/logout": {"get": logout, "post": {**logout, "operationId": "logout_post"}},
        "/api/method/fw.auth.get_csrf_token": {"get": _operation(
            "get_csrf_token", "The CSRF token of the cookie session", ["session"], _envelope("message", TEXT))},
    }


def _file_paths() -> dict[str, Any]:
    """`upload_file` (multipart, served by server/routes/files.py) and the two file URLs."""
    fields = {"is_private": {"type": "string", "enum": ["0", "1"]}, "folder": TEXT, "file_name": TEXT,
              "file_url": {**TEXT, "description": "Instead of a file: link a /files/ or /private/files/ URL "
                                                  "of an existing file, or an http(s) URL"},
              "doctype": TEXT, "docname": TEXT,
              "fieldname": {**TEXT, "description": "An Attach field of the document: set to the new file_url"}}
    body = {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}, **fields}}
    def upload(op_id: str, ok: dict[str, Any], *, v2: bool = False) -> dict[str, Any]:
        operation = _operation(op_id, "Upload a file (or link an existing URL), optionally attached to a "
                               "document", ["files"], ok, v2=v2,
                               description="Also at fw.handler.upload_file and frappe.handler.upload_file. A "
                                           "file over FW_MAX_FILE_SIZE is refused with 413.")
        operation["requestBody"] = {"required": True, "content": {"multipart/form-data": {"schema": body}}}
        return operation

    binary = {"type": "string", "format": "binary"}
    served: dict[str, Any] = {
        "200": {"description": "The content (Content-Disposition: attachment for active types)",
                "content": {"*/*": {"schema": binary}}},
        "206": {"description": "One byte range (`Range: bytes=...`)", "content": {"*/*": {"schema": binary}}},
        "304": {"description": "Not modified (`If-None-Match` holds the ETag)"},
        "416": {"description": "The range is outside the file"},
        **_error_refs()}
    name = [{"name": "file_name", "in": "path", "required": True, "schema": {"type": "string", "minLength": 1}}]
    return {
        "/api/method/upload_file": {"post": upload("upload_file", _envelope("message", ref("File")))},
        "/api/v2/method/upload_file": {"post": upload("v2_upload_file", _envelope_v2(ref("File" + V2_SUFFIX)),
                                                      v2=True)},
        "/files/{file_name}": {"get": {"operationId": "get_public_file", "summary": "A public file (HEAD works too)",
                                       "tags": ["files"], "parameters": name, "responses": served,
                                       "security": [{}, *SECURITY]}},
        "/private/files/{file_name}": {"get": {
            "operationId": "get_private_file", "tags": ["files"], "parameters": name, "responses": served,
            "summary": "A private file, for users who may read its File record (HEAD works too)"}},
    }


# -- the v2 API (server/routes/v2.py) -----------------------------------------------------------------

V2_SUFFIX = ".v2"
V2_MESSAGES: dict[str, Any] = {"type": "array", "items": {"type": "object"},
                               "description": "msgprints of the request (message, title, indicator, ...)"}


def _envelope_v2(schema: dict[str, Any], *, required: bool = True, **extra: dict[str, Any]) -> dict[str, Any]:
    """`{"data": ..., [extra keys, all present], "messages": [...]}`; `data` is absent when a function
    returns None (`required` off)."""
    out: dict[str, Any] = {"type": "object", "properties": {"data": schema, **extra, "messages": V2_MESSAGES}}
    keys = (["data"] if required else []) + list(extra)
    if keys:
        out["required"] = keys
    return out


def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, list) and "null" in kind:
        return schema  # already nullable (a Select)
    return _nullable(schema)


def nulls_kept(read: dict[str, Any]) -> dict[str, Any]:
    """A document's v2 shape from its response schema: v2 keeps null fields (Frappe's `as_dict()`), so
    every value may be null; child rows take their own `.v2` shape."""
    props: dict[str, Any] = {}
    for key, schema in read["properties"].items():
        items = schema.get("items", {})
        if key == "doctype":
            props[key] = schema
        elif schema.get("type") == "array" and "$ref" in items:
            props[key] = {**schema, "items": {"$ref": items["$ref"] + V2_SUFFIX}}
        else:
            props[key] = _or_null(schema)
    return {**read, "title": f"{read['title']} (v2)", "properties": props}


def _v2_list_parameters() -> list[dict[str, Any]]:
    v1 = {p["name"]: p for p in _list_parameters()}
    integer = {"type": "integer", "minimum": 0}
    return [*(v1[k] for k in ("fields", "filters", "or_filters", "order_by", "group_by")),
            {"name": "start", "in": "query", "schema": integer, "description": "Rows to skip (default 0)"},
            {"name": "limit", "in": "query", "schema": integer,
             "description": "Page length (default 20, capped; 0 = up to the cap)"},
            v1["as_dict"]]


def _v2_document_paths(meta: Meta, site: Site, schemas: _Schemas) -> dict[str, Any]:
    doctype = meta.name
    comp = component_name(doctype)
    full = ref(comp + V2_SUFFIX)
    tags = [f"{doctype} (v2)"]
    base = f"/api/v2/document/{doctype}"
    name_param = {"name": "name", "in": "path", "required": True, "schema": {"type": "string", "minLength": 1}}
    row = {"anyOf": [full, {"type": "array", "description": "with as_dict=0"}]}

    def op(op_id: str, summary: str, ok: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return _operation(f"v2_{op_id}_{comp}", summary, tags, ok, v2=True, **kwargs)

    update = {"body": ref(f"{comp}.update"), "body_required": True}
    paths: dict[str, Any] = {
        base: {
            "get": op("list", f"List {doctype}", _envelope_v2(
                {"type": "array", "items": row}, has_next_page={"type": "boolean"}), parameters=_v2_list_parameters()),
            "post": op("create", f"Create a {doctype}", _envelope_v2(full), body=ref(f"{comp}.create"),
                       body_required=True),
        },
        f"{base}/{{name}}": {
            "parameters": [name_param],
            "get": op("get", f"Read a {doctype}", _envelope_v2(full)),
            "put": op("update", f"Update a {doctype}", _envelope_v2(full), **update),
            "patch": op("patch", f"Update a {doctype} (as PUT)", _envelope_v2(full), **update),
            "delete": op("delete", f"Delete a {doctype}", _envelope_v2({"type": "string", "const": "ok"}),
                         status="202"),
        },
        f"{base}/{{name}}/copy": {
            "parameters": [name_param],
            "get": op("copy", f"A copy of a {doctype} to post as a new one (nulls left out)", _envelope_v2(ref(comp))),
        },
        f"/api/v2/doctype/{doctype}/count": {
            "get": op("count", f"Count the {doctype} records the caller may read", _envelope_v2({"type": "integer"}),
                      parameters=_v2_list_parameters()[1:3]),
        },
    }
    for attr, fn, info in _document_methods(site.apps.controller(doctype), meta.is_submittable):
        ret, always = _method_return(fn, schemas, full)
        ok = _envelope_v2(ret, required=always, docs={"type": "array", "items": full, "minItems": 1, "maxItems": 1})
        methods = [m for m in ("GET", "POST") if m in info.methods]
        item = _call_operations(fn, methods, schemas, op_id=f"v2_method_{comp}_{attr}",
                                summary=f"Run {attr} on a {doctype} (GET needs read, POST write)", tags=tags, ok=ok,
                                guest=False, description=inspect.getdoc(fn), v2=True, bound=True)
        if item:
            paths[f"{base}/{{name}}/method/{attr}"] = {"parameters": [name_param], **item}
    return paths


def _v2_method_paths(site: Site, schemas: _Schemas) -> dict[str, Any]:
    """`/api/v2/method/<path>` for every whitelisted path, and `/api/v2/method/<doctype>/<fn>` for the
    functions whitelisted in a doctype's controller module."""
    overrides = site.apps.override_whitelisted_methods
    served = {}
    for path in sorted(set(whitelisted.registered()) | set(overrides)):
        info = whitelisted.lookup(overrides.get(path, path))
        if info is not None:
            served[path] = info
    paths = {f"/api/v2/method/{path}": _method_path(info, schemas, path, v2=True) for path, info in served.items()}
    for doctype in site.meta.names():
        for module in doctype_modules(site, doctype):
            for path, info in served.items():
                owner, _dot, fn_name = path.rpartition(".")
                if owner == module and fn_name.isidentifier():
                    item = _method_path(info, schemas, path, v2=True)
                    for operation in item.values():
                        operation["operationId"] = operation["operationId"].replace(
                            "v2_method_", f"v2_method_{component_name(doctype)}_", 1)
                    paths[f"/api/v2/method/{doctype}/{fn_name}"] = item
    return paths


def _v2_meta_path(site: Site) -> dict[str, Any]:
    doctype = {"name": "doctype", "in": "path", "required": True,
               "schema": {"type": "string", "enum": site.meta.names()}}
    meta = {"type": "object", "required": ["name", "fields", "permissions"],
            "properties": {"name": TEXT, "fields": {"type": "array", "items": {"type": "object"}},
                           "permissions": {"type": "array", "items": {"type": "object"}}}}
    return {"/api/v2/doctype/{doctype}/meta": {"get": _operation(
        "v2_doctype_meta", "A doctype's meta as the Desk reads it (DocType with DocField and DocPerm rows)",
        ["meta"], _envelope_v2(meta), parameters=[doctype], v2=True)}}


def _v2_session_paths() -> dict[str, Any]:
    v1 = _session_paths()
    login = v1["/api/method/login"]["post"]
    logout = _operation("v2_logout_get", "Log out (end the cookie session)", ["session"], {"type": "object"},
                        guest=True, v2=True)
    return {
        "/api/v2/method/login": {"post": _operation(
            "v2_login", login["summary"] + " (answers as v1)", ["session"],
            login["responses"]["200"]["content"]["application/json"]["schema"],
            body=login["requestBody"]["content"]["application/json"]["schema"], body_required=True, guest=True,
            v2=True)},
        "/api/v2/method/logout": {"get": logout, "post": {**logout, "operationId": "v2_logout_post"}},
        "/api/v2/method/fw.auth.get_csrf_token": {"get": _operation(
            "v2_get_csrf_token", "The CSRF token of the cookie session", ["session"], _envelope_v2(TEXT), v2=True)},
    }


def _error_schema_v2() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "errors": {"type": "array", "minItems": 1, "items": {
                "type": "object",
                "properties": {"type": {"type": "string", "description": "Exception class, e.g. ValidationError"},
                               "message": TEXT, "title": TEXT, "indicator": TEXT,
                               "field": {"type": "string", "description": "The field at fault, where known"},
                               "exception": {"type": "string", "description": "Traceback (developer mode only)"}},
                "required": ["type", "message", "title", "indicator"]}},
            "messages": V2_MESSAGES,
        },
        "required": ["errors"],
    }


def _error_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "exc_type": {"type": "string", "description": "Exception class, e.g. ValidationError"},
            "exception": {"type": "string", "description": "`module.Class: message`"},
            "_server_messages": {"type": "string",
                                 "description": "JSON list of JSON-encoded message objects (as Frappe sends it)"},
            "errors": {"type": "array", "items": {
                "type": "object",
                "properties": {"type": TEXT, "message": TEXT, "field": {"type": ["string", "null"]}},
                "required": ["type", "message"]}},
            "exc": {"type": "string", "description": "Traceback (developer mode only)"},
            "_error_message": TEXT,
            "message": TEXT,
        },
        "required": ["exc_type", "exception", "_server_messages", "errors"],
    }


def build_openapi(site: Site) -> dict[str, Any]:
    """The OpenAPI 3.1 document of `site` (see the module docstring for what is in it)."""
    components: dict[str, Any] = {}
    schemas = _Schemas(components)
    paths: dict[str, Any] = {}
    metas = [site.meta.get(name) for name in site.meta.names()]
    for meta in metas:
        components.update(doctype_schemas(meta))
        name = component_name(meta.name)
        components[name + V2_SUFFIX] = nulls_kept(components[name])
    for meta in metas:
        if not meta.istable and not meta.issingle:
            paths.update(_resource_paths(meta, site, schemas))
    paths.update(_session_paths())
    paths.update(_file_paths())
    registered = whitelisted.registered()
    overrides = site.apps.override_whitelisted_methods
    for path in sorted(set(registered) | set(overrides)):
        info = whitelisted.lookup(overrides.get(path, path))  # what the server calls for this path
        if info is not None:
            paths[f"/api/method/{path}"] = _method_path(info, schemas, path)
    for meta in metas:
        if not meta.istable and not meta.issingle:
            paths.update(_v2_document_paths(meta, site, schemas))
    paths.update(_v2_session_paths())
    paths.update(_v2_meta_path(site))
    paths.update(_v2_method_paths(site, schemas))
    components["Error"] = _error_schema()
    components["Error" + V2_SUFFIX] = _error_schema_v2()
    return {
        "openapi": OPENAPI_VERSION,
        "info": {"title": f"fw site {site.name}", "version": "1",
                 "description": "Frappe-compatible REST API: the v1 resource and method APIs (also served under "
                                "/api/v1) and the v2 API under /api/v2; `frappe.*` method paths are aliases of "
                                "`fw.*`."},
        "servers": [{"url": "/"}],
        "security": SECURITY,
        "paths": paths,
        "components": {
            "schemas": dict(sorted(components.items())),
            "responses": {
                **{name: {"description": text, "content": _json_content(ref("Error"))}
                   for _code, (name, text) in ERROR_RESPONSES.items()},
                **{name + V2_SUFFIX: {"description": text, "content": _json_content(ref("Error" + V2_SUFFIX))}
                   for _code, (name, text) in ERROR_RESPONSES.items()},
            },
            "securitySchemes": {
                "token": {"type": "apiKey", "in": "header", "name": "Authorization",
                          "description": "`token <api_key>:<api_secret>`"},
                "basic": {"type": "http", "scheme": "basic", "description": "API key and secret as user and password"},
                "sid": {"type": "apiKey", "in": "cookie", "name": "sid", "description": "Session cookie set by login"},
            },
        },
    }


def _fingerprint(site: Site) -> Any:
    """What the document depends on: every doctype's fields (custom fields included) and the registry."""
    doctypes = []
    for name in site.meta.names():
        meta = site.meta.get(name)
        doctypes.append((name, tuple((f.fieldname, f.fieldtype, f.options, f.reqd, f.read_only, f.length,
                                      f.non_negative, repr(f.default), f.label, f.description) for f in meta.fields)))
    methods = tuple((path, id(info.fn), info.methods, info.allow_guest)
                    for path, info in sorted(whitelisted.registered().items()))
    methods += tuple(sorted(site.apps.override_whitelisted_methods.items()))
    return hash((tuple(doctypes), methods))


def openapi_bytes(site: Site) -> bytes:
    """The cached JSON of `build_openapi(site)`, rebuilt when the meta or the registry changed."""
    key = _fingerprint(site)
    hit = _cache.get(site)
    if hit is not None and hit[0] == key:
        return hit[1]
    body = dumps(build_openapi(site))
    _cache[site] = (key, body)
    return body


def openapi_document(site: Site) -> dict[str, Any]:
    """The (cached) document, parsed afresh (the caller may change it)."""
    return orjson.loads(openapi_bytes(site))  # type: ignore[no-any-return]


async def openapi_json(request: Request) -> Response:
    """`GET /api/openapi.json` (public)."""
    site = request.app.state.site
    await site.meta.refresh_if_stale()
    return Response(openapi_bytes(site), media_type="application/json")
