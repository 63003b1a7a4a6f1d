"""The File controller: a new File either uploads content or links a URL; then its URL, privacy
and content are fixed for life.

- **Upload** (`doc.flags["content"]` holds the bytes; `engine.files.upload` sets it): the name is
  cleaned, the size checked against `FW_MAX_FILE_SIZE`, the content hashed, and the File gets a URL
  of its own, `/files/<name>` or `/private/files/<name>`; a name already in use gets Frappe's
  suffix (the content hash's last six characters, then random ones). `uploaded_url` repeats the URL
  under a unique index, so two uploads racing for one name cannot both get it.
- **Link** (`file_url` given, no content): a `/files/...` or `/private/files/...` URL of a File the
  caller may read (it shares that URL, its privacy and its content), or an external http(s) URL
  (nothing stored). Never a filesystem path.

The content is written (or its reference count raised) in `after_insert` and released in
`after_delete`, both in the document's unit of work. `file_url`, `is_private` and the content
fields cannot change after insert: a private file never becomes public by an edit.
"""

from __future__ import annotations

import secrets
from typing import Any

from engine import exceptions as exc
from engine.documents import store
from engine.documents.document import Document
from engine.files import MaxFileSizeReachedError, names, serving, storage
from engine.translation import _

ATTACH_TYPES = frozenset({"Attach", "Attach Image"})
FIXED_FIELDS = ("file_url", "is_private", "content_hash", "file_size", "content_type", "uploaded_url")
RANDOM_SUFFIX_TRIES = 5


