"""A site's background jobs in tests: waiting for them without Redis (they run as asyncio tasks of
the test's process, engine/jobs/backends.py `InProcessBackend`), or sending them to a Redis of the
test's choosing through arq."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from engine.jobs.backends import ArqBackend, InProcessBackend, backend_for
from engine.site import Site


@asynccontextmanager
async def arq_jobs(site: Site, redis_url: str) -> AsyncIterator[Site]:
    """The site with its jobs on the Redis at `redis_url` (the job outbox, its relays), then back."""
    site.settings = site.settings.model_copy(update={"redis_url": redis_url})
    site._jobs_backend = ArqBackend(site, redis_url)  # type: ignore[attr-defined]
    try:
        yield site
    finally:
        await site.close_services()
        site.settings = site.settings.model_copy(update={"redis_url": None})


async def jobs_done(site: Site) -> None:
    """Wait until every job the site queued so far (and every job those queued) has finished."""
    backend = backend_for(site)
    assert isinstance(backend, InProcessBackend), "with Redis, a worker runs the jobs"
    await backend.drain()
