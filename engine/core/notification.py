"""The Notification controller: a rule is checked when it is saved (its doctype and fields, the
condition's and templates' syntax), and a change to any rule tells every process which doctypes
have enabled Notifications (the meta registry's `notified`, which puts the notification step into
those doctypes' write plans: engine/documents/lifecycle.py). An enabled rule's doctype becomes a
carrier of jobs (engine/jobs/outbox.py): its records may carry the rule's job until a relay takes it."""

from __future__ import annotations

import ast

from jinja2 import TemplateSyntaxError
from jinja2.sandbox import SandboxedEnvironment

from engine import exceptions as exc
from engine.documents import store
from engine.documents.document import Document
from engine.jobs import outbox
from engine.meta.schema import Meta
from engine.schema_sync import resync_after_commit
from engine.translation import _

DATE_TYPES = frozenset({"Date", "Datetime"})
_syntax = SandboxedEnvironment()


class Notification(Document):
    async def validate(self) -> None:
        doctype = self.document_type
        if not doctype or not self.ctx.site.meta.exists(doctype):
            raise exc.ValidationError(_("Document Type {0} does not exist", doctype), field="document_type")
        meta = self.ctx.meta(doctype)
        if meta.istable or meta.issingle:
            raise exc.ValidationError(_("Notifications cannot be set for {0}: it is a single or child doctype",
                                        doctype), field="document_type")
        event = self.event
        if event == "Method" and not self.method:
            raise exc.MandatoryError(_("Event Method needs a method"), field="method")
        if event == "Value Change" and not meta.has_field(self.value_changed or ""):
            raise exc.ValidationError(_("Value Changed must be a field of {0}", doctype), field="value_changed")
        if event in ("Days Before", "Days After"):
            dated = meta.get_field(self.date_changed or "")
            if dated is None or dated.fieldtype not in DATE_TYPES:
                raise exc.ValidationError(_("Reference Date must be a Date or Datetime field of {0}", doctype),
                                          field="date_changed")
        if self.set_property_after_alert and meta.get_field(self.set_property_after_alert) is None:
            raise exc.ValidationError(_("Field {0} does not exist in {1}", self.set_property_after_alert, doctype),
                                      field="set_property_after_alert")
        _check_expression(self.condition, "condition")
        for fieldname in ("subject", "message"):
            try:
                _syntax.parse(self.get(fieldname) or "")
            except TemplateSyntaxError as e:
                raise exc.ValidationError(_("{0} is not a valid template: {1}", self.meta.label(fieldname),
                                            e.message or ""), field=fieldname) from None
        for row in self.recipients or []:
            _check_expression(row.condition, "condition")
            spec = (row.receiver_by_document_field or "").strip()
            if spec:
                fieldname, _sep, table = (p.strip() for p in spec.partition(","))
                table_field = meta.get_field(table) if table else None
                target: Meta | None = meta
                if table:
                    if table_field is None or not table_field.is_table:
                        target = None
                    else:
                        target = self.ctx.meta(table_field.options or "")
                if target is None or not await _has_field(self, target, fieldname):
                    raise exc.ValidationError(_("Receiver By Document Field {0} is not a field of {1}", spec, doctype),
                                              field="receiver_by_document_field")

    async def on_update(self) -> None:
        if self.enabled:  # the jobs of its doctype's saves may ride in their records: the relays look there
            await outbox.register_carrier(self.ctx.site, self.ctx.meta(self.document_type).collection)
        resync_after_commit(self.ctx)

    def after_delete(self) -> None:
        resync_after_commit(self.ctx)


async def _has_field(doc: Document, meta: Meta, fieldname: str) -> bool:
    """A field of `meta`, or of a Custom Field written in this unit of work (an app's fixtures add the
    field and the Notification that names it together; the meta follows after the commit)."""
    if meta.get_field(fieldname) is not None:
        return True
    custom = doc.ctx.meta("Custom Field")
    return await store.find_one(doc.ctx, custom, {"dt": meta.name, "fieldname": fieldname}, {"_id": 1}) is not None


def _check_expression(text: str | None, field: str) -> None:
    if text and text.strip():
        try:
            ast.parse(text.strip(), mode="eval")
        except SyntaxError as e:
            raise exc.ValidationError(_("Invalid condition {0}: {1}", repr(text), e.msg), field=field) from None
