"""`enqueue`: Frappe's signature on arq. Without FW_REDIS_URL jobs run in-process in the
background with the same semantics (own context, commit at the end, Error Log, callbacks).

Job ids are `<site>::<job_id or uuid>`. `deduplicate=True` skips the call while a job with that
id is queued or running, and replaces a finished one.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from engine import exceptions as exc
from engine.jobs import runner
from engine.jobs.payload import DEFAULT_TIMEOUTS, QUEUES, JobPayload, dotted_path, resolve
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.site import Site

log = logging.getLogger("fw.jobs")
ARQ_FUNCTION = "fw_run_job"
JOB_PREFIX, IN_PROGRESS_PREFIX, RESULT_PREFIX = "arq:job:", "arq:in-progress:", "arq:result:"


JOB_EXPIRES = timedelta(days=7)  # a queued job not started within a week is dropped
_Y2K_MS = 946_684_800_000


def front_of_queue() -> datetime:
    """The score of an `at_front` job: arq runs the lowest score first, so mirror "now" around
    2000-01-01; every at_front job sorts before all normal ones, the latest first (Frappe's LPUSH)."""
    now_ms = datetime.now(UTC).timestamp() * 1000
    return datetime.fromtimestamp((_Y2K_MS - (now_ms - _Y2K_MS)) / 1000, UTC)


def queue_key(site_name: str, queue: str) -> str:
    return f"fw:{site_name}:queue:{queue}"


class Backend(Protocol):
    async def submit(self, payload: JobPayload, *, at_front: bool) -> bool: ...
    async def status(self, job_id: str) -> str | None: ...
    async def owner(self, job_id: str) -> str | None: ...
    async def close(self) -> None: ...


class InProcessBackend:
    """Jobs as asyncio tasks of this process (no Redis): same semantics, nothing survives a restart."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.states: dict[str, str] = {}
        self.owners: dict[str, str] = {}
        self.tasks: set[asyncio.Task[Any]] = set()

    async def submit(self, payload: JobPayload, *, at_front: bool) -> bool:
        if self.states.get(payload.job_id) in ("queued", "started"):
            return False
        self.states[payload.job_id] = "queued"
        self.owners[payload.job_id] = payload.user
        task = asyncio.get_running_loop().create_task(self._run(payload))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return True

    async def _run(self, payload: JobPayload) -> None:
        await asyncio.sleep(0)
        self.states[payload.job_id] = "started"
        try:
            await runner.execute(self.site, payload)
        except Exception:
            self.states[payload.job_id] = "failed"
        else:
            self.states[payload.job_id] = "finished"

    async def status(self, job_id: str) -> str | None:
        return self.states.get(job_id)

    async def owner(self, job_id: str) -> str | None:
        return self.owners.get(job_id)

    async def drain(self) -> None:
        """Wait for every running job (tests and shutdown)."""
        while self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)

    async def close(self) -> None:
        await self.drain()


class ArqBackend:
    def __init__(self, site: Site, redis_url: str) -> None:
        self.site = site
        self.redis_url = redis_url
        self._pool: Any = None

    async def pool(self) -> Any:
        if self._pool is None:
            from arq import create_pool
            from arq.connections import RedisSettings

            try:
                redis_settings = RedisSettings.from_dsn(self.redis_url)
                redis_settings.conn_retries = 0  # a request must not hang retrying: fail now, clearly
                self._pool = await create_pool(redis_settings)
            except Exception as e:
                raise exc.ConfigurationError(
                    f"Redis at FW_REDIS_URL is not reachable ({e}); the job was not queued") from e
        return self._pool

    async def submit(self, payload: JobPayload, *, at_front: bool) -> bool:
        pool = await self.pool()

        async def push() -> Any:
            return await pool.enqueue_job(
                ARQ_FUNCTION, payload.to_dict(), _job_id=payload.job_id,
                _queue_name=queue_key(self.site.name, payload.queue),
                _defer_until=front_of_queue() if at_front else None, _expires=JOB_EXPIRES)

        try:
            job = await push()  # arq refuses an id that is queued, running or has a result
            if job is None and await self.status(payload.job_id) in ("finished", "failed"):
                await pool.delete(f"{RESULT_PREFIX}{payload.job_id}")  # a finished job with this id is replaced
                job = await push()
        except exc.FwError:
            raise
        except Exception as e:
            raise exc.ConfigurationError(f"Redis is not reachable ({e}); the job was not queued") from e
        return job is not None

    async def status(self, job_id: str) -> str | None:
        """From arq's own keys, whatever queue the job is on."""
        from arq.jobs import Job

        pool = await self.pool()
        if await pool.exists(f"{RESULT_PREFIX}{job_id}"):
            try:
                info = await Job(job_id, pool).result_info()
            except Exception:  # a result that no longer unpickles is still a finished job
                return "failed"
            return "finished" if info is not None and info.success else "failed"
        if await pool.exists(f"{IN_PROGRESS_PREFIX}{job_id}"):
            return "started"
        if await pool.exists(f"{JOB_PREFIX}{job_id}"):
            return "queued"
        return None

    async def owner(self, job_id: str) -> str | None:
        """The user who enqueued the job (from arq's job or result record)."""
        from arq.jobs import Job

        try:
            info = await Job(job_id, await self.pool()).info()
        except exc.FwError:
            raise
        except Exception:  # a record that no longer unpickles: nobody's
            return None
        if info is None or not info.args or not isinstance(info.args[0], dict):
            return None
        return info.args[0].get("user")  # type: ignore[no-any-return]

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.aclose(close_connection_pool=True)
            self._pool = None


def backend_for(site: Site) -> Backend:
    existing = getattr(site, "_jobs_backend", None)
    if existing is None:
        url = site.settings.redis_url
        existing = ArqBackend(site, url) if url else InProcessBackend(site)
        site._jobs_backend = existing  # type: ignore[attr-defined]
    return existing  # type: ignore[no-any-return]


async def enqueue(ctx: Context, method: str | Callable[..., Any], queue: str = "default", timeout: float | None = None,
                  job_name: str | None = None, on_success: str | Callable[..., Any] | None = None,
                  on_failure: str | Callable[..., Any] | None = None, *, job_id: str | None = None,
                  deduplicate: bool = False, at_front: bool = False, now: bool = False,
                  enqueue_after_commit: bool = False, **kwargs: Any) -> str | Any | None:
    """Queue `method(**kwargs)` to run as the current user; returns the job id (or the result with `now`).

    ```python
    await enqueue(ctx, "workforce_scoring.tasks.recalculate", queue="long", timeout=600, employee=emp)
    ```
    """
    if queue not in QUEUES and queue not in ctx.site.settings.job_queue_timeouts:
        raise exc.ValidationError(_("Unknown queue {0}", queue), field="queue")
    path = dotted_path(method)
    resolve(path)  # fail now, not in the worker
    if deduplicate and not job_id:
        raise exc.ValidationError(_("deduplicate needs a job_id"), field="job_id")
    default_timeout = ctx.site.settings.job_queue_timeouts.get(queue, DEFAULT_TIMEOUTS.get(queue, 300))
    payload = JobPayload(
        site=ctx.site.name, user=ctx.user, lang=ctx.lang, method=path, kwargs=kwargs, queue=queue,
        timeout=float(timeout or default_timeout), job_id=f"{ctx.site.name}::{job_id or uuid.uuid4().hex}",
        job_name=job_name or path, on_success=dotted_path(on_success) if on_success else None,
        on_failure=dotted_path(on_failure) if on_failure else None)
    for cb in (payload.on_success, payload.on_failure):
        if cb:
            resolve(cb)
    if now:
        return await runner.execute(ctx.site, payload)
    backend = backend_for(ctx.site)
    if enqueue_after_commit and ctx.uow is not None:
        async def release() -> None:
            await backend.submit(payload, at_front=at_front)

        ctx.after_commit(release)
        return payload.job_id
    if deduplicate and await backend.status(payload.job_id) in ("queued", "started"):
        return None
    submitted = await backend.submit(payload, at_front=at_front)
    return payload.job_id if submitted else None


async def job_status(site: Site, job_id: str) -> str | None:
    return await backend_for(site).status(job_id)
