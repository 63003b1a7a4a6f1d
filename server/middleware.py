"""Pure ASGI middleware: request ids and the body-size limit (413 before the body is read)."""

from __future__ import annotations

import secrets

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine import exceptions as exc
from server.errors import error_body


class RequestIdMiddleware:
    """Echo a caller's `X-Request-Id` or make one; sent as `X-Request-Id` and `X-Frappe-Request-Id`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = dict(scope["headers"]).get(b"x-request-id", b"")
        request_id = incoming[:64] if incoming and incoming.isascii() else secrets.token_hex(8).encode()

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(b"x-request-id", request_id), (b"x-frappe-request-id", request_id),
                            (b"cache-control", b"no-store,no-cache,must-revalidate,max-age=0")]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_id)


class BodyLimitMiddleware:
    """Refuse bodies over `max_bytes` with 413, by Content-Length or while streaming."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def _refuse(self, send: Send) -> None:
        body = orjson.dumps(error_body(exc.FwError(f"Request body is larger than {self.max_bytes} bytes"), [],
                                       developer_mode=False) | {"exc_type": "RequestEntityTooLarge"})
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            await self._refuse(send)
            return
        received = 0
        too_large = False

        async def limited_receive() -> Message:
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    too_large = True
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited_receive, send)
        except _TooLarge:
            await self._refuse(send)


class _TooLarge(Exception):
    pass
