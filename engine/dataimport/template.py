"""`download_template`: the columns a Data Import reads, as Frappe lays them out: the fields' labels
(`ID` for the name, a child table's field as `Label (Table Label)`, a label used twice as its
fieldname or `table.fieldname`), then no rows (a blank template), or the documents the user may read
with each one's child rows on the rows below it, its own columns empty there.

`export_fields` is Frappe's `{doctype: [fields], table fieldname or child doctype: [fields]}`, or
`All` / `Mandatory` (the Exporter's other two shapes; what its dialog's Select All / Select
Mandatory check): every field of the doctype and of each child table, or the mandatory ones and the
mandatory tables'. Without it: the fields a user fills in (not hidden, not read-only) of the doctype
and of each child table. A child table's `ID` is left out: the import matches child rows by their
place under the document. Passwords come only when named."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from engine import exceptions as exc
from engine import permissions
from engine.context import Context
from engine.export.writer import Download, table_for
from engine.meta.schema import DocFieldSchema, Meta
from engine.query.listing import get_list, list_pages
from engine.translation import _

RECORDS = ("blank_template", "all", "by_filter", "5_records")
ALL, MANDATORY = "all", "mandatory"
FIELD_CHOICES = (ALL, MANDATORY)
PAGE = 500


def _fillable(df: DocFieldSchema) -> bool:
    return df.fieldtype != "Password"


def _default_fields(meta: Meta) -> list[str]:
    return ["name", *(f.fieldname for f in meta.value_fields if _fillable(f) and not f.hidden and not f.read_only)]


def _all_fields(meta: Meta) -> list[str]:
    return ["name", *(f.fieldname for f in meta.value_fields if _fillable(f))]


def _mandatory_fields(meta: Meta) -> list[str]:
    """The name, the mandatory fields and the field the name comes from (`field:x`), as Frappe marks them."""
    autoname = meta.autoname.strip()
    named_by = autoname[len("field:"):].strip() if autoname.lower().startswith("field:") else None
    return ["name", *(f.fieldname for f in meta.value_fields if f.reqd or f.fieldname == named_by)]


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


def _child(meta: Meta, table: DocFieldSchema) -> Meta:
    if meta.registry is None:
        raise exc.DataError(_("{0} is no table of {1}", table.fieldname, meta.name), field="export_fields")
    return meta.registry.get(table.options or "")


def _chosen(meta: Meta, export_fields: dict[str, Any] | str | None) -> dict[str, Any]:
    """`export_fields` as Frappe's dict: `All`, `Mandatory` and None spelled out."""
    if isinstance(export_fields, dict):
        return dict(export_fields)
    choice = export_fields.strip().lower() if isinstance(export_fields, str) else None
    if choice is not None and choice not in FIELD_CHOICES:
        raise exc.DataError(_("export_fields must be All, Mandatory or the fields by doctype"), field="export_fields")
    pick = {ALL: _all_fields, MANDATORY: _mandatory_fields}.get(choice or "", _default_fields)
    chosen: dict[str, Any] = {meta.name: pick(meta)}
    for table in meta.table_fields:
        if choice == MANDATORY and not table.reqd:
            continue
        child = _child(meta, table)
        fields = [f for f in pick(child) if f != "name"]
        # a mandatory table whose rows need no field: the columns a user fills in
        chosen[table.fieldname] = fields or [f for f in _default_fields(child) if f != "name"]
    return chosen


def plan(meta: Meta, export_fields: dict[str, Any] | str | None) -> tuple[list[DocFieldSchema], Tables]:
    """The parent's columns and each chosen table's (its field, its columns)."""
    chosen = _chosen(meta, export_fields)
    parent = _fields_of(meta, chosen.pop(meta.name, None) or _default_fields(meta), meta.name)
    tables = []
    for key, names in chosen.items():
        table = meta.get_field(key) or next((t for t in meta.table_fields if t.options == key), None)
        if table is None or not table.is_table:
            raise exc.DataError(_("{0} is no table of {1}", key, meta.name), field="export_fields")
        child = _child(meta, table)
        tables.append((table, _fields_of(child, [n for n in names if n != "name"] or _default_fields(child)[1:],
                                         child.name)))
    return parent, tables


def header(parent: list[DocFieldSchema], tables: Tables) -> list[str]:
    """Frappe's labels; a label already taken becomes the fieldname (`table.fieldname` in a table),
    which the import reads as well."""
    out: list[str] = []
    for f in parent:
        label = _("ID") if f.fieldname == "name" else _(f.display_label)
        out.append(f.fieldname if label in out else label)
    for table, fields in tables:
        for f in fields:
            label = f"{_(f.display_label)} ({_(table.display_label)})"
            out.append(f"{table.fieldname}.{f.fieldname}" if label in out else label)
    return out


async def download_template(ctx: Context, doctype: str, export_fields: dict[str, Any] | str | None,
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


async def _pages(ctx: Context, meta: Meta, columns: list[str], export_records: str,
                 filters: Any) -> AsyncIterator[list[dict[str, Any]]]:
    if export_records == "5_records":
        yield await get_list(ctx, meta.name, fields=columns, limit_page_length=5)
        return
    # every record the user may read, page after page by the sort key (no offset to skip again)
    async for page in list_pages(ctx, meta.name, fields=columns, page_length=PAGE,
                                 filters=filters if export_records == "by_filter" else None):
        yield page


async def _records(ctx: Context, meta: Meta, parent: list[DocFieldSchema],
                   tables: Tables, export_records: str, filters: Any,
                   append: Any) -> None:
    width = len(parent) + sum(len(fields) for _t, fields in tables)
    # the tables come with their documents, as the listing gives them (row fields the user may not read left out)
    columns = list(dict.fromkeys(["name", *(f.fieldname for f in parent), *(t.fieldname for t, _f in tables)]))
    async for page in _pages(ctx, meta, columns, export_records, filters):
        for record in page:
            rows = [[record.get(f.fieldname) for f in parent] + [None] * (width - len(parent))]
            offset = len(parent)
            for table_df, fields in tables:
                for i, child in enumerate(record.get(table_df.fieldname) or []):
                    while len(rows) <= i:
                        rows.append([None] * width)
                    for j, f in enumerate(fields):
                        rows[i][offset + j] = child.get(f.fieldname)
                offset += len(fields)
            for row in rows:
                append(row)
