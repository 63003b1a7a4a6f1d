"""FW_ACCESS_LOG: one line per request (method, path without its query, status, duration, request id,
user, client) as text or JSON, written by a thread off the event loop; `off` records nothing.
(tests/e2e/test_serve.py checks a real `fw serve` writes these lines and not uvicorn's.)"""

from __future__ import annotations

import io
import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
import pytest

from engine.site import Site
from server import access_log
from server.app import create_app
from server.middleware import EdgeMiddleware
from tests.server.conftest import ApiUser


@pytest.fixture
def logged(site: Site, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], object]:
    """An in-process client of an app whose access log of `kind` writes to a StringIO."""

    @asynccontextmanager
    async def open_logged(kind: str) -> AsyncIterator[tuple[httpx.AsyncClient, io.StringIO]]:
        out = io.StringIO()
        log = access_log.AccessLog(kind, stream=out)
        monkeypatch.setitem(access_log._process_log, kind, log)
        app = create_app(site.settings.model_copy(update={"access_log": kind}), site=site)
        try:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=("10.1.2.3", 5000)),
                                         base_url="http://testserver") as client:
                yield client, out
        finally:
            log.close()  # writes what is still queued

    return open_logged


async def test_text_lines(logged: Callable[[str], object], admin: ApiUser) -> None:
    async with logged("text") as (client, out):  # type: ignore[attr-defined]
        guest = await client.get("/api/method/ping", params={"pwd": "secret-in-the-query"})
        known = await client.get("/api/resource/Test Note", headers=admin.token)
        missing = await client.get("/api/resource/Test Note/nope", headers=admin.token)
        refused = await client.get("/api/resource/Test Note", headers={"Authorization": "token bad:key"})
    lines = out.getvalue().splitlines()
    assert len(lines) == 4, lines
    pattern = (r"^\d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{{3}}Z {method} {path} {status} \d+\.\dms rid={rid} user={user} "
               r"client=10\.1\.2\.3$")
    for line, response, path, user in (
            (lines[0], guest, "/api/method/ping", "Guest"),
            (lines[1], known, "/api/resource/Test Note", "Administrator"),
            (lines[2], missing, "/api/resource/Test Note/nope", "Administrator"),
            (lines[3], refused, "/api/resource/Test Note", "-")):  # no user: its credentials were refused
        expected = pattern.format(method="GET", path=re.escape(path), status=response.status_code,
                                  rid=re.escape(response.headers["x-request-id"]), user=user)
        assert re.match(expected, line), (line, expected)
    assert [r.status_code for r in (guest, known, missing, refused)] == [200, 200, 404, 401]
    assert "secret-in-the-query" not in out.getvalue()


async def test_json_lines(logged: Callable[[str], object], admin: ApiUser) -> None:
    async with logged("json") as (client, out):  # type: ignore[attr-defined]
        created = await client.post("/api/resource/Test Note", json={"title": "logged"}, headers=admin.token)
    [entry] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert set(entry) == {"time", "method", "path", "status", "duration_ms", "request_id", "user", "client"}
    assert entry["method"] == "POST" and entry["path"] == "/api/resource/Test Note"
    assert entry["status"] == created.status_code == 200
    assert entry["request_id"] == created.headers["x-request-id"] and entry["user"] == "Administrator"
    assert isinstance(entry["duration_ms"], float) and entry["duration_ms"] > 0 and entry["client"] == "10.1.2.3"


async def test_off_records_nothing(site: Site) -> None:
    before = dict(access_log._process_log)
    app = create_app(site.settings.model_copy(update={"access_log": "off"}), site=site)
    [edge] = [m for m in app.user_middleware if m.cls is EdgeMiddleware]
    assert edge.kwargs["log"] is None
    assert access_log._process_log == before  # no writer thread started for it
    app = create_app(site.settings.model_copy(update={"access_log": "json"}), site=site)
    assert app.user_middleware[0].cls is EdgeMiddleware  # outermost (without proxy headers), so it times everything
    assert app.user_middleware[0].kwargs["log"] is access_log._process_log["json"]


async def test_a_refused_body_and_a_failing_handler_are_logged(logged: Callable[[str], object]) -> None:
    async with logged("json") as (client, out):  # type: ignore[attr-defined]
        too_large = await client.post("/api/method/ping", content=b"x" * (25 * 2 ** 20 + 1))  # FW_MAX_BODY_BYTES + 1
    [entry] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert too_large.status_code == 413 and entry["status"] == 413 and entry["user"] == "-"
    assert entry["request_id"] == too_large.headers["x-request-id"]


def test_a_closed_stream_does_not_kill_the_writer() -> None:
    out = io.StringIO()
    log = access_log.AccessLog("text", stream=out)
    out.close()
    log.record((0.0, "GET", "/x", 200, 1.0, "rid", "Guest", "-"))
    log.close()
    assert not log._thread.is_alive()
    with pytest.raises(ValueError, match="text or json"):
        access_log.AccessLog("xml")
