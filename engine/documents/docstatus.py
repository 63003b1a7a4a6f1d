"""Docstatus values and the table of allowed transitions, which decides the lifecycle action."""

from __future__ import annotations

from enum import Enum
from typing import Any

from engine import exceptions as exc
from engine.translation import _


class Action(Enum):
    INSERT = "insert"
    SAVE = "save"
    SUBMIT = "submit"
    UPDATE_AFTER_SUBMIT = "update_after_submit"
    CANCEL = "cancel"


_LABELS = {0: "Draft", 1: "Submitted", 2: "Cancelled"}

_TRANSITIONS = {
    (0, 0): Action.SAVE,
    (0, 1): Action.SUBMIT,
    (1, 1): Action.UPDATE_AFTER_SUBMIT,
    (1, 2): Action.CANCEL,
}


def coerce(value: Any) -> int:
    """A docstatus from any value (None and "" are 0); anything else that is not 0, 1 or 2 is a DataError."""
    if value in (None, ""):
        return 0
    try:
        status = int(value)
    except (TypeError, ValueError):
        raise exc.DataError(_("docstatus must be 0, 1 or 2, not {0}", repr(value)[:40]), field="docstatus") from None
    if status not in (0, 1, 2) or (isinstance(value, float) and value != status):
        raise exc.DataError(_("docstatus must be 0, 1 or 2, not {0}", repr(value)[:40]), field="docstatus")
    return status


def is_draft(value: Any) -> bool:
    """Whether `value` reads as the draft docstatus (False for another one, and for a value `coerce` refuses)."""
    try:
        return coerce(value) == 0
    except exc.DataError:
        return False


def transition(old: int | None, new: int, *, submittable: bool) -> Action:
    """The action for moving a document from `old` (None = new) to `new` docstatus."""
    if new != 0 and not submittable:
        raise exc.DocstatusTransitionError(
            _("Cannot set docstatus to {0}: this document type is not submittable", new), field="docstatus")
    if old is None:
        if new == 0:
            return Action.INSERT
        if new == 1:
            return Action.SUBMIT
        raise exc.DocstatusTransitionError(_("Cannot insert a document as Cancelled"), field="docstatus")
    action = _TRANSITIONS.get((old, new))
    if action is None:
        if old == 2:
            raise exc.DocstatusTransitionError(_("Cannot edit cancelled document"), field="docstatus")
        raise exc.DocstatusTransitionError(
            _("Cannot change docstatus from {0} ({1}) to {2} ({3})", old, _(_LABELS[old]), new, _(_LABELS[new])),
            field="docstatus")
    return action
