"""The Workflow controller: checks the definition, creates missing states and actions (as Frappe
does), and makes every process re-read workflows after commit. The Workflow State controller does
the same when a state an active workflow uses changes (its `style` is the state's colour in the Desk)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import exceptions as exc
from engine.documents import store
from engine.documents.document import Document
from engine.documents.factory import new_doc
from engine.schema_sync import resync_after_commit
from engine.translation import _

if TYPE_CHECKING:
    pass


class Workflow(Document):
    async def validate(self) -> None:
        self.flags["previous_document_type"] = self.stored_value("document_type")
        if not self.ctx.site.meta.exists(self.document_type or ""):
            raise exc.LinkValidationError(_("DocType {0} not found", self.document_type), field="document_type")
        if not self.states:
            raise exc.MandatoryError(_("A workflow needs at least one state"), field="states")
        names = [row.state for row in self.states]
        for row in self.states:
            if str(row.doc_status or "0") not in ("0", "1", "2"):
                raise exc.ValidationError(_("Row {0}: doc_status must be 0, 1 or 2", row.idx), field="doc_status")
        meta = self.ctx.meta(self.document_type)
        if any(str(row.doc_status or "0") != "0" for row in self.states) and not meta.is_submittable:
            raise exc.ValidationError(_("{0} is not submittable: every state needs doc_status 0", self.document_type),
                                      field="states")
        for row in self.transitions:
            for value in (row.state, row.next_state):
                if value not in names:
                    raise exc.ValidationError(_("Transition row {0}: state {1} is not one of the workflow's states",
                                                row.idx, value), field="transitions")
        await self._ensure("Workflow State", "workflow_state_name", names)
        await self._ensure("Workflow Action Master", "workflow_action_name", [r.action for r in self.transitions])

    async def _ensure(self, doctype: str, field: str, names: list[str]) -> None:
        meta = self.ctx.meta(doctype)
        for name in dict.fromkeys(n for n in names if n):
            if await store.load(self.ctx, meta, name, {"_id": 1}) is None:
                await new_doc(self.ctx, doctype, {field: name}).insert(ignore_permissions=True)

    async def on_update(self) -> None:
        # the doctype it was on before this save (the stored record is replaced by the write)
        previous = self.flags.get("previous_document_type")
        resync_after_commit(self.ctx, self.document_type, previous)

    async def after_delete(self) -> None:
        resync_after_commit(self.ctx, self.document_type)


class WorkflowState(Document):
    async def on_update(self) -> None:
        self._reload_if_used()

    async def after_delete(self) -> None:
        self._reload_if_used()

    def _reload_if_used(self) -> None:
        workflows = self.ctx.site.meta.workflows.values()
        if any(state.state == self.name for wf in workflows for state in wf.states):
            resync_after_commit(self.ctx)

