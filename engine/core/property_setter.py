"""Property Setter controller (Frappe's): one property of a doctype's field (or the fields' order)
changed on this site. A record is checked with the rules the meta applies it by
(engine/meta/properties.py), so what is saved is what the meta shows; a change re-merges the
doctype's meta in every process (the cache bus) and rewrites its DocType record, as a Custom Field's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.documents.document import Document
from engine.meta.properties import (
    DOCTYPE_PROPERTIES,
    FIELD_PROPERTIES,
    property_problem,
    select_default_problem,
    stored_value,
)
from engine.query.listing import get_all
from engine.schema_sync import resync_after_commit
from engine.translation import _

if TYPE_CHECKING:
    pass

DOCTYPE_LEVEL = "DocType"
FIELD_LEVEL = "DocField"


def setter_name(doc_type: str, field_name: str | None, prop: str) -> str:
    """Frappe's name of a Property Setter: `<doctype>-<field>-<property>` (`main` for the doctype)."""
    return f"{doc_type}-{field_name or 'main'}-{prop}"


class PropertySetter(Document):
    doc_type: Any
    field_name: Any
    property: Any
    value: Any
    doctype_or_field: Any
    property_type: Any
    module: Any

    def autoname(self) -> None:
        self.name = setter_name(str(self.doc_type), self.field_name, str(self.property))

    async def validate(self) -> None:
        registry = self.ctx.site.meta
        if not isinstance(self.doc_type, str) or not registry.exists(self.doc_type):
            raise exc.LinkValidationError(_("DocType {0} not found", self.doc_type), field="doc_type")
        level = DOCTYPE_LEVEL if self.doctype_or_field == DOCTYPE_LEVEL else FIELD_LEVEL
        self.doctype_or_field = level
        kinds = DOCTYPE_PROPERTIES if level == DOCTYPE_LEVEL else FIELD_PROPERTIES
        if self.property not in kinds:
            raise exc.ValidationError(
                _("Unknown property {0} of a {1}: one of {2}", self.property, level, ", ".join(sorted(kinds))),
                field="property")
        if level == DOCTYPE_LEVEL:
            self.field_name = None
        elif not self.field_name:
            raise exc.MandatoryError(_("Field Name is required to set {0}", self.property), field="field_name")
        meta = registry.customizable_meta(self.doc_type)
        if self.field_name and self.field_name not in meta.by_name:
            raise exc.ValidationError(_("{0} has no field {1}", self.doc_type, self.field_name), field="field_name")
        problem = property_problem(meta.by_name, self.property, self.field_name, self.value, registry.exists)
        if problem:
            raise exc.ValidationError(_("Cannot set {0} of {1}: {2}", self.property, self.doc_type, problem),
                                      field="value")
        if self.property == "default" and meta.by_name[self.field_name].fieldtype == "Select":
            await self._check_select_default(meta.by_name[self.field_name].options)
        self.value = stored_value(self.property, self.value, doctype_level=level == DOCTYPE_LEVEL)
        self.property_type = kinds[self.property]
        if not self.module:
            self.module = meta.module

    async def _check_select_default(self, own_options: str | None) -> None:
        """A Select's default must be one of its options: the options' own setter (this unit's
        included) if there is one, else the field's. (Customize Form checks options and default
        together before it writes either, since one save may change both.)"""
        options = await get_all(self.ctx, "Property Setter", pluck="value", filters={
            "name": setter_name(str(self.doc_type), self.field_name, "options")})
        problem = select_default_problem(str(self.field_name), options[0] if options else own_options, self.value)
        if problem:
            raise exc.ValidationError(_("Cannot set {0} of {1}: {2}", self.property, self.doc_type, problem),
                                      field="value")

    async def on_update(self) -> None:
        resync_after_commit(self.ctx, str(self.doc_type))

    async def after_delete(self) -> None:
        resync_after_commit(self.ctx, str(self.doc_type))

