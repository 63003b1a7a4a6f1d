"""What every handler shares: run the engine call in a unit of work and build Frappe's envelope."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from engine.context import Context, bind, run_in_unit_of_work, run_read
from engine.documents.document import Document
from engine.export.writer import Download
from engine.files.names import content_disposition
from server.context import context_for
from server.errors import server_messages
from server.responses import dumps, json_response, too_large


async def run(request: Request, call: Callable[[Context], Awaitable[Any]], *,
              read_only: bool = False) -> tuple[Context, Any]:
    """Call the engine as the request's user: in a unit of work, or, for routes that only read, without
    one (they open no transaction anyway, and skip its bookkeeping). Either runs again while the
    database fails over."""
    ctx = await context_for(request)
    with bind(ctx):
        if read_only:
            result = await run_read(ctx, lambda: call(ctx))
        else:
            result = await run_in_unit_of_work(ctx, lambda: _fitting(ctx, call))
    return ctx, result


# what an envelope adds to its parts: its braces, commas and key names ("_server_messages" the longest)
ENVELOPE_SLACK = 64


async def _fitting(ctx: Context, call: Callable[[Context], Awaitable[Any]]) -> Any:
    """`call`'s result, refused with ResponseTooLargeError *inside* the unit of work when the response
    built from it would be over FW_MAX_RESPONSE_BYTES: a write whose answer cannot be sent is rolled back
    rather than committed and then answered 413. The size counted is an upper bound of every envelope
    (v1 and v2) built from the result, `ctx.response` and the messages, so the check at serialisation
    (`json_response`) cannot refuse a write that was committed."""
    result = await call(ctx)
    limit = ctx.site.settings.max_response_bytes
    size = len(dumps(_as_data(result))) + ENVELOPE_SLACK
    if ctx.response:
        size += len(dumps(ctx.response))
    if ctx.messages:  # v1's double encoding is the longer of the two forms
        size += len(server_messages(ctx.messages))
    if size > limit:
        raise too_large(limit)
    return result


# keys a function's `ctx.response` cannot set: the envelope's own and those that mark an error body
RESERVED_KEYS = frozenset({"message", "data", "_server_messages", "exc", "exc_type", "exception", "errors",
                           "_error_message"})


def envelope(ctx: Context, key: str, value: Any, *, status: int = 200, include: bool = True) -> Response:
    """Frappe's body: `{key: value}` (left out when not `include`d), the top-level keys the call put
    in `ctx.response` (never one of RESERVED_KEYS), and `_server_messages`."""
    body: dict[str, Any] = {key: value} if include else {}
    if ctx.response:  # the common case is empty: one truth test
        body.update((k, v) for k, v in ctx.response.items() if k not in RESERVED_KEYS)
    if ctx.messages:
        body["_server_messages"] = server_messages(ctx.messages)
    return json_response(body, status, max_bytes=ctx.site.settings.max_response_bytes)


def _as_data(value: Any) -> Any:
    """A result as its response will carry it, at most: a Document (returned by a document method,
    answered as the fields the caller may read) as all its fields; tuples (a route's several values)
    item by item."""
    if isinstance(value, Document):
        return value.as_dict()
    if isinstance(value, Download):  # a file is streamed, not held to the JSON response limit
        return None
    if isinstance(value, tuple):
        return [_as_data(v) for v in value]
    return value


def file_response(ctx: Context, download: Download) -> Response:
    """A method's file (an export, a template) as an attachment, streamed from its spooled file."""
    headers = {"Content-Disposition": content_disposition(download.filename, inline=False),
               "Content-Length": str(download.size), "X-Content-Type-Options": "nosniff",
               "Cache-Control": "no-store"}
    return StreamingResponse(download.chunks(), media_type=download.content_type, headers=headers)
