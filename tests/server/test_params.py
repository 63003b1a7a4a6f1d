"""server/params.py: reading a request's body without Starlette's stream generator."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.requests import ClientDisconnect, Request

from server.params import read_body


def request_receiving(*messages: dict[str, Any]) -> tuple[Request, list[dict[str, Any]]]:
    pending = list(messages)

    async def receive() -> dict[str, Any]:
        return pending.pop(0)

    scope = {"type": "http", "method": "POST", "path": "/", "headers": [], "query_string": b""}
    return Request(scope, receive), pending


async def test_a_body_in_one_message_is_read_and_stays_readable() -> None:
    request, pending = request_receiving({"type": "http.request", "body": b'{"a": 1}', "more_body": False})
    assert await read_body(request) == b'{"a": 1}'
    assert pending == []
    assert await request.body() == b'{"a": 1}'  # Starlette's own reader finds it read
    assert await read_body(request) == b'{"a": 1}'
    assert [chunk async for chunk in request.stream()] == [b'{"a": 1}', b""]


async def test_a_body_in_several_messages_is_joined() -> None:
    request, pending = request_receiving(
        {"type": "http.request", "body": b"ab", "more_body": True},
        {"type": "http.request", "body": b"", "more_body": True},
        {"type": "http.request", "body": b"cd"})
    assert await read_body(request) == b"abcd"
    assert pending == [] and await request.body() == b"abcd"


async def test_a_client_gone_before_the_end_is_a_client_disconnect() -> None:
    request, _pending = request_receiving({"type": "http.request", "body": b"ab", "more_body": True},
                                          {"type": "http.disconnect"})
    with pytest.raises(ClientDisconnect):
        await read_body(request)
    assert await request.is_disconnected()


async def test_a_body_starlette_already_read_is_answered_from_it() -> None:
    request, _pending = request_receiving({"type": "http.request", "body": b"xyz"})
    assert await request.body() == b"xyz"
    assert await read_body(request) == b"xyz"
