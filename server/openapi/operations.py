"""The building blocks of every operation: the success envelopes (v1 `{"data"|"message": ...}`
and v2 `{"data": ..., "messages": [...]}`), the shared error responses, the security requirement
and a JSON-encoded query parameter."""

from __future__ import annotations

from typing import Any

ERROR_RESPONSES: dict[str, tuple[str, str]] = {
    "400": ("BadRequest", "Malformed request: bad JSON body, bad Authorization header, missing CSRF token"),
    "401": ("Unauthorized", "Authentication failed (wrong credentials or API key)"),
    "403": ("Forbidden", "Not permitted (missing permission, not whitelisted, method not allowed)"),
    "404": ("NotFound", "The document, doctype or route does not exist"),
    "409": ("Conflict", "Duplicate entry, or a transient write conflict (retry)"),
    "413": ("PayloadTooLarge", "The request body is over the size limit, or a document or query over "
                               "MongoDB's 16 MB (DocumentTooLargeError)"),
    "417": ("ValidationFailed", "Invalid input (ValidationError and its subclasses), nothing was changed"),
    "429": ("TooManyRequests", "Rate limited or login locked out; see Retry-After"),
    "503": ("ServiceUnavailable", "MongoDB or Redis is out of reach for now (DatabaseUnavailableError, "
                                  "JobQueueUnavailableError); nothing was changed, retry after Retry-After seconds"),
    "504": ("QueryTimeout", "A list, count or report query ran past FW_QUERY_TIMEOUT_MS and was stopped "
                            "(QueryTimeoutError); narrow the filters"),
}
SECURITY: list[dict[str, list[str]]] = [{"token": []}, {"basic": []}, {"sid": []}]

V2_SUFFIX = ".v2"
V2_MESSAGES: dict[str, Any] = {"type": "array", "items": {"type": "object"},
                               "description": "msgprints of the request (message, title, indicator, ...)"}


def error_refs(*, v2: bool = False) -> dict[str, Any]:
    suffix = V2_SUFFIX if v2 else ""
    return {code: {"$ref": f"#/components/responses/{name}{suffix}"} for code, (name, _d) in ERROR_RESPONSES.items()}


def json_content(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def envelope(key: str, schema: dict[str, Any], *, required: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": {
        key: schema, "_server_messages": {"type": "string", "description": "JSON list of JSON messages"}}}
    if required:
        out["required"] = [key]
    return out


def make_operation(op_id: str, summary: str, tags: list[str], ok: dict[str, Any], *, status: str = "200",
               parameters: list[dict[str, Any]] | None = None, body: dict[str, Any] | None = None,
               body_required: bool = False, guest: bool = False, description: str | None = None,
               v2: bool = False) -> dict[str, Any]:
    op: dict[str, Any] = {"operationId": op_id, "summary": summary, "tags": tags}
    if description:
        op["description"] = description
    if parameters:
        op["parameters"] = parameters
    if body is not None:
        op["requestBody"] = {"required": body_required, "content": json_content(body)}
    op["responses"] = {status: {"description": "Success", "content": json_content(ok)}, **error_refs(v2=v2)}
    if guest:
        op["security"] = [{}, *SECURITY]
    return op


def json_param(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description,
            "content": {"application/json": {"schema": schema}}}


def envelope_v2(schema: dict[str, Any], *, required: bool = True, **extra: dict[str, Any]) -> dict[str, Any]:
    """`{"data": ..., [extra keys, all present], "messages": [...]}`; `data` is absent when a function
    returns None (`required` off)."""
    out: dict[str, Any] = {"type": "object", "properties": {"data": schema, **extra, "messages": V2_MESSAGES}}
    keys = (["data"] if required else []) + list(extra)
    if keys:
        out["required"] = keys
    return out

