"""The job outbox: with Redis, `enqueue_after_commit` writes the job in the unit of work's
transaction, and relays push it to arq exactly once, however often they send it. On a private
redis-server that the tests stop and start again (tests/e2e/test_outage.py does the same with
real `fw serve` and `fw worker` processes)."""

from __future__ import annotations

import asyncio

import pytest
from fwtest import jobs  # type: ignore[import-not-found]

from engine import exceptions as exc
from engine.context import unit_of_work
from engine.documents.factory import new_doc
from engine.jobs import outbox, queue
from engine.jobs.worker import build_workers
from engine.query.listing import get_all
from engine.site import Site
from tests.support.redis_server import RedisServer


def backend(site: Site) -> queue.ArqBackend:
    found = queue.backend_for(site)
    assert isinstance(found, queue.ArqBackend)
    return found


async def waiting(site: Site) -> list[dict]:
    return await site.db.collection(outbox.COLLECTION).find({}).to_list(None)


async def run_burst(site: Site) -> None:
    workers = build_workers(site, ["default"], burst=True)
    try:
        await asyncio.gather(*(w.async_run() for w in workers))
    finally:
        for w in workers:
            await w.close()


async def titles(site: Site) -> list[str]:
    return sorted(await get_all(site.context(), "Test Note", pluck="title"))


async def test_a_job_enqueued_during_a_redis_outage_runs_after_it(redis_site: Site, own_redis: RedisServer) -> None:
    ctx = redis_site.context("Administrator")
    own_redis.stop()
    async with unit_of_work(ctx):  # the request: its own write, and a job after commit
        await new_doc(ctx, "Test Note", title="the request's write").insert()
        job_id = await queue.enqueue(ctx, jobs.create_note, title="the job", enqueue_after_commit=True)
    assert [row["job_id"] for row in await waiting(redis_site)] == [job_id]  # committed with the request
    with pytest.raises(exc.JobQueueUnavailableError):
        await queue.job_status(redis_site, job_id)
    with pytest.raises(exc.JobQueueUnavailableError):  # an enqueue that cannot wait for the commit
        await queue.enqueue(ctx, jobs.create_note, title="not now")
    with pytest.raises(exc.JobQueueUnavailableError):
        await outbox.relay_pending(redis_site, backend(redis_site))
    assert len(await waiting(redis_site)) == 1

    own_redis.restart()
    assert await outbox.relay_pending(redis_site, backend(redis_site)) == 1
    assert await waiting(redis_site) == []
    assert await queue.job_status(redis_site, job_id) == "queued"
    await run_burst(redis_site)
    assert await queue.job_status(redis_site, job_id) == "finished"
    assert await titles(redis_site) == ["the job", "the request's write"]


async def test_a_job_of_a_rolled_back_unit_never_reaches_the_outbox(redis_site: Site) -> None:
    ctx = redis_site.context("Administrator")
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            await queue.enqueue(ctx, jobs.create_note, title="never", enqueue_after_commit=True)
            raise RuntimeError("the request fails")
    assert await waiting(redis_site) == []
    await run_burst(redis_site)
    assert await titles(redis_site) == []


async def test_with_redis_up_the_job_is_pushed_at_commit(redis_site: Site) -> None:
    ctx = redis_site.context("Administrator")
    async with unit_of_work(ctx):
        job_id = await queue.enqueue(ctx, jobs.create_note, title="pushed", enqueue_after_commit=True)
        assert len(await ctx.db.collection(outbox.COLLECTION).find({}, session=ctx.read_session()).to_list(None)) == 1
        assert await queue.job_status(redis_site, job_id) is None  # not in arq before the commit
    assert await waiting(redis_site) == []
    assert await queue.job_status(redis_site, job_id) == "queued"


async def test_relays_push_a_job_once_however_often_they_send_it(redis_site: Site) -> None:
    """A relay that died between its push and its delete leaves the job in the outbox: sending it
    again, by one relay or by several at once, queues nothing new while the job is queued, and runs
    nothing twice once it has finished (the enqueue's id is recognised)."""
    ctx = redis_site.context("Administrator")
    async with unit_of_work(ctx):
        job_id = await queue.enqueue(ctx, jobs.create_note, title="once", enqueue_after_commit=True,
                                     job_id="relayed")
    assert await waiting(redis_site) == []  # pushed at commit
    pool = await backend(redis_site).pool()
    job = await pool.get(f"{queue.JOB_PREFIX}{job_id}")
    assert job is not None
    stale = await _stale_record(redis_site, job_id)
    await redis_site.db.collection(outbox.COLLECTION).insert_one(stale)
    others = [queue.ArqBackend(redis_site, redis_site.settings.redis_url or "") for _ in range(3)]
    try:
        await asyncio.gather(*(outbox.relay(redis_site, b, stale) for b in others))
        assert await pool.zcard(queue.queue_key(redis_site.name, "default")) == 1
        await run_burst(redis_site)
        assert await titles(redis_site) == ["once"]
        await redis_site.db.collection(outbox.COLLECTION).insert_one(stale)  # and once more, after it finished
        assert await outbox.relay_pending(redis_site, others[0]) == 1
        assert await pool.zcard(queue.queue_key(redis_site.name, "default")) == 0
        await run_burst(redis_site)
        assert await titles(redis_site) == ["once"]
    finally:
        for b in others:
            await b.close()
    # a new enqueue under the same job id is another job: it replaces the finished one, as before
    async with unit_of_work(ctx):
        await queue.enqueue(ctx, jobs.create_note, title="again", enqueue_after_commit=True, job_id="relayed")
    await run_burst(redis_site)
    assert await titles(redis_site) == ["again", "once"]


async def _stale_record(site: Site, job_id: str) -> dict:
    """The outbox record the enqueue wrote, rebuilt from the payload arq holds."""
    payload = await backend(site).payload(job_id)
    assert payload is not None and payload["enqueue_id"]
    return {"_id": payload["enqueue_id"], "job_id": job_id, "payload": payload, "at_front": False, "created": 0.0}


async def test_the_relay_loop_outlives_the_outage(redis_site: Site, own_redis: RedisServer,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outbox, "RELAY_AFTER", 0.0)
    monkeypatch.setattr(outbox, "RELAY_INTERVAL", 0.05)
    own_redis.stop()
    ctx = redis_site.context("Administrator")
    async with unit_of_work(ctx):
        job_id = await queue.enqueue(ctx, jobs.create_note, title="relayed later", enqueue_after_commit=True)
    relay = outbox.start_relay(redis_site)
    assert relay is not None
    try:
        await asyncio.sleep(0.3)  # a few failed tries
        assert not relay.done() and len(await waiting(redis_site)) == 1
        own_redis.restart()
        for _ in range(100):
            if not await waiting(redis_site):
                break
            await asyncio.sleep(0.05)
        assert await waiting(redis_site) == []
        assert await queue.job_status(redis_site, job_id) == "queued"
    finally:
        await outbox.stop_relay(relay)


async def test_without_redis_there_is_no_outbox(site: Site) -> None:
    site._jobs_backend = queue.InProcessBackend(site)  # type: ignore[attr-defined]
    try:
        ctx = site.context("Administrator")
        async with unit_of_work(ctx):
            await queue.enqueue(ctx, jobs.create_note, title="in process", enqueue_after_commit=True)
        assert await waiting(site) == []
        assert outbox.start_relay(site) is None
        await site._jobs_backend.drain()  # type: ignore[attr-defined]
        assert await titles(site) == ["in process"]
    finally:
        site._jobs_backend = None  # type: ignore[attr-defined]
