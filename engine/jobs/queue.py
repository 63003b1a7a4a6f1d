"""`enqueue`: Frappe's signature on arq. Without FW_REDIS_URL jobs run in-process in the
background with the same semantics (own context, commit at the end, Error Log, callbacks).

Job ids are `<site>::<job_id or uuid>`. `deduplicate=True` skips the call while a job with that
id is queued or running, and replaces a finished one.

With Redis, `enqueue_after_commit` writes the job into the request's transaction first (the
outbox, `engine.jobs.outbox`), so a Redis outage cannot lose the job of a committed request; any
other enqueue, and every status lookup, raises `JobQueueUnavailableError` (503) while Redis does
not answer.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.jobs import outbox, runner

# the backends live in engine/jobs/backends.py; these names stay importable from here
from engine.jobs.backends import ARQ_FUNCTION as ARQ_FUNCTION
from engine.jobs.backends import IN_PROGRESS_PREFIX as IN_PROGRESS_PREFIX
from engine.jobs.backends import JOB_PREFIX as JOB_PREFIX
from engine.jobs.backends import RESULT_PREFIX as RESULT_PREFIX
from engine.jobs.backends import ArqBackend as ArqBackend
from engine.jobs.backends import Backend as Backend
from engine.jobs.backends import InProcessBackend as InProcessBackend
from engine.jobs.backends import backend_for as backend_for
from engine.jobs.backends import queue_key as queue_key
from engine.jobs.backends import redis_errors as redis_errors
from engine.jobs.payload import DEFAULT_TIMEOUTS, QUEUES, JobPayload, dotted_path, resolve
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.site import Site

log = logging.getLogger("fw.jobs")


async def enqueue(ctx: Context, method: str | Callable[..., Any], queue: str = "default", timeout: float | None = None,
                  job_name: str | None = None, on_success: str | Callable[..., Any] | None = None,
                  on_failure: str | Callable[..., Any] | None = None, *, job_id: str | None = None,
                  deduplicate: bool = False, at_front: bool = False, now: bool = False,
                  enqueue_after_commit: bool = False, relay_only: bool = False, **kwargs: Any) -> str | Any | None:
    """Queue `method(**kwargs)` to run as the current user; returns the job id (or the result with `now`).

    ```python
    await enqueue(ctx, "workforce_scoring.tasks.recalculate", queue="long", timeout=600, employee=emp)
    ```
    `relay_only` (with Redis and `enqueue_after_commit`): the committed job waits in the outbox for a
    relay (within a second or so) rather than being pushed to Redis by this process after the commit.
    """
    payload = _payload(ctx, method, queue, timeout, job_name, on_success, on_failure, job_id, kwargs)
    if deduplicate and not job_id:
        raise exc.ValidationError(_("deduplicate needs a job_id"), field="job_id")
    if now:
        return await runner.execute(ctx.site, payload)
    backend = backend_for(ctx.site)
    if enqueue_after_commit and ctx.uow is not None:
        if isinstance(backend, ArqBackend):  # in the transaction: it exists exactly when the unit commits
            await outbox.add(ctx, backend, payload, at_front=at_front, push=not relay_only)
            return payload.job_id

        async def release() -> None:
            await backend.submit(payload, at_front=at_front)

        ctx.after_commit(release)
        return payload.job_id
    if deduplicate and await backend.status(payload.job_id) in ("queued", "started"):
        return None
    submitted = await backend.submit(payload, at_front=at_front)
    return payload.job_id if submitted else None


def carry(ctx: Context, method: str | Callable[..., Any], queue: str = "default", *, job_name: str | None = None,
          **kwargs: Any) -> dict[str, dict[str, Any]] | None:
    """`method(**kwargs)` as a job for the write of one document to carry in its own record
    (`engine.jobs.payload.carry_in_record` / `carry_in_update`): it exists exactly when that write
    does, with no transaction and no Redis call in the request, and a relay queues it within a second
    or so (engine/jobs/outbox.py). `{enqueue_id: entry}`; None without Redis, where nothing needs
    carrying (`enqueue(..., enqueue_after_commit=True)` runs the job after the commit), and on the
    in-memory backend, which lacks the queries the relays use (`outbox.carries`)."""
    if not isinstance(backend_for(ctx.site), ArqBackend) or not outbox.carries(ctx.site):
        return None
    payload = _payload(ctx, method, queue, None, job_name, None, None, None, kwargs)
    return {payload.enqueue_id: outbox.carried_entry(payload)}


def _payload(ctx: Context, method: str | Callable[..., Any], queue: str, timeout: float | None,
             job_name: str | None, on_success: str | Callable[..., Any] | None,
             on_failure: str | Callable[..., Any] | None, job_id: str | None, kwargs: dict[str, Any]) -> JobPayload:
    """The job as it travels, its method and callbacks checked now (not in the worker)."""
    if queue not in QUEUES and queue not in ctx.site.settings.job_queue_timeouts:
        raise exc.ValidationError(_("Unknown queue {0}", queue), field="queue")
    path = dotted_path(method)
    resolve(path)  # fail now, not in the worker
    default_timeout = ctx.site.settings.job_queue_timeouts.get(queue, DEFAULT_TIMEOUTS.get(queue, 300))
    payload = JobPayload(
        site=ctx.site.name, user=ctx.user, lang=ctx.lang, method=path, kwargs=kwargs, queue=queue,
        timeout=float(timeout or default_timeout), job_id=f"{ctx.site.name}::{job_id or uuid.uuid4().hex}",
        job_name=job_name or path, on_success=dotted_path(on_success) if on_success else None,
        on_failure=dotted_path(on_failure) if on_failure else None)
    for cb in (payload.on_success, payload.on_failure):
        if cb:
            resolve(cb)
    return payload


async def job_status(site: Site, job_id: str) -> str | None:
    return await backend_for(site).status(job_id)
