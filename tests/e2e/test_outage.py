"""Outages with real processes: `fw serve`, `fw worker` and `fw scheduler` while their own `mongod`
is killed, or their own redis-server stopped, and started again.

- MongoDB down: a request answers 503 with Retry-After within the server-selection timeout, on a
  keep-alive connection that stays open, and works again once mongod is back.
- MongoDB killed in the middle of a `receive_data` batch: nothing of the batch is stored.
- Redis stopped under load: every request answers (job status 503 meanwhile), each committed
  request's job runs once Redis is back, and the worker and the scheduler are still running.

Each test has its own servers (the shared ones of the other e2e modules must not see an outage).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pymongo
import pytest

from engine.apps.registry import AppRegistry
from engine.context import unit_of_work
from engine.documents.bulk import insert_many
from engine.documents.factory import new_doc
from engine.mongod import embedded
from engine.query.listing import get_all
from engine.site import Site
from engine.wiring import open_site
from tests.conftest import make_settings
from tests.e2e.conftest import FwProcess, FwServer, FwServerFactory, login
from tests.support.redis_server import RedisServer, start_redis

SELECTION_TIMEOUT_MS = 2000
RECEIVE = "/api/method/workforce_scoring.api.external.receive_data"
ENQUEUE = "/api/method/fwtest.api.enqueue_job"
STATUS = "/api/method/fw.utils.background_jobs.get_job_status"


# -- a mongod of our own ------------------------------------------------------------------------------------


@dataclass
class OwnMongo:
    data_dir: Path
    server: embedded.EmbeddedMongo

    @property
    def url(self) -> str:
        return self.server.url

    def kill(self) -> None:
        """SIGKILL: no shutdown of any kind (what its journal holds is what survives)."""
        self.server.process.kill()
        self.server.stop()  # (reaps it and closes its stderr pipe)

    def restart(self) -> None:
        self.server = embedded.start(self.data_dir, durable=True, port=self.server.port)  # where fw looks

    def count(self, db_name: str, collection: str, query: dict[str, Any] | None = None) -> int:
        client: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(self.url, serverSelectionTimeoutMS=20_000)
        try:
            return client[db_name][collection].count_documents(query or {})
        finally:
            client.close()


@pytest.fixture(scope="module")
def own_mongo() -> Iterator[OwnMongo]:
    data_dir = Path(tempfile.mkdtemp(prefix="fw-outage-mongo-"))
    mongo = OwnMongo(data_dir, embedded.start(data_dir, durable=True))
    yield mongo
    mongo.server.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def mongo_server(own_mongo: OwnMongo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FwServer]:
    factory = FwServerFactory(own_mongo.url, f"fw_outage_{secrets.token_hex(4)}", tmp_path_factory.mktemp("fw-out"))
    env = {"FW_MONGO_SERVER_SELECTION_TIMEOUT_MS": str(SELECTION_TIMEOUT_MS),
           "FW_MAX_BODY_BYTES": str(20 * 1024 * 1024)}
    try:
        yield factory.start(env=env)
    finally:
        try:
            factory.stop_all()
        finally:
            if own_mongo.server.process.poll() is None:
                factory.drop_database()


@pytest.fixture
def mongo_back(own_mongo: OwnMongo) -> Iterator[None]:
    """Whatever the test did to mongod, it runs again afterwards."""
    yield
    if own_mongo.server.process.poll() is not None:
        own_mongo.restart()


def raw_get(conn: http.client.HTTPConnection, path: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()


def api_key(server: FwServer) -> dict[str, str]:
    with login(server.url) as client:
        r = client.post("/api/method/fw.core.doctype.user.user.generate_keys", data={"user": "Administrator"})
        assert r.status_code == 200, r.text
        keys = r.json()["message"]
    return {"Authorization": f"token {keys['api_key']}:{keys['api_secret']}"}


def test_mongod_down_answers_503_in_bounded_time_on_an_open_connection(
        own_mongo: OwnMongo, mongo_server: FwServer, mongo_back: None) -> None:
    headers = api_key(mongo_server)
    conn = http.client.HTTPConnection("127.0.0.1", mongo_server.port, timeout=60)
    path = "/api/resource/Test%20Note?limit_page_length=1"
    try:
        status, _headers, _body = raw_get(conn, path, headers)
        assert status == 200
        own_mongo.kill()
        for _ in range(2):  # twice on the same connection: the first 503 did not close it
            started = time.monotonic()
            status, answer, body = raw_get(conn, path, headers)
            elapsed = time.monotonic() - started
            assert status == 503, body[:2000]
            assert json.loads(body)["exc_type"] == "DatabaseUnavailableError"
            assert int(answer["retry-after"]) > 0
            assert answer.get("connection", "").lower() != "close"
            assert elapsed < SELECTION_TIMEOUT_MS / 1000 + 3.0, elapsed  # the selection timeout, not 10 s or more
        own_mongo.restart()
        conn.close()  # (idle past uvicorn's keep-alive timeout while mongod restarted: a new connection)
        deadline = time.monotonic() + 30
        while True:  # the driver finds the server again on its own
            status, _headers, body = raw_get(conn, path, headers)
            if status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert status == 200, body[:2000]
    finally:
        conn.close()
    assert " crashed" not in mongo_server.log()  # (what an unexpected error, a 500, logs)


# -- receive_data killed in the middle ----------------------------------------------------------------------


async def _employees(own_mongo: OwnMongo, server: FwServer, registry: AppRegistry, count: int) -> list[str]:
    """`count` active employees (bulk inserted) on the server's database; returns their codes."""
    settings = make_settings(mongo_url=own_mongo.url, db_name=server.db_name)
    site = await open_site(settings, registry)
    try:
        ctx = site.context()
        async with unit_of_work(ctx):
            await new_doc(ctx, "Company", company_name="Outage Freight").insert()
            await new_doc(ctx, "Branch", branch="Outage Hub", company="Outage Freight").insert()
        rows = [{"employee_name": f"Employee {i:05d}", "employee_number": f"O-{i:05d}", "status": "Active",
                 "company": "Outage Freight", "branch": "Outage Hub"} for i in range(count)]
        result = await insert_many(ctx, "Employee", rows)
        assert not result.failed, result.failed
        return [row["employee_number"] for row in rows]
    finally:
        await site.close()


