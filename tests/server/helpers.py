"""Small assertions and fixtures' data shared by the HTTP tests."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.site import Site
from server.app import create_app


def client_with(site: Site, monkeypatch: pytest.MonkeyPatch, **settings: object) -> httpx.AsyncClient:
    """A client of an app, and the site, with these settings (the engine reads the site's)."""
    monkeypatch.setattr(site, "settings", site.settings.model_copy(update=settings))
    app = create_app(site.settings, site=site)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")


def ok(r: httpx.Response, status: int = 200) -> Any:
    """The JSON body of a response that must have `status`."""
    assert r.status_code == status, f"{r.status_code} {r.text[:2000]}"
    return r.json()


def refused(r: httpx.Response, status: int, exc_type: str | None = None) -> dict[str, Any]:
    """A client mistake: the expected status, a JSON error body, never a 500."""
    assert r.status_code < 500, f"client mistake answered {r.status_code}: {r.text[:2000]}"
    assert r.status_code == status, f"expected {status}, got {r.status_code}: {r.text[:2000]}"
    assert r.headers["content-type"].startswith("application/json"), r.headers["content-type"]
    body = r.json()
    assert isinstance(body, dict)
    if exc_type is not None:
        assert body.get("exc_type") == exc_type, body
    return body


def server_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Decode Frappe's twice-encoded `_server_messages`: a JSON string of a list of JSON strings."""
    raw = body["_server_messages"]
    assert isinstance(raw, str)
    outer = json.loads(raw)
    assert isinstance(outer, list)
    assert all(isinstance(item, str) for item in outer)
    return [json.loads(item) for item in outer]


async def insert_notes(ctx: Context, *values: dict[str, Any]) -> list[str]:
    """Test Notes inserted in one unit of work; their names."""
    names = []
    async with unit_of_work(ctx):
        for v in values:
            names.append((await new_doc(ctx, "Test Note", v).insert()).name)
    return names
