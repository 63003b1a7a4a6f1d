"""Issue 16 point 1 / issue 17 point 4: a PUT, `set_value` or v2 PATCH that sends no `modified` never
fails because another request wrote the document meanwhile, loses no field another writer set, and
its hooks see one consistent document; one that sends `modified` keeps its check."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fwtest.doctype.test_note import test_note

from engine.context import Context, unit_of_work
from engine.documents import concurrency
from engine.documents.factory import new_doc
from engine.site import Site
from tests.server.conftest import ApiUser
from tests.server.helpers import insert_notes, ok, refused
from tests.support.custom_fields import drop_custom_fields
from tests.support.hooks import patch_controller_hook

NOTE = "/api/resource/Test Note"
WRITERS = 32
FIELDS = [f"w{i}" for i in range(WRITERS)]


@pytest.fixture
async def tally(site: Site, ctx: Context, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    """Test Note with one Int field per writer, and a validate hook that derives `count` from the
    document it sees (the number of writers' fields set): stale reads would leave it short."""
    async with unit_of_work(ctx):
        for field in FIELDS:
            await new_doc(ctx, "Custom Field", dt="Test Note", fieldname=field, fieldtype="Int", label=field).insert()

    def validate(self: test_note.TestNote) -> None:
        self.count = sum(1 for field in FIELDS if self.get(field))

    patch_controller_hook(monkeypatch, site.apps, test_note.TestNote, "validate", validate)
    try:
        yield
    finally:
        await drop_custom_fields(site, ["Test Note"])


async def _write(client: httpx.AsyncClient, token: dict[str, str], writer: int, name: str, value: int) -> int:
    """One save of the writer's own field, by the v1 PUT, `fw.client.set_value` or the v2 PATCH."""
    field = FIELDS[writer]
    if writer % 3 == 0:
        r = await client.put(f"{NOTE}/{name}", json={field: value}, headers=token)
    elif writer % 3 == 1:
        r = await client.post("/api/method/fw.client.set_value", headers=token,
                              json={"doctype": "Test Note", "name": name, "fieldname": field, "value": value})
    else:
        r = await client.patch(f"/api/v2/document/Test Note/{name}", json={field: value}, headers=token)
    assert r.status_code < 500, r.text[:500]
    return r.status_code


async def _race(client: httpx.AsyncClient, admin: ApiUser, names: list[str], rounds: int) -> Counter[int]:
    """WRITERS concurrent writers; each, round after round, sets its own field on every document."""
    statuses: Counter[int] = Counter()

    async def writer(i: int) -> None:
        for value in range(1, rounds + 1):
            for k in range(len(names)):
                name = names[(i + k) % len(names)]  # writers meet on every document, in different orders
                statuses[await _write(client, admin.token, i, name, value)] += 1

    await asyncio.gather(*(writer(i) for i in range(WRITERS)))
    return statuses


async def _assert_every_field_kept(ctx: Context, names: list[str], value: int) -> None:
    for name in names:
        record = await ctx.db.collection("test_note").find_one({"_id": name})
        assert {f: record.get(f) for f in FIELDS} == dict.fromkeys(FIELDS, value), name
        assert record["count"] == WRITERS, (name, record["count"])  # the last save's hook saw every field


@pytest.mark.parametrize(("documents", "rounds"), [(1, 3), (10, 1)])
async def test_concurrent_saves_without_modified_never_fail(client: httpx.AsyncClient, ctx: Context, admin: ApiUser,
                                                            tally: None, documents: int, rounds: int) -> None:
    names = await insert_notes(ctx, *({"title": f"busy {n}"} for n in range(documents)))
    statuses = await _race(client, admin, names, rounds)
    assert statuses == Counter({200: WRITERS * documents * rounds})
    await _assert_every_field_kept(ctx, names, rounds)


async def test_saves_that_race_without_taking_turns_run_again(client: httpx.AsyncClient, ctx: Context,
                                                              admin: ApiUser, tally: None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """As writers reaching different server processes do: no turn taken, so saves overtake each other
    between read and write; each such save runs again on the fresh document (hooks included)."""
    async def no_turn(ctx: Context, doctype: str, name: str) -> None:
        return None

    reruns = 0
    original = concurrency.changed_error

    def counted(doc: Any) -> Any:
        nonlocal reruns
        reruns += 1
        return original(doc)

    monkeypatch.setattr(concurrency, "take_turn", no_turn)
    monkeypatch.setattr(concurrency, "changed_error", counted)
    names = await insert_notes(ctx, {"title": "contended"})
    statuses = await _race(client, admin, names, rounds=2)
    assert statuses == Counter({200: WRITERS * 2})
    await _assert_every_field_kept(ctx, names, 2)
    assert reruns > 0  # the race did happen (and was absorbed)


async def test_a_save_that_sends_modified_keeps_its_check(client: httpx.AsyncClient, ctx: Context,
                                                          admin: ApiUser) -> None:
    [name] = await insert_notes(ctx, {"title": "checked"})
    seen = ok(await client.get(f"{NOTE}/{name}", headers=admin.token))["data"]["modified"]
    ok(await client.put(f"{NOTE}/{name}", json={"count": 1}, headers=admin.token))  # someone else saves
    refused(await client.put(f"{NOTE}/{name}", json={"body": "stale", "modified": seen}, headers=admin.token),
            417, "TimestampMismatchError")
    record = await ctx.db.collection("test_note").find_one({"_id": name})
    assert "body" not in record and record["count"] == 1


async def test_a_checked_save_racing_an_unchecked_one_is_refused_not_rerun(
        client: httpx.AsyncClient, ctx: Context, admin: ApiUser, monkeypatch: pytest.MonkeyPatch) -> None:
    """The client that sent `modified` read the document before the other save: it gets its 417,
    whichever of the two reached the database first."""
    [name] = await insert_notes(ctx, {"title": "race"})
    seen = ok(await client.get(f"{NOTE}/{name}", headers=admin.token))["data"]["modified"]
    results = await asyncio.gather(
        client.put(f"{NOTE}/{name}", json={"count": 7}, headers=admin.token),
        client.put(f"{NOTE}/{name}", json={"body": "mine", "modified": seen}, headers=admin.token))
    statuses = sorted(r.status_code for r in results)
    record = await ctx.db.collection("test_note").find_one({"_id": name})
    assert record["count"] == 7
    if statuses == [200, 417]:
        assert "body" not in record
    else:  # the checked save won the race and the other one ran after it
        assert statuses == [200, 200] and record["body"] == "mine"


async def test_a_document_deleted_meanwhile_is_404(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    [name] = await insert_notes(ctx, {"title": "gone"})
    results = await asyncio.gather(client.delete(f"{NOTE}/{name}", headers=admin.token),
                                   *(client.put(f"{NOTE}/{name}", json={"count": n}, headers=admin.token)
                                     for n in range(5)))
    assert results[0].status_code == 202
    assert {r.status_code for r in results[1:]} <= {200, 404}
    assert await ctx.db.collection("test_note").count_documents({"_id": name}) == 0
