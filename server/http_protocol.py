"""uvicorn's HTTP protocol with a header-read timeout (`fw serve` runs it).

uvicorn closes an idle keep-alive connection after a few seconds, but waits without end for a
request's headers, and for the first byte of a new connection: a client that opens connections and
sends its headers a byte at a time (slowloris) holds them all. Here a request whose headers have not
all arrived within FW_HTTP_HEADER_TIMEOUT seconds of its connection opening (or, on a kept-alive
connection, of its first byte) is answered 408 and its connection closed. The body is not timed: a
slow upload is legitimate, and FW_MAX_BODY_BYTES bounds it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from engine.settings import get_settings

TIMEOUT_RESPONSE = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


class HeaderTimeoutProtocol(HttpToolsProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout = get_settings().http_header_timeout
        self._header_timer: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        if self._header_timer is None and self.header_timeout > 0:
            self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    # (ignore: uvicorn's protocol narrows asyncio's BaseTransport to Transport the same way; the override follows it)
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()  # until the first request's headers are in

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()  # a kept-alive connection's next request

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.write(TIMEOUT_RESPONSE)
            self.transport.close()
