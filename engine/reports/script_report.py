"""Script reports: `apps/<app>/report/<x>/<x>.json` + `<x>.py` with `execute(filters)`.

Filter definitions and `<report>.js` are engine/reports/filters.py's; `get_script` serves them.

`run` checks access (a report role, and `report` permission on `ref_doctype`), calls `execute`
(sync or async; it receives the caller's context when it accepts `ctx`, so its queries obey the
caller's row permissions) and answers Frappe's `query_report.run` shape.
"""

from __future__ import annotations

import importlib
import inspect
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine import permissions
from engine.apps.callables import call_with_supported
from engine.meta.schema import scrub
from engine.query.listing import get_value
from engine.reports import filters as report_filters
from engine.translation import _

if TYPE_CHECKING:
    from engine.apps.installed import App
    from engine.context import Context


class Filters(dict):
    """Report filters with attribute access (`filters.company`), like Frappe's `_dict`."""

    def __getattr__(self, name: str) -> Any:
        return self.get(name)


@dataclass(frozen=True)
class ReportDef:
    name: str
    ref_doctype: str
    report_type: str
    roles: tuple[str, ...]
    module: str | None
    app: str
    execute: Any
    definition: dict[str, Any]
    filters: tuple[dict[str, Any], ...] = ()  # engine/reports/filters.py
    script_path: Path | None = None  # `<report>.js`, Frappe's `frappe.query_reports[name] = {...}`
    filter_defaults: Any = None  # the module's optional `filter_defaults(ctx)`: defaults per user


def load_app_reports(app: App) -> list[ReportDef]:
    """Standard reports shipped by an app; a bad one stops startup naming its file."""
    found: list[ReportDef] = []
    for json_path in sorted((app.path / "report").glob("*/*.json")):
        if json_path.stem != json_path.parent.name:
            continue
        try:
            data = json.loads(json_path.read_text(encoding="utf-8"))
        except ValueError as e:
            raise exc.ConfigurationError(f"Cannot read report JSON {json_path}: {e}") from e
        name = data.get("report_name") or data.get("name")
        if not name or scrub(name) != json_path.stem or not data.get("ref_doctype"):
            raise exc.ConfigurationError(f"{json_path}: needs report_name matching the folder and a ref_doctype")
        execute = defaults = None
        if data.get("report_type", "Script Report") == "Script Report":
            execute, defaults = _resolve_execute(app, json_path)
        roles = tuple(r["role"] if isinstance(r, dict) else str(r) for r in data.get("roles") or [])
        found.append(ReportDef(name, data["ref_doctype"], data.get("report_type", "Script Report"), roles,
                               data.get("module"), app.name, execute, data,
                               report_filters.parse_filters(data.get("filters"), json_path),
                               report_filters.script_file(json_path), defaults))
    return found


def _resolve_execute(app: App, json_path: Path) -> tuple[Any, Any]:
    """The module's `execute` and its optional `filter_defaults`."""
    module_name = f"{app.name}.report.{json_path.stem}.{json_path.stem}"
    try:
        module = importlib.import_module(module_name)
    except Exception as e:
        raise exc.ConfigurationError(f"Report {json_path}: cannot import {module_name}: {e}") from e
    execute = getattr(module, "execute", None)
    if not callable(execute):
        raise exc.ConfigurationError(f"Report {json_path}: {module_name} has no execute(filters)")
    defaults = getattr(module, "filter_defaults", None)
    return execute, defaults if callable(defaults) else None


async def check_access(ctx: Context, report: ReportDef) -> None:
    if ctx.is_admin:
        return
    roles = await ctx.roles()
    if report.roles and not set(report.roles) & roles:
        raise exc.PermissionError(_("You do not have access to report {0}", _(report.name)))
    if not await permissions.has_permission(ctx, report.ref_doctype, "report"):
        raise exc.PermissionError(_("You need the report permission on {0} to run {1}", _(report.ref_doctype),
                                    _(report.name)))


def _normalise(result: Any) -> list[Any]:
    if isinstance(result, dict):
        return [result.get("columns"), result.get("result") or result.get("data"), result.get("message"),
                result.get("chart"), result.get("report_summary")]
    if not isinstance(result, list | tuple):
        raise exc.ConfigurationError("A report's execute() must return (columns, data[, message, chart, summary])")
    items = list(result)[:6]
    return items + [None] * (6 - len(items))


