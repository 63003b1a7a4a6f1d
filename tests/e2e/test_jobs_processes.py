"""Background jobs and the scheduler with real processes: `fw serve`, `fw worker`, `fw scheduler`
and `fw execute` on one database and a private redis-server.

A module-wide `fw serve` (with FW_REDIS_URL) migrates the database and answers the HTTP calls; a
module-wide `fw worker --queue long,default` runs the jobs of the tests that do not start their
own workers. Tests that stop or kill workers use queues of their own (FW_JOB_QUEUE_TIMEOUTS
declares them), so the shared worker never takes their jobs.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import signal
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine.apps.registry import AppRegistry
from engine.jobs import queue
from engine.jobs.payload import JobPayload
from engine.jobs.worker import LEASE_GRACE
from engine.mongod import embedded
from engine.query.listing import get_all
from engine.site import Site
from engine.wiring import open_site
from tests.conftest import make_settings
from tests.e2e.conftest import FwProcess, FwServer, FwServerFactory, free_port, login
from tests.support.redis_server import RedisServer

EXTRA_QUEUES = {"share": 300, "term": 300, "kill": 300, "short": 45}
STATUS = "/api/method/fw.utils.background_jobs.get_job_status"
ENQUEUE = "/api/method/fwtest.api.enqueue_job"
CRON_TYPE = "fwtest.jobs.scheduled_note (* * * * *)"
READY = "fw worker listening on"
JOB_TIMEOUT = 6  # s: the killed jobs' own; the kill comes a second in, long before the job could time out


@dataclass
class JobsEnv:
    factory: FwServerFactory
    server: FwServer
    redis: RedisServer
    env: dict[str, str]

    def worker(self, queues: str, *extra: str) -> FwProcess:
        process = self.factory.spawn("worker", "--queue", queues, *extra, env=self.env)
        process.wait_for_log(READY)
        return process


@pytest.fixture(scope="module")
def jobs_env(mongod: embedded.EmbeddedMongo, redis_server: RedisServer,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[JobsEnv]:
    factory = FwServerFactory(mongod.url, f"fw_e2e_jobs_{secrets.token_hex(4)}", tmp_path_factory.mktemp("fw-jobs"))
    env = {"FW_REDIS_URL": redis_server.url, "FW_JOB_QUEUE_TIMEOUTS": json.dumps(EXTRA_QUEUES)}
    try:
        server = factory.start(env=env)
        yield JobsEnv(factory, server, redis_server, env)
    finally:
        try:
            factory.stop_all()
        finally:
            factory.drop_database()


@pytest.fixture(scope="module")
def shared_worker(jobs_env: JobsEnv) -> Iterator[FwProcess]:
    worker = jobs_env.worker("long,default")
    yield worker
    assert worker.stop() == 0, worker.log()[-4000:]


@pytest.fixture(scope="module")
async def jsite(jobs_env: JobsEnv, registry: AppRegistry) -> AsyncIterator[Site]:
    """The test process's own handle on the same site: enqueues through Redis like any process."""
    settings = make_settings(mongo_url=jobs_env.factory.mongo_url, db_name=jobs_env.factory.db_name,
                             redis_url=jobs_env.redis.url, job_queue_timeouts=EXTRA_QUEUES)
    site = await open_site(settings, registry)
    assert isinstance(queue.backend_for(site), queue.ArqBackend)
    yield site
    await site.close()


@pytest.fixture
def admin(jobs_env: JobsEnv) -> Iterator[httpx.Client]:
    with login(jobs_env.server.url) as client:
        yield client


def unique(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(3)}"


async def notes(site: Site, title: str | None = None, like: str | None = None) -> list[dict[str, Any]]:
    filters: list[Any] = []
    if title is not None:
        filters.append(["title", "=", title])
    if like is not None:
        filters.append(["title", "like", like])
    return await get_all(site.context(), "Test Note", filters=filters, fields=["name", "title", "body"])


