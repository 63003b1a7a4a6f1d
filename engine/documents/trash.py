"""Deleted Document records (Frappe's `add_to_deleted_document`): every delete through the lifecycle
writes one, in the delete's own unit of work, holding the whole document with its child rows, so
`fw.core.doctype.deleted_document.deleted_document.restore` can put it back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.documents import naming, store

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument

DELETED_DOCUMENT = "Deleted Document"


def keeps(doc: BaseDocument) -> bool:
    """Whether deleting `doc` leaves a Deleted Document: not for a Deleted Document itself (deleting
    one is how it goes for good) nor for a child row (it lives in its parent's record)."""
    return doc.doctype != DELETED_DOCUMENT and not doc.meta.istable


def snapshot(doc: BaseDocument) -> dict[str, Any]:
    """The document as a client would read it (`doctype`, child rows with theirs), without passwords
    (a Deleted Document is readable by System Managers; a restored document's passwords are unset)."""
    return doc.as_dict()


async def record(ctx: Context, doc: BaseDocument, now: str) -> None:
    """Write the Deleted Document of `doc` (inside the caller's unit of work)."""
    await store.insert(ctx, ctx.meta(DELETED_DOCUMENT), {
        "_id": naming.hash_name(), "deleted_doctype": doc.doctype, "deleted_name": doc.name, "restored": 0,
        "data": snapshot(doc), "owner": ctx.user, "modified_by": ctx.user, "creation": now, "modified": now,
        "docstatus": 0, "idx": 0,
    })
