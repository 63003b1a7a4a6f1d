"""Waiting for the background jobs of a site without Redis (the tests' own): they run as asyncio
tasks of the test's process (engine/jobs/backends.py `InProcessBackend`)."""

from __future__ import annotations

from engine.jobs.backends import InProcessBackend, backend_for
from engine.site import Site


async def jobs_done(site: Site) -> None:
    """Wait until every job the site queued so far (and every job those queued) has finished."""
    backend = backend_for(site)
    assert isinstance(backend, InProcessBackend), "with Redis, a worker runs the jobs"
    await backend.drain()