def _columns(columns: list[Any]) -> list[dict[str, Any]]:
    """Column dicts; Frappe's string form "Label:Fieldtype/Options:Width" is expanded."""
    out = []
    for col in columns or []:
        if isinstance(col, dict):
            out.append({"fieldname": col.get("fieldname") or scrub(str(col.get("label", ""))), **col})
            continue
        label, _sep, rest = str(col).partition(":")
        ftype, _sep, width = rest.partition(":")
        ftype, _sep, options = ftype.partition("/")
        entry: dict[str, Any] = {"label": label, "fieldname": scrub(label), "fieldtype": ftype or "Data"}
        if options:
            entry["options"] = options
        if width.isdigit():
            entry["width"] = int(width)
        out.append(entry)
    return out


def _rows(columns: list[dict[str, Any]], data: list[Any]) -> list[Any]:
    keys = [c["fieldname"] for c in columns]
    return [dict(zip(keys, row, strict=False)) if isinstance(row, list | tuple) else row for row in data or []]


NUMERIC = frozenset({"Currency", "Int", "Float", "Percent", "Duration"})


def _number(value: Any) -> float:
    try:
        return float(value or 0)
    except (TypeError, ValueError):
        return 0.0


def _total_row(columns: list[dict[str, Any]], rows: list[Any]) -> list[Any]:
    """Frappe's `add_total_row`: numeric columns summed (Percent averaged), "Total" in the first
    column unless it is a number or date; a list in column order, as Frappe appends it."""
    total: list[Any] = [""] * len(columns)
    for i, col in enumerate(columns):
        if col.get("fieldtype") not in NUMERIC:
            continue
        values = [row.get(col["fieldname"]) if isinstance(row, dict) else None for row in rows]
        total[i] = sum(_number(v) for v in values)
        if col.get("fieldtype") == "Percent" and rows:
            total[i] = total[i] / len(rows)
    if columns and columns[0].get("fieldtype") not in (*NUMERIC, "Date"):
        total[0] = _("Total")
    return total


async def check_runnable(ctx: Context, report: ReportDef) -> None:
    """The caller may run the report, it is not disabled, and it is a Script Report."""
    await check_access(ctx, report)
    if await get_value(ctx, "Report", report.name, "disabled"):
        raise exc.ValidationError(_("Report {0} is disabled", _(report.name)))
    if report.execute is None:
        raise exc.ValidationError(_("Report {0} is not a Script Report", _(report.name)))


async def run(ctx: Context, report: ReportDef, filters: dict[str, Any] | None) -> dict[str, Any]:
    await check_runnable(ctx, report)
    started = time.perf_counter()
    result = call_with_supported(report.execute, Filters(filters or {}), ctx=ctx)
    if inspect.isawaitable(result):
        result = await result
    columns, data, message, chart, summary, skip_total = _normalise(result)
    columns = _columns(columns or [])
    rows = _rows(columns, data or [])
    add_total = bool(report.definition.get("add_total_row"))
    if add_total and rows and not skip_total:
        rows.append(_total_row(columns, rows))
    return {"result": rows, "columns": columns, "message": message, "chart": chart,
            "report_summary": summary, "skip_total_row": int(bool(skip_total)), "status": None,
            "execution_time": round(time.perf_counter() - started, 4), "add_total_row": add_total}


async def get_script(ctx: Context, report: ReportDef) -> dict[str, Any]:
    """Frappe's `get_script` answer (`script`, `html_format`, `execution_time`, `filters`) plus fw's
    `script_url` (the Desk runs no script text under its CSP), `report_name`, `ref_doctype`,
    `add_total_row` and `__messages`. Access is checked as for running the report."""
    await check_runnable(ctx, report)
    text = report_filters.script_text(report.script_path)
    return {
        "report_name": report.name, "ref_doctype": report.ref_doctype,
        "filters": await report_filters.resolved_filters(ctx, report.filters, report.filter_defaults,
                                                          report.ref_doctype),
        "script": text or "", "script_url": report_filters.script_url(report.name, text) if text else None,
        "html_format": "", "execution_time": 0,
        "add_total_row": int(bool(report.definition.get("add_total_row"))),
        "__messages": report_filters.script_messages(report.name, text, ctx.lang),
    }