async def wait_status(site: Site, job_id: str, want: set[str], timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    state = None
    while time.monotonic() < deadline:
        state = await queue.job_status(site, job_id)
        if state in want:
            return state
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} still {state!r} after {timeout}s (wanted {want})")


def http_status(client: httpx.Client, job_id: str, timeout: float = 20.0,
                want: tuple[str, ...] = ("finished", "failed")) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    body: dict[str, Any] = {}
    while time.monotonic() < deadline:
        r = client.get(STATUS, params={"job_id": job_id})
        assert r.status_code == 200, r.text
        body = r.json()["message"]
        if body["status"] in want:
            return body
        time.sleep(0.05)
    raise AssertionError(f"job {job_id}: {body} after {timeout}s")


def enqueue_http(client: httpx.Client, fn: str, **params: Any) -> httpx.Response:
    return client.post(ENQUEUE, json={"fn": fn, **params})


def make_user(admin: httpx.Client, email: str, language: str | None = None) -> None:
    body: dict[str, Any] = {"email": email, "first_name": "Job", "new_password": "Job-Pass-1234"}
    if language:
        body["language"] = language
    r = admin.post("/api/resource/User", json=body)
    assert r.status_code in (200, 409), r.text


# -- the worker ---------------------------------------------------------------------------------


async def test_worker_runs_jobs_in_the_enqueuing_users_context(jobs_env: JobsEnv, shared_worker: FwProcess,
                                                               admin: httpx.Client, jsite: Site) -> None:
    make_user(admin, "jobuser@example.com", language="de")
    with login(jobs_env.server.url, "jobuser@example.com", "Job-Pass-1234") as user:
        key = unique("ctx")
        r = enqueue_http(user, "marker", kwargs={"key": key}, on_success="fwtest.jobs.mark_callback")
        assert r.status_code == 200, r.text
        user_job = r.json()["message"]
        assert user_job.startswith(f"{jobs_env.factory.db_name}::")
        long_key = unique("long")
        long_job = enqueue_http(admin, "marker", queue="long", kwargs={"key": long_key}).json()["message"]
        doomed = unique("doomed")
        failing = enqueue_http(admin, "create_then_fail", kwargs={"title": doomed},
                               on_failure="fwtest.jobs.mark_callback").json()["message"]
        later_key, written = unique("after-commit"), unique("written-with-it")
        r = enqueue_http(admin, "marker", kwargs={"key": later_key}, after_commit=True, write_first=written)
        later = r.json()["message"]

        assert http_status(user, user_job)["status"] == "finished"
        assert http_status(admin, long_job)["status"] == "finished"
        assert http_status(admin, failing)["status"] == "failed"
        assert http_status(admin, later)["status"] == "finished"
        # only the enqueuing user (or a System Manager) may see a job's status
        r = user.get(STATUS, params={"job_id": long_job})
        assert r.status_code == 403, r.text
        r = admin.get(STATUS, params={"job_id": user_job})
        assert r.status_code == 200 and r.json()["message"]["status"] == "finished"
        r = admin.get(STATUS, params={"job_id": "no-such-job"})
        assert r.status_code == 404, r.text

    [note] = await notes(jsite, key)
    assert note["body"].startswith("user=jobuser@example.com lang=de pid=")
    assert f"pid={shared_worker.pid}" in note["body"]  # ran in the worker process, not in the server
    assert len(await notes(jsite, f"callback:{note['name']}")) == 1  # on_success ran, in the worker
    [long_note] = await notes(jsite, long_key)
    assert long_note["body"].startswith("user=Administrator lang=en")
    assert await notes(jsite, doomed) == []  # the failing job's write was rolled back ...
    errors = await get_all(jsite.context(), "Error Log", filters={"method": "fwtest.jobs.create_then_fail"},
                           pluck="error")
    assert any(f"job refused {doomed}" in e for e in errors)  # ... and its Error Log kept
    assert len(await notes(jsite, f"callback:job refused {doomed}")) == 1  # on_failure ran, in the worker
    assert len(await notes(jsite, later_key)) == 1 and len(await notes(jsite, written)) == 1


