"""Custom Field controller: a change re-merges the target doctype's meta in every process and
brings its MongoDB indexes in line (a unique custom field is a real unique index)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import db
from engine import exceptions as exc
from engine.documents import store
from engine.documents.document import Document
from engine.meta.registry import LINK_TYPES, custom_field_problem, custom_field_schema
from engine.meta.schema import DocFieldSchema
from engine.schema_sync import resync_after_commit
from engine.translation import _

if TYPE_CHECKING:
    pass


class CustomField(Document):
    async def validate(self) -> None:
        registry = self.ctx.site.meta
        if not isinstance(self.dt, str) or not registry.exists(self.dt):
            raise exc.LinkValidationError(_("DocType {0} not found", self.dt), field="dt")
        try:
            field = custom_field_schema(self.to_record())
        except ValueError as e:
            raise exc.ValidationError(_("Invalid Custom Field {0}: {1}", self.fieldname, _plain(e)),
                                      field="fieldname") from None
        problem = custom_field_problem(registry.base_meta(self.dt), field)
        if problem:
            raise exc.ValidationError(
                _("Cannot add field {0} to {1}: {2}", self.fieldname, self.dt, problem), field="fieldname")
        if field.fieldtype in LINK_TYPES and not registry.exists(field.options or ""):
            raise exc.LinkValidationError(_("DocType {0} not found", field.options), field="options")
        if field.unique and self.has_value_changed("unique"):
            await self._check_no_duplicates(field)

    async def _check_no_duplicates(self, field: DocFieldSchema) -> None:
        """A unique field needs a unique index: refuse when stored values already repeat."""
        meta = self.ctx.meta(self.dt)
        if meta.istable or meta.issingle:
            return
        key = field.fieldname
        rows = await db.aggregate(store.collection(self.ctx, meta), [
            {"$match": {key: {"$exists": True}}}, {"$group": {"_id": f"${key}", "n": {"$sum": 1}}},
            {"$match": {"n": {"$gt": 1}}}, {"$limit": 1}], session=self.ctx.read_session())
        if rows:
            raise exc.UniqueValidationError(
                _("{0} cannot be unique: the value {1} is used more than once", key, rows[0]["_id"]), field="unique")

    async def on_update(self) -> None:
        resync_after_commit(self.ctx, self.dt)

    async def after_delete(self) -> None:
        resync_after_commit(self.ctx, self.dt)


def _plain(error: ValueError) -> str:
    errors = getattr(error, "errors", None)
    if callable(errors):
        return "; ".join(str(e.get("msg", e)) for e in errors())
    return str(error)
