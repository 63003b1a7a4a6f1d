"""`Document`: the class app controllers subclass. A `BaseDocument` (field values, child rows,
change tracking; engine/documents/base.py) with the lifecycle on top: `insert()`, `save()`,
`submit()`, `cancel()` and `delete()` hand the document to `engine.documents.lifecycle`.
Controllers define hook methods (`validate`, `on_submit`, ...), sync or async.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from engine import exceptions as exc
from engine import permissions
from engine.apps.whitelisted import whitelist
from engine.documents import lifecycle, store
from engine.documents.base import BaseDocument
from engine.translation import _


class Document(BaseDocument):
    """A document of one doctype. Field values read and write as attributes: `doc.employee`."""

    # -- lifecycle (delegates to engine.documents.lifecycle) ----------------------------------

    async def insert(self, *, ignore_permissions: bool = False, ignore_links: bool = False,
                     ignore_mandatory: bool = False, ignore_if_duplicate: bool = False) -> Self:
        return await lifecycle.insert(self, lifecycle.SaveOptions(
            ignore_permissions=ignore_permissions, ignore_links=ignore_links,
            ignore_mandatory=ignore_mandatory, ignore_if_duplicate=ignore_if_duplicate))

    async def save(self, *, ignore_permissions: bool = False, ignore_links: bool = False,
                   ignore_mandatory: bool = False) -> Self:
        return await lifecycle.save(self, lifecycle.SaveOptions(
            ignore_permissions=ignore_permissions, ignore_links=ignore_links, ignore_mandatory=ignore_mandatory))

    @whitelist(methods=["POST"])
    async def submit(self, *, ignore_permissions: bool = False) -> Self:
        self.docstatus = 1
        return await lifecycle.save(self, lifecycle.SaveOptions(ignore_permissions=ignore_permissions))

    @whitelist(methods=["POST"])
    async def cancel(self, *, ignore_permissions: bool = False) -> Self:
        self.docstatus = 2
        return await lifecycle.save(self, lifecycle.SaveOptions(ignore_permissions=ignore_permissions))

    async def delete(self, *, ignore_permissions: bool = False) -> None:
        await lifecycle.delete(self, lifecycle.SaveOptions(ignore_permissions=ignore_permissions))

    async def reload(self) -> Self:
        record = await store.load(self.ctx, self._meta, self.name)
        if record is None:
            raise exc.DoesNotExistError(_("{0} {1} not found", self.doctype, self.name))
        self._data.clear()
        self._load(record)
        return self

    async def db_set(self, fieldname: str | Mapping[str, Any], value: Any = None, *,
                     update_modified: bool = True) -> None:
        """Write fields straight to the stored document: no hooks, no validation beyond types."""
        values = dict(fieldname) if isinstance(fieldname, Mapping) else {fieldname: value}
        await lifecycle.db_set(self, values, update_modified=update_modified)

    async def check_permission(self, ptype: str = "read") -> None:
        await permissions.check_document(self.ctx, self, ptype)


Document.row_class = Document  # child rows are Documents too (apps may call their methods)