async def test_bad_enqueues_fail_at_enqueue_time(jobs_env: JobsEnv, admin: httpx.Client, jsite: Site) -> None:
    r = enqueue_http(admin, "no_such_function", write_first=unique("never"))
    assert r.status_code == 417, r.text
    assert "no function" in r.json()["exception"]
    r = enqueue_http(admin, "marker", queue="nowhere", kwargs={"key": "x"})
    assert r.status_code == 417 and "Unknown queue" in r.text, r.text
    r = enqueue_http(admin, "marker", kwargs={"key": "x"}, deduplicate=True)
    assert r.status_code == 417 and "job_id" in r.text, r.text
    assert await notes(jsite, like="never-%") == []


async def test_timeout_stops_the_job_and_records_it_failed(shared_worker: FwProcess, jsite: Site) -> None:
    ctx = jsite.context()
    key = unique("slow")
    started = time.monotonic()
    job_id = await queue.enqueue(ctx, "fwtest.jobs.marker", key=key, seconds=30, timeout=1)
    assert await wait_status(jsite, job_id, {"finished", "failed"}) == "failed"
    assert time.monotonic() - started < 10
    assert await notes(jsite, key) == []
    errors = await get_all(ctx, "Error Log", filters={"method": "fwtest.jobs.marker"}, pluck="error")
    assert any("ran past its timeout of 1 s" in e for e in errors), errors


async def test_queue_default_timeouts_and_settings_overrides(jsite: Site) -> None:
    """short/default/long default to 300/300/1500 s; FW_JOB_QUEUE_TIMEOUTS and `timeout=` override."""
    ctx = jsite.context()
    backend = queue.backend_for(jsite)
    assert isinstance(backend, queue.ArqBackend)
    ids = {
        "long": await queue.enqueue(ctx, "fwtest.jobs.noop", queue="long", job_id=unique("t-long")),
        "default": await queue.enqueue(ctx, "fwtest.jobs.noop", queue="default", job_id=unique("t-default")),
        "short": await queue.enqueue(ctx, "fwtest.jobs.noop", queue="short", job_id=unique("t-short")),
        "explicit": await queue.enqueue(ctx, "fwtest.jobs.noop", queue="long", timeout=12, job_id=unique("t-x")),
    }
    timeouts = {}
    for label, job_id in ids.items():
        # the shared worker may run the job meanwhile: the payload is read queued or finished, atomically
        payload = await backend.payload(job_id)
        assert payload is not None, label
        timeouts[label] = payload["timeout"]
    assert timeouts == {"long": 1500, "default": 300, "short": 45, "explicit": 12}  # short: from the settings


async def test_two_workers_share_a_queue_and_run_each_job_once(jobs_env: JobsEnv, jsite: Site) -> None:
    first, second = jobs_env.worker("share"), jobs_env.worker("share")
    ctx = jsite.context()
    prefix = unique("share")
    ids = [await queue.enqueue(ctx, "fwtest.jobs.marker", queue="share", key=f"{prefix}-{i}", seconds=0.3)
           for i in range(30)]
    for job_id in ids:
        assert await wait_status(jsite, job_id, {"finished", "failed"}) == "finished"
    rows = await notes(jsite, like=f"{prefix}-%")
    assert sorted(r["title"] for r in rows) == sorted(f"{prefix}-{i}" for i in range(30))  # each exactly once
    pids = {re.search(r"pid=(\d+)", r["body"]).group(1) for r in rows}  # type: ignore[union-attr]
    assert pids == {str(first.pid), str(second.pid)}  # both workers took jobs
    assert first.stop() == 0 and second.stop() == 0


