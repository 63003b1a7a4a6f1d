"""`fw.desk.reportview.export_query`'s work: the rows of a list the caller may read (through
`query.listing.list_pages`, so row rules, user permissions and field permlevels apply as to any list),
page by page (keyset, never an offset) into a CSV or XLSX table. Needs the `export` right on the doctype."""

from __future__ import annotations

import re
from typing import Any

from engine import exceptions as exc
from engine import permissions
from engine.context import Context
from engine.export.writer import Download, table_for
from engine.meta.schema import Meta
from engine.query.listing import list_pages
from engine.translation import _

PAGE = 1000
# Frappe's Desk sends "`tabEmployee`.`first_name`"; fw's sends "first_name"
_QUALIFIED = re.compile(r"^`?tab[^`]*`?\.`?([^`]+)`?$")


def plain_fields(meta: Meta, fields: list[Any] | None) -> list[str]:
    """The requested fields as fieldnames (default: name and the list view's fields), each readable
    as a column (a table field cannot be a column of a list)."""
    names: list[str] = []
    for field in fields or []:
        if not isinstance(field, str):
            raise exc.DataError(_("fields must be a list of field names"), field="fields")
        match = _QUALIFIED.match(field.strip())
        name = (match.group(1) if match else field.strip()).strip("`")
        if name in meta.table_fieldnames:
            raise exc.DataError(_("Field {0} is a table and cannot be exported as a column", name), field="fields")
        if name not in names:
            names.append(name)
    if not names:
        names = ["name", *(f.fieldname for f in meta.value_fields if f.in_list_view)]
    return names


def header(meta: Meta, fields: list[str]) -> list[str]:
    return [_("ID") if f == "name" else _(meta.label(f)) for f in fields]


def _with_selection(filters: Any, selected: list[Any] | None) -> Any:
    if not selected:
        return filters
    if any(not isinstance(s, str) for s in selected):
        raise exc.DataError(_("selected_items must be a list of names"), field="selected_items")
    condition = ["name", "in", selected]
    if filters in (None, "", [], {}):
        return [condition]
    if isinstance(filters, dict):
        return [*([k, "=", v] if not isinstance(v, list) else [k, *v] for k, v in filters.items()), condition]
    return [*filters, condition]


async def export_list(ctx: Context, doctype: str, fmt: str, fields: list[Any] | None, filters: Any,
                      order_by: str | None, selected: list[Any] | None, title: str | None) -> Download:
    meta = ctx.meta(doctype)
    await permissions.check_doctype(ctx, doctype, "export")
    columns = plain_fields(meta, fields)
    filters = _with_selection(filters, selected)
    table = table_for(fmt, title or _(doctype))
    try:
        table.append(header(meta, columns))
        # page by page, each after the last row's sort key: memory holds one page, the table spools to disk
        async for rows in list_pages(ctx, doctype, fields=columns, filters=filters, order_by=order_by or None,
                                     page_length=PAGE, as_dict=False):
            for row in rows:
                table.append(row)
    except BaseException:
        table.close()
        raise
    return table.finish()
