"""Building documents: `new_doc` and `get_doc` pick the doctype's controller class."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.documents import store
from engine.documents.document import Document
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context


def new_doc(ctx: Context, doctype: str, data: Mapping[str, Any] | None = None, **fields: Any) -> Document:
    """A new, unsaved document of `doctype` bound to `ctx` (defaults are applied on insert)."""
    meta = ctx.meta(doctype)
    if meta.istable:
        raise exc.DataError(_("{0} is a child table; add rows through its parent document", doctype))
    cls = ctx.site.apps.controller(doctype)
    doc: Document = cls(meta, ctx=ctx)
    if data:
        doc.update(data)
    if fields:
        doc.update(fields)
    return doc


async def get_doc(ctx: Context, doctype: str | Mapping[str, Any], name: str | None = None) -> Document:
    """Load a document (no permission check: callers that serve users check `read` themselves).

    `get_doc(ctx, {"doctype": "X", ...})` builds a new document, as in Frappe.
    """
    if not isinstance(doctype, str) and isinstance(doctype, Mapping):  # (str first: the cheap, common check)
        data = dict(doctype)
        dt = data.pop("doctype", None)
        if not isinstance(dt, str):
            raise exc.DataError(_("doctype is required"), field="doctype")
        return new_doc(ctx, dt, data)
    meta = ctx.meta(doctype)
    if meta.istable:
        raise exc.DataError(_("{0} is a child table; load its parent document", doctype))
    if meta.issingle:
        name = doctype
    if not isinstance(name, str) or not name:
        raise exc.DoesNotExistError(_("{0} name is required", doctype), field="name")
    record = await store.load(ctx, meta, name)
    if record is None:
        if meta.issingle:
            doc = new_doc(ctx, doctype)
            doc.name = doctype
            return doc
        raise exc.DoesNotExistError(_("{0} {1} not found", _(doctype), name))
    cls = ctx.site.apps.controller(doctype)
    return cls(meta, record, ctx=ctx, stored=True)
