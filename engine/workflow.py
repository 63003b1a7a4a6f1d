"""Workflows: states with a docstatus each, transitions by role and optional condition.

`apply_workflow` moves a document along a transition (0→0 save, 0→1 submit, 1→1 update after
submit, 1→2 cancel); a save that changes the state outside the transitions is refused; a new
document starts in the first state. Definitions are read per site and cached with the meta, with
the `style` of each state's Workflow State record and its indicator colour (`STYLE_COLOURS`: one
mapping, so the Desk's list and form show a state alike).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine import permissions
from engine.documents.docstatus import Action
from engine.safe_eval import safe_eval
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.document import Document
    from engine.meta.registry import MetaRegistry


# Workflow State `style` (Bootstrap's names, as Frappe stores them) → indicator colour
STYLE_COLOURS: dict[str, str] = {"Primary": "blue", "Info": "blue", "Success": "green", "Warning": "orange",
                                 "Danger": "red", "Inverse": "darkgrey"}
NO_STYLE_COLOUR = "gray"


def style_colour(style: str | None) -> str:
    """The indicator colour of a Workflow State style (gray when it has none)."""
    return STYLE_COLOURS.get(style or "", NO_STYLE_COLOUR)


@dataclass(frozen=True)
class State:
    state: str
    doc_status: int
    update_field: str | None = None
    update_value: Any = None
    allow_edit: str | None = None  # the role that may edit a document in this state
    style: str | None = None  # of the Workflow State record
    is_optional_state: bool = False
    message: str | None = None


@dataclass(frozen=True)
class Transition:
    state: str
    action: str
    next_state: str
    allowed: str
    allow_self_approval: bool = True
    condition: str | None = None


@dataclass(frozen=True)
class WorkflowDef:
    name: str
    document_type: str
    field: str
    states: tuple[State, ...]
    transitions: tuple[Transition, ...]
    # the stored Workflow record and its states' Workflow State records, as Frappe's Desk meta sends
    # them (`__workflow_docs`); empty for a definition built in code
    records: tuple[dict[str, Any], ...] = ()

    def state(self, name: str | None) -> State | None:
        return next((s for s in self.states if s.state == name), None)


def _record(row: dict[str, Any], doctype: str) -> dict[str, Any]:
    """A stored row as a Frappe document dict (`name` for `_id`, the doctype named)."""
    out = {"name": row["_id"], "doctype": doctype}
    out.update((k, v) for k, v in row.items() if k != "_id" and v is not None)
    return out


async def load_workflows(db: Any) -> dict[str, WorkflowDef]:
    """Active workflows by document type (one per doctype; the latest modified wins)."""
    rows = await db.collection("workflow").find({"is_active": 1}).sort([("modified", 1)]).to_list(None)
    names = sorted({s.get("state") for row in rows for s in row.get("states") or [] if s.get("state")})
    state_rows = {r["_id"]: r for r in await db.collection("workflow_state").find(
        {"_id": {"$in": names}}).to_list(None)} if names else {}
    found: dict[str, WorkflowDef] = {}
    for row in rows:
        states = tuple(State(s["state"], int(s.get("doc_status") or 0), s.get("update_field"), s.get("update_value"),
                             s.get("allow_edit") or None, (state_rows.get(s["state"]) or {}).get("style") or None,
                             bool(s.get("is_optional_state")), s.get("message") or None)
                       for s in sorted(row.get("states") or [], key=lambda r: r.get("idx", 0)))
        transitions = tuple(Transition(t["state"], t["action"], t["next_state"], t["allowed"],
                                       bool(t.get("allow_self_approval", 1)), t.get("condition") or None)
                            for t in sorted(row.get("transitions") or [], key=lambda r: r.get("idx", 0)))
        if states:
            records = (_record(row, "Workflow"), *(_record(state_rows[s.state], "Workflow State")
                                                  for s in states if s.state in state_rows))
            found[row["document_type"]] = WorkflowDef(row["_id"], row["document_type"],
                                                      row.get("workflow_state_field") or "workflow_state",
                                                      states, transitions, records)
    return found


def desk_workflow(wf: WorkflowDef) -> dict[str, Any]:
    """The workflow as the Desk reads it with the doctype's meta (`__workflow`): its state field, the
    states in order (docstatus, the role that may edit, style and indicator colour) and transitions."""
    return {
        "name": wf.name, "field": wf.field,
        "states": [{"state": s.state, "doc_status": s.doc_status, "allow_edit": s.allow_edit, "style": s.style,
                    "color": style_colour(s.style), "is_optional_state": int(s.is_optional_state),
                    "update_field": s.update_field, "update_value": s.update_value, "message": s.message}
                   for s in wf.states],
        "transitions": [{"state": t.state, "action": t.action, "next_state": t.next_state, "allowed": t.allowed,
                         "allow_self_approval": int(t.allow_self_approval), "condition": t.condition}
                        for t in wf.transitions],
    }


def workflow_for(registry: MetaRegistry, doctype: str) -> WorkflowDef | None:
    workflows: dict[str, WorkflowDef] = getattr(registry, "workflows", {})
    return workflows.get(doctype) if workflows else None


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