async def test_sigterm_lets_the_running_job_finish_and_commit(jobs_env: JobsEnv, jsite: Site) -> None:
    worker = jobs_env.worker("term")
    ctx = jsite.context()
    key = unique("term")
    job_id = await queue.enqueue(ctx, "fwtest.jobs.marker", queue="term", key=key, seconds=2)
    await wait_status(jsite, job_id, {"started"})
    signalled = time.monotonic()
    worker.proc.send_signal(signal.SIGTERM)
    await asyncio.sleep(0.3)
    later = await queue.enqueue(ctx, "fwtest.jobs.marker", queue="term", key=unique("after-term"))
    assert await asyncio.to_thread(worker.wait) == 0, worker.log()[-4000:]
    assert time.monotonic() - signalled > 1.2  # it waited for the job
    assert await queue.job_status(jsite, job_id) == "finished"
    assert len(await notes(jsite, key)) == 1  # committed before the process exited
    assert await queue.job_status(jsite, later) == "queued"  # a stopping worker takes no new job
    assert "fw worker stopped" in worker.log()


async def kill_mid_job(jsite: Site, worker: FwProcess, job_id: str, gate: Path, timeout: float) -> None:
    """SIGKILL `worker` in the middle of its job, at a moment the test chooses whatever the machine's
    speed: the job (`fwtest.jobs.gated_marker`) has said it started and waits for its gate, and the
    worker has shortened the claim lease to the job's own (timeout + grace), so that another worker
    takes the job over within seconds rather than after the claim lease's minute."""
    deadline = time.monotonic() + 60
    while not (gate / f"started.{worker.pid}").exists():
        assert time.monotonic() < deadline, worker.log()[-4000:]
        await asyncio.sleep(0.02)
    pool = await queue.backend_for(jsite).pool()  # type: ignore[attr-defined]
    lease_key = f"{queue.IN_PROGRESS_PREFIX}{job_id}"
    while not 0 < await pool.pttl(lease_key) <= (timeout + LEASE_GRACE) * 1000:
        assert time.monotonic() < deadline, worker.log()[-4000:]
        await asyncio.sleep(0.02)
    worker.kill()  # SIGKILL mid-job: no cleanup, the lease stays behind in Redis
    assert worker.exit_code == -signal.SIGKILL


async def test_a_killed_workers_job_runs_again_and_never_vanishes(jobs_env: JobsEnv, jsite: Site,
                                                                  tmp_path: Path) -> None:
    doomed_worker = jobs_env.worker("kill")
    ctx = jsite.context()
    key = unique("killed")
    job_id = await queue.enqueue(ctx, "fwtest.jobs.gated_marker", queue="kill", key=key, gate=str(tmp_path),
                                 timeout=JOB_TIMEOUT)
    await kill_mid_job(jsite, doomed_worker, job_id, tmp_path, timeout=JOB_TIMEOUT)
    (tmp_path / "open").touch()  # the next run goes straight through
    seen = [await queue.job_status(jsite, job_id)]  # the dead worker's lease still holds
    rescuing = asyncio.create_task(asyncio.to_thread(jobs_env.worker, "kill"))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = await queue.job_status(jsite, job_id)
        seen.append(state)
        assert state is not None, seen  # never vanishes, not even while the rescuer finishes it
        if state in ("finished", "failed"):
            break
        await asyncio.sleep(0.01)
    rescuer = await rescuing
    assert seen[0] == "started" and seen[-1] == "finished", seen
    assert set(seen) <= {"started", "queued", "finished"}, seen  # queued again once the lease ran out
    rows = await notes(jsite, key)
    assert len(rows) == 1  # the killed run wrote nothing
    assert f"pid={rescuer.pid}" in rows[0]["body"]
    assert "try=2" in rescuer.log()
    assert rescuer.stop() == 0


