"""Failover on a real 3-member replica set (three `mongod` from the wheel) under load: `fw serve
--workers 2` with its default settings, 8 clients creating naming-series documents.

- The primary stepped down (`replSetStepDown`): no request fails.
- The primary killed (SIGKILL): no 500, every acknowledged create is stored once under the name the
  client got, nothing a client saw fail is stored, names stay unique, and errors (503 with
  Retry-After, if any) last no longer than the election.

The election takes MongoDB's defaults (electionTimeoutMillis 10 s): fw's defaults must outlast it.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pymongo
import pytest

from tests.e2e.conftest import FwServer, FwServerFactory
from tests.e2e.test_outage import api_key
from tests.support.replica_set import ReplicaSet, start_replica_set

CLIENTS = 8
DOCTYPE_PATH = "/api/resource/Test Series"
COLLECTION = "test_series"


@pytest.fixture(scope="module")
def replica_set() -> Iterator[ReplicaSet]:
    root = Path(tempfile.mkdtemp(prefix="fw-failover-"))
    rs = start_replica_set(root)
    try:
        yield rs
    finally:
        rs.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def rs_server(replica_set: ReplicaSet, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FwServer]:
    factory = FwServerFactory(replica_set.url, f"fw_failover_{secrets.token_hex(4)}",
                              tmp_path_factory.mktemp("fw-failover"))
    try:
        # the defaults a user gets, apart from durability (on: a replica set's point)
        yield factory.start(workers=2, env={"FW_DURABLE_WRITES": "true"}, timeout=120)
    finally:
        factory.stop_all()
        with contextlib.suppress(Exception):
            factory.drop_database()


@dataclass
class Outcome:
    marker: str
    status: int  # 0: no HTTP answer (a transport error)
    name: str | None
    started: float
    ended: float
    retry_after: str | None
    body: str


class Load:
    """CLIENTS threads creating documents until stopped, each outcome recorded."""

    def __init__(self, server: FwServer, headers: dict[str, str]) -> None:
        self.server = server
        self.headers = headers
        self.outcomes: list[Outcome] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(n,), daemon=True) for n in range(CLIENTS)]

    def _run(self, n: int) -> None:
        with httpx.Client(base_url=self.server.url, headers=self.headers, timeout=60.0) as client:
            while not self._stop.is_set():
                marker = f"c{n}-{secrets.token_hex(6)}"
                started = time.monotonic()
                try:
                    r = client.post(DOCTYPE_PATH, json={"label": marker})
                    status, body = r.status_code, r.text
                    name = r.json()["data"]["name"] if status == 200 else None
                    retry_after = r.headers.get("retry-after")
                except httpx.TransportError as e:
                    status, body, name, retry_after = 0, repr(e), None, None
                with self._lock:
                    self.outcomes.append(Outcome(marker, status, name, started, time.monotonic(), retry_after, body))

    def __enter__(self) -> Load:
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(90)


def stored(rs: ReplicaSet, db_name: str) -> dict[str, list[str]]:
    """label (the client's marker) → names of the documents stored with it, read with majority."""
    client = rs.client(readConcernLevel="majority")
    try:
        found: dict[str, list[str]] = {}
        for doc in client[db_name][COLLECTION].find({}, {"label": 1}):
            found.setdefault(doc["label"], []).append(doc["_id"])
        return found
    finally:
        client.close()


def check_writes(outcomes: list[Outcome], found: dict[str, list[str]]) -> None:
    """0 lost, 0 ghost, unique names, no 500."""
    acknowledged = [o for o in outcomes if o.status == 200]
    failed = [o for o in outcomes if o.status != 200]
    assert not [o for o in failed if o.status >= 500 and o.status != 503], [vars(o) for o in failed][:5]
    assert all(o.retry_after for o in failed if o.status == 503), [vars(o) for o in failed][:5]
    lost = [o.marker for o in acknowledged if found.get(o.marker) != [o.name]]
    assert lost == [], f"acknowledged but not stored as answered: {lost[:5]}"
    ghosts = [o.marker for o in failed if o.marker in found]
    assert ghosts == [], f"answered as failed, yet stored: {ghosts[:5]}"
    names = [n for names in found.values() for n in names]
    assert len(names) == len(set(names))
    assert all(len(v) == 1 for v in found.values())


def test_a_stepped_down_primary_fails_no_request(replica_set: ReplicaSet, rs_server: FwServer) -> None:
    headers = api_key(rs_server)
    with Load(rs_server, headers) as load:
        time.sleep(2)
        primary = replica_set.wait_for_primary(10)
        direct: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(
            f"mongodb://127.0.0.1:{replica_set.ports[primary]}/?directConnection=true")
        try:
            direct.admin.command("replSetStepDown", 30, secondaryCatchUpPeriodSecs=10)
        finally:
            direct.close()
        replica_set.wait_for_primary(30, other_than=primary)
        time.sleep(3)
    outcomes = load.outcomes
    assert len(outcomes) > 50
    assert [o for o in outcomes if o.status != 200] == []
    check_writes(outcomes, stored(replica_set, rs_server.db_name))


def test_a_killed_primary_loses_nothing_and_errors_no_longer_than_the_election(
        replica_set: ReplicaSet, rs_server: FwServer) -> None:
    headers = api_key(rs_server)
    primary = replica_set.wait_for_primary(30)
    with Load(rs_server, headers) as load:
        time.sleep(2)
        killed_at = time.monotonic()
        replica_set.kill(primary)
        replica_set.wait_for_primary(60, other_than=primary)
        elected_at = time.monotonic()
        time.sleep(4)
    try:
        outcomes = load.outcomes
        after = [o for o in outcomes if o.started > elected_at + 1]
        assert after and all(o.status == 200 for o in after)  # serving again once a primary is there
        failed = [o for o in outcomes if o.status != 200]
        if failed:
            window = max(o.ended for o in failed) - min(o.started for o in failed)
            assert window <= elected_at - killed_at + 2.0, (window, elected_at - killed_at)
        check_writes(outcomes, stored(replica_set, rs_server.db_name))
        print(f"\nkill -9 of the primary: election {elected_at - killed_at:.1f} s, "
              f"{len(outcomes)} creates, {len(failed)} not acknowledged "
              f"({sorted({o.status for o in failed})}), longest request "
              f"{max(o.ended - o.started for o in outcomes):.1f} s")
    finally:
        replica_set.start_member(primary)  # back as a secondary for whatever runs next
