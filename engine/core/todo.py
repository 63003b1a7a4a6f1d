"""The ToDo controller: a ToDo changed or deleted by hand (closed from its form, say) brings its
document's `_assign` in line with the open ToDos (engine/desk/assign_to.py)."""

from __future__ import annotations

from engine.desk import assign_to
from engine.documents.document import Document


class ToDo(Document):
    async def on_change(self) -> None:
        await self._sync_reference()

    async def after_delete(self) -> None:
        await self._sync_reference()

    async def _sync_reference(self) -> None:
        doctype, name = self.get("reference_type"), self.get("reference_name")
        if isinstance(doctype, str) and isinstance(name, str) and doctype and name \
                and self.ctx.site.meta.exists(doctype):
            await assign_to.sync(self.ctx, doctype, name)
