"""Helpers of the public API that belong to no single module (Frappe's `throw`, `delete_doc`...)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.documents import store
from engine.documents.factory import get_doc

if TYPE_CHECKING:
    from engine.context import Context


def throw(message: str, exc_type: type[exc.FwError] = exc.ValidationError, *, title: str | None = None,
          field: str | None = None) -> None:
    """Stop with a user-facing error (Frappe's `frappe.throw`); the message is already translated."""
    raise exc_type(message, field=field, title=title)


async def delete_doc(ctx: Context, doctype: str, name: str, *, ignore_permissions: bool = False,
                     ignore_missing: bool = False) -> None:
    try:
        doc = await get_doc(ctx, doctype, name)
    except exc.DoesNotExistError:
        if ignore_missing:
            return
        raise
    await doc.delete(ignore_permissions=ignore_permissions)


async def get_single_value(ctx: Context, doctype: str, fieldname: str) -> Any:
    doc = await get_doc(ctx, doctype)
    return doc.get(fieldname)


async def aggregate(ctx: Context, doctype: str, pipeline: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run a MongoDB aggregation pipeline on `doctype`'s collection (in the unit of work, under the
    request's query time limit). Like Frappe's `frappe.db.sql`, it applies no permissions: for app
    services and reports that compute over stored documents.

    ```python
    totals = await fw.aggregate(ctx, "Employee Score", [
        {"$match": {"docstatus": 1}}, {"$group": {"_id": "$employee", "total": {"$sum": "$value"}}}])
    ```
    """
    return await store.aggregate(ctx, ctx.meta(doctype), pipeline)
