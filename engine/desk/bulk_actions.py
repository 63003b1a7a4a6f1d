"""Bulk actions of the list (desk.md §3): delete, or apply a workflow action to, many documents, each
row in its own unit of work with its own result, so one refused or failing row neither stops nor
undoes the others.

Every row is checked as a single call would be (the caller's rights, the workflow's roles and
conditions, links that forbid deleting). A large batch (or one the caller asks to run in the
background) runs as a job: the request answers at once with the job's id, the job reports its
progress to its user (`publish_progress`, which the Desk shows as a progress bar) and, at the end, the
per-row results as the realtime event `bulk_result`.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypedDict

from engine import exceptions as exc
from engine import realtime
from engine.context import Context, run_in_unit_of_work
from engine.documents import workflow
from engine.documents.factory import get_doc
from engine.jobs.queue import enqueue
from engine.permissions import check_document
from engine.translation import _

MAX_ROWS = 5000  # one call; the list offers at most 500 rows a page
# more rows than this run as a job: a row costs about 65 ms on the 2-core test machine (200 rows: 13 s),
# so a page of 20 runs at once and a larger selection never holds a request (Frappe: 10 for delete_items)
JOB_THRESHOLD = 20
RESULT_EVENT = "bulk_result"


class RowResult(TypedDict, total=False):
    """One row's outcome: `ok`, and on failure the error's `exc_type` and `message`."""

    name: str
    ok: bool
    exc_type: str
    message: str


class BulkResult(TypedDict, total=False):
    """`results` per row (in the order given) with the counts; or, for a job, `job_id` and `total`."""

    results: list[RowResult]
    succeeded: int
    failed: int
    job_id: str
    total: int


def check_names(names: Any) -> list[str]:
    """The row names: a non-empty list of non-empty strings, each once, at most MAX_ROWS."""
    if not isinstance(names, list) or not names:
        raise exc.ValidationError(_("Select at least one document"), field="names")
    if len(names) > MAX_ROWS:
        raise exc.ValidationError(_("At most {0} documents at a time", MAX_ROWS), field="names")
    out: list[str] = []
    for name in names:
        if not isinstance(name, str | int) or isinstance(name, bool) or str(name).strip() == "":
            raise exc.ValidationError(_("Each document name must be text"), field="names")
        if str(name) not in out:
            out.append(str(name))
    return out


RowAction = Callable[[Context, str], Awaitable[None]]


async def _each(ctx: Context, names: list[str], action: RowAction, title: str, progress: bool) -> BulkResult:
    results: list[RowResult] = []
    shown = -1
    for i, name in enumerate(names):
        row_ctx = Context(ctx.site, ctx.user, lang=ctx.lang)  # its own transaction, not the caller's
        try:
            await run_in_unit_of_work(row_ctx, functools.partial(action, row_ctx, name))
            results.append({"name": name, "ok": True})
        except exc.FwError as error:
            results.append({"name": name, "ok": False, "exc_type": type(error).__name__, "message": error.message})
        if progress:
            percent = int((i + 1) * 100 / len(names))
            if percent != shown:
                shown = percent
                await realtime.publish_progress(ctx, percent, title=title,
                                                description=_("{0} of {1}", i + 1, len(names)))
    failed = sum(1 for r in results if not r["ok"])
    return {"results": results, "succeeded": len(results) - failed, "failed": failed}


async def _delete_row(ctx: Context, doctype: str, name: str) -> None:
    doc = await get_doc(ctx, doctype, name)
    await doc.delete()


async def _workflow_row(ctx: Context, doctype: str, name: str, action: str) -> None:
    doc = await get_doc(ctx, doctype, name)
    await check_document(ctx, doc, "read")
    await workflow.apply_workflow(ctx, doc, action)


async def delete(ctx: Context, doctype: str, names: list[str], *, progress: bool = False) -> BulkResult:
    ctx.meta(doctype)  # an unknown doctype: 404 before any row
    return await _each(ctx, names, lambda c, n: _delete_row(c, doctype, n), _("Deleting {0}", _(doctype)), progress)


async def apply_workflow(ctx: Context, doctype: str, names: list[str], action: str, *,
                         progress: bool = False) -> BulkResult:
    ctx.meta(doctype)
    if not isinstance(action, str) or not action.strip():
        raise exc.ValidationError(_("Choose a workflow action"), field="action")
    return await _each(ctx, names, lambda c, n: _workflow_row(c, doctype, n, action), _("{0}: {1}", _(action),
                       _(doctype)), progress)


async def run_job(ctx: Context, kind: str, doctype: str, names: list[str], action: str | None = None) -> BulkResult:
    """The background form (a job of its user): progress while it runs, `bulk_result` at the end."""
    if kind == "delete":
        result = await delete(ctx, doctype, names, progress=True)
    else:
        result = await apply_workflow(ctx, doctype, names, action or "", progress=True)
    await realtime.publish_realtime(ctx, RESULT_EVENT, {"doctype": doctype, "kind": kind, "action": action, **result},
                                    user=ctx.user, after_commit=False)
    return result


async def start(ctx: Context, kind: str, doctype: str, names: list[str], action: str | None,
                background: bool) -> BulkResult:
    """Run now (the rows' results) or, for a large batch or when asked, as a job (its id)."""
    if not background and len(names) <= JOB_THRESHOLD:
        if kind == "delete":
            return await delete(ctx, doctype, names)
        return await apply_workflow(ctx, doctype, names, action or "")
    ctx.meta(doctype)
    job_id = await enqueue(ctx, "engine.desk.bulk_actions.run_job", queue="long", job_name=f"bulk {kind} {doctype}",
                           kind=kind, doctype=doctype, names=names, action=action)
    return {"job_id": str(job_id), "total": len(names)}
