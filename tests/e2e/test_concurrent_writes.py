"""Issue 16 point 1 / issue 17 point 4 against real processes: 32 concurrent writers that send no
`modified`, over HTTP to `fw serve --workers 2`, on one document and on 10, through the v1 PUT,
`fw.client.set_value` and the v2 PATCH: no error, and every field each writer set is stored. Two
server processes means saves of one document from different processes race between read and
write, the case the per-process turns cannot cover and the re-run must."""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import httpx
import pymongo
import pytest

from tests.e2e.conftest import FwServer, FwServerFactory, login

WRITERS = 32
FIELDS = [f"w{i}" for i in range(WRITERS)]
NOTE = "/api/resource/Test Note"


def _prepare(server: FwServer) -> tuple[dict[str, str], list[str]]:
    """An API key, one Int Custom Field per writer on Test Note, and 10 notes."""
    with login(server.url) as admin:
        keys = admin.post("/api/method/fw.core.doctype.user.user.generate_keys", data={"user": "Administrator"})
        message = keys.json()["message"]
        for field in FIELDS:
            r = admin.post("/api/resource/Custom Field",
                           json={"dt": "Test Note", "fieldname": field, "fieldtype": "Int", "label": field})
            assert r.status_code == 200, r.text
        names = [admin.post(NOTE, json={"title": f"busy {n}"}).json()["data"]["name"] for n in range(10)]
    token = {"Authorization": f"token {message['api_key']}:{message['api_secret']}"}
    _wait_until_every_process_knows_the_fields(server, token)
    return token, names


def _wait_until_every_process_knows_the_fields(server: FwServer, token: dict[str, str]) -> None:
    """Each worker process notices the new Custom Fields within FW_META_CHECK_INTERVAL of its next
    request: ask on fresh connections (each may reach either process) until 20 in a row know them."""
    deadline = time.monotonic() + 60
    in_a_row = 0
    while in_a_row < 20:
        assert time.monotonic() < deadline, "a server process never saw the new Custom Fields"
        with httpx.Client(base_url=server.url, headers={**token, "Connection": "close"}, timeout=15) as c:
            r = c.get(NOTE, params={"fields": f'["{FIELDS[-1]}"]', "limit": 1})
        in_a_row = in_a_row + 1 if r.status_code == 200 else 0
        if r.status_code != 200:
            time.sleep(0.2)


async def _race(url: str, token: dict[str, str], names: list[str], rounds: int) -> Counter[int]:
    statuses: Counter[int] = Counter()
    limits = httpx.Limits(max_connections=WRITERS, max_keepalive_connections=WRITERS)
    async with httpx.AsyncClient(base_url=url, headers=token, timeout=60.0, limits=limits) as client:

        async def writer(i: int) -> None:
            field = FIELDS[i]
            for value in range(1, rounds + 1):
                for k in range(len(names)):
                    name = names[(i + k) % len(names)]
                    if i % 3 == 0:
                        r = await client.put(f"{NOTE}/{name}", json={field: value})
                    elif i % 3 == 1:
                        r = await client.post("/api/method/fw.client.set_value", json={
                            "doctype": "Test Note", "name": name, "fieldname": field, "value": value})
                    else:
                        r = await client.patch(f"/api/v2/document/Test Note/{name}", json={field: value})
                    statuses[r.status_code] += 1
                    assert r.status_code == 200, r.text[:500]

        await asyncio.gather(*(writer(i) for i in range(WRITERS)))
    return statuses


@pytest.mark.parametrize(("documents", "rounds"), [(1, 3), (10, 1)])
def test_32_writers_on_two_processes_lose_nothing(fw_servers: FwServerFactory, documents: int, rounds: int) -> None:
    server = fw_servers.start(workers=2)
    token, names = _prepare(server)
    names = names[:documents]
    statuses = asyncio.run(_race(server.url, token, names, rounds))
    assert statuses == Counter({200: WRITERS * documents * rounds})
    client: pymongo.MongoClient[dict[str, object]] = pymongo.MongoClient(fw_servers.mongo_url)
    try:
        notes = client[fw_servers.db_name]["test_note"]
        for name in names:
            record = notes.find_one({"_id": name})
            assert record is not None
            assert {f: record.get(f) for f in FIELDS} == dict.fromkeys(FIELDS, rounds), name
    finally:
        client.close()
