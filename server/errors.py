"""The one place exceptions become HTTP: a status table resolved by MRO, and Frappe's v1 body.

Body: `exc_type`, `exception`, `_server_messages` (a JSON string of a list of JSON strings, as
Frappe sends it), plus a clean `errors` list naming the field; `exc` (traceback) only in
developer mode. A client mistake is never a 500.
"""

from __future__ import annotations

import logging
import traceback
from typing import Any

import orjson
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from engine import exceptions as exc
from engine.translation import _
from server.responses import json_response

log = logging.getLogger("fw.server")

STATUS: dict[type[BaseException], int] = {
    exc.ValidationError: 417,
    exc.DoesNotExistError: 404,
    exc.PermissionError: 403,
    exc.AuthenticationError: 401,
    exc.DuplicateEntryError: 409,
    exc.CSRFTokenError: 400,
    exc.BadRequestError: 400,
    exc.TooManyRequestsError: 429,
    exc.TransientError: 409,
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


def request_language(request: Request) -> str:
    """The language of the failed request: its context's, else negotiated from Accept-Language
    (an error handler runs after the request's context was unbound, so `_()` is told explicitly)."""
    ctx = getattr(request.state, "ctx", None)
    if ctx is not None:
        return str(ctx.lang)
    from server.context import negotiate_language

    return negotiate_language(request.headers.get("accept-language"), None)


def _messages(request: Request) -> list[dict[str, Any]]:
    ctx = getattr(request.state, "ctx", None)
    return list(ctx.messages) if ctx is not None else []


async def handle_fw_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, exc.FwError)
    status = status_for(error)
    if status >= 500:
        log.error("%s %s failed", request.method, request.url.path, exc_info=error)
    settings = request.app.state.settings
    headers = {"Retry-After": "60"} if status == 429 else None
    return json_response(error_body(error, _messages(request), developer_mode=settings.developer_mode,
                                    lang=request_language(request)), status, headers=headers)


async def handle_http_exception(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    mapped: exc.FwError
    lang = request_language(request)
    if error.status_code == 404:
        mapped = exc.DoesNotExistError(_("Not found: {0}", request.url.path, lang=lang))
    elif error.status_code == 405:
        mapped = exc.PermissionError(_("Method {0} is not allowed here", request.method, lang=lang))
        body = error_body(mapped, [], developer_mode=False, lang=lang)
        return json_response(body, 405, headers=error.headers)
    elif error.status_code == 400:  # e.g. a multipart body Starlette cannot parse
        mapped = exc.BadRequestError(str(error.detail))
    else:
        mapped = exc.FwError(str(error.detail))
    body = error_body(mapped, [], developer_mode=False, lang=lang)
    return json_response(body, error.status_code, headers=error.headers)


async def handle_unexpected(request: Request, error: Exception) -> Response:
    log.error("%s %s crashed", request.method, request.url.path, exc_info=error)
    settings = request.app.state.settings
    lang = request_language(request)
    mapped = exc.FwError(_("Internal server error", lang=lang))
    body = error_body(mapped, _messages(request), developer_mode=settings.developer_mode, lang=lang)
    body["exc_type"] = type(error).__name__ if settings.developer_mode else "InternalServerError"
    body["exception"] = f"{type(error).__name__}: {error}" if settings.developer_mode else "Internal server error"
    if settings.developer_mode:
        body["exc"] = orjson.dumps(["".join(traceback.format_exception(error))]).decode()
    return json_response(body, 500)
