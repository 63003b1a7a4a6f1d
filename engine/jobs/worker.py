"""`fw worker --queue default,long`: one arq worker per queue in one process, sharing the site.

Several worker processes may share queues. Taking a job sets arq's in-progress key (the lease,
`CLAIM_LEASE` seconds); a second into the job fw sets its expiry to the job's own deadline
(start + timeout) plus `LEASE_GRACE` seconds, and keeps extending it while a job past its
deadline is still being wound up (Error Log, callbacks).
A job whose worker dies mid-run is therefore picked up again by another worker once the lease
expires (arq counts the try; after `max_tries` it is recorded failed), so it never vanishes; the
retry closes the dead attempt's Scheduled Job Log row (`job_log`).

When Redis goes away the process stays: each queue's worker is rebuilt once Redis answers again
(`_serve_queue`, with backoff), and meanwhile the process keeps relaying the job outbox (which
waits for Redis too).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from typing import Any

from engine import cache_bus
from engine import exceptions as exc
from engine.jobs import outbox, runner
from engine.jobs.backends import ARQ_FUNCTION, IN_PROGRESS_PREFIX, queue_key
from engine.jobs.payload import MAX_TIMEOUT, JobPayload
from engine.runtime import tune_gc
from engine.settings import Settings
from engine.site import Site
from engine.wiring import open_site

log = logging.getLogger("fw.worker")
CLAIM_LEASE = 60  # s: the lease from taking a job until fw_run_job sets the job's own
LEASE_GRACE = 5.0  # s past a job's deadline before another worker may take it over
LEASE_DELAY = 1.0  # s into a job before fw shortens the claim lease to the job's own
SHUTDOWN_WAIT = 30  # s a stopping worker waits for its running jobs before handing them back
CLOSE_WAIT = 10.0  # s closing a worker may take (it talks to Redis, which may be away)
RECONNECT_MIN, RECONNECT_MAX = 1.0, 30.0  # s between tries to reach Redis again, doubling
HEALTHY_AFTER = 60.0  # s a worker must have run for the next outage's backoff to start from RECONNECT_MIN


class JobFailed(Exception):
    """What arq records for a failed job: always picklable (the Error Log has the traceback)."""


async def _hold_lease(redis: Any, job_id: str, deadline: float) -> None:
    """Keep the in-progress key alive until `deadline` + grace, and past it while we still run.

    The first write waits `LEASE_DELAY`: most jobs are done by then and cost no extra round trip
    (a job killed within its first second keeps the claim lease, so it is retried within a minute).
    """
    key = f"{IN_PROGRESS_PREFIX}{job_id}"
    await asyncio.sleep(LEASE_DELAY)
    while True:
        expires = max(deadline, time.time()) + LEASE_GRACE
        # shielded: cancelling the holder mid-command would make redis-py drop the connection
        await asyncio.shield(redis.pexpire(key, max(int((expires - time.time()) * 1000), 1)))
        await asyncio.sleep(LEASE_GRACE / 2.5)


async def fw_run_job(arq_ctx: dict[str, Any], payload: dict[str, Any]) -> Any:
    site: Site = arq_ctx["site"]
    job = JobPayload.from_dict(payload)
    if job.site != site.name:
        raise JobFailed(f"job {job.job_id} belongs to site {job.site!r}, this worker serves {site.name!r}")
    redis = arq_ctx.get("redis")
    lease = None
    if redis is not None:
        deadline = time.time() + (job.timeout or MAX_TIMEOUT)
        lease = asyncio.create_task(_hold_lease(redis, arq_ctx.get("job_id") or job.job_id, deadline))
    try:
        return await runner.execute(site, job, attempt=int(arq_ctx.get("job_try") or 1))
    except Exception as e:
        raise JobFailed(f"{type(e).__name__}: {e}"[:2000]) from None
    finally:
        if lease is not None:
            lease.cancel()
            with contextlib.suppress(BaseException):
                await lease


def build_workers(site: Site, queues: list[str], *, burst: bool = False, max_jobs: int = 10) -> list[Any]:
    return [build_worker(site, queue, burst=burst, max_jobs=max_jobs) for queue in queues]


def build_worker(site: Site, queue: str, *, burst: bool = False, max_jobs: int = 10) -> Any:
    from arq import Worker, func
    from arq.connections import RedisSettings

    assert site.settings.redis_url, "fw worker needs FW_REDIS_URL"
    redis_settings = RedisSettings.from_dsn(site.settings.redis_url)
    redis_settings.conn_retries = 0  # `_serve_queue` reconnects, with backoff and a log line
    redis_settings.conn_timeout = 2
    worker = Worker(
        # MAX_TIMEOUT: fw enforces each job's own. (The ignore: arq's WorkerCoroutine protocol wants
        # `(ctx, *args, **kwargs)`; fw_run_job takes exactly the one payload fw enqueues.)
        functions=[func(fw_run_job, name=ARQ_FUNCTION, timeout=MAX_TIMEOUT)],  # type: ignore[arg-type]
        queue_name=queue_key(site.name, queue), redis_settings=redis_settings,
        ctx={"site": site}, burst=burst, max_jobs=max_jobs, handle_signals=False, poll_delay=0.1,
        keep_result=3600, max_tries=3, job_completion_wait=SHUTDOWN_WAIT, health_check_interval=30,
        expires_extra_ms=7 * 24 * 3600 * 1000)
    worker.in_progress_timeout_s = CLAIM_LEASE  # not arq's "longest timeout + 10 s" (a day here)
    return worker


async def _serve_queue(site: Site, queue: str, stop: asyncio.Event, retired: set[asyncio.Task[None]], *,
                       burst: bool) -> None:
    """Run one queue's arq worker until `stop`. arq's loop ends when Redis goes away and does not
    reconnect, so a new worker takes over once Redis answers again, tried with backoff (RECONNECT_MIN
    doubling up to RECONNECT_MAX); the old one's running jobs finish in `retired`."""
    delay = RECONNECT_MIN
    while True:
        worker = build_worker(site, queue, burst=burst)
        started = time.monotonic()
        loop = asyncio.create_task(worker.async_run())
        stopping = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait({loop, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
        if not loop.done():
            await _shut_down(worker, loop)
            return
        error = None if loop.cancelled() else loop.exception()
        retiring = asyncio.create_task(_retire(worker))
        retired.add(retiring)
        retiring.add_done_callback(retired.discard)
        if burst:
            if error is not None:
                raise exc.ConfigurationError(f"fw worker --burst stopped: {type(error).__name__}: {error} "
                                             "(is Redis at FW_REDIS_URL reachable?)")
            return
        if time.monotonic() - started > HEALTHY_AFTER:
            delay = RECONNECT_MIN
        reason = f"{type(error).__name__}: {error}" if error is not None else "its loop ended"
        log.warning("fw worker: queue %s cannot reach Redis (%s); reconnecting in %.0f s", queue, reason, delay)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=delay)
        if stop.is_set():
            return
        delay = min(delay * 2, RECONNECT_MAX)


async def _shut_down(worker: Any, loop: asyncio.Task[None]) -> None:
    """Stop taking jobs, let running ones finish (up to SHUTDOWN_WAIT), then close: jobs still
    running are cancelled and arq puts them back on the queue."""
    worker.allow_pick_jobs = False
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(worker._sleep_until_tasks_complete(), SHUTDOWN_WAIT)
    try:
        await asyncio.wait_for(worker.close(), CLOSE_WAIT)  # (it writes to Redis, which may be away)
    except (Exception, asyncio.CancelledError):
        log.exception("closing the worker of %s failed", worker.queue_name)
    loop.cancel()
    await asyncio.gather(loop, return_exceptions=True)


async def _retire(worker: Any) -> None:
    """A worker whose loop died: its running jobs finish (their results may not reach Redis), then
    its connection pool is closed."""
    worker.allow_pick_jobs = False
    await asyncio.gather(*list(worker.tasks.values()), return_exceptions=True)
    pool = getattr(worker, "_pool", None)
    if pool is not None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(pool.close(close_connection_pool=True), CLOSE_WAIT)


async def run_workers(settings: Settings, queues: list[str], *, burst: bool = False) -> None:
    """Run until SIGTERM/SIGINT, then let running jobs finish (up to 30 s) and stop. A Redis
    outage does not stop the process: each queue reconnects once Redis answers again."""
    site = await open_site(settings)
    tune_gc(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    retired: set[asyncio.Task[None]] = set()
    services = [task for task in (cache_bus.start_listener(site),  # jobs act as users: their roles are cached too
                                  outbox.start_relay(site)) if task is not None]
    log.info("fw worker listening on %s (site %s)", ", ".join(queues), site.name)
    try:
        results = await asyncio.gather(*(_serve_queue(site, queue, stop, retired, burst=burst) for queue in queues),
                                       return_exceptions=True)
    finally:
        stop.set()
        for task in [*retired, *services]:  # jobs of workers that lost Redis, still running at shutdown
            task.cancel()
        await asyncio.gather(*retired, *services, return_exceptions=True)
        await site.close()
        log.info("fw worker stopped")
    for result in results:
        if isinstance(result, BaseException):
            raise result
