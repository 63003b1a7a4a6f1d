"""`fw serve`'s header-read timeout (server/http_protocol.py), over real sockets against uvicorn."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator

import pytest
import uvicorn

from server import http_protocol
from tests.conftest import make_settings

TIMEOUT = 0.5


async def _app(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
    if scope["type"] != "http":
        return
    body = b""
    while True:  # read the whole body, however slowly it comes
        message = await receive()  # type: ignore[operator]
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200,  # type: ignore[operator]
                "headers": [(b"content-length", str(len(body) + 2).encode())]})
    await send({"type": "http.response.body", "body": b"ok" + body})  # type: ignore[operator]


@pytest.fixture
async def port(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[int]:
    monkeypatch.setattr(http_protocol, "get_settings", lambda: make_settings(http_header_timeout=TIMEOUT))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(_app, host="127.0.0.1", port=free, log_level="warning",
                                          http=http_protocol.HeaderTimeoutProtocol, lifespan="off"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    yield free
    server.should_exit = True
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)


async def _read_all(reader: asyncio.StreamReader) -> bytes:
    return await asyncio.wait_for(reader.read(), TIMEOUT * 6)


async def test_headers_that_never_finish_are_cut_off(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    started = time.monotonic()
    writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")  # ... and the rest never comes
    for _ in range(3):  # a byte now and then does not keep it open
        await asyncio.sleep(TIMEOUT / 3)
        with contextlib.suppress(ConnectionError):
            writer.write(b"X")
    answer = await _read_all(reader)
    assert answer.startswith(b"HTTP/1.1 408")
    assert TIMEOUT <= time.monotonic() - started < TIMEOUT * 4
    writer.close()


async def test_a_connection_that_sends_nothing_is_closed(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    assert (await _read_all(reader)).startswith(b"HTTP/1.1 408")
    writer.close()


async def test_complete_requests_and_slow_bodies_are_served(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n")
    for byte in (b"a", b"b", b"c", b"d"):  # the body takes longer than the header timeout: fine
        await asyncio.sleep(TIMEOUT / 2)
        writer.write(byte)
    status = await asyncio.wait_for(reader.readuntil(b"okabcd"), TIMEOUT * 4)
    assert status.startswith(b"HTTP/1.1 200")
    # the same kept-alive connection: its next request's headers are timed again
    writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")
    assert (await _read_all(reader)).startswith(b"HTTP/1.1 408")
    writer.close()
