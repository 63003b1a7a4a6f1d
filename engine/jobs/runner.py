"""Running one job: in the enqueuing site and user's context, in a unit of work that commits at
the end and rolls back on error; errors land in the Error Log; callbacks run in context; a
scheduled run gets a Scheduled Job Log row per attempt (`job_log`)."""

from __future__ import annotations

import asyncio
import inspect
import logging
import traceback
from typing import TYPE_CHECKING, Any

from engine.apps.callables import call_with_supported
from engine.context import Context, unit_of_work
from engine.error_log import log_error
from engine.jobs import job_log
from engine.jobs.payload import JobPayload, resolve

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


async def execute(site: Site, payload: JobPayload, attempt: int = 1) -> Any:
    """Run the job; returns its result or raises after logging (so the queue marks it failed).

    `attempt` is the queue's try number: above 1, an earlier attempt's worker stopped mid-run.
    """
    # another process's meta change (a Custom Field, a doctype the DocType editor saved): a job sees
    # the definitions in force, as a request does (one tiny read per meta_check_interval)
    await site.meta.refresh_if_stale()
    ctx = Context(site, payload.user, lang=payload.lang)
    fn = resolve(payload.method)
    log_name = await job_log.start(site, payload, attempt)
    try:
        async with unit_of_work(ctx):
            try:
                result = await asyncio.wait_for(_call(fn, ctx, payload.kwargs), timeout=payload.timeout or None)
            except TimeoutError:
                raise JobTimeoutError(f"{payload.method} ran past its timeout of {payload.timeout:g} s") from None
    except Exception as error:
        log.warning("job %s (%s) failed: %s", payload.job_id, payload.method, error)
        await log_error(ctx, title=payload.method)
        await job_log.finish(site, log_name, "Failed", traceback.format_exc())
        await _callback(site, payload, payload.on_failure, error)
        raise
    await job_log.finish(site, log_name, "Complete")
    await _callback(site, payload, payload.on_success, result)
    return result
