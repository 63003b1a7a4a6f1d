"""Version records for `track_changes` doctypes: who changed which fields, from what, to what."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.documents import naming, store
from engine.documents.docstatus import Action

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument


def diff(before: dict[str, Any] | None, after: dict[str, Any], doc: BaseDocument) -> dict[str, Any]:
    """Frappe's Version data: `changed` [[field, old, new]], `added`/`removed`/`row_changed` rows."""
    if before is None:
        return {"created": True}
    meta = doc.meta
    changed: list[list[Any]] = []
    added: list[list[Any]] = []
    removed: list[list[Any]] = []
    row_changed: list[list[Any]] = []
    for field in meta.value_fields:
        if field.fieldtype == "Password":
            continue
        old, new = before.get(field.fieldname), after.get(field.fieldname)
        if old != new:
            changed.append([field.fieldname, old, new])
    for table in meta.table_fields:
        old_rows = {r.get("name"): r for r in before.get(table.fieldname) or []}
        new_rows = {r.get("name"): r for r in after.get(table.fieldname) or []}
        for name, row in new_rows.items():
            if name not in old_rows:
                added.append([table.fieldname, row])
            elif row != old_rows[name]:
                fields = [[k, old_rows[name].get(k), v] for k, v in row.items()
                          if k not in ("modified", "modified_by") and old_rows[name].get(k) != v]
                if fields:
                    row_changed.append([table.fieldname, row.get("idx"), name, fields])
        removed.extend([table.fieldname, row] for name, row in old_rows.items() if name not in new_rows)
    return {"changed": changed, "added": added, "removed": removed, "row_changed": row_changed}


def version_record(ctx: Context, doc: BaseDocument, action: Action, now: str,
                   before: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The Version record of an operation (None when it changed nothing a Version shows): `before`
    is the stored record an update replaced. Bulk inserts write many in one call (engine/documents/bulk.py)."""
    data = diff(before, doc.to_record(), doc) if action is not Action.INSERT else {"created": True}
    if action in (Action.SUBMIT, Action.CANCEL):
        data["docstatus"] = action.value
    if not any(data.get(k) for k in ("created", "changed", "added", "removed", "row_changed", "docstatus")):
        return None
    return {
        "_id": naming.hash_name(), "ref_doctype": doc.doctype, "docname": doc.name, "data": data,
        "owner": ctx.user, "modified_by": ctx.user, "creation": now, "modified": now, "docstatus": 0, "idx": 0,
    }


async def record(ctx: Context, doc: BaseDocument, action: Action, now: str,
                 before: dict[str, Any] | None = None) -> None:
    """Write the Version record of an operation (see `version_record`)."""
    version = version_record(ctx, doc, action, now, before)
    if version is not None:
        await store.insert(ctx, ctx.meta("Version"), version)
