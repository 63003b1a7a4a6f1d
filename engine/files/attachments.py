"""A deleted document takes its attached Files with it (Frappe's `delete_doc` removes attachments):
a core `after_delete` handler (engine/core/hooks.py), run by the delete lifecycle in the same unit of
work, so a delete that fails later keeps them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.documents import store
from engine.documents.factory import get_doc

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument


async def delete_attached(ctx: Context, doc: BaseDocument) -> int:
    """Delete every File attached to `doc` (with File's own hooks: its content is released).
    Permissions are not checked again: whoever may delete the document may drop its attachments."""
    if doc.doctype == "File" or not doc.get("name"):
        return 0
    meta = ctx.meta("File")
    rows = await store.find(ctx, meta, {"attached_to_doctype": doc.doctype, "attached_to_name": doc.name},
                            projection={"_id": 1})
    for row in rows:
        attached = await get_doc(ctx, "File", row["_id"])
        attached.flags["with_document"] = True  # its document's Attach fields go with it
        await attached.delete(ignore_permissions=True)
    return len(rows)


async def on_delete(doc: BaseDocument, method: str) -> None:
    """doc_events["*"]["after_delete"] of the core (engine/core/hooks.py)."""
    await delete_attached(doc.ctx, doc)
