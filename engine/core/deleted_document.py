"""Deleted Document: the controller (the records are written by deletes only, engine/documents/
trash.py, and changed only by `restore`) and Frappe's `restore`, which puts a deleted document back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.apps.whitelisted import whitelist
from engine.clock import now_str
from engine.context import unit_of_work
from engine.documents import store
from engine.documents.document import Document
from engine.documents.factory import new_doc
from engine.documents.trash import DELETED_DOCUMENT
from engine.meta.workflows import workflow_for
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context

MANAGER = "System Manager"


class DeletedDocument(Document):
    """Read-only to everyone: a delete writes it, `restore` marks it, deleting it discards it for good."""

    def before_insert(self) -> None:
        raise exc.PermissionError(_("Deleted Documents are written by deletes only"))

    def validate(self) -> None:
        raise exc.PermissionError(_("A Deleted Document cannot be changed; use Restore to bring the document back"))


@whitelist(path="fw.core.doctype.deleted_document.deleted_document.restore", methods=["POST"])
async def restore(ctx: Context, name: str) -> dict[str, Any]:
    """Insert the deleted document back under its old name (a submitted or cancelled one as a draft,
    as Frappe does) and mark the Deleted Document restored. Refused when the name is taken (409) or
    the record was already restored (417). System Manager only."""
    if not ctx.is_admin and MANAGER not in await ctx.roles():
        raise exc.PermissionError(_("Only a System Manager may restore deleted documents"))
    meta = ctx.meta(DELETED_DOCUMENT)
    async with unit_of_work(ctx):
        record = await store.load(ctx, meta, str(name))
        if record is None:
            raise exc.DoesNotExistError(_("{0} {1} not found", _(DELETED_DOCUMENT), name))
        if record.get("restored"):
            raise exc.ValidationError(_("Document {0} Already Restored", name))
        doctype, old_name = str(record.get("deleted_doctype")), str(record.get("deleted_name"))
        if not ctx.site.meta.exists(doctype):
            raise exc.ValidationError(_("Cannot restore {0}: the doctype {1} no longer exists", old_name, doctype))
        target = ctx.meta(doctype)
        if await store.load(ctx, target, old_name, {"_id": 1}) is not None:
            raise exc.DuplicateEntryError(
                _("Cannot restore {0} {1}: a document with this name exists; rename or delete it first",
                  _(doctype), old_name))
        data = {k: v for k, v in dict(record.get("data") or {}).items() if k != "doctype"}
        as_draft = int(data.get("docstatus") or 0) != 0
        if as_draft:  # a submitted or cancelled document comes back as a draft (Frappe's restore)
            data["docstatus"] = 0
            for rows in (data.get(t.fieldname) for t in target.table_fields):
                for row in rows if isinstance(rows, list) else []:
                    if isinstance(row, dict):
                        row["docstatus"] = 0
            workflow = workflow_for(ctx.site.meta, doctype)
            if workflow is not None:
                data.pop(workflow.field, None)
        data["name"] = old_name
        doc = new_doc(ctx, doctype, data)
        try:
            await doc.insert()
        except exc.FwError as e:  # (a link gone meanwhile, a File whose content went with it): say what failed
            raise type(e)(_("Cannot restore {0} {1}: {2}", _(doctype), old_name, e.message), field=e.field) from e
        # the restored document keeps who created it and when
        kept = {k: data[k] for k in ("owner", "creation") if data.get(k)}
        if kept:
            await store.update(ctx, target, doc.name, kept)
        now = now_str()
        await store.update(ctx, meta, str(name), {"restored": 1, "new_name": doc.name, "modified": now,
                                                   "modified_by": ctx.user})
    if as_draft:
        ctx.msgprint(_("Submitted or cancelled document restored as draft"))
    ctx.msgprint(_("Document Restored"))
    return {"doctype": doctype, "name": doc.name, "docstatus": doc.docstatus}
