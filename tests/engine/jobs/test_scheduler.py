"""The scheduler with explicit clocks: Scheduled Job Types from the hooks, due times claimed exactly
once (also by two schedulers at the same instant), one run after downtime, pauses, hung runs that
block nothing, the long queue, cron expressions, and the Scheduled Job Log the runner writes.

The fixture app's hooks: `cron "* * * * *"` → scheduled_note, `hourly_long` → scheduled_long,
`daily` → scheduled_fail (raises).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from engine import db
from engine import exceptions as exc
from engine.apps.registry import AppRegistry, ScheduledEvent
from engine.jobs import job_log, queue, scheduler
from engine.jobs.payload import JobPayload
from engine.query.listing import get_all
from engine.site import Site
from tests.support.redis_server import RedisServer

CRON = "fwtest.jobs.scheduled_note (* * * * *)"
HOURLY_LONG = "fwtest.jobs.scheduled_long"
DAILY = "fwtest.jobs.scheduled_fail"
T0 = datetime(2024, 3, 4, 10, 0, 30)  # a Monday


class Recorder:
    """A job backend that only records what the scheduler queued."""

    def __init__(self) -> None:
        self.payloads: list[JobPayload] = []

    async def submit(self, payload: JobPayload, *, at_front: bool) -> bool:
        self.payloads.append(payload)
        return True

    async def status(self, job_id: str) -> str | None:
        return None

    async def close(self) -> None:
        return None

    def types(self) -> list[str | None]:
        return sorted(p.scheduled_job_type or "" for p in self.payloads)


class Broken(Recorder):
    async def submit(self, payload: JobPayload, *, at_front: bool) -> bool:
        raise exc.ConfigurationError("Redis is not reachable; the job was not queued")


@pytest.fixture(autouse=True)
def fwtest_events_only(site: Site) -> Iterator[None]:
    """Only the fixture app's scheduler_events: other installed apps' entries must not change counts."""
    full = site.apps
    site.apps = dataclasses.replace(full, scheduler_events=[e for e in full.scheduler_events if e.app == "fwtest"])
    yield
    site.apps = full


@pytest.fixture
def recorder(site: Site) -> Any:
    rec = Recorder()
    site._jobs_backend = rec  # type: ignore[attr-defined]
    yield rec
    site._jobs_backend = None  # type: ignore[attr-defined]


async def job_type(site: Site, name: str) -> dict[str, Any]:
    row = await site.db.collection("scheduled_job_type").find_one({"_id": name})
    assert row is not None, name
    return row


async def test_sync_creates_one_type_per_hook_entry_and_removes_stale_ones(site: Site) -> None:
    coll = site.db.collection("scheduled_job_type")
    await coll.insert_one({"_id": "gone.from.the.hooks", "method": "gone.from.the.hooks", "stopped": 0})
    names = await scheduler.sync_job_types(site, T0)
    assert sorted(names) == sorted([CRON, HOURLY_LONG, DAILY])
    assert sorted(await coll.distinct("_id")) == sorted(names)
    cron, hourly, daily = [await job_type(site, n) for n in (CRON, HOURLY_LONG, DAILY)]
    assert (cron["frequency"], cron["cron_format"], cron["queue"]) == ("Cron", "* * * * *", "default")
    assert (hourly["frequency"], hourly["cron_format"], hourly["queue"]) == ("Hourly Long", "0 * * * *", "long")
    assert (daily["frequency"], daily["cron_format"], daily["queue"]) == ("Daily", "0 0 * * *", "default")
    assert daily["next_execution"] == "2024-03-05 00:00:00"
    assert hourly["next_execution"] == "2024-03-04 11:00:00"
    assert cron["stopped"] == 0 and cron["method"] == "fwtest.jobs.scheduled_note"
    # the Scheduled Job Type is a readable document
    listed = await get_all(site.context("Administrator"), "Scheduled Job Type", fields=["name", "frequency"])
    assert {r["name"]: r["frequency"] for r in listed}[HOURLY_LONG] == "Hourly Long"
    # a second sync (every migrate) keeps the state: no due time is forgotten or invented
    await coll.update_one({"_id": CRON}, {"$set": {"stopped": 1, "_last_due": "2024-03-04 09:00:00"}})
    await scheduler.sync_job_types(site, T0 + timedelta(hours=5))
    again = await job_type(site, CRON)
    assert (again["stopped"], again["_last_due"]) == (1, "2024-03-04 09:00:00")


async def test_nothing_is_due_right_after_sync(site: Site, recorder: Recorder) -> None:
    await scheduler.sync_job_types(site, T0)
    assert await scheduler.tick(site, T0 + timedelta(seconds=20)) == []
    assert recorder.payloads == []


async def test_two_schedulers_ticking_at_once_enqueue_each_due_time_exactly_once(
        site: Site, settings: Any) -> None:
    other = Site(site.settings, db.connect(settings.mongo_url, site.name), site.apps)
    mine, theirs = Recorder(), Recorder()
    site._jobs_backend = mine  # type: ignore[attr-defined]
    other._jobs_backend = theirs  # type: ignore[attr-defined]
    try:
        await scheduler.sync_job_types(site, T0)
        rounds = 15
        for minute in range(1, rounds + 1):
            now = T0 + timedelta(minutes=minute)  # two clocks a second apart, in the same due minute
            a, b = await asyncio.gather(scheduler.tick(site, now), scheduler.tick(other, now + timedelta(seconds=1)))
            # the cron entry is due every minute: one scheduler enqueued it, the other did not
            assert sorted(map(len, (a, b))) == [0, 1], (minute, a, b)
            assert len(set(a + b)) == 1
        all_ids = [p.job_id for p in mine.payloads + theirs.payloads]
        assert len(all_ids) == rounds and len(set(all_ids)) == rounds  # one job per due minute
    finally:
        site._jobs_backend = None  # type: ignore[attr-defined]
        await other.db.close()


async def test_missed_ticks_after_downtime_run_once(site: Site, recorder: Recorder) -> None:
    await scheduler.sync_job_types(site, T0)
    # down from 10:00 until 15:20:10 — 320 minutely, 5 hourly due times were missed
    later = datetime(2024, 3, 4, 15, 20, 10)
    ids = await scheduler.tick(site, later)
    assert recorder.types() == sorted([CRON, HOURLY_LONG])  # once each; daily is not due until midnight
    assert len(ids) == 2
    by_type = {p.scheduled_job_type: p for p in recorder.payloads}
    assert by_type[CRON].scheduled_due == "2024-03-04 15:20:00"
    assert by_type[HOURLY_LONG].scheduled_due == "2024-03-04 15:00:00"
    assert await scheduler.tick(site, later + timedelta(seconds=30)) == []  # same minute: nothing new
    assert len(recorder.payloads) == 2
    # after midnight the daily entry is due once, and the cron entry once more
    ids = await scheduler.tick(site, datetime(2024, 3, 6, 0, 0, 5))
    assert len(ids) == 3
    assert sorted(p.scheduled_job_type or "" for p in recorder.payloads[2:]) == sorted([CRON, HOURLY_LONG, DAILY])


async def test_last_and_next_execution_are_set(site: Site, recorder: Recorder) -> None:
    await scheduler.sync_job_types(site, T0)
    await scheduler.tick(site, datetime(2024, 3, 4, 12, 7, 42))
    cron = await job_type(site, CRON)
    assert cron["last_execution"] == "2024-03-04 12:07:42"
    assert cron["next_execution"] == "2024-03-04 12:08:00"
    hourly = await job_type(site, HOURLY_LONG)
    assert hourly["last_execution"] == "2024-03-04 12:07:42"
    assert hourly["next_execution"] == "2024-03-04 13:00:00"
    daily = await job_type(site, DAILY)
    assert "last_execution" not in daily  # never ran


async def test_paused_types_do_not_run(site: Site, recorder: Recorder) -> None:
    await scheduler.sync_job_types(site, T0)
    coll = site.db.collection("scheduled_job_type")
    await coll.update_many({}, {"$set": {"stopped": 1}})
    assert await scheduler.tick(site, T0 + timedelta(hours=3)) == []
    assert recorder.payloads == []
    await coll.update_one({"_id": CRON}, {"$set": {"stopped": 0}})
    assert len(await scheduler.tick(site, T0 + timedelta(hours=3, minutes=1))) == 1
    assert recorder.types() == [CRON]


async def test_long_entries_go_to_the_long_queue_with_its_timeout(site: Site, recorder: Recorder) -> None:
    await scheduler.sync_job_types(site, T0)
    await scheduler.tick(site, T0 + timedelta(hours=1))
    by_type = {p.scheduled_job_type: p for p in recorder.payloads}
    assert (by_type[HOURLY_LONG].queue, by_type[HOURLY_LONG].timeout) == ("long", 1500)
    assert (by_type[CRON].queue, by_type[CRON].timeout) == ("default", 300)
    assert by_type[HOURLY_LONG].user == "Administrator"
    assert by_type[HOURLY_LONG].method == "fwtest.jobs.scheduled_long"
    # per-queue timeouts from settings (FW_JOB_QUEUE_TIMEOUTS)
    original = site.settings
    site.settings = original.model_copy(update={"job_queue_timeouts": {"long": 99, "default": 7}})
    try:
        await scheduler.tick(site, T0 + timedelta(hours=2))
    finally:
        site.settings = original
    by_type = {p.scheduled_job_type: p for p in recorder.payloads[2:]}
    assert (by_type[HOURLY_LONG].timeout, by_type[CRON].timeout) == (99, 7)


async def test_cron_expressions(site: Site, recorder: Recorder) -> None:
    await scheduler.sync_job_types(site, T0)
    coll = site.db.collection("scheduled_job_type")
    await coll.update_many({"_id": {"$ne": CRON}}, {"$set": {"stopped": 1}})
    await coll.update_one({"_id": CRON}, {"$set": {"cron_format": "*/15 9-17 * * 1-5",
                                                   "_last_due": "2024-03-04 10:00:00"}})
    monday = datetime(2024, 3, 4)
    fired = []
    for minute in range(10 * 60, 18 * 60 + 1):  # every minute from 10:00 to 18:00
        now = monday + timedelta(minutes=minute, seconds=3)
        if await scheduler.tick(site, now):
            fired.append(now.strftime("%H:%M"))
    expected = [f"{h:02d}:{m:02d}" for h in range(10, 18) for m in (0, 15, 30, 45)][1:]
    assert fired == expected
    # the weekend: nothing is due after Friday's last run until Monday 09:00
    await coll.update_one({"_id": CRON}, {"$set": {"_last_due": "2024-03-08 17:45:00"}})
    for day, hour in ((9, 12), (10, 23), (11, 8)):
        assert await scheduler.tick(site, datetime(2024, 3, day, hour, 59, 59)) == []
    assert len(await scheduler.tick(site, datetime(2024, 3, 11, 9, 0, 0))) == 1
    # the hook-level mapping of frequencies to cron strings
    settings = site.settings

    def expr(freq: str, cron: str | None = None) -> str:
        return scheduler.cron_expression(ScheduledEvent("app", freq, cron, "app.fn", lambda: None), settings)

    assert [expr(f) for f in ("hourly", "daily", "weekly", "monthly", "daily_long", "weekly_long")] == [
        "0 * * * *", "0 0 * * *", "0 0 * * 0", "0 0 1 * *", "0 0 * * *", "0 0 * * 0"]
    assert expr("all") == f"*/{settings.scheduler_all_minutes} * * * *"
    assert expr("cron", "5 4 * * sun") == "5 4 * * sun"


async def test_invalid_cron_in_hooks_is_a_configuration_error(site: Site, registry: AppRegistry) -> None:
    bad = dataclasses.replace(registry, scheduler_events=[
        ScheduledEvent("fwtest", "cron", "61 * * * *", "fwtest.jobs.scheduled_note", lambda: None)])
    broken = Site(site.settings, site.db, bad)
    with pytest.raises(exc.ConfigurationError, match="invalid cron expression"):
        await scheduler.sync_job_types(broken, T0)


async def test_a_hung_run_does_not_block_the_next_due_time(site: Site, redis_server: RedisServer) -> None:
    backend = queue.ArqBackend(site, redis_server.url)  # a real queue, and no worker: the run hangs
    site._jobs_backend = backend  # type: ignore[attr-defined]
    try:
        await scheduler.sync_job_types(site, T0)
        first = await scheduler.tick(site, T0 + timedelta(minutes=1))
        assert len(first) == 1 and await queue.job_status(site, first[0]) == "queued"
        # simulate a worker stuck in it: arq's in-progress lease is held
        pool = await backend.pool()
        await pool.set(f"{queue.IN_PROGRESS_PREFIX}{first[0]}", b"1", ex=60)
        assert await queue.job_status(site, first[0]) == "started"
        second = await scheduler.tick(site, T0 + timedelta(minutes=2))
        assert len(second) == 1 and second != first
        assert await queue.job_status(site, second[0]) == "queued"
    finally:
        await backend.close()
        site._jobs_backend = None  # type: ignore[attr-defined]


async def test_a_failed_enqueue_gives_the_due_time_back(site: Site) -> None:
    site._jobs_backend = Broken()  # type: ignore[attr-defined]
    try:
        await scheduler.sync_job_types(site, T0)
        assert await scheduler.tick(site, T0 + timedelta(minutes=1)) == []
        assert (await job_type(site, CRON))["_last_due"] == "2024-03-04 10:00:00"
    finally:
        site._jobs_backend = None  # type: ignore[attr-defined]
    rec = Recorder()
    site._jobs_backend = rec  # type: ignore[attr-defined]
    try:
        assert len(await scheduler.tick(site, T0 + timedelta(minutes=1, seconds=20))) == 1  # retried
        assert rec.payloads[0].scheduled_due == "2024-03-04 10:01:00"
    finally:
        site._jobs_backend = None  # type: ignore[attr-defined]


async def test_runner_writes_the_scheduled_job_log(site: Site) -> None:
    backend = queue.InProcessBackend(site)
    site._jobs_backend = backend  # type: ignore[attr-defined]
    ctx = site.context("Administrator")
    try:
        await scheduler.sync_job_types(site, T0)
        await scheduler.tick(site, datetime(2024, 3, 5, 0, 0, 5))  # cron, hourly_long and daily are due
        await backend.drain()
    finally:
        site._jobs_backend = None  # type: ignore[attr-defined]
    titles = sorted(await get_all(ctx, "Test Note", pluck="title"))
    assert titles == ["scheduled", "scheduled long"]  # the failing daily job's note was rolled back
    logs = await get_all(ctx, "Scheduled Job Log", fields=["scheduled_job_type", "status", "details", "due_at",
                                                           "started_at", "finished_at"])
    by_type = {r["scheduled_job_type"]: r for r in logs}
    assert len(logs) == 3
    assert by_type[CRON]["status"] == "Complete" and by_type[HOURLY_LONG]["status"] == "Complete"
    assert by_type[CRON]["due_at"] == "2024-03-05 00:00:00"
    assert by_type[CRON]["started_at"] <= by_type[CRON]["finished_at"]
    failed = by_type[DAILY]
    assert failed["status"] == "Failed"
    assert "the scheduled job failed on purpose" in failed["details"]
    errors = await get_all(ctx, "Error Log", fields=["method", "error"])
    assert [e["method"] for e in errors] == ["fwtest.jobs.scheduled_fail"]


async def test_each_tick_closes_the_log_rows_of_runs_whose_worker_died(site: Site, recorder: Recorder) -> None:
    payload = JobPayload(site=site.name, user="Administrator", lang="en", method="fwtest.jobs.scheduled_note",
                         timeout=300, job_id=f"{site.name}::scheduled::{CRON}::2024-03-04 10:01:00",
                         scheduled_job_type=CRON, scheduled_due="2024-03-04 10:01:00")
    dead = await job_log.start(site, payload)
    row = await site.db.collection(job_log.COLLECTION).find_one({"_id": dead})
    assert row is not None
    started = datetime.fromisoformat(row["started_at"])
    await scheduler.sync_job_types(site, started)
    margin = timedelta(seconds=300 + job_log.STALE_MARGIN)
    await scheduler.tick(site, started + margin - timedelta(seconds=1))  # may still be running
    assert (await site.db.collection(job_log.COLLECTION).find_one({"_id": dead}) or {})["status"] == "Start"
    before = len(recorder.payloads)
    await scheduler.tick(site, started + margin + timedelta(minutes=1))
    assert CRON in [p.scheduled_job_type for p in recorder.payloads[before:]]  # enqueueing goes on as before
    closed = await site.db.collection(job_log.COLLECTION).find_one({"_id": dead})
    assert closed is not None and closed["status"] == "Failed"
    assert "stopped before it finished (attempt 1)" in closed["details"]
