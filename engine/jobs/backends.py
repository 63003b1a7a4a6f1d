"""Where `enqueue` sends jobs: `ArqBackend` (arq on Redis; every call that reaches Redis raises
`JobQueueUnavailableError` when it does not answer) or `InProcessBackend` (asyncio tasks of this
process, without FW_REDIS_URL), chosen once per site by `backend_for`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from engine import exceptions as exc
from engine.jobs import runner
from engine.jobs.payload import JobPayload
from engine.services import JobsBackend
from engine.translation import _

if TYPE_CHECKING:
    from engine.site import Site

log = logging.getLogger("fw.jobs")
ARQ_FUNCTION = "fw_run_job"
JOB_PREFIX, IN_PROGRESS_PREFIX, RESULT_PREFIX = "arq:job:", "arq:in-progress:", "arq:result:"


JOB_EXPIRES = timedelta(days=7)  # a queued job not started within a week is dropped
CONNECT_TIMEOUT = 2.0  # s: a request waits at most this for a Redis connection...
COMMAND_TIMEOUT = 5.0  # s: ...and this for a Redis answer, then answers 503
_Y2K_MS = 946_684_800_000


def front_of_queue() -> datetime:
    """The score of an `at_front` job: arq runs the lowest score first, so mirror "now" around
    2000-01-01; every at_front job sorts before all normal ones, the latest first (Frappe's LPUSH)."""
    now_ms = datetime.now(UTC).timestamp() * 1000
    return datetime.fromtimestamp((_Y2K_MS - (now_ms - _Y2K_MS)) / 1000, UTC)


def queue_key(site_name: str, queue: str) -> str:
    return f"fw:{site_name}:queue:{queue}"


Backend = JobsBackend  # the protocol lives in engine/services.py, so `Site` can declare its backend


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


@contextlib.contextmanager
def redis_errors() -> Iterator[None]:
    """Redis out of reach (refused, reset, timed out, loading, read-only) is JobQueueUnavailableError:
    503 over HTTP, retry later."""
    try:
        yield
    except exc.FwError:
        raise
    except (RedisError, OSError) as e:
        log.warning("Redis unavailable: %s", e)
        raise exc.JobQueueUnavailableError(_("The job queue (Redis) is not reachable right now; please retry in "
                                             "a few seconds")) from e


class ArqBackend:
    """Jobs on arq. Every call that reaches Redis raises JobQueueUnavailableError when it does not answer."""

    def __init__(self, site: Site, redis_url: str) -> None:
        self.site = site
        self.redis_url = redis_url
        self._pool: Any = None

    async def pool(self) -> Any:
        if self._pool is None:
            from arq.connections import ArqRedis

            with redis_errors():
                # a request must not hang on Redis: fail within a few seconds, and no retries in here
                # (one immediate retry on a fresh connection: the pooled one may be from before a Redis restart)
                self._pool = ArqRedis.from_url(self.redis_url, socket_connect_timeout=CONNECT_TIMEOUT,
                                               socket_timeout=COMMAND_TIMEOUT,
                                               retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)))
        return self._pool

    async def submit(self, payload: JobPayload, *, at_front: bool) -> bool:
        """Queue the job; False when a job with its id is queued or running (or when this very
        enqueue, `payload.enqueue_id`, was queued already: a relay sending it again)."""
        pool = await self.pool()

        async def push() -> Any:
            return await pool.enqueue_job(
                ARQ_FUNCTION, payload.to_dict(), _job_id=payload.job_id,
                _queue_name=queue_key(self.site.name, payload.queue),
                _defer_until=front_of_queue() if at_front else None, _expires=JOB_EXPIRES)

        with redis_errors():
            job = await push()  # arq refuses an id that is queued, running or has a result
            if job is None and await self.status(payload.job_id) in ("finished", "failed"):
                if await self._enqueue_id(payload.job_id) == payload.enqueue_id:
                    return False  # this enqueue already ran: sent again by a relay, not a new one
                await pool.delete(f"{RESULT_PREFIX}{payload.job_id}")  # a finished job with this id is replaced
                job = await push()
        return job is not None

    async def _read(self, job_id: str) -> tuple[str | None, dict[str, Any] | None]:
        """The job's status and payload from arq's own keys, whatever queue it is on, in one MULTI.

        arq finishes a job in one transaction (its result set, its job and in-progress keys
        deleted), so a reader asking for the keys one by one could fall in between and find none:
        a running job would read as missing. One transaction sees the job before or after, never neither.
        """
        from arq.jobs import deserialize_job, deserialize_result

        pool = await self.pool()
        with redis_errors():
            async with pool.pipeline(transaction=True) as pipe:
                pipe.get(f"{RESULT_PREFIX}{job_id}")
                pipe.exists(f"{IN_PROGRESS_PREFIX}{job_id}")
                pipe.get(f"{JOB_PREFIX}{job_id}")
                result, running, queued = await pipe.execute()
        status = "finished" if result else "started" if running else "queued" if queued else None
        args: Any = None
        try:
            if result:
                info: Any = deserialize_result(result)
                status = "finished" if info.success else "failed"
                args = info.args
            elif queued:
                args = deserialize_job(queued).args
        except Exception:  # a record that no longer unpickles: a finished one failed, and it is nobody's
            status = "failed" if result else status
        payload = args[0] if args and isinstance(args[0], dict) else None
        return status, payload

    async def status(self, job_id: str) -> str | None:
        """queued, started, finished or failed (None: no such job, or its result has expired)."""
        return (await self._read(job_id))[0]

    async def payload(self, job_id: str) -> dict[str, Any] | None:
        """The payload arq keeps for the job (queued, running or finished), if it still unpickles."""
        return (await self._read(job_id))[1]

    async def _enqueue_id(self, job_id: str) -> str | None:
        return (await self.payload(job_id) or {}).get("enqueue_id")

    async def owner(self, job_id: str) -> str | None:
        """The user who enqueued the job (from arq's job or result record)."""
        return (await self.payload(job_id) or {}).get("user")

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            with contextlib.suppress(RedisError, OSError):
                await pool.aclose(close_connection_pool=True)


def backend_for(site: Site) -> Backend:
    existing = site._jobs_backend
    if existing is None:
        url = site.settings.redis_url
        existing = ArqBackend(site, url) if url else InProcessBackend(site)
        site._jobs_backend = existing
    return existing
