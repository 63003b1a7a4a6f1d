"""`fw worker` and `fw scheduler`: the background processes (contract §1)."""

from __future__ import annotations

import logging

import click

from engine.commands._base import fail, run
from engine.jobs.payload import QUEUES
from engine.settings import Settings, get_settings


@click.command()
@click.option("--queue", "queues", default="short,default,long", show_default=True,
              help="comma-separated queues to consume")
@click.option("--burst", is_flag=True, help="run the queued jobs, then exit")
def worker(queues: str, burst: bool) -> None:
    """Run an arq worker for QUEUES (needs FW_REDIS_URL). Stops gracefully on SIGTERM."""
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.jobs.worker import run_workers

    names = [q.strip() for q in queues.split(",") if q.strip()]
    settings = get_settings()
    unknown = [q for q in names if q not in QUEUES and q not in settings.job_queue_timeouts]
    if unknown:
        fail(f"unknown queue {unknown[0]!r}; known queues: {', '.join(QUEUES)} (more via FW_JOB_QUEUE_TIMEOUTS)")
    if not settings.redis_url:
        fail("fw worker needs FW_REDIS_URL; without Redis, jobs already run inside `fw serve`")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    async def go(settings: Settings) -> None:
        await run_workers(settings, names, burst=burst)

    run(go)


@click.command()
@click.option("--once", is_flag=True, help="sync the Scheduled Job Types, run one tick, then exit")
def scheduler(once: bool) -> None:
    """Fire scheduler_events as jobs: each due time exactly once, even with several schedulers."""
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.jobs.scheduler import run_scheduler

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    async def go(settings: Settings) -> None:
        await run_scheduler(settings, once=once)

    run(go)
