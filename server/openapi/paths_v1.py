"""The v1 paths: `/api/resource/{Doctype}` (list, create, read, update, delete, `run_method`),
`/api/method/<path>` per whitelisted function, the session routes, `upload_file` and the file URLs,
and the v1 `Error` schema."""

from __future__ import annotations

import inspect
import re
from typing import TYPE_CHECKING, Any

from engine.apps import whitelisted
from engine.documents.document import Document
from engine.meta.schema import Meta
from engine.methods import dispatch
from server.openapi.doctypes import TEXT, component_name, ref
from server.openapi.operations import (
    SECURITY,
    V2_SUFFIX,
    envelope,
    envelope_v2,
    error_refs,
    json_param,
    make_operation,
)
from server.openapi.signatures import (
    Schemas,
    lax,
    query_schema,
    return_schema,
    signature_params,
    type_hints,
    with_default,
)

if TYPE_CHECKING:
    from engine.site import Site


EXPAND_PARAM = json_param("expand", {"type": ["array", "null"], "items": {"type": "string"},
                                     "examples": [["customer"]]},
                          "Link or Dynamic Link fields whose values become the linked documents the caller "
                          "may read (one query per linked doctype; an unreadable link stays a name)")
# what `bool_arg` (engine/methods/args.py) takes for a flag; anything else is a 417
FLAG = {"anyOf": [{"type": ["integer", "boolean"], "enum": [0, 1, True, False]},
                  {"type": "string", "enum": ["", "0", "1", "true", "false", "True", "False", "yes", "no"]}]}
EXPAND_LINKS_PARAM = {"name": "expand_links", "in": "query", "schema": FLAG,
                      "description": "1: every Link and Dynamic Link, child rows included, becomes the linked "
                                     "document the caller may read"}


NO_METHOD_BODY = {"type": "object", "properties": {"run_method": {"type": "string"}}}


def list_parameters() -> list[dict[str, Any]]:
    # JSON null (or nothing) leaves a JSON parameter out, as `json_arg` reads it
    filters = {"anyOf": [{"type": "object"}, {"type": "array", "items": {"type": "array"}}, {"type": "null"}]}
    integer = {"anyOf": [{"type": "integer", "minimum": 0}, {"const": "", "description": "blank: the default"}]}
    return [
        json_param("fields", {"type": ["array", "string", "null"], "items": {"type": "string"},
                              "examples": [["*"], ["name", "modified"]]},
                    'Fields to return, JSON list (default ["name"]; ["*"] = every readable field); a JSON '
                    'string is read as Frappe does: "*" or "name, title"'),
        json_param("filters", {**filters, "examples": [{"docstatus": 0}, [["name", "like", "%a%"]]]},
                    'JSON: {"field": value}, {"field": [op, value]} or [[field, op, value], ...]'),
        json_param("or_filters", filters, "JSON, as filters, combined with OR"),
        {"name": "order_by", "in": "query", "schema": {**TEXT, "examples": ["modified desc"]},
         "description": "e.g. `modified desc`"},
        {"name": "group_by", "in": "query", "schema": TEXT},
        {"name": "limit_start", "in": "query", "schema": integer},
        {"name": "limit_page_length", "in": "query", "schema": integer,
         "description": "Page length (default 20, capped; 0 = up to the cap)"},
        {"name": "limit", "in": "query", "schema": integer, "description": "Alias of limit_page_length"},
        {"name": "as_dict", "in": "query", "schema": FLAG,
         "description": "0: rows as lists of values"},
        EXPAND_PARAM,
    ]



