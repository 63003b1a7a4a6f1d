"""engine/documents/one_call.py over HTTP: a PUT, `set_value` or v2 PATCH of a doctype whose save needs
nothing of the stored document is one findOneAndUpdate; it answers as the ordinary save does, and 32
concurrent writers of one document lose nothing (the update is atomic: there is nothing to re-run)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from engine.context import Context, unit_of_work
from engine.documents import store
from engine.documents.factory import new_doc
from engine.site import Site
from tests.server.conftest import ApiUser
from tests.server.helpers import ok, refused
from tests.support.custom_fields import drop_custom_fields
from tests.support.hooks import hide_handlers

READING = "/api/resource/Test Reading"
WRITERS = 32
FIELDS = [f"w{i}" for i in range(WRITERS)]


@pytest.fixture(autouse=True)
def plain_readings(site: Site, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Test Reading without the fixture app's `doc_events["*"]` handlers (which make every save of it
    need the whole document), and a count of the two ways an update can take."""
    hide_handlers(monkeypatch, site.apps, {"Test Reading"})
    ways = {"one_call": 0, "loads": 0}
    real_update, real_load = store.update_returning, store.load

    async def update_returning(ctx: Context, meta: Any, *args: Any, **kwargs: Any) -> Any:
        if meta.name == "Test Reading":
            ways["one_call"] += 1
        return await real_update(ctx, meta, *args, **kwargs)

    async def load(ctx: Context, meta: Any, *args: Any, **kwargs: Any) -> Any:
        if meta.name == "Test Reading":
            ways["loads"] += 1
        return await real_load(ctx, meta, *args, **kwargs)

    monkeypatch.setattr(store, "update_returning", update_returning)
    monkeypatch.setattr(store, "load", load)
    return ways


async def insert_reading(ctx: Context, **values: Any) -> str:
    async with unit_of_work(ctx):
        doc = await new_doc(ctx, "Test Reading", {"sensor": "S-1", "date": "2026-01-05", **values}).insert()
    return str(doc.name)


async def test_put_patch_and_set_value_answer_as_a_save_does(client: httpx.AsyncClient, ctx: Context,
                                                             admin: ApiUser, plain_readings: dict[str, int]) -> None:
    name = await insert_reading(ctx, value=1.0, source="feed")
    before = ok(await client.get(f"{READING}/{name}", headers=admin.token))["data"]
    plain_readings.update(one_call=0, loads=0)
    put = ok(await client.put(f"{READING}/{name}", json={"value": "2.5", "source": None}, headers=admin.token))["data"]
    assert put["value"] == 2.5 and "source" not in put  # v1 leaves out nulls
    assert put["modified"] > before["modified"] and put["modified_by"] == "Administrator"
    assert {k: v for k, v in put.items() if k not in ("value", "source", "modified")} == {
        k: v for k, v in before.items() if k not in ("value", "source", "modified")}
    patch = ok(await client.patch(f"/api/v2/document/Test Reading/{name}", json={"source": "v2"},
                                  headers=admin.token))["data"]
    assert patch["source"] == "v2" and patch["value"] == 2.5
    set_value = ok(await client.post("/api/method/fw.client.set_value", headers=admin.token, json={
        "doctype": "Test Reading", "name": name, "fieldname": "value", "value": 9}))["message"]
    assert set_value["value"] == 9.0 and set_value["source"] == "v2"
    assert plain_readings == {"one_call": 3, "loads": 0}
    stored = ok(await client.get(f"{READING}/{name}", headers=admin.token))["data"]
    assert stored == {**set_value, "doctype": "Test Reading"}


async def test_errors_are_the_saves_own(client: httpx.AsyncClient, ctx: Context, admin: ApiUser,
                                        plain_readings: dict[str, int]) -> None:
    name = await insert_reading(ctx, value=1.0)
    body = refused(await client.put(f"{READING}/{name}", json={"value": "lots"}, headers=admin.token),
                   417, "FieldTypeError")
    assert "Value" in body["exception"]
    refused(await client.put(f"{READING}/{name}", json={"sensor": " "}, headers=admin.token), 417, "MandatoryError")
    refused(await client.put(f"{READING}/{name}", json={"value": 2, "modified": "2020-01-01 00:00:00.000000"},
                             headers=admin.token), 417, "TimestampMismatchError")
    refused(await client.put(f"{READING}/no-such-reading", json={"value": 2}, headers=admin.token), 404)
    record = await store.collection_of(ctx.site, "Test Reading").find_one({"_id": name})
    assert record["value"] == 1.0 and record["sensor"] == "S-1"


@pytest.fixture
async def writer_fields(site: Site, ctx: Context) -> AsyncIterator[None]:
    async with unit_of_work(ctx):
        for field in FIELDS:
            await new_doc(ctx, "Custom Field", dt="Test Reading", fieldname=field, fieldtype="Data",
                          label=field).insert()
    try:
        yield
    finally:
        await drop_custom_fields(site, ["Test Reading"])


async def test_concurrent_writers_lose_nothing(client: httpx.AsyncClient, ctx: Context, admin: ApiUser,
                                               writer_fields: None, plain_readings: dict[str, int]) -> None:
    name = await insert_reading(ctx, value=0.0)
    statuses: Counter[int] = Counter()

    async def writer(i: int) -> None:
        field = FIELDS[i]
        for value in ("a", "b", "c"):
            if i % 3 == 0:
                r = await client.put(f"{READING}/{name}", json={field: value}, headers=admin.token)
            elif i % 3 == 1:
                r = await client.post("/api/method/fw.client.set_value", headers=admin.token, json={
                    "doctype": "Test Reading", "name": name, "fieldname": field, "value": value})
            else:
                r = await client.patch(f"/api/v2/document/Test Reading/{name}", json={field: value},
                                       headers=admin.token)
            statuses[r.status_code] += 1

    await asyncio.gather(*(writer(i) for i in range(WRITERS)))
    assert statuses == Counter({200: WRITERS * 3})
    record = await store.collection_of(ctx.site, "Test Reading").find_one({"_id": name})
    assert {f: record.get(f) for f in FIELDS} == dict.fromkeys(FIELDS, "c")
    # never the ordinary save; `set_value` (a method: its unit of work stays a transaction) may run again
    # after a write conflict with another transaction, so one_call is asked at least once per request
    assert plain_readings["loads"] == 0 and plain_readings["one_call"] >= WRITERS * 3
