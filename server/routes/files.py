"""Files over HTTP: `POST /api/method/upload_file` (multipart, as Frappe and frappe-js-sdk send
it), `GET|HEAD /files/<name>` (public files, anyone) and `GET|HEAD /private/files/<name>` (the
File's permission rule).

The multipart body is parsed here and the engine gets bytes and fields. Responses stream the
content from MongoDB chunk by chunk, with `Content-Length`, a strong `ETag` (the SHA-256 of the
content: `If-None-Match` gives 304), single byte ranges (206) and headers that keep a stored file
from attacking the site: `X-Content-Type-Options: nosniff`, `Content-Disposition: attachment` for
every type that is not on the short inline list (HTML, SVG, XML, JavaScript... are downloaded,
never rendered on the site's origin), and a sandboxing `Content-Security-Policy`.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from engine import exceptions as exc
from engine.context import Context
from engine.core.file import too_large
from engine.files import names, serving, storage, upload
from engine.methods import client
from engine.translation import _
from server.context import context_for
from server.multipart import read_form
from server.params import form_dict
from server.routes.common import envelope, run

UPLOAD_PATHS = frozenset({"upload_file", "fw.handler.upload_file"})
FRAPPE_UPLOAD_PATH = "frappe.handler.upload_file"
FORM_ALLOWANCE = 1024 * 1024  # room for the other form fields and the multipart framing
PUBLIC_CACHE = "public, max-age=300"  # short: a deleted public file should not linger in caches
PRIVATE_CACHE = "private, no-cache"  # the browser may keep it, but asks again (and is re-checked) each time
SANDBOX = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
TRANSIENT_RETRIES = 6  # rounds of backoff (10, 20, ... 320 ms at most) after `run`'s own immediate retries


def is_upload_path(path: str, *, frappe_aliases: bool) -> bool:
    return path in UPLOAD_PATHS or (frappe_aliases and path == FRAPPE_UPLOAD_PATH)


# -- upload ------------------------------------------------------------------------------------------

class _ClosingBoundaryCheck:
    """Wraps the request's `receive`: when a multipart body ends without its closing boundary, the
    body is refused (400) right there, inside the parser's read loop, so the parser also closes the
    temporary files it opened. (The multipart parser itself accepts a body cut off mid-part and
    silently drops the unfinished part: a truncated upload would look like one without a file.)"""

    KEEP = 4096  # the closing boundary is at the very end; an epilogue after it is at most short

    def __init__(self, receive: Any, content_type: str) -> None:
        self.receive = receive
        self.tail = b""
        self.closing: bytes | None = None
        kind, *params = content_type.split(";")
        if kind.strip().lower() == "multipart/form-data":
            for param in params:
                key, _sep, value = param.strip().partition("=")
                boundary = value.strip().strip('"')
                if key.lower() == "boundary" and boundary:
                    self.closing = f"--{boundary}--".encode("latin-1", "replace")

    async def __call__(self) -> Any:
        message = await self.receive()
        if self.closing is not None and message["type"] == "http.request":
            self.tail = (self.tail + message.get("body", b""))[-self.KEEP:]
            if not message.get("more_body", False) and self.closing not in self.tail:
                raise exc.BadRequestError(_("Malformed multipart body: it ends before its closing boundary"))
        return message


async def _the_file(request: Request) -> UploadFile | None:
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "multipart/form-data":
        return None
    form = await read_form(request)  # parsed (and cached) by form_dict already
    files = [v for v in form.getlist("file") if isinstance(v, UploadFile)]
    if len(files) > 1:
        raise exc.ValidationError(_("Upload one file per request"), field="file")
    if not files or (not files[0].filename and not files[0].size):
        return None  # an empty file input (no file chosen) sends a nameless, empty part
    return files[0]


def _v1_envelope(ctx: Context, result: Any) -> Response:
    return envelope(ctx, "message", result)


async def upload_file(request: Request,
                      respond: Callable[[Context, Any], Response] = _v1_envelope) -> Response:
    """Store the multipart `file` (or fetch nothing and record `file_url`); `respond` builds the
    success body (v1's `message` envelope, or v2's `data`)."""
    if request.method != "POST":
        await context_for(request)
        raise exc.PermissionError(_("Function {0} does not allow {1}", "upload_file", request.method))
    # Starlette reads the body through `_receive`; the wrapper only looks at it (a body without any
    # boundary is refused by the parser itself)
    request._receive = _ClosingBoundaryCheck(request.receive, request.headers.get("content-type", ""))
    limit = request.app.state.settings.max_file_size
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit + FORM_ALLOWANCE:  # refused before the body is read
        await context_for(request)
        raise too_large(limit)
    try:
        ctx = await context_for(request)  # (a cookie session's CSRF check may parse the form here)
        if ctx.user == "Guest":  # before reading the body
            raise exc.PermissionError(_("Log in to upload files"))
        args = await form_dict(request)  # a malformed multipart body is a 400 here, before anything is written
        part = await _the_file(request)
        content: bytes | None = None
        file_name = args.get("file_name") or None
        if part is not None:
            if part.size is not None and part.size > limit:
                raise too_large(limit)
            content = await part.read()
            file_name = file_name or part.filename
    finally:
        await _close_parts(request)

    async def call(ctx: Context) -> dict[str, Any]:
        doc = await upload.upload_file(
            ctx, content=content, file_name=file_name, file_url=args.get("file_url") or None,
            is_private=args.get("is_private"), folder=args.get("folder"), doctype=args.get("doctype"),
            docname=args.get("docname"), fieldname=args.get("fieldname"))
        return await client.readable_dict(ctx, doc, no_nulls=True)

    for attempt in range(TRANSIENT_RETRIES + 1):
        try:
            ctx, result = await run(request, call)
            break
        except (exc.TransientError, exc.UniqueValidationError) as e:
            # uploads of the same bytes at the same moment conflict on one content record (`run`
            # already retried at once), uploads of the same name on one URL (the loser's retry picks a
            # suffixed name): back off with jitter and run the whole upload again
            url_race = isinstance(e, exc.UniqueValidationError) and e.field == "uploaded_url"
            if attempt == TRANSIENT_RETRIES or not (url_race or isinstance(e, exc.TransientError)):
                raise
            ctx.messages.clear()
            await asyncio.sleep(random.uniform(0, 0.01 * 2 ** attempt))
    return respond(ctx, result)


async def _close_parts(request: Request) -> None:
    await request.close()  # closes the parsed form's spooled files (never triggers a parse)


# -- serving -----------------------------------------------------------------------------------------

def _etag_matches(header: str | None, etag: str) -> bool:
    """If-None-Match uses the weak comparison: `W/"x"` matches `"x"`; `*` matches anything."""
    if not header:
        return False
    for tag in header.split(","):
        tag = tag.strip()
        if tag == "*" or tag.removeprefix("W/") == etag:
            return True
    return False


def byte_range(header: str | None, size: int) -> tuple[int, int] | bool | None:
    """One `bytes=` range as (first, last) inclusive; None: serve the whole file (no range, or one
    this server ignores: several ranges, another unit, malformed); False: unsatisfiable (416).

    A position is 1 to 64 ASCII digits: `str.isdigit` alone also takes "²" and other Unicode digits, which
    `int` refuses, and `int` refuses more than 4,300 digits (640 at the least, as configured). A position
    beyond any file still counts (416, or the range clamped to the file); a Range with a longer or
    non-ASCII position is ignored and the whole file sent with 200, as RFC 9110 §14.2 lets a server do."""
    if not header or not header.startswith("bytes=") or "," in header:
        return None
    first_text, sep, last_text = header[len("bytes="):].strip().partition("-")

    def readable(text: str) -> bool:
        return len(text) <= 64 and text.isascii() and text.isdigit()  # (isdigit: non-empty)

    if not sep or not (first_text or last_text) \
            or (first_text and not readable(first_text)) or (last_text and not readable(last_text)):
        return None
    if not first_text:  # the last N bytes
        suffix = int(last_text)
        return (max(size - suffix, 0), size - 1) if suffix and size else False
    first = int(first_text)
    last = int(last_text) if last_text else max(first, size - 1)
    if last < first:
        return None
    if first >= size:
        return False
    return first, min(last, size - 1)


def _headers(served: serving.ServedFile) -> dict[str, str]:
    headers = {
        "ETag": served.etag,
        "Cache-Control": PRIVATE_CACHE if served.private else PUBLIC_CACHE,
        "X-Content-Type-Options": "nosniff",
        "Content-Type": served.content_type,
        "Content-Disposition": names.content_disposition(served.name, inline=names.is_inline(served.content_type)),
        "Accept-Ranges": "bytes",
    }
    if served.content_type != "application/pdf":  # the browsers' PDF viewers do not run in a sandbox
        headers["Content-Security-Policy"] = SANDBOX
    return headers


async def _serve(request: Request, prefix: str) -> Response:
    url = prefix + str(request.path_params["file_name"])
    ctx, served = await run(request, lambda ctx: serving.resolve(ctx, url), read_only=True)
    headers = _headers(served)
    if _etag_matches(request.headers.get("if-none-match"), served.etag):
        return Response(status_code=304, headers={k: headers[k] for k in ("ETag", "Cache-Control")})
    size = served.content.length
    wanted = byte_range(request.headers.get("range"), size)
    if_range = request.headers.get("if-range")
    if wanted is not None and if_range is not None and if_range.strip() != served.etag:
        wanted = None  # the client's copy is outdated: send the whole file
    status, first, last = 200, 0, size - 1
    if wanted is False:
        return Response(status_code=416, headers={"Content-Range": f"bytes */{size}", **{
            k: headers[k] for k in ("ETag", "Cache-Control", "X-Content-Type-Options")}})
    if isinstance(wanted, tuple):
        status, (first, last) = 206, wanted
        headers["Content-Range"] = f"bytes {first}-{last}/{size}"
    headers["Content-Length"] = str(last - first + 1 if size else 0)
    if request.method == "HEAD":
        return Response(status_code=status, headers=headers)
    return StreamingResponse(storage.iter_bytes(ctx.db, served.content, first, last), status_code=status,
                             headers=headers)


async def serve_public(request: Request) -> Response:
    return await _serve(request, names.PUBLIC_PREFIX)


async def serve_private(request: Request) -> Response:
    return await _serve(request, names.PRIVATE_PREFIX)


def routes() -> list[Route]:
    # GET routes answer HEAD too (Starlette); the content is never read for a HEAD
    return [Route("/files/{file_name:path}", serve_public, methods=["GET"]),
            Route("/private/files/{file_name:path}", serve_private, methods=["GET"])]
