"""The one place exceptions become HTTP: a status table resolved by MRO, and Frappe's bodies.

v1 body: `exc_type`, `exception`, `_server_messages` (a JSON string of a list of JSON strings, as
Frappe sends it), plus a clean `errors` list naming the field; `exc` (traceback) only in
developer mode. v2 body (any path under `/api/v2/`): `errors: [{type, message, title, indicator,
[field], [exception]}]` and the request's earlier msgprints in `messages`. Both use the same
statuses. A client mistake is never a 500.
"""

from __future__ import annotations

import logging
import traceback
from typing import Any

import orjson
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from engine import db
from engine import exceptions as exc
from engine.translation import _
from server.allow import allowed_methods
from server.context import negotiate_language, request_context
from server.responses import json_response

log = logging.getLogger("fw.server")

V2_PREFIX = "/api/v2/"
STATUS: dict[type[BaseException], int] = {
    exc.MaxFileSizeReachedError: 413,
    exc.DocumentTooLargeError: 413,
    exc.ResponseTooLargeError: 413,
    exc.ValidationError: 417,
    exc.DoesNotExistError: 404,
    exc.PermissionError: 403,
    exc.AuthenticationError: 401,
    exc.DuplicateEntryError: 409,
    exc.CSRFTokenError: 400,
    exc.BadRequestError: 400,
    exc.TooManyRequestsError: 429,
    exc.TransientError: 409,
    exc.QueryTimeoutError: 504,
    exc.ServiceUnavailableError: 503,
    exc.ConfigurationError: 500,
}


def status_for(error: BaseException) -> int:
    for cls in type(error).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 500


def server_messages(messages: list[dict[str, Any]]) -> str:
    """Frappe's double encoding: a JSON list of JSON-encoded message objects."""
    return orjson.dumps([orjson.dumps(m).decode() for m in messages]).decode()


def error_body(error: exc.FwError, messages: list[dict[str, Any]], *, developer_mode: bool,
               lang: str | None = None) -> dict[str, Any]:
    name = type(error).__name__
    msg: dict[str, Any] = {"message": error.message, "title": _(error.title, lang=lang), "indicator": "red",
                           "raise_exception": 1}
    body: dict[str, Any] = {
        "exc_type": name,
        "exception": f"engine.exceptions.{name}: {error.message}",
        "_server_messages": server_messages([*messages, msg]),
        "errors": error.errors,
    }
    if isinstance(error, exc.PermissionError):
        body["_error_message"] = error.message
    if isinstance(error, exc.AuthenticationError):
        body["message"] = error.message
    if developer_mode:
        body["exc"] = orjson.dumps(["".join(traceback.format_exception(error))]).decode()
    return body


def is_v2(path: str) -> bool:
    """Whether a request went to the v2 API, whose errors take Frappe's v2 shape."""
    return path.startswith(V2_PREFIX) or path == V2_PREFIX[:-1]


def error_body_v2(error: exc.FwError, messages: list[dict[str, Any]], *, developer_mode: bool,
                  lang: str | None = None, exc_type: str | None = None,
                  cause: BaseException | None = None) -> dict[str, Any]:
    """Frappe's v2 error body: one entry per error (a MandatoryError names each missing field), the
    traceback (of `cause`, else `error`) on the first entry in developer mode only."""
    title = _(error.title, lang=lang)
    entries: list[dict[str, Any]] = []
    for item in error.errors:
        entry: dict[str, Any] = {"type": exc_type or item.get("type") or type(error).__name__,
                                 "message": item.get("message") or error.message, "title": title,
                                 "indicator": "red"}
        if item.get("field") is not None:
            entry["field"] = item["field"]
        entries.append(entry)
    if not entries:  # an error built with an empty list still reports itself
        entries.append({"type": exc_type or type(error).__name__, "message": error.message, "title": title,
                        "indicator": "red"})
    if developer_mode:
        entries[0]["exception"] = "".join(traceback.format_exception(cause or error))
    body: dict[str, Any] = {"errors": entries}
    if messages:
        body["messages"] = messages
    return body


def edge_error_body(path: str, error: exc.FwError, exc_type: str, *, lang: str | None = None) -> dict[str, Any]:
    """The body of an error answered before the app runs (the edge's 413), in the path's API shape."""
    if is_v2(path):
        return error_body_v2(error, [], developer_mode=False, lang=lang, exc_type=exc_type)
    return error_body(error, [], developer_mode=False) | {"exc_type": exc_type}


