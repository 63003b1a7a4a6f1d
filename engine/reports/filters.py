"""A script report's filter definitions and its client script (Frappe's
`frappe.desk.query_report.get_script`).

A report declares its filters in its JSON (`"filters": [{fieldname, label, fieldtype, options,
default, reqd}, ...]`, checked when the app loads: a bad one stops startup naming the file) and/or in
`<report>.js` beside it (`frappe.query_reports["Name"] = {filters, formatter, onload}`, Frappe's
form), which the Desk loads by URL. Defaults that depend on the user come from an optional
`filter_defaults(ctx)` function in the report's Python module (sync or async); Frappe's `Today` and
`__user` are understood in the JSON too. `engine.reports.script_report.get_script` answers with the filters (labels
translated, defaults resolved for the caller), the script's text (for Frappe's clients) and its URL,
and the translations of the script's `__()` strings.
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
from engine.apps.callables import call_with_supported
from engine.permissions import user_access
from engine.translation import translate

if TYPE_CHECKING:
    from engine.context import Context

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


def script_text(path: Path | None) -> str | None:
    return path.read_text(encoding="utf-8") if path is not None else None


def _static_default(value: Any, ctx: Context) -> Any:
    if value == "Today":
        return date.today().isoformat()
    if value == "__user":
        return ctx.user
    return value


async def resolved_filters(ctx: Context, filters: tuple[dict[str, Any], ...],
                           filter_defaults: Any, ref_doctype: str | None = None) -> list[dict[str, Any]]:
    """A report's filters for the caller: labels in their language, defaults resolved (the report
    module's `filter_defaults(ctx)` first, then the JSON's, then, for a Link filter, the caller's
    `is_default` User Permission on its doctype)."""
    user_defaults = await user_access.user_defaults(ctx, ref_doctype)
    dynamic: dict[str, Any] = {}
    if filter_defaults is not None:
        found = call_with_supported(filter_defaults, ctx=ctx)
        if inspect.isawaitable(found):
            found = await found
        dynamic = dict(found or {})
    out = []
    for item in filters:
        entry = {**item, "label": translate(item["label"], ctx.lang)}
        if item["fieldname"] in dynamic:
            entry["default"] = dynamic[item["fieldname"]]
        elif "default" in item:
            entry["default"] = _static_default(item["default"], ctx)
        elif item.get("fieldtype") == "Link" and item.get("options") in user_defaults:
            entry["default"] = user_defaults[item["options"]]
        out.append(entry)
    return out


def script_messages(report_name: str, text: str | None, lang: str) -> dict[str, str]:
    """The report's name and its script's `__()` strings, where `lang` translates them."""
    out = {report_name: translate(report_name, lang)} if translate(report_name, lang) != report_name else {}
    if not text:
        return out
    # babel, which only reports with a script need, stays out of every process that never sends one
    from engine.messages import Extraction, javascript_messages

    found = Extraction()
    javascript_messages(io.BytesIO(text.encode()), found)
    for message in found.messages:
        translated = translate(message.source, lang, message.context or None)
        if translated != message.source:
            out[f"{message.source}:{message.context}" if message.context else message.source] = translated
    return out
