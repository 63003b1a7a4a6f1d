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

import weakref
from typing import TYPE_CHECKING, Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from engine.apps import whitelisted
from server.openapi.doctypes import component_name, doctype_schemas, ref
from server.openapi.operations import ERROR_RESPONSES, SECURITY, V2_SUFFIX, json_content
from server.openapi.paths_v1 import error_schema, file_paths, method_path, resource_paths, session_paths
from server.openapi.paths_v2 import (
    error_schema_v2,
    nulls_kept,
    v2_document_paths,
    v2_meta_path,
    v2_method_paths,
    v2_session_paths,
)
from server.openapi.signatures import Schemas
from server.responses import dumps

if TYPE_CHECKING:
    from engine.site import Site

OPENAPI_VERSION = "3.1.0"

_cache: weakref.WeakKeyDictionary[Any, tuple[Any, bytes]] = weakref.WeakKeyDictionary()


# -- the document ----------------------------------------------------------------------------------

def build_openapi(site: Site) -> dict[str, Any]:
    """The OpenAPI 3.1 document of `site` (see the module docstring for what is in it)."""
    components: dict[str, Any] = {}
    schemas = Schemas(components)
    paths: dict[str, Any] = {}
    metas = [site.meta.get(name) for name in site.meta.names()]
    for meta in metas:
        components.update(doctype_schemas(meta))
        name = component_name(meta.name)
        components[name + V2_SUFFIX] = nulls_kept(components[name])
    for meta in metas:
        if not meta.istable and not meta.issingle:
            paths.update(resource_paths(meta, site, schemas))
    paths.update(session_paths())
    paths.update(file_paths())
    registered = whitelisted.registered()
    overrides = site.apps.override_whitelisted_methods
    for path in sorted(set(registered) | set(overrides)):
        info = whitelisted.lookup(overrides.get(path, path))  # what the server calls for this path
        if info is not None:
            paths[f"/api/method/{path}"] = method_path(info, schemas, path)
    for meta in metas:
        if not meta.istable and not meta.issingle:
            paths.update(v2_document_paths(meta, site, schemas))
    paths.update(v2_session_paths())
    paths.update(v2_meta_path(site))
    paths.update(v2_method_paths(site, schemas))
    components["Error"] = error_schema()
    components["Error" + V2_SUFFIX] = error_schema_v2()
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
                **{name: {"description": text, "content": json_content(ref("Error"))}
                   for _code, (name, text) in ERROR_RESPONSES.items()},
                **{name + V2_SUFFIX: {"description": text, "content": json_content(ref("Error" + V2_SUFFIX))}
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
    methods: tuple[tuple[Any, ...], ...] = tuple((path, id(info.fn), info.methods, info.allow_guest)
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
    return orjson.loads(openapi_bytes(site))


async def openapi_json(request: Request) -> Response:
    """`GET /api/openapi.json` (public)."""
    site = request.app.state.site
    await site.meta.refresh_if_stale()
    return Response(openapi_bytes(site), media_type="application/json")
