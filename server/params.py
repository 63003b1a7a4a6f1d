"""Request arguments the way Frappe reads them (`form_dict`): a non-empty JSON body is the only
source; otherwise the query string with form fields laid over it."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

import orjson
from starlette.datastructures import UploadFile
from starlette.requests import ClientDisconnect, Request
from starlette.types import Scope

from engine import exceptions as exc
from engine.translation import _
from server.multipart import read_form

DROPPED = frozenset({"_", "cmd", "sid", "ignore_permissions", "flags"})
# where form_dict keeps what it read, in the ASGI scope (cheaper than `request.state`)
_FORM_DICT, _FORM_SOURCE, _CSRF_FORM_TOKEN = "fw.form_dict", "fw.form_source", "fw.csrf_form_token"


async def form_dict(request: Request) -> dict[str, Any]:
    """The request's arguments, read once per request (kept in the ASGI scope)."""
    scope = request.scope
    cached = scope.get(_FORM_DICT)
    if cached is not None:
        return cached
    data, source = await _read_arguments(request)
    token = data.pop("csrf_token", None) if data else None  # read by the CSRF check, never an argument
    scope[_CSRF_FORM_TOKEN] = token if isinstance(token, str) else None
    if data:  # (most reads of one document carry no arguments at all)
        for key in DROPPED.intersection(data):
            del data[key]
    scope[_FORM_SOURCE] = source
    scope[_FORM_DICT] = data
    return data


def form_source(request: Request) -> str:
    """Where `form_dict` read the arguments from: "json" (a JSON body) or "form" (query string, form fields)."""
    return str(request.scope.get(_FORM_SOURCE, "form"))


def csrf_form_token(request: Request) -> str | None:
    """A `csrf_token` sent as an argument rather than a header (read by `form_dict`)."""
    return request.scope.get(_CSRF_FORM_TOKEN)


async def _read_arguments(request: Request) -> tuple[dict[str, Any], str]:
    scope = request.scope
    ctype = body_length = None
    for name, value in scope["headers"]:
        if name == b"content-type":
            ctype = value.decode("latin-1").split(";")[0].strip().lower()
        elif name in (b"content-length", b"transfer-encoding"):
            body_length = value
    if ctype == "application/x-www-form-urlencoded":
        data = _query_arguments(scope)
        data.update(await urlencoded_fields(request))
        return data, "form"
    if ctype == "multipart/form-data":
        data = _query_arguments(scope)
        form = await read_form(request)
        for key, value in form.multi_items():
            if not isinstance(value, UploadFile):
                data[key] = value
        return data, "form"
    body = await read_body(request) if body_length is not None else b""  # a bodiless GET skips the receive round
    if body.strip():
        return _json_body(body), "json"
    return _query_arguments(scope), "form"


async def read_body(request: Request) -> bytes:
    """`request.body()`, without the async generator and `aclosing` Starlette reads it through (a
    dozen calls per request with a body). Leaves the request as `body()` would: read, and readable
    again through `body()`."""
    if hasattr(request, "_body") or request._stream_consumed:
        return await request.body()
    chunks: list[bytes] = []
    while True:
        message = await request.receive()
        if message["type"] == "http.request":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        elif message["type"] == "http.disconnect":
            request._is_disconnected = True
            raise ClientDisconnect()
    request._stream_consumed = True
    body = request._body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    return body


def _query_arguments(scope: Scope) -> dict[str, Any]:
    query = scope["query_string"]
    # for a repeated key the last value wins, as with Starlette's QueryParams
    return _parse_urlencoded(query, body=False) if query else {}


async def urlencoded_fields(request: Request) -> dict[str, str]:
    """The fields of an `application/x-www-form-urlencoded` body (the body stays readable afterwards)."""
    body = await request.body()
    return _parse_urlencoded(body, body=True) if body else {}


