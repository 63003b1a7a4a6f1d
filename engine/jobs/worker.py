"""`fw worker --queue default,long`: one arq worker per queue in one process, sharing the site.

Several worker processes may share queues. Taking a job sets arq's in-progress key (the lease,
`CLAIM_LEASE` seconds); a second into the job fw sets its expiry to the job's own deadline
(start + timeout) plus `LEASE_GRACE` seconds, and keeps extending it while a job past its
deadline is still being wound up (Error Log, callbacks).
A job whose worker dies mid-run is therefore picked up again by another worker once the lease
expires (arq counts the try; after `max_tries` it is recorded failed), so it never vanishes; the
retry closes the dead attempt's Scheduled Job Log row (`job_log`).
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
from engine.jobs import runner
from engine.jobs.payload import MAX_TIMEOUT, JobPayload
from engine.jobs.queue import ARQ_FUNCTION, IN_PROGRESS_PREFIX, queue_key
from engine.runtime import tune_gc
from engine.settings import Settings
from engine.site import Site, open_site

log = logging.getLogger("fw.worker")
CLAIM_LEASE = 60  # s: the lease from taking a job until fw_run_job sets the job's own
LEASE_GRACE = 5.0  # s past a job's deadline before another worker may take it over
LEASE_DELAY = 1.0  # s into a job before fw shortens the claim lease to the job's own
SHUTDOWN_WAIT = 30.0  # s a stopping worker waits for its running jobs before handing them back


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
    from arq import Worker, func
    from arq.connections import RedisSettings

    assert site.settings.redis_url, "fw worker needs FW_REDIS_URL"
    workers = []
    for queue in queues:
        worker = Worker(
            functions=[func(fw_run_job, name=ARQ_FUNCTION, timeout=MAX_TIMEOUT)],  # fw enforces each job's own
            queue_name=queue_key(site.name, queue), redis_settings=RedisSettings.from_dsn(site.settings.redis_url),
            ctx={"site": site}, burst=burst, max_jobs=max_jobs, handle_signals=False, poll_delay=0.1,
            keep_result=3600, max_tries=3, job_completion_wait=SHUTDOWN_WAIT, health_check_interval=30,
            expires_extra_ms=7 * 24 * 3600 * 1000)
        worker.in_progress_timeout_s = CLAIM_LEASE  # not arq's "longest timeout + 10 s" (a day here)
        workers.append(worker)
    return workers


async def run_workers(settings: Settings, queues: list[str], *, burst: bool = False) -> None:
    """Run until SIGTERM/SIGINT, then let running jobs finish (up to 30 s) and stop."""
    site = await open_site(settings)
    workers = build_workers(site, queues, burst=burst)
    tune_gc(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    tasks = [asyncio.create_task(w.async_run()) for w in workers]
    invalidations = cache_bus.start_listener(site)  # jobs act as users: their roles are cached too
    log.info("fw worker listening on %s (site %s)", ", ".join(queues), site.name)
    crashed: BaseException | None = None
    try:
        if burst:
            await asyncio.gather(*tasks)
        else:
            # a worker loop that dies (Redis gone: arq does not reconnect) must not leave a process
            # that looks alive and runs nothing: stop everything and exit non-zero, to be restarted
            stopping = asyncio.create_task(stop.wait())
            done, _pending = await asyncio.wait([stopping, *tasks], return_when=asyncio.FIRST_COMPLETED)
            stopping.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await stopping
            for task in tasks:
                if task in done:
                    crashed = (None if task.cancelled() else task.exception()) or RuntimeError("the worker loop ended")
                    log.error("fw worker: a queue's worker loop stopped (%s); shutting down", crashed)
                    break
            else:
                log.info("fw worker stopping: waiting for running jobs")
    finally:
        for w in workers:
            w.allow_pick_jobs = False
        await asyncio.gather(*(asyncio.wait_for(w._sleep_until_tasks_complete(), SHUTDOWN_WAIT) for w in workers),
                             return_exceptions=True)
        for w in workers:  # jobs still running now are cancelled: arq puts them back on the queue
            try:
                await w.close()
            except (Exception, asyncio.CancelledError):
                log.exception("closing the worker of %s failed", w.queue_name)
        for task in [*tasks, *([invalidations] if invalidations else [])]:
            task.cancel()
        await asyncio.gather(*tasks, *([invalidations] if invalidations else []), return_exceptions=True)
        await site.close()
        log.info("fw worker stopped")
    if crashed is not None:
        raise exc.ConfigurationError(f"fw worker stopped: {type(crashed).__name__}: {crashed} "
                                     "(is Redis at FW_REDIS_URL reachable?)")
