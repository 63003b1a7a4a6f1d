"""Which File a `/files/...` or `/private/files/...` URL names, and whether the caller may read it.

A URL is owned by the File that uploaded it; Files that link it (`upload_file` with `file_url`)
share it. A public URL is readable by anyone, Guest included. A private one is readable by a
logged-in user who may read *any* File record carrying that URL (Frappe's rule), judged by the
permission component: the owner, a System Manager, or whoever may read the document the File is
attached to.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine import permissions
from engine.documents import store
from engine.files import names, storage
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.document import Document

log = logging.getLogger("fw.files")
MAX_CANDIDATES = 50  # File records sharing one URL that are tried for a permission (oldest first)


@dataclass(frozen=True)
class ServedFile:
    url: str
    name: str  # the URL's last segment, used for Content-Disposition
    private: bool
    content_type: str
    content: storage.Content
    record: dict[str, Any]  # the File record that granted access (the owner of the URL when public)

    @property
    def etag(self) -> str:
        return f'"{self.content.digest}"'


def _document(ctx: Context, record: dict[str, Any]) -> Document:
    meta = ctx.meta("File")
    cls = ctx.site.apps.controller("File")
    return cls(meta, record, ctx=ctx, stored=True)


async def resolve(ctx: Context, url: str) -> ServedFile:
    """The file behind `url`. DoesNotExistError for an unknown URL (a private file's name under
    `/files/` included); PermissionError when the caller may not read a private one."""
    parts = names.local_url_parts(url)
    if parts is None:
        raise exc.DoesNotExistError(_("File {0} not found", url[:200]))
    name, private = parts
    if private and ctx.user == "Guest":  # before any lookup: a guest learns nothing about private names
        raise exc.PermissionError(_("Log in to read private files"))
    meta = ctx.meta("File")
    records = await store.find(ctx, meta, {"file_url": url, "is_private": 1 if private else {"$ne": 1},
                                           "content_hash": {"$exists": True}},
                               sort=[("creation", 1), ("_id", 1)], limit=MAX_CANDIDATES)
    if not records:
        raise exc.DoesNotExistError(_("File {0} not found", url[:200]))
    chosen = records[0]
    if private:
        for record in records:
            if await permissions.has_permission(ctx, "File", "read", _document(ctx, record)):
                chosen = record
                break
        else:
            raise exc.PermissionError(_("You are not permitted to read file {0}", url[:200]))
    content = await storage.stat(ctx.db, chosen["content_hash"], session=ctx.read_session())
    if content is None:
        log.error("File %s (%s) has no stored content %s", chosen["_id"], url, chosen["content_hash"])
        raise exc.DoesNotExistError(_("The content of this file is missing"))
    content_type = chosen.get("content_type") or names.content_type_for(name)
    return ServedFile(url, name, private, content_type, content, chosen)
