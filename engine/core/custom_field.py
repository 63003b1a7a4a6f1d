"""Custom Field controller: a change re-merges the target doctype's meta in every process."""

from __future__ import annotations

from engine import exceptions as exc
from engine.documents.document import Document
from engine.translation import _


class CustomField(Document):
    def validate(self) -> None:
        if not self.ctx.site.meta.exists(self.dt or ""):
            raise exc.LinkValidationError(_("DocType {0} not found", self.dt), field="dt")
        meta = self.ctx.meta(self.dt)
        base = meta.schema.fields
        if any(f.fieldname == self.fieldname for f in base):
            raise exc.ValidationError(
                _("{0} already has a field {1}", self.dt, self.fieldname), field="fieldname")

    async def on_update(self) -> None:
        self.ctx.after_commit(self.ctx.site.meta.bump)

    async def after_delete(self) -> None:
        self.ctx.after_commit(self.ctx.site.meta.bump)
