"""The v2 paths (`/api/v2`, server/routes/v2.py): documents, doctype count and meta, methods, the
session routes, and the `<Doctype>.v2` document shape and `Error.v2` schema they answer with."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from engine.apps import whitelisted
from engine.meta.schema import Meta
from engine.methods import dispatch
from server.openapi.doctypes import TEXT, component_name, ref, with_null
from server.openapi.operations import V2_MESSAGES, V2_SUFFIX, envelope_v2, make_operation
from server.openapi.paths_v1 import (
    EXPAND_LINKS_PARAM,
    EXPAND_PARAM,
    call_operations,
    list_parameters,
    method_path,
    method_return,
    session_paths,
)
from server.openapi.signatures import Schemas

if TYPE_CHECKING:
    from engine.site import Site


# -- the v2 API (server/routes/v2.py) -----------------------------------------------------------------

def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, list) and "null" in kind:
        return schema  # already nullable (a Select)
    return with_null(schema)


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
    v1 = {p["name"]: p for p in list_parameters()}
    integer = {"anyOf": [{"type": "integer", "minimum": 0}, {"const": "", "description": "blank: the default"}]}
    return [*(v1[k] for k in ("fields", "filters", "or_filters", "order_by", "group_by")),
            {"name": "start", "in": "query", "schema": integer, "description": "Rows to skip (default 0)"},
            {"name": "limit", "in": "query", "schema": integer,
             "description": "Page length (default 20, capped; 0 = up to the cap)"},
            v1["as_dict"], EXPAND_PARAM]


def v2_document_paths(meta: Meta, site: Site, schemas: Schemas) -> dict[str, Any]:
    doctype = meta.name
    comp = component_name(doctype)
    full = ref(comp + V2_SUFFIX)
    tags = [f"{doctype} (v2)"]
    base = f"/api/v2/document/{doctype}"
    name_param = {"name": "name", "in": "path", "required": True, "schema": {"type": "string", "minLength": 1}}
    row = {"anyOf": [full, {"type": "array", "description": "with as_dict=0"}]}

    def op(op_id: str, summary: str, ok: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return make_operation(f"v2_{op_id}_{comp}", summary, tags, ok, v2=True, **kwargs)

    update = {"body": ref(f"{comp}.update"), "body_required": True}
    paths: dict[str, Any] = {
        base: {
            "get": op("list", f"List {doctype}", envelope_v2(
                {"type": "array", "items": row}, has_next_page={"type": "boolean"}), parameters=_v2_list_parameters()),
            "post": op("create", f"Create a {doctype}", envelope_v2(full), body=ref(f"{comp}.create"),
                       body_required=True),
        },
        f"{base}/{{name}}": {
            "parameters": [name_param],
            "get": op("get", f"Read a {doctype}", envelope_v2(full), parameters=[EXPAND_PARAM, EXPAND_LINKS_PARAM]),
            "put": op("update", f"Update a {doctype}", envelope_v2(full), **update),
            "patch": op("patch", f"Update a {doctype} (as PUT)", envelope_v2(full), **update),
            "delete": op("delete", f"Delete a {doctype}", envelope_v2({"type": "string", "const": "ok"}),
                         status="202"),
        },
        f"{base}/{{name}}/copy": {
            "parameters": [name_param],
            "get": op("copy", f"A copy of a {doctype} to post as a new one (nulls left out)", envelope_v2(ref(comp))),
        },
        f"/api/v2/doctype/{doctype}/count": {
            "get": op("count", f"Count the {doctype} records the caller may read", envelope_v2({"type": "integer"}),
                      parameters=_v2_list_parameters()[1:3]),
        },
    }
    for attr, fn, info in dispatch.document_methods(site.apps.controller(doctype), meta.is_submittable):
        ret, always = method_return(fn, schemas, full)
        ok = envelope_v2(ret, required=always, docs={"type": "array", "items": full, "minItems": 1, "maxItems": 1})
        methods = [m for m in ("GET", "POST") if m in info.methods]
        item = call_operations(fn, methods, schemas, op_id=f"v2_method_{comp}_{attr}",
                                summary=f"Run {attr} on a {doctype} (GET needs read, POST write)", tags=tags, ok=ok,
                                guest=False, description=inspect.getdoc(fn), v2=True, bound=True)
        if item:
            paths[f"{base}/{{name}}/method/{attr}"] = {"parameters": [name_param], **item}
    return paths


def v2_method_paths(site: Site, schemas: Schemas) -> dict[str, Any]:
    """`/api/v2/method/<path>` for every whitelisted path, and `/api/v2/method/<doctype>/<fn>` for the
    functions whitelisted in a doctype's controller module."""
    overrides = site.apps.override_whitelisted_methods
    served = {}
    for path in sorted(set(whitelisted.registered()) | set(overrides)):
        info = whitelisted.lookup(overrides.get(path, path))
        if info is not None:
            served[path] = info
    paths = {f"/api/v2/method/{path}": method_path(info, schemas, path, v2=True) for path, info in served.items()}
    for doctype in site.meta.names():
        for module in dispatch.doctype_modules(site, doctype):
            for path, info in served.items():
                owner, _dot, fn_name = path.rpartition(".")
                if owner == module and fn_name.isidentifier():
                    item = method_path(info, schemas, path, v2=True)
                    for operation in item.values():
                        operation["operationId"] = operation["operationId"].replace(
                            "v2_method_", f"v2_method_{component_name(doctype)}_", 1)
                    paths[f"/api/v2/method/{doctype}/{fn_name}"] = item
    return paths


def v2_meta_path(site: Site) -> dict[str, Any]:
    doctype = {"name": "doctype", "in": "path", "required": True,
               "schema": {"type": "string", "enum": site.meta.names()}}
    meta = {"type": "object", "required": ["name", "fields", "permissions"],
            "properties": {"name": TEXT, "fields": {"type": "array", "items": {"type": "object"}},
                           "permissions": {"type": "array", "items": {"type": "object"}}}}
    return {"/api/v2/doctype/{doctype}/meta": {"get": make_operation(
        "v2_doctype_meta", "A doctype's meta as the Desk reads it (DocType with DocField and DocPerm rows)",
        ["meta"], envelope_v2(meta), parameters=[doctype], v2=True)}}


def v2_session_paths() -> dict[str, Any]:
    v1 = session_paths()
    login = v1["/api/method/login"]["post"]
    logout = make_operation("v2_logout_get", "Log out (end the cookie session)", ["session"], {"type": "object"},
                        guest=True, v2=True)
    return {
        "/api/v2/method/login": {"post": make_operation(
            "v2_login", login["summary"] + " (answers as v1)", ["session"],
            login["responses"]["200"]["content"]["application/json"]["schema"],
            body=login["requestBody"]["content"]["application/json"]["schema"], body_required=True, guest=True,
            v2=True)},
        "/api/v2/method/logout": {"get": logout, "post": {**logout, "operationId": "v2_logout_post"}},
        "/api/v2/method/fw.auth.get_csrf_token": {"get": make_operation(
            "v2_get_csrf_token", "The CSRF token of the cookie session", ["session"], envelope_v2(TEXT), v2=True)},
    }


def error_schema_v2() -> dict[str, Any]:
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

