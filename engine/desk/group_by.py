"""Group-by counts of a list (Frappe's `frappe.desk.listview.get_group_by_count`): for a Select, Link
or Check field (or `owner`), how many of the rows the caller may read under the list's filters hold
each value, the largest groups first. Counted by the database through `get_list` (so DocPerms, row
conditions and field permlevels apply); a Link's values come with the titles the caller may read.
"""

from __future__ import annotations

from typing import Any

from engine import exceptions as exc
from engine import permissions
from engine.context import Context
from engine.query.listing import get_list
from engine.translation import _

GROUPABLE = frozenset({"Select", "Link", "Check", "Dynamic Link"})
MAX_GROUPS = 50


async def group_by_count(ctx: Context, doctype: str, field: str, filters: Any = None) -> list[dict[str, Any]]:
    """`[{name, count[, title]}]`: the values of `field` (None for rows without one) and their counts."""
    meta = ctx.meta(doctype)
    if field != "owner":
        df = meta.by_name.get(field) if isinstance(field, str) else None
        if df is None or df.fieldtype not in GROUPABLE:
            raise exc.ValidationError(_("{0} cannot be grouped by: choose a Select, Link or Check field", field),
                                      field="field")
        readable = await permissions.readable_fields(ctx, meta)
        if readable is not None and field not in readable:
            raise exc.PermissionError(_("You may not read {0}", field))
    rows = await get_list(ctx, doctype, fields=[f"{field} as name", "count(*) as count"], filters=filters,
                          group_by=field, order_by="count desc", limit_page_length=MAX_GROUPS)
    rows = sorted(rows, key=lambda r: (-int(r["count"]), str(r.get("name") or "")))
    df = meta.by_name.get(field)
    if df is not None and df.fieldtype == "Link" and df.options:
        title = ctx.meta(df.options).title_field
        values = [r["name"] for r in rows if r.get("name")]
        if title and title != "name" and values:
            try:  # only the titles the caller may read
                found = await get_list(ctx, df.options, fields=["name", title], filters=[["name", "in", values]],
                                       limit_page_length=0)
            except exc.PermissionError:
                found = []
            titles = {r["name"]: r.get(title) for r in found}
            for row in rows:
                if titles.get(row.get("name")):
                    row["title"] = titles[row["name"]]
    return rows
