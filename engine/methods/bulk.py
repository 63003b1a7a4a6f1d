"""The list's bulk actions under Frappe's paths (engine/desk/bulk_actions.py does the work): each row its own unit
of work, with a result per row; a large batch, or one asked for with `background`, runs as a job."""

from __future__ import annotations

from typing import Any

from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.desk import bulk_actions as bulk
from engine.methods.args import bool_arg, json_arg


@whitelist(path="fw.desk.reportview.delete_items", methods=["POST"])
async def delete_items(ctx: Context, items: Any, doctype: str, background: Any = False) -> bulk.BulkResult:
    """Delete the documents `items` (a list of names, or its JSON) of `doctype`: per row `ok`, or the
    error's `exc_type` and `message` (the caller's rights and links are checked row by row). Over 20
    rows, or with `background`, a job does it and the answer is `{job_id, total}`."""
    names = bulk.check_names(json_arg(items, "items", kinds=(list,)))
    return await bulk.start(ctx, "delete", doctype, names, None, bool_arg(background, "background"))


@whitelist(path="fw.model.workflow.bulk_workflow_approval", methods=["POST"])
async def bulk_workflow_approval(ctx: Context, docnames: Any, doctype: str, action: str,
                                 background: Any = False) -> bulk.BulkResult:
    """Apply the workflow `action` to the documents `docnames` of `doctype`, each as `apply_workflow`
    would (roles, conditions, self-approval): per row `ok`, or the error's `exc_type` and `message`.
    Over 20 rows, or with `background`, a job does it and the answer is `{job_id, total}`."""
    names = bulk.check_names(json_arg(docnames, "docnames", kinds=(list,)))
    return await bulk.start(ctx, "workflow", doctype, names, action, bool_arg(background, "background"))
