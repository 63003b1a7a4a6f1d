"""A script report's filter definitions and its client script (Frappe's
`frappe.desk.query_report.get_script`).

A report declares its filters in its JSON (`"filters": [{fieldname, label, fieldtype, options,
default, reqd}, ...]`, checked when the app loads: a bad one stops startup naming the file) and/or in
`<report>.js` beside it (`frappe.query_reports["Name"] = {filters, formatter, onload}`, Frappe's
form), which the Desk loads by URL. Defaults that depend on the user come from an optional
`filter_defaults(ctx)` function in the report's Python module (sync or async); Frappe's `Today` and
`__user` are understood in the JSON too. `get_script` answers with the filters (labels translated,
defaults resolved for the caller), the script's text (for Frappe's clients) and its URL, and the
translations of the script's `__()` strings.
"""

from __future__ import annotations

import hashlib
import inspect
import io
import re
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from engine import exceptions as exc
from engine.callables import call_with_supported
from engine.translation import translate

if TYPE_CHECKING:
    from engine.context import Context
    from engine.reports import ReportDef

# where the server serves a report's `<report>.js` (server/desk/routes.py)
SCRIPT_PATH = "/assets/desk/report-script/{report}.js"
FILTER_TYPES = frozenset({"Data", "Link", "Dynamic Link", "Select", "Check", "Int", "Float", "Currency", "Percent",
                          "Date", "Datetime", "Time", "MultiSelectList", "Autocomplete", "Small Text"})
FILTER_KEYS = frozenset({"fieldname", "label", "fieldtype", "options", "default", "reqd", "hidden", "depends_on",
                         "description", "width"})
FIELDNAME = re.compile(r"^[a-z_][a-z0-9_]*$")


def parse_filters(raw: Any, where: Path) -> tuple[dict[str, Any], ...]:
    """The JSON's `filters`, checked: a list of dicts with a unique snake_case `fieldname`, a known
    `fieldtype` (Data when absent), `reqd` 0/1, and no keys other than FILTER_KEYS."""
    if raw in (None, []):
        return ()
    if not isinstance(raw, list):
        raise exc.ConfigurationError(f"{where}: filters must be a list")
    out: list[dict[str, Any]] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or not FIELDNAME.match(str(item.get("fieldname") or "")):
            raise exc.ConfigurationError(f"{where}: filter {i} needs a snake_case fieldname")
        unknown = set(item) - FILTER_KEYS
        if unknown:
            raise exc.ConfigurationError(f"{where}: filter {item['fieldname']} has unknown keys {sorted(unknown)}")
        fieldtype = item.get("fieldtype") or "Data"
        if fieldtype not in FILTER_TYPES:
            raise exc.ConfigurationError(f"{where}: filter {item['fieldname']} has an unknown fieldtype {fieldtype}")
        if fieldtype in ("Link", "Dynamic Link") and not item.get("options"):
            raise exc.ConfigurationError(f"{where}: Link filter {item['fieldname']} needs options (its doctype)")
        if any(f["fieldname"] == item["fieldname"] for f in out):
            raise exc.ConfigurationError(f"{where}: filter {item['fieldname']} is declared twice")
        out.append({**item, "fieldtype": fieldtype, "label": item.get("label") or item["fieldname"],
                    "reqd": 1 if item.get("reqd") else 0})
    return tuple(out)


def script_file(json_path: Path) -> Path | None:
    path = json_path.with_suffix(".js")
    return path if path.is_file() else None


def script_url(report: str, text: str) -> str:
    """The URL of a report's script, versioned by a digest of its text."""
    version = hashlib.sha256(text.encode()).hexdigest()[:16]
    return SCRIPT_PATH.format(report=quote(report, safe="")) + f"?v={version}"


def script_text(report: ReportDef) -> str | None:
    return report.script_path.read_text(encoding="utf-8") if report.script_path is not None else None


def _static_default(value: Any, ctx: Context) -> Any:
    if value == "Today":
        return date.today().isoformat()
    if value == "__user":
        return ctx.user
    return value


async def resolved_filters(ctx: Context, report: ReportDef) -> list[dict[str, Any]]:
    """The report's filters for the caller: labels in their language, defaults resolved."""
    dynamic: dict[str, Any] = {}
    if report.filter_defaults is not None:
        found = call_with_supported(report.filter_defaults, ctx=ctx)
        if inspect.isawaitable(found):
            found = await found
        dynamic = dict(found or {})
    out = []
    for item in report.filters:
        entry = {**item, "label": translate(item["label"], ctx.lang)}
        if item["fieldname"] in dynamic:
            entry["default"] = dynamic[item["fieldname"]]
        elif "default" in item:
            entry["default"] = _static_default(item["default"], ctx)
        out.append(entry)
    return out


def _messages(report: ReportDef, text: str | None, lang: str) -> dict[str, str]:
    """The report's name and its script's `__()` strings, where `lang` translates them."""
    out = {report.name: translate(report.name, lang)} if translate(report.name, lang) != report.name else {}
    if not text:
        return out
    from engine.messages import Extraction, javascript_messages  # babel: imported only when needed

    found = Extraction()
    javascript_messages(io.BytesIO(text.encode()), found)
    for message in found.messages:
        translated = translate(message.source, lang, message.context or None)
        if translated != message.source:
            out[f"{message.source}:{message.context}" if message.context else message.source] = translated
    return out


async def get_script(ctx: Context, report: ReportDef) -> dict[str, Any]:
    """Frappe's `get_script` answer (`script`, `html_format`, `execution_time`, `filters`) plus fw's
    `script_url` (the Desk runs no script text under its CSP), `report_name`, `ref_doctype`,
    `add_total_row` and `__messages`. Access is checked as for running the report."""
    from engine.reports import check_runnable

    await check_runnable(ctx, report)
    text = script_text(report)
    return {
        "report_name": report.name, "ref_doctype": report.ref_doctype,
        "filters": await resolved_filters(ctx, report),
        "script": text or "", "script_url": script_url(report.name, text) if text else None,
        "html_format": "", "execution_time": 0,
        "add_total_row": int(bool(report.definition.get("add_total_row"))),
        "__messages": _messages(report, text, ctx.lang),
    }
