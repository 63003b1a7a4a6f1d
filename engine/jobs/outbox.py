"""The job outbox: with FW_REDIS_URL, a job enqueued after commit is first written into the
request's own MongoDB transaction, then relayed to arq, so a committed request never loses its jobs
to a Redis outage.

- `add` (used by `enqueue(..., enqueue_after_commit=True)`) writes the job into collection
  `_fw_job_outbox` in the unit of work's transaction: it exists exactly when the request commits.
  After the commit the same process pushes it to arq at once and deletes it from the outbox; a job
  enqueued with `relay_only=True` (the Notifications') is left to the relays instead, which take it
  at their next look: no Redis call nor delete in the request, the job starts within a second or so.
- If Redis does not answer then (or the process dies between its commit and the push), the job
  stays in the outbox and a relay pushes it later: `run_relay` runs in every `fw serve` process,
  `fw worker` and `fw scheduler`, looks for jobs older than `RELAY_AFTER` seconds every
  `RELAY_INTERVAL` seconds, and backs off while Redis (or MongoDB) is away.
- Exactly once. Several relays may push the same job, and a relay may die between its push and
  the delete: arq refuses a second job with the same id while the first is queued, running or
  its result is kept (an hour), and a finished job carries the enqueue's own `enqueue_id`, so
  sending it again is recognised as the same enqueue and not run again.

- A job may also travel in the record of the one document whose write queues it (`carried_entry`,
  through `engine.jobs.queue.carry`: the Notifications' on a save with nothing after its write):
  written with the document in a single-document write, it needs no transaction. The relays find
  such records through a sparse index in the collections registered with `register_carrier`, queue
  their jobs and take them off the record (`relay_carried`); a deleted record's jobs move into the
  outbox with the delete (`adopt`).

What the outbox does not cover: jobs already in Redis when Redis loses its data (run Redis with
`appendonly yes` so that a restart keeps them).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Any

from engine import db
from engine import exceptions as exc
from engine.jobs.backends import ArqBackend, backend_for
from engine.jobs.payload import CARRIED, CARRIED_AT, JobPayload

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument
    from engine.site import Site

log = logging.getLogger("fw.jobs")
COLLECTION = "_fw_job_outbox"
RELAY_AFTER = 2.0  # s: younger jobs are left to the push of the request that wrote them
RELAY_INTERVAL = 1.0  # s between looks at the outbox
RELAY_BACKOFF_MAX = 30.0  # s between tries while Redis or MongoDB is away
BATCH = 100
CARRIERS = "_fw_job_carriers"  # the collections whose records may carry jobs: {_id: collection name}
# (not "fw_...": schema sync keeps only its own "fw_" indexes)
CARRIED_INDEX = "_fw_carried_jobs"


async def add(ctx: Context, backend: ArqBackend, payload: JobPayload, *, at_front: bool,
              push: bool = True) -> None:
    """Write the job into the unit of work's transaction; push it to arq once that commits, or with
    `push=False` leave it to the relays, which take it at their next look (within RELAY_INTERVAL):
    the request spares the Redis call and the outbox delete, the job starts a second or so later."""
    created = time.time()
    # (`created` orders the relay's work and says when it may take a job: one left to it, at once)
    record = {"_id": payload.enqueue_id, **carried_entry(payload, at_front=at_front),
              "created": created if push else created - RELAY_AFTER}
    session = await ctx.write_session()
    with db.translate_errors():
        await ctx.db.collection(COLLECTION).insert_one(record, session=session)
    if not push:
        return

    async def push_now() -> None:
        try:
            await relay(ctx.site, backend, record)
        except exc.ServiceUnavailableError as e:  # the job waits in the outbox for a relay
            log.warning("job %s stays in the outbox until Redis answers: %s", payload.job_id, e.message)

    ctx.after_commit(push_now)


async def relay(site: Site, backend: ArqBackend, record: dict[str, Any]) -> None:
    """Push one outbox job to arq (once: see the module documentation), then delete it."""
    await _submit(backend, record)
    with db.translate_errors():
        await site.db.collection(COLLECTION).delete_one({"_id": record["_id"]})


async def relay_pending(site: Site, backend: ArqBackend, *, older_than: float = 0.0) -> int:
    """Push the oldest jobs waiting in the outbox (at most BATCH, written `older_than` seconds ago or
    earlier); returns how many."""
    cutoff = time.time() - older_than
    with db.translate_errors():
        records = await site.db.collection(COLLECTION).find({"created": {"$lte": cutoff}}).sort(
            "created", 1).limit(BATCH).to_list(None)
    pushed: list[Any] = []
    try:
        for record in records:
            await _submit(backend, record)
            pushed.append(record["_id"])
    finally:  # what reached arq leaves the outbox in one delete (a job pushed again is refused there anyway)
        if pushed:
            with db.translate_errors():
                await site.db.collection(COLLECTION).delete_many({"_id": {"$in": pushed}})
    if records:
        log.info("relayed %d job(s) from the outbox", len(records))
    return len(records)


async def _submit(backend: ArqBackend, entry: dict[str, Any]) -> None:
    """Queue a job as the outbox or a record keeps it (`carried_entry`'s shape)."""
    await backend.submit(JobPayload.from_dict(entry["payload"]), at_front=bool(entry.get("at_front")))


def carried_entry(payload: JobPayload, *, at_front: bool = False) -> dict[str, Any]:
    """A job as a record carries it (`engine.jobs.payload.carry_in_record`): as the outbox keeps it."""
    return {"job_id": payload.job_id, "payload": payload.to_dict(), "at_front": at_front}


def carries(site: Site) -> bool:
    """Whether records may carry jobs on this site's database: MongoDB itself (the in-memory backend
    has neither `$unionWith` nor pipeline updates, which the relays use)."""
    return site.db.backend == "mongo"


async def register_carrier(site: Site, collection: str) -> None:
    """Let the records of `collection` carry jobs: the relays look there from now on (idempotent)."""
    with db.translate_errors():
        await site.db.collection(collection).create_index([(CARRIED_AT, 1)], name=CARRIED_INDEX, sparse=True)
        await site.db.collection(CARRIERS).update_one({"_id": collection}, {"$set": {"_id": collection}},
                                                      upsert=True)


async def relay_carried(site: Site, backend: ArqBackend) -> int:
    """Queue the jobs that committed records carry (at most BATCH records per collection) and take
    them off the records; returns how many jobs. One query looks into every carrier collection
    (`$unionWith`), each through its sparse index. A job queued twice (a relay beside this one, or
    one that died before taking it off) is refused by arq, as the outbox's are."""
    if not carries(site):
        return 0
    with db.translate_errors():
        carriers = [str(r["_id"]) for r in await site.db.collection(CARRIERS).find({}, {"_id": 1}).to_list(None)]
    if not carriers:
        return 0

    def look(name: str) -> list[dict[str, Any]]:
        return [{"$match": {CARRIED_AT: {"$exists": True}}}, {"$limit": BATCH},
                {"$project": {CARRIED: 1}}, {"$addFields": {"_fw_carrier": name}}]

    pipeline = look(carriers[0]) + [{"$unionWith": {"coll": name, "pipeline": look(name)}} for name in carriers[1:]]
    records = await db.aggregate(site.db.collection(carriers[0]), pipeline)
    relayed = 0
    for record in records:
        pushed: list[str] = []
        try:
            for enqueue_id, entry in (record.get(CARRIED) or {}).items():
                await _submit(backend, entry)
                pushed.append(enqueue_id)
        finally:
            await _take_off(site.db.collection(record["_fw_carrier"]), record["_id"], pushed)
        relayed += len(pushed)
    if relayed:
        log.info("relayed %d carried job(s)", relayed)
    return relayed


async def _take_off(collection: Any, record_id: Any, pushed: list[str]) -> None:
    """Remove the jobs `pushed` from a record, and its carrying marks once it carries none (a job a
    save added meanwhile stays, marks included: one atomic update)."""
    left = {"$gt": [{"$size": {"$objectToArray": {"$ifNull": [f"${CARRIED}", {}]}}}, 0]}
    pipeline: list[dict[str, Any]] = [{"$unset": [f"{CARRIED}.{i}" for i in pushed]}] if pushed else []
    pipeline.append({"$set": {CARRIED: {"$cond": [left, f"${CARRIED}", "$$REMOVE"]},
                              CARRIED_AT: {"$cond": [left, f"${CARRIED_AT}", "$$REMOVE"]}}})
    with db.translate_errors():
        await collection.update_one({"_id": record_id}, pipeline)


async def adopt(ctx: Context, carried: dict[str, Any]) -> None:
    """The jobs a record carried (`{enqueue_id: entry}`) into the outbox, in the unit of work's
    transaction: the record is being deleted, and its jobs must outlive it."""
    if not carried:
        return
    created = time.time() - RELAY_AFTER  # (for the relays' next look)
    records = [{"_id": enqueue_id, **entry, "created": created} for enqueue_id, entry in carried.items()]
    session = await ctx.write_session()
    with db.translate_errors():
        await ctx.db.collection(COLLECTION).insert_many(records, session=session)


async def on_delete(doc: BaseDocument, event: str) -> None:
    """The core's `after_delete` handler (every doctype): the jobs the deleted record carried, into
    the outbox with the delete."""
    stored = doc._stored
    if stored and stored.get(CARRIED):
        await adopt(doc.ctx, stored[CARRIED])


async def relay_once(site: Site, backend: ArqBackend, *, older_than: float = 0.0) -> int:
    """One look by a relay: the outbox's jobs, then the carried ones; how many it queued."""
    return await relay_pending(site, backend, older_than=older_than) + await relay_carried(site, backend)


async def run_relay(site: Site, backend: ArqBackend) -> None:
    """Relay the outbox until cancelled, backing off while Redis or MongoDB does not answer."""
    delay = RELAY_INTERVAL
    while True:
        try:
            relayed = await relay_once(site, backend, older_than=RELAY_AFTER)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # the relay must outlive any outage; it logs and tries again
            message = e.message if isinstance(e, exc.FwError) else f"{type(e).__name__}: {e}"
            log.warning("job outbox relay: %s; next try in %.0f s", message, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, RELAY_BACKOFF_MAX)
            continue
        delay = RELAY_INTERVAL
        if relayed < BATCH:
            await asyncio.sleep(RELAY_INTERVAL)


def start_relay(site: Site) -> asyncio.Task[None] | None:
    """The relay as a task of the running loop; None without Redis (jobs run in-process then)."""
    backend = backend_for(site)
    if not isinstance(backend, ArqBackend):
        return None
    return asyncio.get_running_loop().create_task(run_relay(site, backend), name="fw-job-relay")


async def stop_relay(task: asyncio.Task[None] | None) -> None:
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def ensure_indexes(site: Site) -> None:
    await site.db.collection(COLLECTION).create_index([("created", 1)], name="fw_created")