def _parse_urlencoded(raw: bytes, *, body: bool) -> dict[str, str]:
    """Fields of URL-encoded text that must be UTF-8, raw or percent-encoded: anything else is refused
    (Starlette's parsers put U+FFFD or Latin-1 in its place, and a document was stored as "��"). A
    name given twice with different values is refused too: which one was meant cannot be known
    (Frappe reads the first, Starlette the last); the same value repeated is harmless."""
    try:
        pairs = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise exc.BadRequestError(_("Invalid UTF-8 in the form body") if body
                                  else _("Invalid UTF-8 in the query string")) from None
    fields = dict(pairs)
    if len(fields) != len(pairs):  # (rare: one comparison on the common path)
        for name, value in pairs:
            if fields[name] != value:
                raise exc.BadRequestError(_("{0} is given more than once, with different values", name[:100]))
    return fields


# How deep a JSON request body may nest objects and arrays (the outermost counts as 1). Frappe sets no
# limit (Python's json fails near 1000 levels); System.Text.Json and Json.NET stop at 64, serde_json at
# 128. 100 leaves room for a JSON field's own 64 levels (engine/meta/fieldtypes.py) inside a document,
# its child row and an envelope such as `{"docs": [...]}`, and keeps anything a function echoes back
# well under the 255 levels orjson can encode (deeper input made the response a 500).
MAX_JSON_BODY_DEPTH = 100


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether a parsed JSON value nests objects/arrays more than `limit` levels: iteratively, one level
    of containers at a time (no recursion, and no deeper than `limit + 1` levels are ever visited)."""
    level: list[Any] = [value] if isinstance(value, dict | list) else []
    for _level in range(limit):
        if not level:
            return False
        level = [child for item in level for child in (item.values() if isinstance(item, dict) else item)
                 if isinstance(child, dict | list)]
    return bool(level)


def _too_deep() -> exc.BadRequestError:
    return exc.BadRequestError(_("The JSON request body is nested more than {0} levels deep", MAX_JSON_BODY_DEPTH))


def _json_body(body: bytes) -> dict[str, Any]:
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError as e:
        if str(e).startswith("depth limit exceeded"):  # orjson's own limit (1024 levels)
            raise _too_deep() from None
        raise exc.BadRequestError(_("Malformed JSON in the request body: {0}", str(e)[:120])) from None
    # (fewer brackets than the limit, strings included, cannot nest deeper: most bodies skip the walk)
    if body.count(b"[") + body.count(b"{") > MAX_JSON_BODY_DEPTH \
            and nested_deeper_than(parsed, MAX_JSON_BODY_DEPTH):
        raise _too_deep()
    if isinstance(parsed, list):
        return {"data": parsed}
    if not isinstance(parsed, dict):
        raise exc.BadRequestError(_("Invalid request arguments: the JSON body must be an object or a list"))
    return parsed


async def document_body(request: Request) -> dict[str, Any]:
    """Resource POST/PUT data: a `data` field holding JSON (frappe-client), a JSON body, or form fields.
    A `modified` sent in the query string joins the data when the data has none (contract §2.1: a
    body or query that carries `modified` is checked), whatever form the body took."""
    args = await form_dict(request)
    if form_source(request) == "json":
        data = args  # a JSON body is the document itself (a `data` key may be a real field)
    elif "data" in args:
        data = args["data"]
        if isinstance(data, str):
            try:
                data = orjson.loads(data)
            except orjson.JSONDecodeError:
                raise exc.BadRequestError(_("Malformed JSON in the data field")) from None
        if not isinstance(data, dict):
            raise exc.DataError(_("Document data must be an object"), field="data")
    else:
        return args  # form fields: the query string is already laid under them
    if "modified" not in data and request.scope["query_string"]:
        modified = _query_arguments(request.scope).get("modified")
        if modified is not None:
            data = {**data, "modified": modified}
    return data


def raw_header(request: Request, name: bytes) -> str | None:
    """A header's value read straight from the ASGI scope (`name` lowercase, as servers deliver them).
    On the hot path instead of `request.headers.get`, which raises and catches a KeyError per absent header."""
    for key, value in request.scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None


def client_ip(request: Request) -> str | None:
    client = request.scope.get("client")  # read raw: `request.client` builds an Address per call
    return client[0] if client else None