def _body(request: Request, error: exc.FwError, messages: list[dict[str, Any]], *, developer_mode: bool,
          lang: str) -> dict[str, Any]:
    build = error_body_v2 if is_v2(request.url.path) else error_body
    return build(error, messages, developer_mode=developer_mode, lang=lang)


def request_language(request: Request) -> str:
    """The language of the failed request: its context's, else negotiated from Accept-Language
    (an error handler runs after the request's context was unbound, so `_()` is told explicitly)."""
    ctx = request_context(request)
    if ctx is not None:
        return str(ctx.lang)
    return negotiate_language(request.headers.get("accept-language"), None)


def _messages(request: Request) -> list[dict[str, Any]]:
    ctx = request_context(request)
    return list(ctx.messages) if ctx is not None else []


async def handle_fw_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, exc.FwError)
    status = status_for(error)
    if isinstance(error, exc.ServiceUnavailableError):  # an outage, not a bug: one line per request
        log.warning("%s %s: %s", request.method, request.url.path, error.message)
    elif status >= 500:
        log.error("%s %s failed", request.method, request.url.path, exc_info=error)
    settings = request.app.state.settings
    headers = None
    if isinstance(error, exc.TooManyRequestsError | exc.ServiceUnavailableError):
        # a lockout's remaining seconds; MongoDB or Redis away (nothing was committed): a few seconds
        headers = {"Retry-After": str(error.retry_after)}
    return json_response(_body(request, error, _messages(request), developer_mode=settings.developer_mode,
                               lang=request_language(request)), status, headers=headers)


async def handle_driver_error(request: Request, error: Exception) -> Response:
    """A database driver error no engine call translated (e.g. while authenticating): the engine
    names it (`DatabaseUnavailableError` for a lost database: 503), else it is unexpected. Handled
    here rather than by the catch-all, which would also drop the client's connection."""
    mapped = db.translate_error(error, lang=request_language(request))
    if isinstance(mapped, exc.FwError):
        return await handle_fw_error(request, mapped)
    return await handle_unexpected(request, error)


async def handle_http_exception(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    mapped: exc.FwError
    lang = request_language(request)
    if error.status_code == 404:
        mapped = exc.DoesNotExistError(_("Not found: {0}", request.url.path, lang=lang))
    elif error.status_code == 405:
        allow = ", ".join(allowed_methods(request))
        if request.method == "OPTIONS":  # as Frappe: an empty 200 (a CORS preflight is answered before this)
            return Response(status_code=200, headers={"Allow": allow})
        mapped = exc.PermissionError(_("Method {0} is not allowed here", request.method, lang=lang))
        body = _body(request, mapped, [], developer_mode=False, lang=lang)
        return json_response(body, 405, headers={"Allow": allow})
    elif error.status_code == 400:  # e.g. a multipart body Starlette cannot parse
        mapped = exc.BadRequestError(str(error.detail))
    else:
        mapped = exc.FwError(str(error.detail))
    body = _body(request, mapped, [], developer_mode=False, lang=lang)
    return json_response(body, error.status_code, headers=error.headers)


async def handle_unexpected(request: Request, error: Exception) -> Response:
    log.error("%s %s crashed", request.method, request.url.path, exc_info=error)
    settings = request.app.state.settings
    lang = request_language(request)
    mapped = exc.FwError(_("Internal server error", lang=lang))
    if is_v2(request.url.path):
        body = error_body_v2(mapped, _messages(request), developer_mode=settings.developer_mode, lang=lang,
                             exc_type=type(error).__name__ if settings.developer_mode else "InternalServerError",
                             cause=error)
        return json_response(body, 500)
    body = error_body(mapped, _messages(request), developer_mode=settings.developer_mode, lang=lang)
    body["exc_type"] = type(error).__name__ if settings.developer_mode else "InternalServerError"
    body["exception"] = f"{type(error).__name__}: {error}" if settings.developer_mode else "Internal server error"
    if settings.developer_mode:
        body["exc"] = orjson.dumps(["".join(traceback.format_exception(error))]).decode()
    return json_response(body, 500)
