"""Whitelisted functions the benchmarks call."""

from __future__ import annotations

from typing import Any

from engine import exceptions as exc
from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.jobs.queue import enqueue
from engine.realtime import publish_realtime


@whitelist(methods=["POST"])
async def publish(ctx: Context, event: str, message: Any = None, room: str | None = None,
                  user: str | None = None) -> None:
    """publish_realtime from a request (Administrator only): the realtime benchmark's trigger."""
    if not ctx.is_admin:
        raise exc.PermissionError("Administrator only")
    await publish_realtime(ctx, event, message, room=room, user=user)


@whitelist(methods=["POST"])
async def enqueue_noop(ctx: Context) -> str | None:
    """Queue `fwbench.jobs.noop` (after the request commits): the soak's job traffic through `fw worker`."""
    job_id = await enqueue(ctx, "fwbench.jobs.noop", enqueue_after_commit=True)
    return job_id if isinstance(job_id, str) else None
