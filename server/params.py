"""Request arguments the way Frappe reads them (`form_dict`): a non-empty JSON body is the only
source; otherwise the query string with form fields laid over it."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.datastructures import UploadFile
from starlette.requests import Request

from engine import exceptions as exc
from engine.translation import _

DROPPED = frozenset({"_", "cmd", "sid", "ignore_permissions", "flags"})


async def form_dict(request: Request) -> dict[str, Any]:
    cached = getattr(request.state, "form_dict", None)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    data: dict[str, Any]
    request.state.form_source = "form"
    if ctype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        data = dict(request.query_params)
        form = await request.form()
        for key, value in form.multi_items():
            if not isinstance(value, UploadFile):
                data[key] = value
    else:
        headers = request.headers
        has_body = "content-length" in headers or "transfer-encoding" in headers
        body = await request.body() if has_body else b""  # a bodiless GET skips the receive round
        if body.strip():
            data = _json_body(body)
            request.state.form_source = "json"
        else:
            data = dict(request.query_params)
    token = data.pop("csrf_token", None)  # read by the CSRF check, never an argument (as in Frappe)
    request.state.csrf_form_token = token if isinstance(token, str) else None
    for key in DROPPED:
        data.pop(key, None)
    request.state.form_dict = data
    return data


def _json_body(body: bytes) -> dict[str, Any]:
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError as e:
        raise exc.BadRequestError(_("Malformed JSON in the request body: {0}", str(e)[:120])) from None
    if isinstance(parsed, list):
        return {"data": parsed}
    if not isinstance(parsed, dict):
        raise exc.BadRequestError(_("Invalid request arguments: the JSON body must be an object or a list"))
    return parsed


async def document_body(request: Request) -> dict[str, Any]:
    """Resource POST/PUT data: a `data` field holding JSON (frappe-client), a JSON body, or form fields."""
    args = await form_dict(request)
    if request.state.form_source == "json":
        return args  # a JSON body is the document itself (a `data` key may be a real field)
    if "data" in args:
        data = args["data"]
        if isinstance(data, str):
            try:
                data = orjson.loads(data)
            except orjson.JSONDecodeError:
                raise exc.BadRequestError(_("Malformed JSON in the data field")) from None
        if not isinstance(data, dict):
            raise exc.DataError(_("Document data must be an object"), field="data")
        return data
    return args


def client_ip(request: Request) -> str | None:
    return request.client.host if request.client else None