class File(Document):
    # the File doctype's fields, for the type checker: they live in `_data` (BaseDocument's
    # __getattr__/__setattr__); bare annotations make no class attributes, so they stay fields
    file_url: str | None
    file_name: str | None
    folder: str | None
    is_private: int | None
    content_hash: str | None
    file_size: int | None
    content_type: str | None
    uploaded_url: str | None

    async def validate(self) -> None:
        if self.is_new():
            await self._prepare_new()
        else:
            self._keep_fixed_fields()
        self.folder = self.folder or "Home"
        await self._check_attachment()

    async def after_insert(self) -> None:
        if self.content_hash:
            await storage.add_reference(self.ctx, self.content_hash, self.flags.pop("content", None))
            self.flags["content_added"] = True

    async def on_trash(self) -> None:
        if not self.flags.get("with_document"):  # the document's own delete takes its Files along
            await self._refuse_while_in_use()

    async def after_delete(self) -> None:
        if self.content_hash:
            await storage.release(self.ctx, self.content_hash)

    async def _refuse_while_in_use(self) -> None:
        """A File whose URL is still set in an Attach field of its document (and backed by no other
        File) is not deleted: the field would point at nothing (Frappe's rule, v16)."""
        doctype, docname, url = self.attached_to_doctype, self.attached_to_name, self.file_url
        if not (doctype and docname and url) or not self.ctx.site.meta.exists(doctype):
            return
        if await store.find_one(self.ctx, self.meta, {"file_url": url, "_id": {"$ne": self.name}}, {"_id": 1}):
            return
        meta = self.ctx.meta(doctype)
        record = await store.load(self.ctx, meta, meta.name if meta.issingle else docname)
        if record is None:
            return
        editable = int(record.get("docstatus") or 0) == 0
        rows: list[tuple[Any, dict[str, Any], int | None]] = [(meta, record, None)]
        for table in meta.table_fields:
            child = self.ctx.meta(table.options or "")
            rows += [(child, row, row.get("idx")) for row in record.get(table.fieldname) or []]
        for row_meta, row, idx in rows:
            for field in row_meta.fields:
                if field.fieldtype in ATTACH_TYPES and row.get(field.fieldname) == url \
                        and (editable or field.allow_on_submit):  # a field nobody may clear does not block
                    where = _(field.display_label) if idx is None else _("{0} in row {1}", _(field.display_label), idx)
                    raise exc.LinkExistsError(
                        _("This file is set in {0} of {1} {2}; clear that field before deleting the file", where,
                          _(doctype), docname), field="file_url")

    # -- insert -----------------------------------------------------------------------------------

    async def _prepare_new(self) -> None:
        content = self.flags.get("content")
        self.uploaded_url = None
        for field in ("content_hash", "file_size", "content_type"):
            self.set(field, None)
        if content is not None:
            await self._prepare_upload(content)
        elif self.file_url:
            await self._prepare_link(str(self.file_url).strip())
        else:
            raise exc.MandatoryError(_("Attach a file, or give the file_url of an existing one"), field="file_url")

    async def _prepare_upload(self, content: Any) -> None:
        if not isinstance(content, bytes | bytearray | memoryview):
            raise exc.DataError(_("File content must be bytes"), field="file")
        data = bytes(content)
        self.flags["content"] = data
        limit = self.ctx.site.settings.max_file_size
        if len(data) > limit:
            raise too_large(limit)
        name = names.clean_file_name(self.file_name)
        if not name:
            raise exc.ValidationError(_("{0} is not a usable file name", repr(str(self.file_name or ""))[:80]),
                                      field="file_name")
        digest = storage.digest_of(data)
        private = bool(self.is_private)
        name, url = await self._free_url(name, private, digest)
        self.file_name, self.file_url, self.uploaded_url = name, url, url
        self.is_private = int(private)
        self.content_hash, self.file_size = digest, len(data)
        self.content_type = names.content_type_for(name)

    async def _free_url(self, name: str, private: bool, digest: str) -> tuple[str, str]:
        candidates = [name, names.with_suffix(name, digest[-6:])]
        candidates += [names.with_suffix(name, secrets.token_hex(3)) for _ in range(RANDOM_SUFFIX_TRIES)]
        meta = self.meta
        for candidate in candidates:
            url = names.file_url(candidate, private=private)
            if await store.find_one(self.ctx, meta, {"file_url": url}, {"_id": 1}) is None:
                return candidate, url
        raise exc.DuplicateEntryError(_("No free file name for {0}; rename the file and try again", name))

    async def _prepare_link(self, url: str) -> None:
        if names.local_url_parts(url) is not None:
            # the caller must be able to read what they link: a guessed private URL is not a key
            served = await serving.resolve(self.ctx, url)
            source = served.record
            self.file_url = url
            self.is_private = int(served.private)
            self.content_hash = source["content_hash"]
            self.file_size = source.get("file_size")
            self.content_type = source.get("content_type")
            self.file_name = names.clean_file_name(self.file_name) or served.name
            return
        if names.is_external_url(url):
            self.file_url = url
            self.file_name = names.clean_file_name(self.file_name) or names.clean_file_name(
                url.split("?", 1)[0].split("#", 1)[0].rstrip("/")) or "file"
            return
        raise exc.ValidationError(
            _("file_url must be a /files/ or /private/files/ URL of an existing file, or an http(s) URL"),
            field="file_url")

    # -- save -------------------------------------------------------------------------------------

    def _keep_fixed_fields(self) -> None:
        for field in FIXED_FIELDS:
            if self.has_value_changed(field):
                raise exc.CannotChangeConstantError(
                    _("{0} of a file cannot be changed; upload a new file instead", _(self.meta.label(field))),
                    field=field)
        if self.has_value_changed("file_name"):
            name = names.clean_file_name(self.file_name)
            if not name:
                raise exc.ValidationError(_("{0} is not a usable file name", repr(str(self.file_name or ""))[:80]),
                                          field="file_name")
            self.file_name = name

    async def _check_attachment(self) -> None:
        doctype, docname, fieldname = self.attached_to_doctype, self.attached_to_name, self.attached_to_field
        if not doctype and not docname and not fieldname:
            return
        if not doctype:
            raise exc.MandatoryError(_("{0} is mandatory", _(self.meta.label("attached_to_doctype"))),
                                     field="attached_to_doctype")
        if not docname:
            raise exc.MandatoryError(_("{0} is mandatory", _(self.meta.label("attached_to_name"))),
                                     field="attached_to_name")
        meta = attachable_meta(self.ctx, doctype, field="attached_to_doctype")
        if fieldname:
            check_attach_field(meta, fieldname, field="attached_to_field")
        if not (self.is_new() or self.has_value_changed("attached_to_doctype")
                or self.has_value_changed("attached_to_name")):
            return
        if await store.load(self.ctx, meta, meta.name if meta.issingle else docname, {"_id": 1}) is None \
                and not meta.issingle:
            raise exc.LinkValidationError(_("Could not find {0}: {1}", _(doctype), docname), field="attached_to_name")


def attachable_meta(ctx: Any, doctype: Any, *, field: str) -> Any:
    """The meta of a doctype Files may be attached to (not a child table, not File itself)."""
    if not isinstance(doctype, str) or not ctx.site.meta.exists(doctype):
        raise exc.LinkValidationError(_("DocType {0} not found", str(doctype)[:140]), field=field)
    meta = ctx.meta(doctype)
    if meta.istable or meta.name == "File":
        raise exc.ValidationError(_("Files cannot be attached to {0}", _(meta.name)), field=field)
    return meta


def check_attach_field(meta: Any, fieldname: Any, *, field: str) -> None:
    df = meta.get_field(fieldname) if isinstance(fieldname, str) else None
    if df is None or df.fieldtype not in ATTACH_TYPES:
        raise exc.ValidationError(_("{0} is not an Attach field of {1}", str(fieldname)[:140], _(meta.name)),
                                  field=field)


def too_large(limit: int) -> MaxFileSizeReachedError:
    return MaxFileSizeReachedError(_("File size exceeded the maximum allowed size of {0}", _size(limit)),
                                   field="file")


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"
