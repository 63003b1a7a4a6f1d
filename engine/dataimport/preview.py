"""`get_preview_from_template`'s work: the columns and the field each fills, the first rows, and every
problem the file has before anything is written: unknown or repeated columns, cells that are no value
of their field, mandatory values missing, Links to records that do not exist or that the user may not
read (through `query.listing`, so row rules and user permissions count), rows without a parent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine import exceptions as exc
from engine.context import Context
from engine.dataimport.mapping import Column, map_columns
from engine.dataimport.reader import Sheet
from engine.dataimport.rows import Payload, payloads
from engine.meta.schema import Meta
from engine.query.listing import get_list
from engine.translation import _

PREVIEW_ROWS = 20
MAX_PROBLEMS = 500
LINK_BATCH = 1000

INSERT = "Insert New Records"
UPDATE = "Update Existing Records"


def column_info(columns: list[Column], meta: Meta) -> list[dict[str, Any]]:
    return [{"index": c.index, "letter": c.letter, "header": c.header, "map_to": c.target or "",
             "label": _(c.df.display_label) if c.df is not None else "", "fieldtype": c.df.fieldtype if c.df else "",
             "warning": c.warning or ""} for c in columns]


def field_choices(meta: Meta) -> list[dict[str, str]]:
    """What a column may be mapped to: the ID, the doctype's fields and its tables' fields."""
    out = [{"value": "name", "label": _("ID")}]
    out += [{"value": f.fieldname, "label": _(f.display_label)} for f in meta.value_fields]
    for table in meta.table_fields:
        child = meta.registry.get(table.options or "") if meta.registry is not None else None
        for f in child.value_fields if child is not None else []:
            out.append({"value": f"{table.fieldname}.{f.fieldname}",
                        "label": f"{_(f.display_label)} ({_(table.display_label)})"})
    return out


def mandatory_problems(meta: Meta, payload: Payload, columns: list[Column], import_type: str) -> list[str]:
    row = payload.rows[0]
    if import_type == UPDATE:
        if not payload.values.get("name"):
            return [_("Row {0}: the ID is empty; Update Existing Records needs the ID of each document", row)]
        return []
    by_field = {c.fieldname: c for c in columns if c.df is not None and c.table is None}
    out = []
    for df in meta.mandatory_fields:
        if df.default is not None or df.fetch_from or payload.values.get(df.fieldname) not in (None, ""):
            continue
        column = by_field.get(df.fieldname)
        where = column.where(row) if column else _("Row {0}", row)
        out.append(_("{0}: {1} is mandatory and empty", where, _(df.display_label)))
    return out


class LinkCheck:
    """Links gathered over many rows and checked in batches: one query per target doctype."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.pending: dict[str, dict[str, list[str]]] = {}  # doctype → value → where it was used
        self.size = 0
        self.problems: list[str] = []

    def add(self, meta: Meta, payload: Payload, columns: list[Column]) -> None:
        for c in columns:
            if c.df is None or c.df.fieldtype != "Link" or not c.df.options:
                continue
            if c.table is None:
                values = [payload.values.get(c.df.fieldname)]
            else:
                values = [r.get(c.df.fieldname) for r in payload.values.get(c.table) or []]
            for value in values:
                if value not in (None, ""):
                    places = self.pending.setdefault(c.df.options, {}).setdefault(str(value), [])
                    if len(places) < 3:
                        places.append(c.where(payload.rows[0]))
                    self.size += 1

    async def flush(self) -> None:
        for doctype, values in self.pending.items():
            names = list(values)
            try:
                found: set[str] = set()
                for start in range(0, len(names), LINK_BATCH):
                    batch = names[start:start + LINK_BATCH]
                    found |= set(await get_list(self.ctx, doctype, filters=[["name", "in", batch]], pluck="name",
                                                limit_page_length=LINK_BATCH))
            except exc.PermissionError:  # the user may read none of them: none may be used
                found = set()
            for value in names:
                if value not in found:
                    for where in values[value]:
                        self.problems.append(_("{0}: {1} {2} does not exist or you may not use it", where,
                                               _(doctype), value))
        self.pending = {}
        self.size = 0


def _captured(rows: Iterator[tuple[int, list[Any]]], into: list[list[Any]], limit: int
              ) -> Iterator[tuple[int, list[Any]]]:
    for number, cells in rows:
        if len(into) < limit:
            into.append([number, *cells])
        yield number, cells


async def build_preview(ctx: Context, meta: Meta, sheet: Sheet, template_options: dict[str, Any] | None,
                        import_type: str) -> dict[str, Any]:
    columns = map_columns(meta, sheet.header, template_options)
    warnings = [*sheet.notices, *(c.warning for c in columns if c.warning)]
    problems: list[str] = []
    raw: list[list[Any]] = []
    links = LinkCheck(ctx)
    count = 0
    for payload in payloads(_captured(sheet.rows, raw, PREVIEW_ROWS), columns):
        count += 1
        problems += payload.problems
        problems += mandatory_problems(meta, payload, columns, import_type)
        links.add(meta, payload, columns)
        if links.size >= LINK_BATCH:
            await links.flush()
    await links.flush()
    problems += links.problems
    return {
        "columns": column_info(columns, meta), "data": raw, "warnings": warnings,
        "problems": problems[:MAX_PROBLEMS], "problem_count": len(problems), "payload_count": count,
        "fields": field_choices(meta), "file_type": sheet.kind,
    }
