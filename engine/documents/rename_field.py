"""`fw.rename_field` (Frappe's `rename_field`, for patches): a field's values move to its new name in
every document of a doctype, or, for a child doctype, in every row of the parents' tables."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.documents import store
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context


async def rename_field(ctx: Context, doctype: str, old: str, new: str) -> int:
    """Move the values of `old` to `new` (which the doctype's definition must have) in the caller's
    unit of work; returns how many documents changed. A value already under `new` is replaced."""
    meta = ctx.meta(doctype)
    if not old or old == new:
        raise exc.DataError(_("rename_field needs two different field names (got {0} and {1})", old, new))
    if meta.get_field(new) is None:
        raise exc.DataError(_("{0} has no field {1}: add it to the doctype first", doctype, new), field=new)
    if not meta.istable:
        return await store.update_many(ctx, meta, {old: {"$exists": True}}, {"$rename": {old: new}})
    changed = 0
    for parent in ctx.site.meta.names():
        parent_meta = ctx.meta(parent)
        for table in parent_meta.table_fields:
            if table.options == doctype:
                rows = table.fieldname
                changed += await store.update_many(ctx, parent_meta, {f"{rows}.{old}": {"$exists": True}},
                                                   [{"$set": {rows: _renamed_rows(rows, old, new)}}])
    return changed


def _renamed_rows(table: str, old: str, new: str) -> dict[str, Any]:
    """Each row without `old`, plus `new` holding its value (a row without `old` stays as it is: an
    expression that is missing adds no key)."""
    return {"$map": {"input": f"${table}", "as": "row", "in": {"$mergeObjects": [
        {"$arrayToObject": {"$filter": {"input": {"$objectToArray": "$$row"}, "cond": {"$ne": ["$$this.k", old]}}}},
        {new: f"$$row.{old}"},
    ]}}}
