"""The workflow step of the lifecycle: a save keeps the workflow state consistent with the workflow's
transitions and the docstatus; a new document starts in the first state. engine/documents/workflow.py moves
documents along transitions (`apply_workflow`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import exceptions as exc
from engine.documents.docstatus import Action
from engine.meta.workflows import Transition, WorkflowDef, workflow_for
from engine.safe_eval import safe_eval
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument


def _condition_holds(transition: Transition, doc: BaseDocument, ctx: Context) -> bool:
    if not transition.condition:
        return True
    return bool(safe_eval(transition.condition, {"doc": doc.as_dict(), "user": ctx.user}))


async def allowed_transitions(ctx: Context, doc: BaseDocument, wf: WorkflowDef) -> list[Transition]:
    current = doc.get(wf.field) or wf.states[0].state
    roles = await ctx.roles()
    return [t for t in wf.transitions
            if t.state == current and (ctx.is_admin or t.allowed in roles) and _condition_holds(t, doc, ctx)]



async def validate_on_save(ctx: Context, doc: BaseDocument, action: Action,
                           transition: Transition | None = None) -> bool:
    """A lifecycle step: keep `workflow_state` consistent with the workflow and docstatus. True when
    the doctype has a workflow (the step may have set its state field)."""
    wf = workflow_for(ctx.site.meta, doc.doctype)
    if wf is None:
        return False
    state = doc.get(wf.field)
    if action is Action.INSERT or (action is Action.SUBMIT and doc.is_new()):
        first = wf.states[0]
        if state and state != first.state:  # for everyone: Administrator too starts at the beginning
            raise exc.WorkflowTransitionError(_("A new {0} must start in state {1}", _(doc.doctype), first.state),
                                              field=wf.field)
        doc.set(wf.field, state or first.state)
        return True
    before = doc.stored_value(wf.field) or wf.states[0].state
    if transition is not None:  # apply_workflow checked it
        return True
    if state == before or not state:
        if action in (Action.SUBMIT, Action.CANCEL):  # move to the first state matching the new docstatus
            target = next((s for s in wf.states if s.doc_status == int(doc.docstatus)), None)
            if target is not None:
                doc.set(wf.field, target.state)
        elif not state:
            doc.set(wf.field, before)
        return True
    roles = await ctx.roles()
    ok = any(t.state == before and t.next_state == state and (ctx.is_admin or t.allowed in roles)
             and _condition_holds(t, doc, ctx) for t in wf.transitions)
    target = wf.state(state)
    if not ok or target is None or target.doc_status != int(doc.docstatus or 0):
        raise exc.WorkflowTransitionError(
            _("Workflow state cannot change from {0} to {1} here; use a workflow action", before, state),
            field=wf.field)
    return True


