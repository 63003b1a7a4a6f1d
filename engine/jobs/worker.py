"""`fw worker --queue default,long`: one arq worker per queue in one process, sharing the site.

Several worker processes may share queues. A job whose worker dies mid-run is picked up again
when its in-progress lease expires (arq retries it, up to `max_tries`), so it never vanishes.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from typing import Any

from engine.jobs import runner
from engine.jobs.payload import JobPayload
from engine.jobs.queue import ARQ_FUNCTION, queue_key
from engine.settings import Settings
from engine.site import Site, open_site

log = logging.getLogger("fw.worker")
MAX_TIMEOUT = 24 * 3600


async def fw_run_job(arq_ctx: dict[str, Any], payload: dict[str, Any]) -> Any:
    site: Site = arq_ctx["site"]
    job = JobPayload.from_dict(payload)
    if job.site != site.name:
        raise RuntimeError(f"job {job.job_id} belongs to site {job.site!r}, this worker serves {site.name!r}")
    return await runner.execute(site, job)


def build_workers(site: Site, queues: list[str], *, burst: bool = False, max_jobs: int = 10) -> list[Any]:
    from arq import Worker, func
    from arq.connections import RedisSettings

    assert site.settings.redis_url, "fw worker needs FW_REDIS_URL"
    workers = []
    for queue in queues:
        workers.append(Worker(
            functions=[func(fw_run_job, name=ARQ_FUNCTION, timeout=MAX_TIMEOUT)],  # fw enforces each job's own
            queue_name=queue_key(site.name, queue), redis_settings=RedisSettings.from_dsn(site.settings.redis_url),
            ctx={"site": site}, burst=burst, max_jobs=max_jobs, handle_signals=False, poll_delay=0.2,
            keep_result=3600, max_tries=3, job_completion_wait=30, health_check_interval=30,
            expires_extra_ms=7 * 24 * 3600 * 1000))
    return workers


async def run_workers(settings: Settings, queues: list[str], *, burst: bool = False) -> None:
    """Run until SIGTERM/SIGINT, then let running jobs finish (up to 30 s) and stop."""
    site = await open_site(settings)
    workers = build_workers(site, queues, burst=burst)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    tasks = [asyncio.create_task(w.async_run()) for w in workers]
    log.info("fw worker listening on %s (site %s)", ", ".join(queues), site.name)
    try:
        if burst:
            await asyncio.gather(*tasks)
        else:
            await stop.wait()
            log.info("fw worker stopping: waiting for running jobs")
    finally:
        for w in workers:
            w.allow_pick_jobs = False
        await asyncio.gather(*(asyncio.wait_for(w._sleep_until_tasks_complete(), 30) for w in workers),
                             return_exceptions=True)
        for w in workers:
            await w.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await site.close()
