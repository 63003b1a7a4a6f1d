"""The report view's data (Frappe's `frappe.desk.reportview.get`): the rows of the columns a user
picked (child-table fields as `table.field`), sorted, filtered and paged, or grouped by one field
with a count and the sum or average of a numeric column. Everything goes through `get_list`, so the
caller's permissions apply and a group-by runs as the MongoDB aggregation pipeline
engine/query/compile.py builds (its `$match` first, on the doctype's indexes). Saved views are
`Report` records of type "Report Builder" (`json`: columns, filters, sort, group-by), shared with
the roles in their `roles` table."""

from __future__ import annotations

from typing import Any

from engine import exceptions as exc
from engine import permissions
from engine.context import Context
from engine.meta.fieldtypes import NUMERIC_TYPES
from engine.query.listing import get_list
from engine.translation import _

AGGREGATES = {"count": "count", "sum": "sum", "avg": "avg", "average": "avg"}
AGGREGATE_KEY = "_aggregate_column"
MAX_PAGE = 500
STANDARD_GROUPABLE = frozenset({"owner", "modified_by", "docstatus"})
REPORT_TYPE = "Report Builder"


async def _readable_field(ctx: Context, doctype: str, field: Any, argument: str) -> str:
    """`field` if the doctype has it and the caller may read it: DataError (417) naming an unknown
    one, PermissionError (403) naming one the caller may not read."""
    meta = ctx.meta(doctype)
    name = field if isinstance(field, str) else ""
    df = meta.by_name.get(name)
    if name not in STANDARD_GROUPABLE and (df is None or not df.has_value):
        raise exc.DataError(_("{0} has no field {1} to use in {2}", doctype, str(field)[:140], argument),
                            field=argument)
    readable = await permissions.readable_fields(ctx, meta)
    if readable is not None and name not in readable and name not in STANDARD_GROUPABLE:
        raise exc.PermissionError(_("You may not read {0}", name))
    return name


async def aggregate_column(ctx: Context, doctype: str, function: Any, field: Any) -> str | None:
    """The `fields` item of the aggregate (`sum(points) as _aggregate_column`), None for a count."""
    func = AGGREGATES.get(str(function or "count").lower())
    if func is None:
        raise exc.DataError(_("Unknown aggregate function {0}: use count, sum or avg", str(function)[:40]),
                            field="aggregate_function")
    if func == "count":
        return None
    name = await _readable_field(ctx, doctype, field, "aggregate_on_field")
    df = ctx.meta(doctype).by_name.get(name)
    if df is None or df.fieldtype not in NUMERIC_TYPES:
        raise exc.DataError(_("{0} of {1} needs a numeric field", func, name), field="aggregate_on_field")
    return f"{func}({name}) as {AGGREGATE_KEY}"


def _grouped_order(order_by: Any, group_by: str, keys: list[str]) -> str:
    """A grouped view sorts by its own columns only; by default the largest groups first, equal ones by
    their value (so that two reads of the same data list the groups in the same order)."""
    if isinstance(order_by, str) and order_by.strip():
        parts = order_by.strip().split()
        if parts[0] in keys and (len(parts) == 1 or (len(parts) == 2 and parts[1].lower() in ("asc", "desc"))):
            return order_by.strip()
    return f"{keys[-1]} desc, {group_by} asc"


async def get(ctx: Context, doctype: str, *, fields: Any = None, filters: Any = None, order_by: Any = None,
              start: Any = 0, page_length: Any = 20, group_by: Any = None, aggregate_on_field: Any = None,
              aggregate_function: Any = None) -> dict[str, Any]:
    """`{"keys": [column keys], "values": [[...], ...]}` (Frappe's compressed answer). Grouped, the
    keys are the group field, `count` and, for sum or avg, `_aggregate_column`."""
    length = page_length if page_length not in (None, "") else 20
    if group_by:
        group = await _readable_field(ctx, doctype, group_by, "group_by")
        extra = await aggregate_column(ctx, doctype, aggregate_function, aggregate_on_field)
        columns = [group, "count(*) as count"] + ([extra] if extra else [])
        keys = [group, "count"] + ([AGGREGATE_KEY] if extra else [])
        rows = await get_list(ctx, doctype, fields=columns, filters=filters, group_by=group,
                              order_by=_grouped_order(order_by, group, keys), limit_start=start,
                              limit_page_length=length, max_page_length=MAX_PAGE, as_dict=False)
        return {"keys": keys, "values": rows}
    columns = fields or ["name"]
    rows = await get_list(ctx, doctype, fields=columns, filters=filters, order_by=order_by or None,
                          limit_start=start, limit_page_length=length, max_page_length=MAX_PAGE, as_dict=True)
    keys = list(rows[0]) if rows else [_key(c) for c in (columns if isinstance(columns, list) else [])]
    return {"keys": keys, "values": [[row.get(k) for k in keys] for row in rows]}


def _key(item: Any) -> str:
    text = str(item)
    return text.split(" as ")[-1].strip() if " as " in text else text.strip()


async def saved_reports(ctx: Context, doctype: str) -> list[dict[str, Any]]:
    """The Report Builder reports of `doctype` the caller may open: their own, and those shared with
    one of their roles (a report with no roles is everyone's who reads the doctype)."""
    await permissions.check_doctype(ctx, doctype, "read")
    rows = await get_list(ctx, "Report", fields=["name", "owner", "roles.role"],
                          filters={"ref_doctype": doctype, "report_type": REPORT_TYPE, "disabled": 0},
                          order_by="name asc", limit_page_length=0, max_page_length=MAX_PAGE, ignore_permissions=True)
    roles = await ctx.roles()
    return [{"name": r["name"]} for r in rows if ctx.is_admin or r.get("owner") == ctx.user
            or not r.get("roles.role") or roles & set(r.get("roles.role") or [])]


async def open_report(ctx: Context, name: str) -> dict[str, Any]:
    """A saved Report Builder report's settings (`json`) and reference doctype, if the caller may open it."""
    rows = await get_list(ctx, "Report", fields=["name", "owner", "ref_doctype", "report_type", "json", "roles.role"],
                          filters={"name": name}, limit_page_length=1, ignore_permissions=True)
    report = rows[0] if rows else None
    if report is None or report.get("report_type") != REPORT_TYPE:
        raise exc.DoesNotExistError(_("Report {0} not found", name))
    if not any(r["name"] == name for r in await saved_reports(ctx, str(report["ref_doctype"]))):
        raise exc.PermissionError(_("Report {0} is not shared with you", name))
    return {"name": name, "ref_doctype": report["ref_doctype"], "json": report.get("json"),
            "roles": list(report.get("roles.role") or []), "owner": report.get("owner")}
