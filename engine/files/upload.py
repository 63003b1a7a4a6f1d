"""`upload_file`: what `POST /api/method/upload_file` runs (the HTTP layer parses the multipart body
and passes the bytes and the form fields), and `save_file` for server code.

Frappe's rules, checked before anything is written: logged-in users only; with `doctype` and
`docname` the caller needs write permission on that document, and with `fieldname` that field must
be an Attach or Attach Image field, which is then set to the new file's URL (the document is saved,
with its hooks, in the same unit of work); a Website User may upload only the document and image
types of `names.WEBSITE_USER_TYPES`. Without a file, `file_url` links an existing URL.

On MongoDB everything is one transaction, so a failure anywhere leaves nothing behind. The
in-memory backend cannot roll back: there a failed upload deletes the File record and releases its
content itself (`_undo`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine import permissions
from engine.context import unit_of_work
from engine.core.file import attachable_meta, check_attach_field, too_large
from engine.documents import store
from engine.documents.factory import get_doc, new_doc
from engine.files import names, storage
from engine.methods.args import bool_arg
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.document import Document

log = logging.getLogger("fw.files")
TEXT_ARGUMENTS = ("file_name", "file_url", "folder", "doctype", "docname", "fieldname")


async def upload_file(ctx: Context, *, content: bytes | None = None, file_name: Any = None, file_url: Any = None,
                      is_private: Any = None, folder: Any = None, doctype: Any = None, docname: Any = None,
                      fieldname: Any = None) -> Document:
    """A new File from uploaded bytes (`content`, named `file_name`), or linking `file_url`;
    attached to `doctype`/`docname` (and set on its `fieldname`) when given."""
    if ctx.user == "Guest":
        raise exc.PermissionError(_("Log in to upload files"))
    given = {"file_name": file_name, "file_url": file_url, "folder": folder, "doctype": doctype,
             "docname": docname, "fieldname": fieldname}
    for key in TEXT_ARGUMENTS:
        if given[key] is not None and not isinstance(given[key], str):
            raise exc.DataError(_("{0} must be text", key), field=key)
    private = bool_arg(is_private, "is_private")
    target = await _target(ctx, doctype or None, docname or None, fieldname or None)
    if content is None and not file_url:
        raise exc.MandatoryError(_("No file attached: send it in the {0} field, or give {1}", "file", "file_url"),
                                 field="file")
    if content is not None:
        limit = ctx.site.settings.max_file_size
        if len(content) > limit:
            raise too_large(limit)
        name = names.clean_file_name(file_name)
        if not name:
            raise exc.ValidationError(_("{0} is not a usable file name", repr(str(file_name or ""))[:80]),
                                      field="file_name")
        await _check_type_allowed(ctx, name)
        file_name = name
    return await save_file(ctx, content, file_name, file_url=None if content is not None else file_url,
                           is_private=private, folder=folder or None, attached_to=target,
                           attached_to_field=fieldname or None)


async def save_file(ctx: Context, content: bytes | None, file_name: str | None, *, file_url: str | None = None,
                    is_private: bool = False, folder: str | None = None, attached_to: Document | None = None,
                    attached_to_field: str | None = None, ignore_permissions: bool = False) -> Document:
    """Insert a File holding `content` (or linking `file_url`), optionally attached to a document
    and set on its Attach field `attached_to_field`. Server code may pass `ignore_permissions`."""
    doc = new_doc(ctx, "File", file_name=file_name, file_url=file_url, is_private=int(is_private), folder=folder,
                  attached_to_doctype=attached_to.doctype if attached_to is not None else None,
                  attached_to_name=attached_to.name if attached_to is not None else None,
                  attached_to_field=attached_to_field if attached_to is not None else None)
    if content is not None:
        doc.flags["content"] = content
    await storage.ensure_collections(ctx)
    try:
        async with unit_of_work(ctx):
            await doc.insert(ignore_permissions=ignore_permissions)
            if attached_to is not None and attached_to_field:
                attached_to.set(attached_to_field, doc.file_url)
                await attached_to.save(ignore_permissions=ignore_permissions)
    except BaseException:
        if not ctx.db.transactional:
            await _undo(ctx, doc)
        raise
    return doc


async def _target(ctx: Context, doctype: str | None, docname: str | None, fieldname: str | None) -> Document | None:
    """The document the upload is attached to: it exists (404), the caller may write it (403), and
    `fieldname` is one of its Attach fields (417)."""
    if not doctype and not docname:
        if fieldname:
            raise exc.MandatoryError(_("{0} needs {1} and {2}", "fieldname", "doctype", "docname"), field="doctype")
        return None
    if not doctype:
        raise exc.MandatoryError(_("{0} needs {1} and {2}", "docname", "doctype", "docname"), field="doctype")
    if not docname:
        raise exc.MandatoryError(_("{0} needs {1} and {2}", "doctype", "doctype", "docname"), field="docname")
    if not ctx.site.meta.exists(doctype):
        raise exc.DoesNotExistError(_("DocType {0} not found", doctype[:140]))
    meta = attachable_meta(ctx, doctype, field="doctype")
    target = await get_doc(ctx, meta.name, docname)
    await permissions.check_document(ctx, target, "write")
    if fieldname:
        check_attach_field(meta, fieldname, field="fieldname")
    return target


async def _check_type_allowed(ctx: Context, name: str) -> None:
    """A Website User (no desk access) may upload only documents and images (Frappe's rule)."""
    if ctx.is_admin or "Desk User" in await ctx.roles():
        return
    kind = names.content_type_for(name)
    if kind not in names.WEBSITE_USER_TYPES:
        raise exc.PermissionError(_("You can only upload images, PDF, text, CSV or office documents ({0})",
                                    name[:80]))


async def _undo(ctx: Context, doc: Document) -> None:
    """Without transactions: remove what a failed upload wrote (its File record and its reference
    to the content), so nothing is left orphaned."""
    try:
        if not doc.is_new():
            await store.delete(ctx, doc.meta, doc.name)
        if doc.flags.get("content_added"):
            await storage.release(ctx, str(doc.content_hash))
    except Exception:  # the original error matters more; prune_orphans repairs the rest
        log.exception("could not clean up after a failed upload of %s", doc.get("file_name"))