def _insert_in_progress(own_mongo: OwnMongo) -> bool:
    client: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(own_mongo.url, directConnection=True)
    try:
        ops = list(client.admin.aggregate([{"$currentOp": {}}, {"$match": {"command.insert": "employee_score"}}]))
        return bool(ops)
    finally:
        client.close()


async def test_mongod_killed_mid_batch_stores_nothing_of_it(own_mongo: OwnMongo, mongo_server: FwServer,
                                                            registry: AppRegistry, mongo_back: None) -> None:
    codes = await _employees(own_mongo, mongo_server, registry, 1000)
    data = [{"employee_code": code, "date": f"2024-01-{day:02d}", "value": day} for day in range(1, 31)
            for code in codes]
    headers = api_key(mongo_server)
    outcome: dict[str, Any] = {}

    def deliver() -> None:
        try:
            with httpx.Client(timeout=120) as client:
                outcome["response"] = client.post(f"{mongo_server.url}{RECEIVE}", json={"data": data}, headers=headers)
        except httpx.HTTPError as e:
            outcome["error"] = e

    sender = threading.Thread(target=deliver)
    sender.start()
    deadline = time.monotonic() + 60
    while not _insert_in_progress(own_mongo):  # the batch's one insert command is running
        assert sender.is_alive(), f"the delivery ended before its insert was seen: {outcome}"
        assert time.monotonic() < deadline, "no insert into employee_score seen"
        time.sleep(0.005)
    time.sleep(0.3)  # well into it: the journal (flushed every 100 ms) would hold part of a non-atomic batch
    own_mongo.kill()
    sender.join(60)
    assert not sender.is_alive()
    response = outcome.get("response")
    assert response is not None, outcome
    own_mongo.restart()
    stored = own_mongo.count(mongo_server.db_name, "employee_score")
    assert (response.status_code, stored) == (503, 0), response.text[:2000]  # all or nothing: nothing
    assert response.json()["exc_type"] == "DatabaseUnavailableError"
    with httpx.Client(timeout=120) as client:  # the external system sends it again
        again = client.post(f"{mongo_server.url}{RECEIVE}", json={"data": data}, headers=headers)
    assert again.status_code == 200, again.text[:2000]
    assert again.json()["message"]["created"] == len(data)
    assert own_mongo.count(mongo_server.db_name, "employee_score") == len(data)


# -- Redis stopped under load -------------------------------------------------------------------------------


@dataclass
class RedisEnv:
    factory: FwServerFactory
    server: FwServer
    redis: RedisServer
    env: dict[str, str]


@pytest.fixture
def redis_env(mongod: embedded.EmbeddedMongo, tmp_path: Path) -> Iterator[RedisEnv]:
    redis = start_redis(persistent=True)  # production Redis keeps its queue across a restart (appendonly)
    factory = FwServerFactory(mongod.url, f"fw_outage_{secrets.token_hex(4)}", tmp_path)
    env = {"FW_REDIS_URL": redis.url, "FW_SCHEDULER_INTERVAL": "1"}
    try:
        yield RedisEnv(factory, factory.start(env=env), redis, env)
    finally:
        try:
            factory.stop_all()
        finally:
            factory.drop_database()
            redis.stop()


@pytest.fixture
async def rsite(redis_env: RedisEnv, registry: AppRegistry) -> AsyncIterator[Site]:
    settings = make_settings(mongo_url=redis_env.factory.mongo_url, db_name=redis_env.factory.db_name)
    site = await open_site(settings, registry)
    yield site
    await site.close()


