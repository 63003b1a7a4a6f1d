"""The one pure-ASGI layer in front of the Starlette app.

It does five jobs that used to be five middlewares: `/socket.io` goes to python-socketio, every
response gets a request id, bodies over the limit get 413 before they are read, clients that
accept gzip get compressed responses, and, when the access log is on, every request is recorded in
it. One layer rather than five because each layer costs every request a coroutine frame on every
resume and a wrapper on every `send`.
"""

from __future__ import annotations

import itertools
import os
import time

import orjson
import socketio
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine import exceptions as exc
from engine.translation import _
from server.access_log import AccessLog
from server.context import negotiate_language, scope_user
from server.errors import edge_error_body

SOCKETIO_PATH = "/socket.io"
FILE_PATHS = ("/files/", "/private/files/")
NO_STORE = (b"cache-control", b"no-store,no-cache,must-revalidate,max-age=0")
VARY = (b"vary", b"Accept-Encoding")
EDGE_HEADERS = frozenset({b"x-request-id", b"content-length", b"transfer-encoding", b"accept-encoding",
                          b"accept-language"})
OWN_HEADERS = frozenset({NO_STORE[0], VARY[0]})  # headers of the extra ones a response may set itself

# Request ids only need to be unique, not secret: a per-process random prefix and a counter
# (one urandom syscall per process instead of one per request).
_ID_PREFIX = os.urandom(4).hex()
_ID_COUNTER = itertools.count(1)


def new_request_id() -> bytes:
    return f"{_ID_PREFIX}{next(_ID_COUNTER):08x}".encode()


class EdgeMiddleware:
    def __init__(self, app: ASGIApp, *, sio: socketio.AsyncServer, max_bytes: int,
                 gzip_minimum_size: int = 1024, log: AccessLog | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.log = log  # the access log, None when it is off
        self.gzip = GZipMiddleware(app, minimum_size=gzip_minimum_size)
        self.socketio = socketio.ASGIApp(sio, other_asgi_app=app, socketio_path="socket.io")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        path: str = scope.get("path", "")
        if kind == "lifespan" or (kind == "websocket" and not _is_socketio(path)):
            await self.app(scope, receive, send)
            return
        if _is_socketio(path):
            await self.socketio(scope, receive, send)
            return
        started = time.perf_counter() if self.log is not None else 0.0
        request_id = length = language = None
        has_body = gzip = False
        for name, value in scope["headers"]:  # one pass over the raw headers
            if name not in EDGE_HEADERS:  # (most of them: one set lookup each)
                continue
            if name == b"x-request-id":
                request_id = value
            elif name == b"content-length":
                length, has_body = value, True
            elif name == b"transfer-encoding":
                has_body = True
            elif name == b"accept-encoding":
                gzip = b"gzip" in value
            elif name == b"accept-language":
                language = value
        request_id = request_id[:64] if request_id and request_id.isascii() else new_request_id()
        # stored files set their own Cache-Control (ETag revalidation) and are sent as stored: gzip
        # would drop their Content-Length and invalidate their strong ETag
        file_path = path.startswith(FILE_PATHS)
        gzip = gzip and not file_path
        extra = [(b"x-request-id", request_id), (b"x-frappe-request-id", request_id), NO_STORE]
        if not gzip:
            extra.append(VARY)  # GZipMiddleware adds it itself when it runs
        status = 0

        async def send_with_headers(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = message.get("headers", ())
                # a response that sets its own Cache-Control (stored files, the Desk's assets) keeps it;
                # one that sets Vary (a precompressed asset) is not given a second one. (A plain loop:
                # a comprehension is a call of its own, on every response)
                added = extra
                for name, _value in headers:
                    own = name.lower()
                    if own in OWN_HEADERS:
                        added = [h for h in added if h[0] != own]
                message["headers"] = [*headers, *added]
            await send(message)

        try:
            if length is not None and length.isdigit() and int(length) > self.max_bytes:
                await self._refuse(send_with_headers, language, path)
                return
            inner = self.gzip if gzip else self.app
            if not has_body:
                await inner(scope, receive, send_with_headers)
                return
            received = 0

            async def limited_receive() -> Message:
                nonlocal received
                message = await receive()
                if message["type"] == "http.request":
                    received += len(message.get("body", b""))
                    if received > self.max_bytes:
                        raise _TooLarge
                return message

            try:
                await inner(scope, limited_receive, send_with_headers)
            except _TooLarge:
                await self._refuse(send_with_headers, language, path)
        finally:
            if self.log is not None and kind == "http":  # (in this frame: a layer of its own costs every resume)
                client = scope.get("client")
                self.log.record((time.time(), scope["method"], path, status or 500,
                                 (time.perf_counter() - started) * 1000, request_id.decode("latin-1"),
                                 scope_user(scope) or "-", client[0] if client else "-"))

    async def _refuse(self, send: Send, accept_language: bytes | None, path: str) -> None:
        # no request context exists yet: the language comes from Accept-Language alone
        lang = negotiate_language(accept_language.decode("latin-1") if accept_language else None, None)
        error = exc.FwError(_("Request body is larger than {0} bytes", self.max_bytes, lang=lang))
        body = orjson.dumps(edge_error_body(path, error, "RequestEntityTooLarge", lang=lang))
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def _is_socketio(path: str) -> bool:
    return path == SOCKETIO_PATH or path.startswith(SOCKETIO_PATH + "/")


class _TooLarge(Exception):
    pass

