"""One-call updates: a save that nothing of the stored document can change, written as one atomic
`findOneAndUpdate` instead of a read and a conditional write.

A save reads the document first because its steps need it: hooks and the workflow see the whole
document, Link fields are checked again and `fetch_from` fields refreshed, a Version diffs against
it, `if_owner`, row conditions and `has_permission` hooks judge it, `set_only_once`, unique and
permlevel checks compare with it. For a doctype none of that applies to, a save's outcome depends
only on the request, the meta and a few facts about the stored record, which the update's filter
states itself: it exists, it is a draft, every mandatory field the request leaves alone is filled,
and its `modified` is the one the client sent, if it sent one. So the update either matches and *is*
the save (the same values written, the same answer, the same realtime events), or matches nothing
and the ordinary save runs and says why (not found, submitted, mandatory, timestamp): every error is
the one the ordinary save gives, because the ordinary save gives it.

Anything this module does not decide from the request alone (a field it does not take, a value that
fails its type or leaves a mandatory field empty, a permlevel the user cannot write) also goes to
the ordinary save, which checks and reports it as always.

The one thing it takes on trust is that stored values are typed, as every fw write stores them: the
ordinary save would retype a value written by something else (a number in a Data field, say), a
one-call update leaves the fields it does not set as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from engine import exceptions as exc
from engine import permissions, realtime
from engine.clock import now_str
from engine.context import unit_of_work
from engine.documents import docstatus, lifecycle, store
from engine.documents.base import ECHOED_BY_CLIENTS, IGNORED_INPUT
from engine.documents.naming import MAX_NAME_LENGTH
from engine.meta import fieldtypes
from engine.meta.workflows import workflow_for

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.document import Document
    from engine.meta.schema import DocFieldSchema, Meta

# keys an update ignores: what clients send back with a document, and what no document takes as input
IGNORED = ECHOED_BY_CLIENTS | IGNORED_INPUT
# Python's whitespace (every character `str.isspace` accepts: what `fieldtypes.is_empty` strips), for
# a filter that matches filled text only
SPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
         "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
FILLED_TEXT = {"$regex": f"[^{SPACE}]"}  # (the characters themselves: PCRE and Python's re read them alike)
NUMBER_TYPES = fieldtypes.NUMERIC_TYPES | {"Check"}


@dataclass(frozen=True)
class UpdatePlan:
    """What a one-call update of a doctype may set, and what its filter requires of the record."""

    settable: dict[str, DocFieldSchema]
    ignored: frozenset[str]  # read-only fields: an update drops them, as the ordinary one does
    # (fieldname, condition) the stored record must meet for each field the update leaves alone: a
    # number where the ordinary save would store 0 for a missing one, filled text where it is mandatory
    conditions: tuple[tuple[str, Any], ...]
    # the most bytes of JSON an answer with one of its documents takes (None: a field has no bound)
    answer_bound: int | None


def _plain(meta: Meta, controller: type) -> bool:
    """A document of the doctype is one record whose save is a `$set` (no Single, child, tree or
    submittable doctype, no table)."""
    return not (meta.issingle or meta.istable or meta.is_tree or meta.is_submittable or meta.table_fields)


def _always(meta: Meta, controller: type) -> bool:
    return True


def _mandatory_in_filter(meta: Meta, controller: type) -> bool:
    """Every mandatory field's emptiness is a filter condition (JSON's and Text Editor's is more than
    blank text: asked in Python)."""
    return not any(f.reqd and f.fieldtype in ("JSON", "Text Editor") for f in meta.value_fields)


# the save's steps a one-call update does, and for which doctypes (engine/documents/lifecycle.py's
# SAVE; any other step the doctype's plan keeps, a hook above all, sends it the ordinary way)
PATH = lifecycle.FastPath("one_call", lifecycle.SAVE, {
    lifecycle.check_write: _always,  # permissions.writes_every_row, asked per caller
    lifecycle.check_latest: _always,  # the filter's `modified`
    lifecycle.coerce_types: _always,  # fieldtypes.coerce_value on the values sent
    lifecycle.check_workflow: _always,  # no workflow, asked per call (Workflow records change)
    lifecycle.validate_fields: _mandatory_in_filter,
    lifecycle.guard_fields: _always,  # permissions.writable_levels, asked per caller
    lifecycle.check_set_only_once: _always,  # such fields are not settable here
    lifecycle.persist_update: _plain,  # unique fields are not settable here either
    lifecycle.emit_realtime: _always,  # realtime.notify_change
})


def plan_for(ctx: Context, meta: Meta) -> UpdatePlan | None:
    """The doctype's plan, or None when a save of it needs the stored document. Whether it may is the
    fast paths' one rule (kept with the lifecycle's plans, for the registry's controllers and hooks);
    what the meta allows is worked out once per meta."""
    apps = ctx.site.apps
    if not lifecycle.fast_path_takes(apps, apps.controller(meta.name), meta, PATH):
        return None
    plan = meta.engine_cache.get("one_call_update")
    if plan is None:
        plan = meta.engine_cache["one_call_update"] = _build_plan(meta)
    return plan


def _build_plan(meta: Meta) -> UpdatePlan:
    conditions: list[tuple[str, Any]] = []
    for field in meta.value_fields:
        if field.fieldtype in NUMBER_TYPES:
            conditions.append((field.fieldname, {"$type": "number"}))
        elif field.reqd:
            conditions.append((field.fieldname, FILLED_TEXT))
    settable = {f.fieldname: f for f in meta.value_fields if not (f.read_only or f.set_only_once or f.unique)}
    ignored = frozenset(f.fieldname for f in meta.value_fields if f.read_only)
    return UpdatePlan(settable, ignored, tuple(conditions), _answer_bound(meta))


def _answer_bound(meta: Meta) -> int | None:
    """The most bytes of JSON a document of `meta` takes in an answer (its standard fields, names and
    timestamps, and its value fields, each with its key), or None when a field's type is unbounded."""
    total = len(meta.standard) * (fieldtypes.JSON_BYTES_PER_CHAR * MAX_NAME_LENGTH + 32)
    for field in meta.value_fields:
        most = fieldtypes.max_json_bytes(field)
        if most is None:
            return None
        total += len(field.fieldname) + 4 + most
    return total


