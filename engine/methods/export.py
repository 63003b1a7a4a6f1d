"""List and report export under Frappe's paths: `fw.desk.reportview.export_query` and
`fw.desk.query_report.export_query` answer a file download (engine/export/)."""

from __future__ import annotations

from typing import Any

from engine import exceptions as exc
from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.export import list_export, report_export
from engine.export.writer import Download, file_format
from engine.methods.args import json_arg
from engine.translation import _


@whitelist(path="fw.desk.reportview.export_query", methods=["POST"])
async def export_query(ctx: Context, doctype: str, file_format_type: str = "CSV", fields: Any = None,
                       filters: Any = None, order_by: str | None = None, selected_items: Any = None,
                       title: str | None = None) -> Download:
    """The rows of `doctype` the caller may read, matching `filters` (or only `selected_items`), as a
    CSV or Excel file with the `fields` as columns."""
    return await list_export.export_list(
        ctx, doctype, file_format(file_format_type), json_arg(fields, "fields", kinds=(list,)),
        json_arg(filters, "filters"), order_by, json_arg(selected_items, "selected_items", kinds=(list,)), title)


@whitelist(path="fw.desk.query_report.export_query", methods=["POST"])
async def export_report(ctx: Context, report_name: str, filters: Any = None, file_format_type: str = "CSV",
                        visible_idx: Any = None) -> Download:
    """A script report's rows (those at `visible_idx`, in that order, when given) as CSV or Excel."""
    report = ctx.site.apps.reports.get(report_name)
    if report is None:
        raise exc.DoesNotExistError(_("Report {0} not found", report_name))
    return await report_export.export_report(ctx, report, json_arg(filters, "filters", kinds=(dict,)) or {},
                                             file_format(file_format_type),
                                             json_arg(visible_idx, "visible_idx", kinds=(list,)))
