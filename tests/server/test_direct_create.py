"""engine/documents/direct_create.py over HTTP: v1's POST, v2's POST and `fw.client.insert` of a doctype
no code takes part in answer as the ordinary insert does, and a create whose answer would be refused
is not committed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from engine.context import Context, unit_of_work
from engine.documents import direct_create
from engine.documents.factory import new_doc
from engine.site import Site
from tests.server.conftest import ApiUser
from tests.server.helpers import client_with, ok, refused
from tests.support.custom_fields import drop_custom_fields
from tests.support.hooks import hide_handlers

REVIEW = "Test Review"


@pytest.fixture(autouse=True)
def direct(site: Site, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Test Review without the fixture app's `doc_events["*"]` handlers, and the names created directly."""
    hide_handlers(monkeypatch, site.apps, {REVIEW})
    made: list[str] = []
    real = direct_create.create

    async def create(*args: Any, **kwargs: Any) -> Any:
        done = await real(*args, **kwargs)
        if done is not None:
            made.append(done["name"])
        return done

    monkeypatch.setattr(direct_create, "create", create)
    yield made


async def test_v1_v2_and_insert_answer_the_stored_document(client: httpx.AsyncClient, admin: ApiUser,
                                                          direct: list[str]) -> None:
    body = {"title": "Quarterly", "score": "7", "weight": None}
    v1 = ok(await client.post(f"/api/resource/{REVIEW}", json=body, headers=admin.token))["data"]
    v2 = ok(await client.post(f"/api/v2/document/{REVIEW}", json=body, headers=admin.token))["data"]
    method = ok(await client.post("/api/method/fw.client.insert", json={"doc": {"doctype": REVIEW, **body}},
                                  headers=admin.token))["message"]
    assert direct == [v1["name"], v2["name"], method["name"]]
    for answer in (v1, v2, method):
        assert answer["score"] == 7 and answer["weight"] == 1.5 and answer["owner"] == "Administrator"
        read = ok(await client.get(f"/api/v2/document/{REVIEW}/{answer['name']}", headers=admin.token))["data"]
        assert answer == ({k: v for k, v in read.items() if v is not None} if answer is v1 else read)
    assert "approved" in v2 and v2["approved"] == 0  # a Check is stored as 0
    assert v2.keys() == method.keys()


async def test_errors_are_the_inserts_own(client: httpx.AsyncClient, ctx: Context, admin: ApiUser,
                                          direct: list[str]) -> None:
    body = refused(await client.post(f"/api/resource/{REVIEW}", json={"title": "x", "score": "lots"},
                                     headers=admin.token), 417, "FieldTypeError")
    assert "Score" in body["exception"]
    refused(await client.post(f"/api/resource/{REVIEW}", json={"title": ""}, headers=admin.token),
            417, "MandatoryError")
    refused(await client.post(f"/api/resource/{REVIEW}", json={"title": "x", "shade": "blue"},
                              headers=admin.token), 417, "DataError")
    refused(await client.post(f"/api/resource/{REVIEW}", json=["title"], headers=admin.token), 417)
    assert direct == [] and await ctx.db.collection("test_review").count_documents({}) == 0


async def test_a_create_whose_answer_is_over_the_limit_is_not_committed(site: Site, ctx: Context, admin: ApiUser,
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        direct: list[str]) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Custom Field", dt=REVIEW, fieldname="notes", fieldtype="Long Text",
                      label="Notes").insert()
    try:
        async with client_with(site, monkeypatch, max_response_bytes=4096) as c:
            r = await c.post(f"/api/resource/{REVIEW}", json={"title": "long", "notes": "x" * 5000},
                             headers=admin.token)
            assert r.status_code == 413, r.text[:300]
            made = ok(await c.post(f"/api/resource/{REVIEW}", json={"title": "short", "notes": "y" * 100},
                                   headers=admin.token))["data"]
        assert len(direct) == 2 and direct[1] == made["name"]  # both went direct; the first was rolled back
        reviews = ctx.db.collection("test_review")
        assert [r["title"] async for r in reviews.find({})] == ["short"]
    finally:
        await drop_custom_fields(site, [REVIEW])