async def test_a_killed_scheduled_run_is_logged_failed_when_its_retry_starts(jobs_env: JobsEnv, jsite: Site,
                                                                          tmp_path: Path) -> None:
    doomed_worker = jobs_env.worker("kill")
    key = unique("killed-scheduled")
    due = datetime.now().strftime("%Y-%m-%d %H:%M:00")
    payload = JobPayload(site=jsite.name, user="Administrator", lang="en", method="fwtest.jobs.gated_marker",
                         kwargs={"key": key, "gate": str(tmp_path)}, queue="kill", timeout=JOB_TIMEOUT,
                         job_id=f"{jsite.name}::scheduled::{CRON_TYPE}::{key}", job_name=CRON_TYPE,
                         scheduled_job_type=CRON_TYPE, scheduled_due=due)  # as the scheduler queues a run
    assert await queue.backend_for(jsite).submit(payload, at_front=False)

    async def log_rows() -> list[tuple[Any, ...]]:
        found = await get_all(jsite.context(), "Scheduled Job Log", filters={"job_id": payload.job_id},
                              fields=["attempt", "status", "details"], order_by="attempt asc")
        return [(r["attempt"], r["status"], r["details"]) for r in found]

    await kill_mid_job(jsite, doomed_worker, payload.job_id, tmp_path, timeout=JOB_TIMEOUT)
    assert await log_rows() == [(1, "Start", None)]  # the killed run can say nothing more
    (tmp_path / "open").touch()
    rescuer = jobs_env.worker("kill")
    assert await wait_status(jsite, payload.job_id, {"finished", "failed"}, timeout=60) == "finished"
    assert await log_rows() == [
        (1, "Failed", "The worker running this job stopped before it finished (attempt 1); "
                      "it was retried as attempt 2."),
        (2, "Complete", None)]
    assert rescuer.stop() == 0


async def test_worker_command_errors(jobs_env: JobsEnv) -> None:
    no_redis = jobs_env.factory.spawn("worker", "--queue", "default")  # the factory env has no FW_REDIS_URL
    assert no_redis.wait() == 2
    assert "needs FW_REDIS_URL" in no_redis.log()
    unknown = jobs_env.factory.spawn("worker", "--queue", "default,nowhere", env=jobs_env.env)
    assert unknown.wait() == 2
    assert "unknown queue 'nowhere'" in unknown.log()


# -- without Redis, and with Redis down -------------------------------------------------------------


async def test_without_redis_jobs_run_inside_fw_serve(jobs_env: JobsEnv, jsite: Site) -> None:
    server = jobs_env.factory.start()  # no FW_REDIS_URL
    with login(server.url) as client:
        key = unique("inproc")
        r = enqueue_http(client, "marker", kwargs={"key": key})
        assert r.status_code == 200, r.text
        job_id = r.json()["message"]
        assert http_status(client, job_id)["status"] == "finished"
        pid = client.get("/api/method/fwtest.api.server_pid").json()["message"]
        make_user(client, "jobuser@example.com", language="de")
    with login(server.url, "jobuser@example.com", "Job-Pass-1234") as other:
        r = other.get(STATUS, params={"job_id": job_id})
        assert r.status_code == 403, r.text  # in-process jobs know their owner too
    [note] = await notes(jsite, key)
    assert f"pid={pid}" in note["body"]  # the server process itself ran it
    assert server.stop() == 0


async def test_redis_down_enqueue_answers_503_and_rolls_back(jobs_env: JobsEnv, jsite: Site) -> None:
    """An enqueue that cannot wait for the commit, with Redis down: 503 with Retry-After, at once, and the
    request's write rolled back (tests/e2e/test_outage.py: what waits for the commit survives)."""
    server = jobs_env.factory.start(env={"FW_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"})
    with login(server.url) as client:
        title = unique("before-redis-down")
        started = time.monotonic()
        r = enqueue_http(client, "marker", kwargs={"key": "x"}, write_first=title)
        assert time.monotonic() - started < 5  # no long retry loop inside the request
        assert r.status_code == 503, r.text
        assert int(r.headers["Retry-After"]) > 0
        body = r.json()
        assert body["exc_type"] == "JobQueueUnavailableError"
        assert "Redis" in body["exception"]
    assert await notes(jsite, title) == []  # the request's write was rolled back
    assert server.stop() == 0