def method_return(fn: Any, schemas: Schemas, doc_schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """(schema of a document method's result, whether it is always present); a returned Document
    is `doc_schema`."""
    annotation = type_hints(fn).get("return", Any)
    if inspect.isclass(annotation) and issubclass(annotation, Document):
        return doc_schema, True
    return return_schema(annotation, schemas)


def _run_method_body(controller: type, schemas: Schemas, submittable: bool,
                     doc_schema: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(request body, schema of `data`) for `run_method` on a controller's whitelisted methods."""
    variants = []
    returns = []
    for attr, fn, info in dispatch.document_methods(controller, submittable):
        if "POST" not in info.methods:
            continue
        params, _var_kw = signature_params(fn, bound=True)  # (arguments it does not take are ignored)
        props: dict[str, Any] = {"run_method": {"type": "string", "const": attr}}
        required = ["run_method"]
        for pname, annotation, req, default in params:
            props[pname] = with_default(lax(schemas.of(annotation, mode="validation")), default, required=req)
            if req:
                required.append(pname)
        variants.append({"type": "object", "title": attr, "properties": props, "required": required})
        returns.append(method_return(fn, schemas, doc_schema)[0])
    if not variants:
        return None
    body = variants[0] if len(variants) == 1 else {"oneOf": variants}
    distinct = [r for i, r in enumerate(returns) if r not in returns[:i]]
    return body, distinct[0] if len(distinct) == 1 else {"anyOf": distinct} if all(distinct) else {}


def resource_paths(meta: Meta, site: Site, schemas: Schemas) -> dict[str, Any]:
    doctype = meta.name
    comp = component_name(doctype)
    tags = [doctype]
    list_path = f"/api/resource/{doctype}"
    row = {"anyOf": [ref(comp), {"type": "array", "description": "with as_dict=0"}]}
    name_param = {"name": "name", "in": "path", "required": True, "schema": {"type": "string", "minLength": 1}}
    doc_path: dict[str, Any] = {
        "parameters": [name_param],
        "get": make_operation(f"get_{comp}", f"Read a {doctype}", tags, envelope("data", ref(comp)),
                              parameters=[EXPAND_PARAM, EXPAND_LINKS_PARAM]),
        # no body (or an empty one) saves the document unchanged, as Frappe does
        "put": make_operation(f"update_{comp}", f"Update a {doctype}", tags, envelope("data", ref(comp)),
                              body=ref(f"{comp}.update")),
        "delete": make_operation(f"delete_{comp}", f"Delete a {doctype}", tags,
                             envelope("data", {"type": "string", "const": "ok"}), status="202"),
    }
    run = _run_method_body(site.apps.controller(doctype), schemas, meta.is_submittable, ref(comp))
    summary = f"Run a whitelisted method of a {doctype} (`run_method`)"
    if run is not None:
        doc_path["post"] = make_operation(f"run_method_{comp}", summary, tags, envelope("data", run[1]),
                                          body=run[0], body_required=True)
    else:  # the route serves POST on every document; this controller whitelists nothing, so it is refused
        doc_path["post"] = make_operation(
            f"run_method_{comp}", summary, tags, envelope("data", {}), body=NO_METHOD_BODY,
            description=f"{doctype} has no whitelisted method: every call is refused with 403.")
    return {
        list_path: {
            "get": make_operation(f"list_{comp}", f"List {doctype}", tags,
                              envelope("data", {"type": "array", "items": row}), parameters=list_parameters()),
            "post": make_operation(f"create_{comp}", f"Create a {doctype}", tags, envelope("data", ref(comp)),
                               body=ref(f"{comp}.create"), body_required=True),
        },
        f"{list_path}/{{name}}": doc_path,
    }


def method_path(info: whitelisted.Whitelisted, schemas: Schemas, path: str, *, v2: bool = False) -> dict[str, Any]:
    """The operations of `/api/method/<path>` (or `/api/v2/method/<path>`), served by `info` (itself,
    or an app's override)."""
    ret, always = return_schema(type_hints(info.fn).get("return", Any), schemas)
    ok = envelope_v2(ret, required=always) if v2 else envelope("message", ret, required=always)
    doc = inspect.getdoc(info.fn)
    summary = doc.splitlines()[0] if doc else path
    tag = path.rsplit(".", 1)[0] if "." in path else "methods"
    op_id = ("v2_method_" if v2 else "method_") + re.sub(r"[^A-Za-z0-9_]", "_", path)
    return call_operations(info.fn, sorted(info.methods), schemas, op_id=op_id, summary=summary, tags=[tag], ok=ok,
                            guest=info.allow_guest, description=doc, v2=v2)


def call_operations(fn: Any, methods: list[str], schemas: Schemas, *, op_id: str, summary: str, tags: list[str],
                     ok: dict[str, Any], guest: bool, description: str | None, v2: bool,
                     bound: bool = False) -> dict[str, Any]:
    """One operation per HTTP method of a call: GET and DELETE take the arguments as query parameters
    (left out when a required argument is an object or list), the others as a JSON body."""
    params, var_kw = signature_params(fn, bound=bound)
    item: dict[str, Any] = {}
    for method in methods:
        method_op_id = f"{op_id}_{method.lower()}"
        if method in ("GET", "DELETE"):
            query = []
            for pname, annotation, req, default in params:
                schema = query_schema(schemas.of(annotation, mode="validation"))
                if schema is not None:
                    query.append({"name": pname, "in": "query", "required": req,
                                  "schema": with_default(schema, default, required=req)})
                elif req:  # a required object or list argument: this method cannot be called this way
                    break
            else:
                item[method.lower()] = make_operation(method_op_id, summary, tags, ok, parameters=query, guest=guest,
                                                  description=description, v2=v2)
        else:
            props = {}
            required = []
            for pname, annotation, req, default in params:
                props[pname] = with_default(lax(schemas.of(annotation, mode="validation")), default, required=req)
                if req:
                    required.append(pname)
            # arguments the function does not take are ignored (Frappe's `frappe.call` drops them too)
            body: dict[str, Any] = {"type": "object", "properties": props}
            if var_kw:
                body["description"] = "Further arguments are passed on as keyword arguments"
            if required:
                body["required"] = required
            item[method.lower()] = make_operation(method_op_id, summary, tags, ok, body=body,
                                                  body_required=bool(required), guest=guest,
                                                  description=description, v2=v2)
    return item


def session_paths() -> dict[str, Any]:
    login_body = {"type": "object", "properties": {"usr": TEXT, "pwd": {"type": "string", "writeOnly": True}},
                  "required": ["usr", "pwd"]}
    logged_in = {"type": "object", "properties": {"message": TEXT, "home_page": TEXT, "full_name": TEXT},
                 "required": ["message"]}
    logout = make_operation("logout_get", "Log out (end the cookie session)", ["session"], {"type": "object"},
                        guest=True)
    return {
        "/api/method/login": {"post": make_operation(
            "login", "Log in with usr and pwd; sets the `sid` cookie", ["session"], logged_in, body=login_body,
            body_required=True, guest=True)},
        "/api/method/logout": {"get": logout, "post": {**logout, "operationId": "logout_post"}},
        "/api/method/fw.auth.get_csrf_token": {"get": make_operation(
            "get_csrf_token", "The CSRF token of the cookie session", ["session"], envelope("message", TEXT))},
    }


def file_paths() -> dict[str, Any]:
    """`upload_file` (multipart, served by server/routes/files.py) and the two file URLs."""
    fields = {"is_private": {"type": "string", "enum": ["0", "1"]}, "folder": TEXT, "file_name": TEXT,
              "file_url": {**TEXT, "description": "Instead of a file: link a /files/ or /private/files/ URL "
                                                  "of an existing file, or an http(s) URL"},
              "doctype": TEXT, "docname": TEXT,
              "fieldname": {**TEXT, "description": "An Attach field of the document: set to the new file_url"}}
    body = {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}, **fields}}
    def upload(op_id: str, ok: dict[str, Any], *, v2: bool = False) -> dict[str, Any]:
        operation = make_operation(op_id, "Upload a file (or link an existing URL), optionally attached to a "
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
        **error_refs()}
    name = [{"name": "file_name", "in": "path", "required": True, "schema": {"type": "string", "minLength": 1}}]
    return {
        "/api/method/upload_file": {"post": upload("upload_file", envelope("message", ref("File")))},
        "/api/v2/method/upload_file": {"post": upload("v2_upload_file", envelope_v2(ref("File" + V2_SUFFIX)),
                                                      v2=True)},
        "/files/{file_name}": {"get": {"operationId": "get_public_file", "summary": "A public file (HEAD works too)",
                                       "tags": ["files"], "parameters": name, "responses": served,
                                       "security": [{}, *SECURITY]}},
        "/private/files/{file_name}": {"get": {
            "operationId": "get_private_file", "tags": ["files"], "parameters": name, "responses": served,
            "summary": "A private file, for users who may read its File record (HEAD works too)"}},
    }


def error_schema() -> dict[str, Any]:
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
