"""Running one job: in the enqueuing site and user's context, in a unit of work that commits at
the end and rolls back on error; errors land in the Error Log; callbacks run in context."""

from __future__ import annotations

import asyncio
import inspect
import logging
import traceback
from typing import TYPE_CHECKING, Any

from engine.context import Context, unit_of_work
from engine.documents.lifecycle import now_str
from engine.error_log import log_error
from engine.hooks import call_with_supported
from engine.jobs.payload import JobPayload, resolve
from engine.naming import hash_name

if TYPE_CHECKING:
    from engine.site import Site

log = logging.getLogger("fw.jobs")


class JobTimeoutError(Exception):
    """The job ran past its timeout and was stopped."""


async def _call(fn: Any, ctx: Context, kwargs: dict[str, Any]) -> Any:
    if inspect.iscoroutinefunction(fn):
        return await call_with_supported(fn, ctx=ctx, **kwargs)
    result = await asyncio.to_thread(call_with_supported, fn, ctx=ctx, **kwargs)
    return await result if inspect.isawaitable(result) else result


async def _callback(site: Site, payload: JobPayload, path: str | None, value: Any) -> None:
    if not path:
        return
    ctx = Context(site, payload.user, lang=payload.lang)
    try:
        async with unit_of_work(ctx):
            result = call_with_supported(resolve(path), value, ctx=ctx)
            if inspect.isawaitable(result):
                await result
    except Exception:
        log.exception("callback %s of job %s failed", path, payload.job_id)
        await log_error(ctx, title=f"{path} (callback of {payload.method})")


async def _job_log(site: Site, payload: JobPayload, status: str, name: str | None = None,
                   details: str | None = None) -> str | None:
    """A Scheduled Job Log row per scheduled run (written outside the job's transaction)."""
    if not payload.scheduled_job_type:
        return None
    coll = site.db.collection("scheduled_job_log")
    stamp = now_str()
    if name is None:
        name = hash_name()
        record = {"_id": name, "scheduled_job_type": payload.scheduled_job_type, "status": status,
                  "due_at": payload.scheduled_due, "started_at": stamp, "owner": "Administrator",
                  "modified_by": "Administrator", "creation": stamp, "modified": stamp, "docstatus": 0, "idx": 0}
        await coll.insert_one({k: v for k, v in record.items() if v is not None})
    else:
        change = {"status": status, "finished_at": stamp, "modified": stamp}
        if details:
            change["details"] = details[:100_000]
        await coll.update_one({"_id": name}, {"$set": change})
    return name


async def execute(site: Site, payload: JobPayload) -> Any:
    """Run the job; returns its result or raises after logging (so the queue marks it failed)."""
    ctx = Context(site, payload.user, lang=payload.lang)
    fn = resolve(payload.method)
    log_name = await _job_log(site, payload, "Start")
    try:
        async with unit_of_work(ctx):
            try:
                result = await asyncio.wait_for(_call(fn, ctx, payload.kwargs), timeout=payload.timeout or None)
            except TimeoutError:
                raise JobTimeoutError(f"{payload.method} ran past its timeout of {payload.timeout:g} s") from None
    except Exception as error:
        log.warning("job %s (%s) failed: %s", payload.job_id, payload.method, error)
        await log_error(ctx, title=payload.method)
        await _job_log(site, payload, "Failed", log_name, traceback.format_exc())
        await _callback(site, payload, payload.on_failure, error)
        raise
    await _job_log(site, payload, "Complete", log_name)
    await _callback(site, payload, payload.on_success, result)
    return result
