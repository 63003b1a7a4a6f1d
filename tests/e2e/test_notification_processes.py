"""A Notification through real processes: `fw serve` (whose relay queues the jobs) and `fw worker`
on a private redis-server, on a site whose only doctype of its own is a drop-in one (no app, so no
hook follows its writes: a firing save carries its job in the document's own record).

The save is made while Redis is stopped: the request answers as usual, its record carries the job
(nothing in the job outbox), and once Redis is back the relay queues it and the worker writes the
Notification Log, exactly once.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pymongo
import pytest

from engine.jobs.outbox import COLLECTION as OUTBOX
from engine.jobs.payload import CARRIED
from engine.meta.schema import collection_name
from engine.mongod import embedded
from tests.e2e.conftest import FwProcess, FwServer, FwServerFactory, login
from tests.support.redis_server import RedisServer

CRATE = "E2E Crate"
READY = "fw worker listening on"


def drop_in_site(root: Path) -> Path:
    """A site folder with no app and one drop-in doctype (business.md §7)."""
    (root / "doctype_json").mkdir(parents=True)
    (root / "apps.txt").write_text("")
    (root / "doctype_json" / "e2e_crate.json").write_text(json.dumps({
        "doctype": "DocType", "name": CRATE, "module": "E2E", "custom": 1, "autoname": "hash",
        "fields": [{"fieldname": "title", "fieldtype": "Data", "reqd": 1},
                   {"fieldname": "user", "fieldtype": "Data"}],
        "permissions": [{"role": "System Manager", "read": 1, "write": 1, "create": 1, "delete": 1}]}))
    return root


@pytest.fixture
def processes(mongod: embedded.EmbeddedMongo, own_redis: RedisServer,
              tmp_path: Path) -> Iterator[tuple[FwServerFactory, FwServer, FwProcess]]:
    factory = FwServerFactory(mongod.url, f"fw_e2e_notify_{secrets.token_hex(4)}", tmp_path)
    env = {"FW_ROOT_DIR": str(drop_in_site(tmp_path / "site")), "FW_REDIS_URL": own_redis.url}
    try:
        server = factory.start(env=env)
        worker = factory.spawn("worker", "--queue", "short", env=env)
        worker.wait_for_log(READY)
        yield factory, server, worker
    finally:
        try:
            factory.stop_all()
        finally:
            factory.drop_database()


def logs_of(client: httpx.Client, name: str) -> list[dict[str, Any]]:
    r = client.get("/api/resource/Notification Log", params={
        "filters": json.dumps([["document_name", "=", name]]), "fields": json.dumps(["subject", "for_user"])})
    assert r.status_code == 200, r.text
    return list(r.json()["data"])


def test_a_save_while_redis_is_away_notifies_once_redis_is_back(
        processes: tuple[FwServerFactory, FwServer, FwProcess], own_redis: RedisServer) -> None:
    factory, server, worker = processes
    with login(server.url) as admin:
        r = admin.post("/api/resource/Notification", json={
            "name": "New crate", "document_type": CRATE, "channel": "System Notification", "event": "New",
            "condition": 'doc.title != "quiet"', "subject": "Crate {{ doc.title }}",
            "recipients": [{"receiver_by_document_field": "user"}]})
        assert r.status_code == 200, r.text
        own_redis.stop()
        r = admin.post(f"/api/resource/{CRATE}", json={"title": "in an outage", "user": "Administrator"})
        assert r.status_code == 200, r.text  # the save asks nothing of Redis
        name = r.json()["data"]["name"]
        mongo: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(factory.mongo_url)
        try:
            database = mongo[factory.db_name]
            crates = database[collection_name(CRATE)]
            record = crates.find_one({"_id": name})
            assert record is not None and len(record[CARRIED]) == 1  # the job rides in the document's own record
            assert database[OUTBOX].count_documents({}) == 0
            own_redis.restart()
            deadline = time.monotonic() + 60  # (the relay backs off while Redis is away: up to 30 s)
            while not (found := logs_of(admin, name)):
                assert time.monotonic() < deadline, worker.log()[-4000:] + server.log()[-4000:]
                time.sleep(0.2)
            assert found == [{"subject": "Crate in an outage", "for_user": "Administrator"}]
            time.sleep(1.5)  # a relay's next look, a second push: still one
            assert len(logs_of(admin, name)) == 1
            record = crates.find_one({"_id": name})
            assert record is not None and CARRIED not in record  # taken off by the relay
        finally:
            mongo.close()
