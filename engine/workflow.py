"""Workflows: states with a docstatus each, transitions by role and optional condition.

`apply_workflow` moves a document along a transition (0→0 save, 0→1 submit, 1→1 update after
submit, 1→2 cancel); a save that changes the state outside the transitions is refused; a new
document starts in the first state. Definitions are read per site and cached with the meta, with
the `style` of each state's Workflow State record and its indicator colour (`STYLE_COLOURS`: one
mapping, so the Desk's list and form show a state alike).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine import permissions
from engine.documents.docstatus import Action
from engine.meta.workflows import (  # noqa: F401  (re-exported: the definitions are meta)
    NO_STYLE_COLOUR,
    STYLE_COLOURS,
    State,
    Transition,
    WorkflowDef,
    desk_workflow,
    load_workflows,
    style_colour,
    workflow_for,
)
from engine.safe_eval import safe_eval
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.document import Document


def _condition_holds(transition: Transition, doc: Document, ctx: Context) -> bool:
    if not transition.condition:
        return True
    return bool(safe_eval(transition.condition, {"doc": doc.as_dict(), "user": ctx.user}))


async def allowed_transitions(ctx: Context, doc: Document, wf: WorkflowDef) -> list[Transition]:
    current = doc.get(wf.field) or wf.states[0].state
    roles = await ctx.roles()
    return [t for t in wf.transitions
            if t.state == current and (ctx.is_admin or t.allowed in roles) and _condition_holds(t, doc, ctx)]


async def get_transitions(ctx: Context, doc: Document) -> list[dict[str, Any]]:
    wf = workflow_for(ctx.site.meta, doc.doctype)
    if wf is None or doc.is_new():
        return []
    return [{"state": t.state, "action": t.action, "next_state": t.next_state, "allowed": t.allowed,
             "allow_self_approval": int(t.allow_self_approval)} for t in await allowed_transitions(ctx, doc, wf)]


async def apply_workflow(ctx: Context, doc: Document, action: str) -> Document:
    """Take `action` from the document's current state (role, condition and read access checked)."""
    wf = workflow_for(ctx.site.meta, doc.doctype)
    if wf is None:
        raise exc.WorkflowTransitionError(_("{0} has no active workflow", _(doc.doctype)))
    await doc.reload()
    await permissions.check_document(ctx, doc, "read")
    transition = next((t for t in await allowed_transitions(ctx, doc, wf) if t.action == action), None)
    if transition is None:
        raise exc.WorkflowTransitionError(_("Not a valid Workflow Action: {0}", action))
    if not transition.allow_self_approval and doc.owner == ctx.user and not ctx.is_admin:
        raise exc.WorkflowTransitionError(_("Self approval is not allowed"))
    target = wf.state(transition.next_state)
    if target is None:
        raise exc.WorkflowTransitionError(_("Workflow state {0} is not defined", transition.next_state))
    current = int(doc.docstatus or 0)
    if (current, target.doc_status) not in ((0, 0), (0, 1), (1, 1), (1, 2)):
        raise exc.WorkflowTransitionError(_("Illegal Document Status for {0}", target.state))
    doc.set(wf.field, target.state)
    if target.update_field:
        doc.set(target.update_field, target.update_value)
    doc.docstatus = target.doc_status
    doc.flags["workflow_transition"] = transition
    await doc.save(ignore_permissions=True)
    return doc


async def validate_on_save(ctx: Context, doc: Document, action: Action) -> None:
    """A lifecycle step: keep `workflow_state` consistent with the workflow and docstatus."""
    wf = workflow_for(ctx.site.meta, doc.doctype)
    if wf is None:
        return
    state = doc.get(wf.field)
    if action is Action.INSERT or (action is Action.SUBMIT and doc.is_new()):
        first = wf.states[0]
        if state and state != first.state:  # for everyone: Administrator too starts at the beginning
            raise exc.WorkflowTransitionError(_("A new {0} must start in state {1}", _(doc.doctype), first.state),
                                              field=wf.field)
        doc.set(wf.field, state or first.state)
        return
    before = doc.stored_value(wf.field) or wf.states[0].state
    if doc.flags.get("workflow_transition") is not None:
        return
    if state == before or not state:
        if action in (Action.SUBMIT, Action.CANCEL):  # move to the first state matching the new docstatus
            target = next((s for s in wf.states if s.doc_status == int(doc.docstatus)), None)
            if target is not None:
                doc.set(wf.field, target.state)
        elif not state:
            doc.set(wf.field, before)
        return
    roles = await ctx.roles()
    ok = any(t.state == before and t.next_state == state and (ctx.is_admin or t.allowed in roles)
             and _condition_holds(t, doc, ctx) for t in wf.transitions)
    target = wf.state(state)
    if not ok or target is None or target.doc_status != int(doc.docstatus or 0):
        raise exc.WorkflowTransitionError(
            _("Workflow state cannot change from {0} to {1} here; use a workflow action", before, state),
            field=wf.field)


