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
from engine.documents import lifecycle
from engine.documents.workflow_check import allowed_transitions, validate_on_save  # noqa: F401  (re-exported)
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
from engine.notifications import workflow_alert
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.document import Document


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
    await lifecycle.save(doc, lifecycle.SaveOptions(ignore_permissions=True, workflow_transition=transition))
    if workflow_alert.sends_alert(wf):  # send_email_alert: who may act next hears of it
        await workflow_alert.alert(ctx, doc, wf, target.state)
    return doc
