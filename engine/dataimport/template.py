"""`download_template`: the columns a Data Import reads, as Frappe lays them out: the fields' labels
(`ID` for the name, a child table's field as `Label (Table Label)`), then no rows (a blank template),
or the documents the user may read with each one's child rows on the rows below it, its own columns
empty there."""

from __future__ import annotations

from typing import Any

from engine import exceptions as exc
from engine import permissions
from engine.context import Context
from engine.documents.factory import get_doc
from engine.export.writer import Download, table_for
from engine.meta.schema import DocFieldSchema, Meta
from engine.query.listing import get_list
from engine.translation import _

RECORDS = ("blank_template", "all", "by_filter", "5_records")
PAGE = 500


def _default_fields(meta: Meta) -> list[str]:
    return ["name", *(f.fieldname for f in meta.value_fields if not f.hidden and not f.read_only)]


def _fields_of(meta: Meta, names: list[Any], doctype: str) -> list[DocFieldSchema]:
    out = []
    for name in names:
        if name == "name":
            out.append(DocFieldSchema(fieldname="name", fieldtype="Data", label="ID"))
            continue
        df = meta.get_field(str(name))
        if df is None or not df.has_value:
            raise exc.DataError(_("{0} is no field of {1}", name, doctype), field="export_fields")
        out.append(df)
    return out


Tables = list[tuple[DocFieldSchema, list[DocFieldSchema]]]


def plan(meta: Meta, export_fields: dict[str, Any] | None) -> tuple[list[DocFieldSchema], Tables]:
    """The parent's columns and each chosen table's (its field, its columns). `export_fields` is
    Frappe's: `{doctype: [fields], table_fieldname: [child fields]}`."""
    chosen = dict(export_fields or {})
    parent = _fields_of(meta, chosen.pop(meta.name, None) or _default_fields(meta), meta.name)
    tables = []
    for key, names in chosen.items():
        table = meta.get_field(key) or next((t for t in meta.table_fields if t.options == key), None)
        if table is None or not table.is_table or meta.registry is None:
            raise exc.DataError(_("{0} is no table of {1}", key, meta.name), field="export_fields")
        child = meta.registry.get(table.options or "")
        tables.append((table, _fields_of(child, [n for n in names if n != "name"] or _default_fields(child)[1:],
                                         child.name)))
    return parent, tables


def header(parent: list[DocFieldSchema], tables: Tables) -> list[str]:
    out = [_("ID") if f.fieldname == "name" else _(f.display_label) for f in parent]
    for table, fields in tables:
        out += [f"{_(f.display_label)} ({_(table.display_label)})" for f in fields]
    return out


async def download_template(ctx: Context, doctype: str, export_fields: dict[str, Any] | None,
                            export_records: str, export_filters: Any, fmt: str) -> Download:
    meta = ctx.meta(doctype)
    if meta.istable or meta.issingle:
        raise exc.DataError(_("{0} cannot be imported: it is a single or child doctype", doctype), field="doctype")
    if export_records not in RECORDS:
        raise exc.DataError(_("export_records must be one of {0}", ", ".join(RECORDS)), field="export_records")
    await permissions.check_doctype(ctx, doctype, "import" if export_records == "blank_template" else "export")
    parent, tables = plan(meta, export_fields)
    table = table_for(fmt, _(doctype))
    try:
        table.append(header(parent, tables))
        if export_records != "blank_template":
            await _records(ctx, meta, parent, tables, export_records, export_filters, table.append)
    except BaseException:
        table.close()
        raise
    return table.finish()


async def _records(ctx: Context, meta: Meta, parent: list[DocFieldSchema],
                   tables: Tables, export_records: str, filters: Any,
                   append: Any) -> None:
    limit = 5 if export_records == "5_records" else PAGE
    filters = filters if export_records == "by_filter" else None
    start = 0
    width = len(parent) + sum(len(fields) for _t, fields in tables)
    columns = list(dict.fromkeys(["name", *(f.fieldname for f in parent)]))
    while True:
        page = await get_list(ctx, meta.name, fields=columns, filters=filters, limit_start=start,
                              limit_page_length=limit)
        for record in page:
            doc = await get_doc(ctx, meta.name, record["name"]) if tables else None
            rows = [[record.get(f.fieldname) for f in parent] + [None] * (width - len(parent))]
            offset = len(parent)
            for table_df, fields in tables:
                for i, child in enumerate((doc.get(table_df.fieldname) if doc is not None else None) or []):
                    while len(rows) <= i:
                        rows.append([None] * width)
                    for j, f in enumerate(fields):
                        rows[i][offset + j] = child.get(f.fieldname)
                offset += len(fields)
            for row in rows:
                append(row)
        if export_records == "5_records" or len(page) < limit:
            break
        start += limit
