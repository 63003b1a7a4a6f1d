"""The Scheduled Job Log rows of runs whose worker died: closed as "Failed" by the retry (a real
arq worker taking the job over as attempt 2) and by the sweep once the run is past its timeout plus
the margin, never while the run may still be going, and overwritten by a run that does finish."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from arq.constants import retry_key_prefix

from engine.jobs import job_log, queue
from engine.jobs.payload import MAX_TIMEOUT, JobPayload
from engine.jobs.worker import build_workers
from engine.query.listing import get_all
from engine.site import Site
from tests.support.jobs import arq_jobs
from tests.support.redis_server import RedisServer

JOB_TYPE = "fwtest.jobs.scheduled_note (* * * * *)"
MARGIN = timedelta(seconds=job_log.STALE_MARGIN)


def scheduled(site: Site, timeout: float = 300, **kwargs: Any) -> JobPayload:
    """A scheduled run's payload, with a due time of its own (job ids repeat across tests otherwise)."""
    due = f"2024-03-04 10:{secrets.randbelow(60):02d}:{secrets.token_hex(2)}"
    return JobPayload(site=site.name, user="Administrator", lang="en", method="fwtest.jobs.marker",
                      kwargs={"key": f"run-{secrets.token_hex(3)}", **kwargs}, timeout=timeout,
                      job_id=f"{site.name}::scheduled::{JOB_TYPE}::{due}", job_name=JOB_TYPE,
                      scheduled_job_type=JOB_TYPE, scheduled_due=due)


async def rows(site: Site, **filters: Any) -> list[dict[str, Any]]:
    return await get_all(site.context("Administrator"), "Scheduled Job Log", filters=filters, order_by="attempt asc",
                         fields=["name", "status", "attempt", "job_id", "timeout", "details", "started_at",
                                 "finished_at"])


async def row(site: Site, name: str | None) -> dict[str, Any]:
    found = await site.db.collection(job_log.COLLECTION).find_one({"_id": name})
    assert found is not None, name
    return found


