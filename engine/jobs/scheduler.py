"""`fw scheduler`: fires `scheduler_events` as jobs, each due time exactly once.

Every entry of hooks.py becomes a Scheduled Job Type (synced by migrate; can be paused). On each
tick a scheduler claims the latest due time of each type with one atomic compare-and-set on the
type's record, so with several schedulers running exactly one enqueues it. After downtime only the
latest missed time runs (once, not N times). Nothing waits on the previous run, so a crashed or
hung run never blocks later ones; each tick also closes the Scheduled Job Log rows of runs whose
worker died (`job_log.sweep_stale`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from datetime import datetime
from typing import TYPE_CHECKING

from croniter import croniter

from engine import exceptions as exc
from engine.clock import now_str
from engine.context import Context
from engine.documents import store
from engine.jobs import job_log, outbox
from engine.jobs.payload import DEFAULT_TIMEOUTS, JobPayload
from engine.jobs.queue import backend_for
from engine.wiring import open_site

if TYPE_CHECKING:
    from engine.apps.registry import ScheduledEvent
    from engine.settings import Settings
    from engine.site import Site

log = logging.getLogger("fw.scheduler")
DOCTYPE = "Scheduled Job Type"
FREQUENCY_CRON = {"hourly": "0 * * * *", "daily": "0 0 * * *", "weekly": "0 0 * * 0", "monthly": "0 0 1 * *",
                  "yearly": "0 0 1 1 *", "annual": "0 0 1 1 *"}
FREQUENCY_LABEL = {"all": "All", "hourly": "Hourly", "daily": "Daily", "weekly": "Weekly", "monthly": "Monthly",
                   "yearly": "Yearly", "annual": "Annual", "cron": "Cron", "hourly_long": "Hourly Long",
                   "daily_long": "Daily Long", "weekly_long": "Weekly Long", "monthly_long": "Monthly Long",
                   "all_long": "All"}


def cron_expression(event: ScheduledEvent, settings: Settings) -> str:
    base = event.frequency.removesuffix("_long")
    if event.cron:
        return event.cron
    if base == "all":
        return f"*/{settings.scheduler_all_minutes} * * * *"
    return FREQUENCY_CRON[base]


def job_type_name(event: ScheduledEvent) -> str:
    return event.path if event.frequency != "cron" else f"{event.path} ({event.cron})"


def _fmt(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S")


async def sync_job_types(site: Site, now: datetime | None = None) -> list[str]:
    """One Scheduled Job Type per hook entry; entries gone from the hooks are removed."""
    now = now or datetime.now()
    coll = store.collection_of(site, DOCTYPE)
    stamp = now_str()
    names = []
    for event in site.apps.scheduler_events:
        name = job_type_name(event)
        names.append(name)
        cron = cron_expression(event, site.settings)
        if not croniter.is_valid(cron):
            raise exc.ConfigurationError(f"App {event.app!r}: invalid cron expression {cron!r} for {event.path}")
        previous = croniter(cron, now).get_prev(datetime)
        await coll.update_one({"_id": name}, {
            "$set": {"method": event.path, "frequency": FREQUENCY_LABEL[event.frequency], "cron_format": cron,
                     "queue": event.queue, "app": event.app, "modified": stamp},
            "$setOnInsert": {"_last_due": _fmt(previous), "stopped": 0, "create_log": 1, "creation": stamp,
                             "owner": "Administrator", "modified_by": "Administrator", "docstatus": 0, "idx": 0,
                             "next_execution": _fmt(croniter(cron, now).get_next(datetime))},
        }, upsert=True)
    await coll.delete_many({"_id": {"$nin": names}})
    return names


async def tick(site: Site, now: datetime | None = None) -> list[str]:
    """Enqueue every due job type this scheduler wins the claim for; returns their job ids."""
    now = now or datetime.now()
    coll = store.collection_of(site, DOCTYPE)
    events = {job_type_name(e): e for e in site.apps.scheduler_events}
    enqueued = []
    async for row in coll.find({"stopped": {"$ne": 1}}):
        event = events.get(row["_id"])
        if event is None:
            continue
        cron = row.get("cron_format") or cron_expression(event, site.settings)
        due = croniter(cron, now).get_prev(datetime) if not croniter.match(cron, now) else now.replace(second=0,
                                                                                                      microsecond=0)
        due_text = _fmt(due)
        last = row.get("_last_due") or ""
        if last >= due_text:
            continue
        claimed = await coll.update_one({"_id": row["_id"], "_last_due": last}, {"$set": {
            "_last_due": due_text, "last_execution": _fmt(now),
            "next_execution": _fmt(croniter(cron, now).get_next(datetime))}})
        if not claimed.modified_count:
            continue  # another scheduler took this due time
        try:
            enqueued.append(await _enqueue(site, event, row["_id"], due_text))
        except Exception as e:
            # not queued (e.g. Redis down): give the due time back so a later tick retries it
            await coll.update_one({"_id": row["_id"], "_last_due": due_text}, {"$set": {"_last_due": last}})
            if isinstance(e, exc.ServiceUnavailableError):
                log.warning("could not enqueue %s for %s: %s (a later tick tries again)", row["_id"], due_text,
                            e.message)
            else:
                log.exception("could not enqueue %s for %s", row["_id"], due_text)
    try:
        await job_log.sweep_stale(site, now)
    except Exception:  # bookkeeping: must not cost the enqueues above or the next tick
        log.exception("closing the Scheduled Job Log rows of dead runs failed")
    return enqueued


async def _enqueue(site: Site, event: ScheduledEvent, job_type: str, due: str) -> str:
    ctx = Context(site, "Administrator")
    timeout = site.settings.job_queue_timeouts.get(event.queue, DEFAULT_TIMEOUTS.get(event.queue, 300))
    payload = JobPayload(site=site.name, user="Administrator", lang="en", method=event.path, queue=event.queue,
                         timeout=float(timeout), job_id=f"{site.name}::scheduled::{job_type}::{due}",
                         job_name=job_type, scheduled_job_type=job_type, scheduled_due=due)
    await backend_for(ctx.site).submit(payload, at_front=False)
    log.info("scheduled %s for %s", job_type, due)
    return payload.job_id


async def run_scheduler(settings: Settings, *, once: bool = False) -> None:
    site = await open_site(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    relay = None if once else outbox.start_relay(site)
    try:
        await sync_job_types(site)
        log.info("fw scheduler running (site %s, a tick every %s s)", site.name, settings.scheduler_interval)
        while not stop.is_set():
            try:
                await tick(site)
            except Exception:  # a failing tick must not stop the scheduler
                log.exception("scheduler tick failed")
            if once:
                break
            interval = settings.scheduler_interval
            delay = interval - (datetime.now().timestamp() % interval) + 0.5
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=delay)
    finally:
        await outbox.stop_relay(relay)
        await site.close()
    log.info("fw scheduler stopped")


