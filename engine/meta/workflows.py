"""Workflow definitions: the active Workflow records, read with the meta (engine/meta/registry.py) and
sent with it to the Desk. engine/documents/workflow.py applies them to documents."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

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


async def load_workflows(workflows: Any, workflow_states: Any) -> dict[str, WorkflowDef]:
    """Active workflows by document type (one per doctype; the latest modified wins), read from the
    Workflow and Workflow State collections the meta registry passes."""
    rows = await workflows.find({"is_active": 1}).sort([("modified", 1)]).to_list(None)
    names = sorted({s.get("state") for row in rows for s in row.get("states") or [] if s.get("state")})
    state_rows = {r["_id"]: r for r in await workflow_states.find(
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


class HasWorkflows(Protocol):
    """What holds the active workflows: engine/meta/registry.py's `MetaRegistry`."""

    workflows: dict[str, WorkflowDef]


def workflow_for(registry: HasWorkflows, doctype: str) -> WorkflowDef | None:
    workflows: dict[str, WorkflowDef] = getattr(registry, "workflows", {})
    return workflows.get(doctype) if workflows else None
