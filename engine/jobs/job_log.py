"""The Scheduled Job Log: one row per attempt of a scheduled run, written outside the job's
transaction (a rolled-back run still shows), and the closing of rows whose worker died.

A row says "Start" until its runner writes "Complete" or "Failed". A worker killed mid-run (SIGKILL,
out of memory, a crash) writes nothing more, so two things close such a row as "Failed":
- the retry: once the dead worker's lease runs out arq runs the job again (attempt N+1), and that
  attempt first closes the earlier attempts' "Start" rows of the same job id;
- the sweep, on every scheduler tick: a "Start" row still open `STALE_MARGIN` seconds past its
  run's timeout (the last attempt, which nothing retries, or a run of the in-process backend).
Neither hits a live run: the lease is held until the deadline and past it while a run winds up,
and the runner stops every run at its timeout. Should a run given up for dead still finish, its own
final write wins.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from engine.clock import now_str
from engine.documents import store
from engine.documents.naming import hash_name
from engine.jobs.payload import DEFAULT_TIMEOUTS, MAX_TIMEOUT, JobPayload
from engine.meta.schema import collection_name

if TYPE_CHECKING:
    from engine.site import Site

log = logging.getLogger("fw.jobs")
DOCTYPE = "Scheduled Job Log"
COLLECTION = collection_name(DOCTYPE)  # for tests that read the rows directly; this module uses `store`
STALE_MARGIN = 300.0  # s past a run's timeout before the sweep calls it dead (wind-up, clock skew)
DETAILS_LIMIT = 100_000


async def start(site: Site, payload: JobPayload, attempt: int = 1) -> str | None:
    """Open the row of this attempt (after closing earlier attempts left open); None if not scheduled."""
    if not payload.scheduled_job_type:
        return None
    coll = store.collection_of(site, DOCTYPE)
    if attempt > 1:
        await _close_earlier_attempts(site, payload.job_id, attempt)
    stamp = now_str()
    name = hash_name()
    record = {"_id": name, "scheduled_job_type": payload.scheduled_job_type, "status": "Start",
              "due_at": payload.scheduled_due, "started_at": stamp, "job_id": payload.job_id, "attempt": attempt,
              "timeout": payload.timeout, "owner": "Administrator", "modified_by": "Administrator",
              "creation": stamp, "modified": stamp, "docstatus": 0, "idx": 0}
    await coll.insert_one({k: v for k, v in record.items() if v is not None})
    return name


async def finish(site: Site, name: str | None, status: str, details: str | None = None) -> None:
    """The run's own outcome; it overwrites a "Failed" that gave the run up for dead too early."""
    if name is None:
        return
    stamp = now_str()
    change: dict[str, Any] = {"status": status, "finished_at": stamp, "modified": stamp}
    update: dict[str, Any] = {"$set": change}
    if details:
        change["details"] = details[:DETAILS_LIMIT]
    else:
        update["$unset"] = {"details": ""}
    await store.collection_of(site, DOCTYPE).update_one({"_id": name}, update)


async def _close_earlier_attempts(site: Site, job_id: str, attempt: int) -> None:
    coll = store.collection_of(site, DOCTYPE)
    query = {"status": "Start", "job_id": job_id, "attempt": {"$lt": attempt}}
    async for row in coll.find(query, {"attempt": 1}):
        details = (f"The worker running this job stopped before it finished (attempt {row.get('attempt', 1)}); "
                   f"it was retried as attempt {attempt}.")
        if await _close(site, row["_id"], details):
            log.warning("scheduled job %s: attempt %s was left running by a stopped worker; retried as attempt %s",
                        job_id, row.get("attempt", 1), attempt)


async def sweep_stale(site: Site, now: datetime | None = None) -> list[str]:
    """Close as "Failed" every "Start" row whose run is `STALE_MARGIN` past its timeout; returns their names."""
    now = now or datetime.now()
    coll = store.collection_of(site, DOCTYPE)
    # rows written before the timeout was recorded: the longest a scheduled run may have had
    fallback = max([*DEFAULT_TIMEOUTS.values(), *site.settings.job_queue_timeouts.values()])
    newest = (now - timedelta(seconds=STALE_MARGIN)).isoformat(sep=" ", timespec="microseconds")
    closed = []
    query = {"status": "Start", "started_at": {"$lt": newest}}  # served by the (status, started_at) index
    async for row in coll.find(query, {"started_at": 1, "timeout": 1, "attempt": 1}):
        timeout = row.get("timeout", fallback) or MAX_TIMEOUT  # 0: no timeout, the worker's cap
        try:
            started = datetime.fromisoformat(row["started_at"])
        except (TypeError, ValueError):
            continue
        if started + timedelta(seconds=timeout + STALE_MARGIN) > now:
            continue  # may still be running
        attempt = f" (attempt {row['attempt']})" if row.get("attempt") else ""
        details = (f"The worker running this job stopped before it finished{attempt}: the run was still "
                   f"marked as started {STALE_MARGIN:g} s after its timeout of {timeout:g} s, so its worker "
                   "was killed or crashed. See the worker's log.")
        if await _close(site, row["_id"], details):
            closed.append(row["_id"])
    if closed:
        log.warning("Scheduled Job Log: %d run(s) left running by a stopped worker marked Failed: %s",
                    len(closed), ", ".join(closed))
    return closed


async def _close(site: Site, name: str, details: str) -> bool:
    """"Failed" unless the run wrote its own outcome meanwhile (finished_at stays empty: unknown)."""
    result = await store.collection_of(site, DOCTYPE).update_one(
        {"_id": name, "status": "Start"}, {"$set": {"status": "Failed", "details": details, "modified": now_str()}})
    return bool(result.modified_count)
