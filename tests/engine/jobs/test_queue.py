"""enqueue semantics: in-process without Redis, and on arq with a real Redis and worker."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from fwtest import jobs  # type: ignore[import-not-found]

from engine import exceptions as exc
from engine.context import unit_of_work
from engine.jobs import queue
from engine.jobs.worker import build_workers
from engine.query.listing import get_all
from engine.site import Site
from tests.support.redis_server import RedisServer


async def drain(site: Site) -> None:
    backend = queue.backend_for(site)
    assert isinstance(backend, queue.InProcessBackend)
    await backend.drain()


@pytest.fixture
def inprocess(site: Site) -> Site:
    site._jobs_backend = queue.InProcessBackend(site)  # type: ignore[attr-defined]
    jobs.CALLS.clear()
    return site


async def test_job_runs_as_enqueuing_user_and_commits(inprocess: Site) -> None:
    ctx = inprocess.context("Administrator")
    job_id = await queue.enqueue(ctx, "fwtest.jobs.create_note", title="from job", on_success=jobs.succeeded)
    assert job_id and job_id.startswith(f"{inprocess.name}::")
    await drain(inprocess)
    assert await get_all(ctx, "Test Note", pluck="title") == ["from job"]
    assert await queue.job_status(inprocess, job_id) == "finished"
    assert jobs.CALLS and jobs.CALLS[0][0] == "success"
    as_user = await queue.enqueue(ctx.clone("Guest"), jobs.whoami, now=True)
    assert as_user == "Guest"


async def test_failing_job_rolls_back_logs_and_calls_on_failure(inprocess: Site) -> None:
    ctx = inprocess.context("Administrator")
    job_id = await queue.enqueue(ctx, jobs.create_then_fail, title="doomed", on_failure="fwtest.jobs.failed")
    await drain(inprocess)
    assert await get_all(ctx, "Test Note", pluck="title") == []
    assert await queue.job_status(inprocess, job_id) == "failed"
    logs = await get_all(ctx, "Error Log", fields=["method", "error"])
    assert logs[0]["method"] == "fwtest.jobs.create_then_fail"
    assert "job refused doomed" in logs[0]["error"]
    assert jobs.CALLS == [("failure", "job refused doomed")]


async def test_timeout_stops_the_job_and_marks_it_failed(inprocess: Site) -> None:
    ctx = inprocess.context("Administrator")
    job_id = await queue.enqueue(ctx, jobs.slow, seconds=5, timeout=0.2)
    await drain(inprocess)
    assert await queue.job_status(inprocess, job_id) == "failed"
    logs = await get_all(ctx, "Error Log", pluck="error")
    assert "timeout" in logs[0]


async def test_unknown_method_fails_at_enqueue_time(inprocess: Site) -> None:
    ctx = inprocess.context("Administrator")
    with pytest.raises(exc.ValidationError, match="no function"):
        await queue.enqueue(ctx, "fwtest.jobs.nope")
    with pytest.raises(exc.ValidationError, match="not found"):
        await queue.enqueue(ctx, "fwtest.missing_module.fn")
    with pytest.raises(exc.ValidationError, match="Unknown queue"):
        await queue.enqueue(ctx, jobs.whoami, queue="nowhere")


async def test_enqueue_after_commit_is_dropped_on_rollback(inprocess: Site) -> None:
    ctx = inprocess.context("Administrator")
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            await queue.enqueue(ctx, jobs.create_note, title="never", enqueue_after_commit=True)
            raise RuntimeError
    async with unit_of_work(ctx):
        await queue.enqueue(ctx, jobs.create_note, title="after commit", enqueue_after_commit=True)
        assert queue.backend_for(inprocess).states == {}  # type: ignore[attr-defined]
    await drain(inprocess)
    assert await get_all(ctx, "Test Note", pluck="title") == ["after commit"]


async def test_now_runs_inline_and_deduplicate_needs_job_id(inprocess: Site) -> None:
    ctx = inprocess.context("Administrator")
    name = await queue.enqueue(ctx, jobs.create_note, title="inline", now=True)
    assert await get_all(ctx, "Test Note", pluck="name") == [name]
    with pytest.raises(exc.ValidationError, match="job_id"):
        await queue.enqueue(ctx, jobs.whoami, deduplicate=True)


@pytest.fixture
async def arq_site(site: Site, redis_server: RedisServer) -> Site:
    site.settings = site.settings.model_copy(update={"redis_url": redis_server.url})
    site._jobs_backend = queue.ArqBackend(site, redis_server.url)  # type: ignore[attr-defined]
    yield site  # type: ignore[misc]
    await site.close_services()
    site.settings = site.settings.model_copy(update={"redis_url": None})


async def run_burst(site: Site, queues: list[str]) -> None:
    workers = build_workers(site, queues, burst=True)
    try:
        await asyncio.gather(*(w.async_run() for w in workers))
    finally:
        for w in workers:
            await w.close()


async def test_arq_worker_runs_jobs_across_queues(arq_site: Site) -> None:
    ctx = arq_site.context("Administrator")
    first = await queue.enqueue(ctx, jobs.create_note, title="default queue")
    second = await queue.enqueue(ctx, jobs.create_note, queue="long", title="long queue")
    failing = await queue.enqueue(ctx, jobs.create_then_fail, title="x")
    assert await queue.job_status(arq_site, first) == "queued"
    await run_burst(arq_site, ["default", "long"])
    assert sorted(await get_all(ctx, "Test Note", pluck="title")) == ["default queue", "long queue"]
    assert await queue.job_status(arq_site, first) == "finished"
    assert await queue.job_status(arq_site, second) == "finished"
    assert await queue.job_status(arq_site, failing) == "failed"


async def test_arq_deduplicate_by_job_id(arq_site: Site) -> None:
    ctx = arq_site.context("Administrator")
    first = await queue.enqueue(ctx, jobs.create_note, title="once", job_id="only-one", deduplicate=True)
    again = await queue.enqueue(ctx, jobs.create_note, title="twice", job_id="only-one", deduplicate=True)
    assert first and again is None
    await run_burst(arq_site, ["default"])
    assert await get_all(ctx, "Test Note", pluck="title") == ["once"]
    rerun = await queue.enqueue(ctx, jobs.create_note, title="again later", job_id="only-one", deduplicate=True)
    assert rerun == first  # finished jobs are replaced
    await run_burst(arq_site, ["default"])
    assert sorted(await get_all(ctx, "Test Note", pluck="title")) == ["again later", "once"]


async def test_arq_at_front_jobs_run_first(arq_site: Site) -> None:
    ctx = arq_site.context("Administrator")
    normal = [await queue.enqueue(ctx, jobs.create_note, title=f"normal {i}") for i in range(3)]
    front = await queue.enqueue(ctx, jobs.create_note, title="front", at_front=True)
    await asyncio.sleep(0.01)  # arq orders by millisecond scores
    latest_front = await queue.enqueue(ctx, jobs.create_note, title="latest front", at_front=True)
    pool = await queue.backend_for(arq_site).pool()  # type: ignore[attr-defined]
    order = [m.decode() for m in await pool.zrange(queue.queue_key(arq_site.name, "default"), 0, -1)]
    assert order[:2] == [latest_front, front]  # like Frappe's LPUSH: the latest at_front job first
    assert sorted(order[2:]) == sorted(normal)
    await run_burst(arq_site, ["default"])
    for job_id in [front, latest_front, *normal]:
        assert await queue.job_status(arq_site, job_id) == "finished"
    assert len(await get_all(ctx, "Test Note", pluck="title")) == 5


async def test_arq_failure_that_does_not_unpickle_is_still_failed(arq_site: Site) -> None:
    ctx = arq_site.context("Administrator")
    job_id = await queue.enqueue(ctx, jobs.raise_odd)
    await run_burst(arq_site, ["default"])
    assert await queue.job_status(arq_site, job_id) == "failed"
    [error] = await get_all(ctx, "Error Log", fields=["method", "error"])
    assert error["method"] == "fwtest.jobs.raise_odd" and "OddError: odd/error" in error["error"]


async def test_queue_timeouts_default_and_from_settings(inprocess: Site) -> None:
    seen: list[float] = []
    backend = queue.backend_for(inprocess)

    async def submit(payload: queue.JobPayload, *, at_front: bool) -> bool:
        seen.append(payload.timeout)
        return True

    backend.submit = submit  # type: ignore[method-assign]
    ctx = inprocess.context("Administrator")
    for q in ("short", "default", "long"):
        await queue.enqueue(ctx, jobs.whoami, queue=q)
    await queue.enqueue(ctx, jobs.whoami, queue="long", timeout=7)
    original = inprocess.settings
    inprocess.settings = original.model_copy(update={"job_queue_timeouts": {"long": 60, "reports": 900}})
    try:
        await queue.enqueue(ctx, jobs.whoami, queue="long")
        await queue.enqueue(ctx, jobs.whoami, queue="reports")  # a custom queue declared in the settings
    finally:
        inprocess.settings = original
    assert seen == [300, 300, 1500, 7, 60, 900]


async def test_redis_unavailable_is_a_clear_error_and_rolls_back(site: Site) -> None:
    site._jobs_backend = queue.ArqBackend(site, "redis://127.0.0.1:1/0")  # type: ignore[attr-defined]
    ctx = site.context("Administrator")
    try:
        started = time.monotonic()
        with pytest.raises(exc.JobQueueUnavailableError, match="Redis"):
            async with unit_of_work(ctx):
                await jobs.create_note(ctx, "written before enqueue")
                await queue.enqueue(ctx, jobs.whoami)
        assert time.monotonic() - started < 3  # fails at once, no retry loop inside the request
        assert await get_all(ctx, "Test Note", pluck="title") == []
    finally:
        site._jobs_backend = None  # type: ignore[attr-defined]


async def test_a_job_finishing_while_its_status_is_read_never_reads_as_missing(arq_site: Site) -> None:
    """arq finishes a job in one transaction: its result appears as its job and in-progress keys go.
    The status read must see the job before or after that, never between: here the job finishes
    right after the reader's first round trip to Redis, and the reader still sees it."""
    from arq.jobs import deserialize_job, serialize_result
    from redis.asyncio import Redis

    ctx = arq_site.context("Administrator")
    job_id = await queue.enqueue(ctx, jobs.create_note, title="finishing")
    backend = queue.backend_for(arq_site)
    pool = await backend.pool()  # type: ignore[attr-defined]
    await pool.set(f"{queue.IN_PROGRESS_PREFIX}{job_id}", b"1", px=60_000)  # a worker has taken it
    assert await queue.job_status(arq_site, job_id) == "started"
    other = Redis.from_url(arq_site.settings.redis_url)
    finished: list[bool] = []

    async def finish_as_arq_does() -> None:
        args = deserialize_job(await other.get(f"{queue.JOB_PREFIX}{job_id}")).args
        result = serialize_result("fw_run_job", args, {}, 1, 0, True, "done", 0, 1, job_id, "q", job_id)
        async with other.pipeline(transaction=True) as tr:
            tr.set(f"{queue.RESULT_PREFIX}{job_id}", result, px=60_000)
            tr.delete(f"{queue.IN_PROGRESS_PREFIX}{job_id}", f"{queue.JOB_PREFIX}{job_id}")
            await tr.execute()
        finished.append(True)

    real_command, real_pipeline = pool.execute_command, pool.pipeline

    async def command_then_finish(*args: Any, **kwargs: Any) -> Any:
        answer = await real_command(*args, **kwargs)
        if not finished:
            await finish_as_arq_does()
        return answer

    def pipeline_then_finish(*args: Any, **kwargs: Any) -> Any:
        pipe = real_pipeline(*args, **kwargs)
        real_execute = pipe.execute

        async def execute(*a: Any, **k: Any) -> Any:
            answer = await real_execute(*a, **k)
            if not finished:
                await finish_as_arq_does()
            return answer

        pipe.execute = execute
        return pipe

    pool.execute_command, pool.pipeline = command_then_finish, pipeline_then_finish
    try:
        assert await queue.job_status(arq_site, job_id) == "started"  # read before the finish
        assert finished
    finally:
        pool.execute_command, pool.pipeline = real_command, real_pipeline
        await other.aclose()
    assert await queue.job_status(arq_site, job_id) == "finished"
    assert await backend.owner(job_id) == "Administrator"  # type: ignore[attr-defined]


def test_a_job_queued_under_a_moved_modules_old_path_still_resolves() -> None:
    from engine.desk import bulk_actions
    from engine.jobs.payload import resolve

    assert resolve("engine.bulk_actions.run_job") is bulk_actions.run_job  # queued before engine/ was regrouped
    assert resolve("engine.desk.bulk_actions.run_job") is bulk_actions.run_job