@dataclass
class Sent:
    key: str
    status: int
    job_id: str | None
    during_outage: bool


def _load(client: httpx.Client, prefix: str, stop: threading.Event, outage: threading.Event,
          sent: list[Sent]) -> None:
    """Requests that write a note and enqueue a job after commit, until `stop`."""
    i = 0
    while not stop.is_set():
        key = f"{prefix}-{i}"
        i += 1
        during = outage.is_set()
        r = client.post(ENQUEUE, json={"fn": "marker", "kwargs": {"key": f"job:{key}"}, "after_commit": True,
                                       "write_first": f"req:{key}"})
        sent.append(Sent(key, r.status_code, r.json().get("message") if r.status_code == 200 else None,
                         during and outage.is_set()))
        time.sleep(0.02)


async def _titles(site: Site, prefix: str) -> list[str]:
    return await get_all(site.context(), "Test Note", filters=[["title", "like", f"%{prefix}%"]], pluck="title",
                         limit=0)


async def test_redis_stopped_under_load_loses_no_job_and_the_worker_comes_back(
        redis_env: RedisEnv, rsite: Site) -> None:
    worker: FwProcess = redis_env.factory.spawn("worker", "--queue", "default", env=redis_env.env)
    worker.wait_for_log("fw worker listening on")
    scheduler = redis_env.factory.spawn("scheduler", env=redis_env.env)
    scheduler.wait_for_log("fw scheduler running")
    prefix = f"load{secrets.token_hex(3)}"
    stop, outage = threading.Event(), threading.Event()
    sent: list[Sent] = []
    with login(redis_env.server.url) as client:
        loader = threading.Thread(target=_load, args=(client, prefix, stop, outage, sent))
        loader.start()
        try:
            await asyncio.sleep(2.0)
            before = [s for s in sent if s.job_id]
            assert before, "no request succeeded before the outage"
            redis_env.redis.stop()
            # marked only once Redis is down: a job pushed just before the stop can be running when Redis
            # goes away, and arq runs such a job again once it is back (at least once, as any queue does
            # for a run it never saw finish); the outbox's jobs are the ones that must run exactly once
            outage.set()
            await asyncio.sleep(1.0)
            with httpx.Client(base_url=redis_env.server.url, cookies=client.cookies, timeout=15) as side:
                status = side.get(STATUS, params={"job_id": before[0].job_id})
            assert status.status_code == 503, status.text
            assert status.json()["exc_type"] == "JobQueueUnavailableError" and int(status.headers["Retry-After"]) > 0
            await asyncio.sleep(3.0)
            redis_env.redis.restart()
            outage.clear()
            await asyncio.sleep(2.0)
        finally:
            stop.set()
            loader.join(30)
    assert not [s for s in sent if s.status != 200], [(s.key, s.status) for s in sent if s.status != 200][:5]
    during = [s for s in sent if s.during_outage]
    assert len(during) >= 10, len(during)  # requests kept answering while Redis was away
    deadline = time.monotonic() + 60
    while True:
        titles = await _titles(rsite, prefix)
        missing = [s.key for s in sent if f"job:{s.key}" not in titles]
        if not missing or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.5)
    assert not missing, f"{len(missing)} of {len(sent)} committed requests' jobs never ran: {missing[:5]}"
    assert sorted(t for t in titles if t.startswith("req:")) == sorted(f"req:{s.key}" for s in sent)
    ran = [t for t in titles if t.startswith("job:")]
    for s in during:  # relayed from the outbox after the outage: exactly once
        assert ran.count(f"job:{s.key}") == 1, s.key
    assert await rsite.db.collection("_fw_job_outbox").count_documents({}) == 0
    assert worker.running() and scheduler.running()
    assert "cannot reach Redis" in worker.log() and "reconnecting" in worker.log()
    assert worker.stop() == 0, worker.log()[-4000:]
    assert scheduler.stop() == 0, scheduler.log()[-4000:]


async def test_a_worker_started_while_redis_is_down_waits_for_it(redis_env: RedisEnv, rsite: Site) -> None:
    redis_env.redis.stop()
    worker = redis_env.factory.spawn("worker", "--queue", "default", env=redis_env.env)
    worker.wait_for_log("cannot reach Redis")
    assert worker.running()
    with login(redis_env.server.url) as client:
        key = f"late{secrets.token_hex(3)}"
        r = client.post(ENQUEUE, json={"fn": "marker", "kwargs": {"key": key}, "after_commit": True})
        assert r.status_code == 200, r.text
        redis_env.redis.restart()
        deadline = time.monotonic() + 60
        while not await _titles(rsite, key):
            assert time.monotonic() < deadline, worker.log()[-4000:]
            await asyncio.sleep(0.3)
    assert worker.stop() == 0, worker.log()[-4000:]
