"""server/middleware.py: request ids, gzip by Accept-Encoding, the body limit and the socket.io hand-off."""

from __future__ import annotations

import gzip

import httpx
import orjson

from server.middleware import new_request_id
from tests.server.conftest import ApiUser


async def test_request_ids_are_made_unique_and_sent_under_both_names(client: httpx.AsyncClient) -> None:
    first = await client.get("/api/method/ping")
    second = await client.get("/api/method/ping")
    ids = [r.headers["x-request-id"] for r in (first, second)]
    assert ids[0] != ids[1]
    assert all(len(i) >= 16 for i in ids)
    assert first.headers["x-frappe-request-id"] == ids[0]
    assert "no-store" in first.headers["cache-control"]
    assert new_request_id() != new_request_id()


async def test_a_callers_request_id_is_echoed_and_capped(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/method/ping", headers={"X-Request-Id": "trace-123"})
    assert r.headers["x-request-id"] == "trace-123"
    r = await client.get("/api/method/ping", headers={"X-Request-Id": "a" * 200})
    assert r.headers["x-request-id"] == "a" * 64


async def test_errors_carry_the_request_id(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/resource/No Such Doctype", headers={"X-Request-Id": "err-1"})
    assert r.status_code == 404
    assert r.headers["x-request-id"] == "err-1"


async def test_gzip_only_for_clients_that_accept_it(client: httpx.AsyncClient, admin: ApiUser) -> None:
    raw = {"Accept-Encoding": "identity"}
    plain = await client.get("/api/openapi.json", headers=raw)
    assert plain.status_code == 200
    assert "content-encoding" not in plain.headers
    assert plain.headers.get_list("vary") == ["Accept-Encoding"]
    assert len(plain.content) > 1024

    zipped = await client.send(client.build_request("GET", "/api/openapi.json",
                                                    headers={"Accept-Encoding": "gzip"}), stream=True)
    raw_body = b"".join([chunk async for chunk in zipped.aiter_raw()])
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.headers.get_list("vary") == ["Accept-Encoding"]  # once, not twice
    assert zipped.headers["x-request-id"]
    assert len(raw_body) < len(plain.content)
    assert orjson.loads(gzip.decompress(raw_body)) == plain.json()

    small = await client.get("/api/method/ping", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in small.headers  # below the minimum size


async def test_body_limit_refusal_has_a_request_id(client: httpx.AsyncClient, admin: ApiUser) -> None:
    limit = client._transport.app.state.settings.max_body_bytes  # type: ignore[attr-defined]
    r = await client.post("/api/method/ping", content=b"x" * (limit + 1),
                          headers={"Content-Type": "application/json", "X-Request-Id": "big-1"})
    assert r.status_code == 413
    assert r.json()["exc_type"] == "RequestEntityTooLarge"
    assert r.headers["x-request-id"] == "big-1"


async def test_socketio_paths_go_to_the_socketio_server(client: httpx.AsyncClient) -> None:
    r = await client.get("/socket.io/", params={"EIO": "4", "transport": "polling"})
    # engine.io answers its own handshake (an "open" packet, type 0), not Starlette's router
    assert r.status_code == 200, r.text
    assert r.text.startswith("0{")
    assert "x-request-id" not in r.headers
    r = await client.get("/socket.iox")
    assert r.status_code == 404


async def test_the_413_speaks_the_callers_language(client: httpx.AsyncClient) -> None:
    limit = client._transport.app.state.settings.max_body_bytes  # type: ignore[attr-defined]
    r = await client.post("/api/method/ping", content=b"x" * (limit + 1),
                          headers={"Content-Type": "application/json", "Accept-Language": "de-DE,de;q=0.9"})
    assert r.status_code == 413
    assert f"Der Anfragetext ist größer als {limit} Bytes" in r.text
