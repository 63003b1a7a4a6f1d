"""Job status over HTTP: `fw.utils.background_jobs.get_job_status` (queued, started, finished, failed)."""

from __future__ import annotations

from typing import Any

from engine import exceptions as exc
from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.jobs.queue import backend_for, job_status
from engine.translation import _


@whitelist(path="fw.utils.background_jobs.get_job_status")
async def get_job_status(ctx: Context, job_id: str) -> dict[str, Any]:
    """The state of a job this site queued. Callers see only their own jobs unless System Manager."""
    full_id = job_id if job_id.startswith(f"{ctx.site.name}::") else f"{ctx.site.name}::{job_id}"
    status = await job_status(ctx.site, full_id)
    if status is None:
        raise exc.DoesNotExistError(_("Job {0} not found", job_id))
    if not ctx.is_admin and "System Manager" not in await ctx.roles():
        owner = await _job_owner(ctx, full_id)
        if owner != ctx.user:  # someone else's, or no record of who queued it
            raise exc.PermissionError(_("You can only see the status of your own jobs"))
    return {"job_id": full_id, "status": status}


async def _job_owner(ctx: Context, job_id: str) -> str | None:
    owner = getattr(backend_for(ctx.site), "owner", None)
    return await owner(job_id) if owner is not None else None