def started(record: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(record["started_at"])


@pytest.fixture
async def arq_site(site: Site, redis_server: RedisServer) -> AsyncIterator[Site]:
    async with arq_jobs(site, redis_server.url):
        yield site


async def test_a_run_records_its_job_id_attempt_and_timeout(site: Site) -> None:
    payload = scheduled(site, timeout=42)
    name = await job_log.start(site, payload)
    [record] = await rows(site)
    assert (record["name"], record["status"]) == (name, "Start")
    assert (record["job_id"], record["attempt"], record["timeout"]) == (payload.job_id, 1, 42)
    await job_log.finish(site, name, "Complete")
    assert (await row(site, name))["status"] == "Complete"
    # a job that is not a scheduled run gets no row
    assert await job_log.start(site, JobPayload(site=site.name, user="Administrator", lang="en",
                                                method="fwtest.jobs.noop", job_id="plain")) is None
    assert len(await rows(site)) == 1


async def test_the_retry_of_a_killed_run_closes_the_attempt_it_left_running(arq_site: Site) -> None:
    payload = scheduled(arq_site)
    other = scheduled(arq_site)
    # what a worker SIGKILLed during attempt 1 leaves behind: its row at "Start", arq's try count at 1
    # and the job back on the queue once the lease ran out
    dead = await job_log.start(arq_site, payload, attempt=1)
    running_elsewhere = await job_log.start(arq_site, other, attempt=1)  # another job id: not ours to close
    backend = queue.backend_for(arq_site)
    pool = await backend.pool()  # type: ignore[attr-defined]
    await pool.set(f"{retry_key_prefix}{payload.job_id}", 1, ex=3600)
    assert await backend.submit(payload, at_front=False)
    workers = build_workers(arq_site, ["default"], burst=True)
    try:
        await asyncio.gather(*(w.async_run() for w in workers))
    finally:
        for w in workers:
            await w.close()
    assert await queue.job_status(arq_site, payload.job_id) == "finished"
    first, second = await rows(arq_site, job_id=payload.job_id)
    assert (first["name"], first["attempt"], first["status"]) == (dead, 1, "Failed")
    assert first["details"] == ("The worker running this job stopped before it finished (attempt 1); "
                                "it was retried as attempt 2.")
    assert first["finished_at"] is None  # when it died is unknown
    assert (second["attempt"], second["status"], second["details"]) == (2, "Complete", None)
    assert (await row(arq_site, running_elsewhere))["status"] == "Start"
    notes = await get_all(arq_site.context("Administrator"), "Test Note", pluck="title")
    assert notes == [payload.kwargs["key"]]


async def test_a_retry_never_closes_its_own_or_a_later_attempt(site: Site) -> None:
    payload = scheduled(site)
    later = await job_log.start(site, payload, attempt=3)  # e.g. a stale retry arriving out of order
    own = await job_log.start(site, payload, attempt=2)
    assert (await row(site, later))["status"] == "Start"
    assert (await row(site, own))["status"] == "Start"


async def test_the_sweep_closes_a_run_only_past_its_timeout_plus_the_margin(site: Site) -> None:
    short = await job_log.start(site, scheduled(site, timeout=60), attempt=3)
    long = await job_log.start(site, scheduled(site, timeout=1500))
    unbounded = await job_log.start(site, scheduled(site, timeout=0))  # no timeout: the worker's cap
    done = await job_log.start(site, scheduled(site, timeout=60))
    await job_log.finish(site, done, "Complete")
    t0 = started(await row(site, short))
    # the run may still be going (or winding up) until timeout + margin: nothing is touched
    assert await job_log.sweep_stale(site, t0 + timedelta(seconds=60) + MARGIN - timedelta(seconds=1)) == []
    assert await job_log.sweep_stale(site, t0 + timedelta(seconds=61) + MARGIN) == [short]
    closed = await row(site, short)
    assert closed["status"] == "Failed" and "finished_at" not in closed
    assert closed["details"] == ("The worker running this job stopped before it finished (attempt 3): the run was "
                                 "still marked as started 300 s after its timeout of 60 s, so its worker was killed "
                                 "or crashed. See the worker's log.")
    assert (await row(site, long))["status"] == "Start"
    assert await job_log.sweep_stale(site, t0 + timedelta(seconds=1501) + MARGIN) == [long]
    assert await job_log.sweep_stale(site, t0 + timedelta(hours=23)) == []
    assert await job_log.sweep_stale(site, t0 + timedelta(seconds=MAX_TIMEOUT + 1) + MARGIN) == [unbounded]
    assert (await row(site, done))["status"] == "Complete"  # finished runs are never touched
    assert (await row(site, done)).get("details") is None


async def test_the_sweep_closes_rows_written_before_timeouts_were_recorded(site: Site) -> None:
    """Such rows get the longest queue timeout (settings or default), so no live run is cut short."""
    coll = site.db.collection(job_log.COLLECTION)
    stamp = "2024-03-04 10:00:00.000000"
    await coll.insert_one({"_id": "legacy", "scheduled_job_type": JOB_TYPE, "status": "Start", "started_at": stamp,
                           "creation": stamp, "modified": stamp, "owner": "Administrator", "docstatus": 0})
    t0 = datetime.fromisoformat(stamp)
    original = site.settings
    site.settings = original.model_copy(update={"job_queue_timeouts": {"reports": 3600}})
    try:
        assert await job_log.sweep_stale(site, t0 + timedelta(seconds=3599) + MARGIN) == []
        assert await job_log.sweep_stale(site, t0 + timedelta(seconds=3601) + MARGIN) == ["legacy"]
    finally:
        site.settings = original
    closed = await row(site, "legacy")
    assert closed["status"] == "Failed" and "(attempt" not in closed["details"]


async def test_a_run_given_up_for_dead_that_still_finishes_writes_its_outcome(site: Site) -> None:
    name = await job_log.start(site, scheduled(site, timeout=10))
    t0 = started(await row(site, name))
    assert await job_log.sweep_stale(site, t0 + timedelta(seconds=11) + MARGIN) == [name]
    await job_log.finish(site, name, "Complete")
    record = await row(site, name)
    assert record["status"] == "Complete" and "details" not in record and record["finished_at"]
    # and a second sweep (another scheduler) leaves a closed row alone
    assert await job_log.sweep_stale(site, t0 + timedelta(days=2)) == []
    assert (await row(site, name))["status"] == "Complete"