# -- the scheduler ----------------------------------------------------------------------------------


async def _wait_notes(site: Site, title: str, count: int, timeout: float = 20.0) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    rows: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        rows = await notes(site, title)
        if len(rows) >= count:
            return rows
        await asyncio.sleep(0.1)
    raise AssertionError(f"{len(rows)} notes {title!r} after {timeout}s, wanted {count}")


async def test_two_schedulers_fire_a_due_time_exactly_once(jobs_env: JobsEnv, shared_worker: FwProcess,
                                                           jsite: Site) -> None:
    coll = jsite.db.collection("scheduled_job_type")
    row = await coll.find_one({"_id": CRON_TYPE})
    assert row is not None and row["queue"] == "default"  # synced by `fw serve`'s migrate
    before = len(await notes(jsite, "scheduled"))
    logs_before = await jsite.db.collection("scheduled_job_log").count_documents({"scheduled_job_type": CRON_TYPE})
    if datetime.now().second >= 50:  # both must tick inside one minute (the cron entry is due each minute)
        await asyncio.sleep(61 - datetime.now().second)
    await coll.update_one({"_id": CRON_TYPE}, {"$set": {"_last_due": "2000-01-01 00:00:00"}})
    schedulers = [jobs_env.factory.spawn("scheduler", "--once", env=jobs_env.env) for _ in range(2)]
    for process in schedulers:
        assert await asyncio.to_thread(process.wait) == 0, process.log()[-4000:]
    logs = "".join(p.log() for p in schedulers)
    assert logs.count(f"scheduled {CRON_TYPE} for") == 1, logs  # one scheduler won the claim
    await _wait_notes(jsite, "scheduled", before + 1)
    await asyncio.sleep(1.0)  # had a second run been queued, the worker would have run it by now
    assert len(await notes(jsite, "scheduled")) == before + 1
    after = await coll.find_one({"_id": CRON_TYPE})
    assert after is not None
    assert after["_last_due"][:10] == datetime.now().strftime("%Y-%m-%d")  # claimed: the current due minute
    assert after["last_execution"] >= after["_last_due"]
    log_rows = await get_all(jsite.context(), "Scheduled Job Log", filters={"scheduled_job_type": CRON_TYPE},
                             fields=["status", "due_at"])
    assert len(log_rows) == logs_before + 1
    assert log_rows[0]["status"] == "Complete" and log_rows[0]["due_at"] == after["_last_due"]


async def test_fw_execute_runs_a_scheduled_function_by_hand(jobs_env: JobsEnv, jsite: Site) -> None:
    before = len(await notes(jsite, "scheduled"))
    process = jobs_env.factory.spawn("execute", "fwtest.jobs.scheduled_note", env=jobs_env.env)
    assert await asyncio.to_thread(process.wait) == 0, process.log()[-4000:]
    assert len(await notes(jsite, "scheduled")) == before + 1



async def test_scheduler_stops_cleanly_on_sigterm(jobs_env: JobsEnv, jsite: Site) -> None:
    coll = jsite.db.collection("scheduled_job_type")
    paused = await coll.distinct("_id", {"stopped": {"$ne": 1}})
    await coll.update_many({"_id": {"$in": paused}}, {"$set": {"stopped": 1}})  # this test runs no job
    try:
        process = jobs_env.factory.spawn("scheduler", env=jobs_env.env)
        process.wait_for_log("fw scheduler running")
        process.proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(process.wait, 10) == 0, process.log()[-4000:]
        assert "fw scheduler stopped" in process.log()
    finally:
        await coll.update_many({"_id": {"$in": paused}}, {"$set": {"stopped": 0}})
