"""The report view under Frappe's paths: `fw.desk.reportview.get` (its rows, grouped or not),
`fw.desk.reportview.save_report` (Save As a Report Builder `Report` shared with chosen roles),
`fw.desk.reportview.get_reports` (the saved ones the caller may open) and
`fw.desk.reportview.get_report` (one of them). The work is engine/desk/report_builder.py's."""

from __future__ import annotations

from typing import Any

import orjson

from engine import exceptions as exc
from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.desk import report_builder
from engine.documents.factory import get_doc, new_doc
from engine.methods.args import json_arg
from engine.query.listing import exists
from engine.translation import _

MAX_SETTINGS = 64 * 1024


@whitelist(path="fw.desk.reportview.get", methods=["GET", "POST"])
async def get(ctx: Context, doctype: str, fields: Any = None, filters: Any = None, order_by: str | None = None,
              start: Any = 0, page_length: Any = 20, group_by: str | None = None, aggregate_on_field: str | None = None,
              aggregate_function: str | None = None, **_ignored: Any) -> dict[str, Any]:
    """`{"keys", "values"}` of the caller's rows of `doctype`: the `fields` (child-table ones as
    `table.field`), or grouped by `group_by` with `count` and `aggregate_function` (sum, avg) of
    `aggregate_on_field`. An unknown or unreadable field, a non-numeric sum: 417 / 403 naming it."""
    return await report_builder.get(
        ctx, doctype, fields=json_arg(fields, "fields", kinds=(list,)) if fields is not None else None,
        filters=json_arg(filters, "filters") if filters is not None else None, order_by=order_by, start=start,
        page_length=page_length, group_by=group_by or None, aggregate_on_field=aggregate_on_field,
        aggregate_function=aggregate_function)


@whitelist(path="fw.desk.reportview.get_reports")
async def get_reports(ctx: Context, doctype: str) -> list[dict[str, Any]]:
    return await report_builder.saved_reports(ctx, doctype)


@whitelist(path="fw.desk.reportview.get_report")
async def get_report(ctx: Context, name: str) -> dict[str, Any]:
    return await report_builder.open_report(ctx, name)


@whitelist(path="fw.desk.reportview.save_report", methods=["POST"])
async def save_report(ctx: Context, name: str, doctype: str, report_settings: Any, roles: Any = None) -> str:
    """Save the view's settings (columns, filters, sort, group-by) as the Report Builder report
    `name` of `doctype`, shared with `roles` (Role names; none: everyone who reads the doctype). A
    report of that name is overwritten only if it is one of this doctype and the caller may write it."""
    if not isinstance(name, str) or not name.strip():
        raise exc.ValidationError(_("Name the report"), field="name")
    settings = json_arg(report_settings, "report_settings", kinds=(dict,))
    text = orjson.dumps(settings).decode()
    if len(text) > MAX_SETTINGS:
        raise exc.ValidationError(_("The report's settings are too large"), field="report_settings")
    ctx.meta(doctype)
    if settings.get("group_by"):  # what cannot run is not saved
        await report_builder.get(ctx, doctype, group_by=settings.get("group_by"), page_length=1,
                                 aggregate_function=settings.get("aggregate_function"),
                                 aggregate_on_field=settings.get("aggregate_on_field"))
    role_names = [str(r) for r in json_arg(roles, "roles", kinds=(list,)) or []] if roles is not None else []
    name = name.strip()
    if await exists(ctx, "Report", name):
        doc = await get_doc(ctx, "Report", name)
        if doc.get("ref_doctype") != doctype or doc.get("report_type") != report_builder.REPORT_TYPE:
            raise exc.DuplicateEntryError(_("A report named {0} already exists", name))
        doc.set("json", settings)
        doc.set("roles", [{"role": r} for r in role_names])
        await doc.save()
        return str(doc.name)
    doc = new_doc(ctx, "Report", {"report_name": name, "ref_doctype": doctype, "is_standard": "No",
                                  "report_type": report_builder.REPORT_TYPE, "json": settings,
                                  "roles": [{"role": r} for r in role_names]})
    await doc.insert()
    return str(doc.name)
