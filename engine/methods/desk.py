"""Desk functions under Frappe's paths: script reports and workflow actions."""

from __future__ import annotations

from typing import Any

from engine import exceptions as exc
from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.documents import workflow
from engine.documents.document import Document
from engine.methods.args import document_ref, json_arg
from engine.methods.client import load_for, readable_dict
from engine.reports import script_report as reports
from engine.translation import _


def _report(ctx: Context, report_name: str) -> reports.ReportDef:
    report = ctx.site.apps.reports.get(report_name)
    if report is None:
        raise exc.DoesNotExistError(_("Report {0} not found", report_name))
    return report


@whitelist(path="fw.desk.query_report.run")
async def run_report(ctx: Context, report_name: str, filters: Any = None, user: str | None = None,
                     ignore_prepared_report: Any = False, are_default_filters: Any = True) -> dict[str, Any]:
    report = _report(ctx, report_name)
    return await reports.run(ctx, report, json_arg(filters, "filters", kinds=(dict,)) or {})


@whitelist(path="fw.desk.query_report.get_script")
async def get_report_script(ctx: Context, report_name: str) -> dict[str, Any]:
    """The report's filters (defaults resolved for the caller), its `<report>.js` (text and URL) and
    the translations of that script's strings; refused as running the report is."""
    return await reports.get_script(ctx, _report(ctx, report_name))


async def _document(ctx: Context, doc: Any) -> Document:
    _data, doctype, name = document_ref(doc)
    return await load_for(ctx, doctype, name, "read")


@whitelist(path="fw.model.workflow.apply_workflow", methods=["POST"])
async def apply_workflow(ctx: Context, doc: Any, action: str) -> dict[str, Any]:
    document = await workflow.apply_workflow(ctx, await _document(ctx, doc), action)
    return await readable_dict(ctx, document)


@whitelist(path="fw.model.workflow.get_transitions")
async def get_transitions(ctx: Context, doc: Any) -> list[dict[str, Any]]:
    return await workflow.get_transitions(ctx, await _document(ctx, doc))
