"""`fw.desk.query_report.export_query`'s work: a script report run as the caller, its rows (those the
Desk shows, in its order: `visible_idx`) written to CSV or XLSX. Needs what running the report needs
and the `export` right on its reference doctype."""

from __future__ import annotations

from typing import Any

from engine import exceptions as exc
from engine import permissions
from engine.context import Context
from engine.export.writer import Download, write_table
from engine.reports import script_report
from engine.translation import _


def _visible(rows: list[Any], visible_idx: list[Any] | None) -> list[Any]:
    if visible_idx is None:
        return rows
    picked = []
    for idx in visible_idx:
        if not isinstance(idx, int) or isinstance(idx, bool) or not 0 <= idx < len(rows):
            raise exc.DataError(_("visible_idx holds {0}, which is not a row of the report", idx),
                                field="visible_idx")
        picked.append(rows[idx])
    return picked


async def export_report(ctx: Context, report: script_report.ReportDef, filters: dict[str, Any], fmt: str,
                        visible_idx: list[Any] | None) -> Download:
    await script_report.check_runnable(ctx, report)
    await permissions.check_doctype(ctx, report.ref_doctype, "export")
    result = await script_report.run(ctx, report, filters)
    columns = result["columns"]
    rows = result["result"]
    total = rows.pop() if result["add_total_row"] and rows and isinstance(rows[-1], list) else None
    keys = [c["fieldname"] for c in columns]
    body = [[row.get(k) for k in keys] if isinstance(row, dict) else list(row) for row in _visible(rows, visible_idx)]
    if total is not None:
        body.append(list(total))
    return write_table([[_(str(c.get("label") or c["fieldname"])) for c in columns], *body], fmt, _(report.name))