async def update(ctx: Context, doctype: str, name: str, data: Mapping[str, Any], *,
                 own_unit: bool = False) -> Document | None:
    """The update `data` asks for, done in one call: the document as saved, or None when the ordinary
    save must run (it then reads, checks and reports as always). Outside a unit of work it opens its
    own (`own_unit`), as the ordinary save does: its realtime events go out on that unit's commit."""
    if ctx.uow is None:
        async with unit_of_work(ctx):
            return await update(ctx, doctype, name, data, own_unit=True)
    final = own_unit or ctx.single_operation
    meta = ctx.meta(doctype)
    plan = plan_for(ctx, meta)
    if plan is None or workflow_for(ctx.site.meta, doctype) is not None:
        return None
    changes = _changes(meta, plan, data)
    if changes is None or not await permissions.writes_every_row(ctx, meta):
        return None
    levels = await permissions.writable_levels(ctx, meta)
    if levels is not None and any(plan.settable[k].permlevel not in levels for k in changes):
        return None
    filter: dict[str, Any] = {"_id": name, "docstatus": 0}
    if data.get("modified") is not None:
        filter["modified"] = str(data["modified"])
    for fieldname, condition in plan.conditions:
        if fieldname not in changes:
            filter[fieldname] = condition
    set_ = {k: v for k, v in changes.items() if v is not None}
    set_["modified"] = now_str()
    set_["modified_by"] = ctx.user
    unset = [k for k, v in changes.items() if v is None]  # as the ordinary save stores no nulls
    room = ctx.answer_room() if final else None
    if room is not None and ctx.db.transactional and (plan.answer_bound is None or plan.answer_bound > room):
        # written outside a transaction, the update could not be undone if its answer were refused: it
        # matches only a record whose answer surely fits (JSON takes at most 6 bytes per byte of BSON).
        # A doctype whose every field is bounded needs no such test under the usual limits
        budget = (room - len(orjson.dumps(set_))) // fieldtypes.JSON_BYTES_PER_CHAR
        if budget <= 0:
            return None
        filter["$expr"] = {"$lte": [{"$bsonSize": "$$ROOT"}, budget]}
    record = await store.update_returning(ctx, meta, filter, set_, unset, final=final)
    if record is None:
        return None
    doc: Document = ctx.site.apps.controller(doctype)(meta, record, ctx=ctx, stored=True)
    realtime.notify_change(ctx, doc)
    return doc


def _changes(meta: Meta, plan: UpdatePlan, data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The values to write, typed as a save types them, in the meta's field order; None when a key or
    a value needs the ordinary save (an unknown, set-only-once or unique field, a bad value, an emptied
    mandatory field, a docstatus other than draft)."""
    wanted: dict[str, Any] = {}
    for key, value in data.items():
        if key in IGNORED or key in plan.ignored or key == "modified" or key.startswith("__"):
            continue
        if key == "docstatus":
            if not docstatus.is_draft(value):
                return None
            continue
        if key not in plan.settable:
            return None
        wanted[key] = value
    changes: dict[str, Any] = {}
    for field in meta.value_fields:  # in the meta's order, as the ordinary save meets them
        if field.fieldname not in wanted:
            continue
        try:
            value = fieldtypes.coerce_value(field, wanted[field.fieldname], doctype=meta.name)
        except exc.FwError:
            return None
        if field.reqd and fieldtypes.is_empty(field, value):
            return None
        changes[field.fieldname] = value
    return changes
