"""Direct creates: a new document of a doctype no code takes part in, built from the request as one
record and inserted, without a `Document` and the insert's list of steps.

An insert (engine/documents/lifecycle.py's INSERT) runs a dozen steps, most of them for what a
doctype may have: hooks, a workflow, Link checks and fetched values, child rows, passwords, unique
fields, names made from values or counters, a Version record. For a doctype with none of these, what
an insert does is decided by the request, the meta and the caller alone: the values defaulted and
typed, the create right, the mandatory fields, a random name, one `insert_one`. This module does
that in one pass over the request and answers the new record as `Document.as_dict` would.

Whatever it cannot decide from the request alone (a key that is not a field, a value that fails its
type, an empty mandatory field, a docstatus other than draft, a caller whose create right depends on
the document, a field above a permlevel the caller may write) goes to the ordinary insert, which
checks it and reports it as always: every error is the ordinary insert's, because the ordinary insert
gives it. Nothing is written before that decision.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine import naming, permissions, realtime
from engine.clock import now_str
from engine.documents import docstatus, lifecycle, store, validation
from engine.documents.base import IGNORED_INPUT
from engine.documents.document import Document
from engine.documents.one_call import NEEDS_MORE
from engine.meta import fieldtypes
from engine.meta.workflows import workflow_for

if TYPE_CHECKING:
    from engine.context import Context
    from engine.meta.schema import Meta

# every hook an insert of a draft runs, `before_naming` included (the lifecycle's INSERT)
INSERT_EVENTS = (*(lifecycle.HOOK_EVENTS[step] for step in lifecycle.INSERT if step in lifecycle.HOOK_EVENTS),
                 "before_naming")
# what the ordinary insert calls on the document: a controller that defines any of them (an `autoname`,
# its own `insert`) takes the ordinary path, which calls them
DOCUMENT_METHODS = ("__init__", "__setattr__", "update", "set", "insert", "save", "as_dict", "to_record",
                    "mark_stored")


def qualifies(ctx: Context, meta: Meta) -> bool:
    """Whether creates of `meta` may go direct: what the meta holds is worked out once per meta, what
    code the apps have for it once per registry (neither changes under it)."""
    allowed = meta.engine_cache.get("direct_create")
    if allowed is None:
        allowed = meta.engine_cache["direct_create"] = _meta_allows(meta)
    if not allowed:
        return False
    apps = ctx.site.apps
    controller = apps.controller(meta.name)
    kept = apps.derived(controller, meta.name)
    codeless = kept.get("direct_create")
    if codeless is None:
        codeless = kept["direct_create"] = _codeless(ctx, controller, meta.name)
    return codeless


def _meta_allows(meta: Meta) -> bool:
    if meta.issingle or meta.istable or meta.is_tree or meta.track_changes or meta.is_submittable:
        return False
    if meta.autoname.lower() not in ("", "hash"):  # a counter, a field's value, a client's name
        return False
    return not (meta.table_fields or meta.fetch_fields or meta.unique_fields
                or any(f.fieldtype in NEEDS_MORE for f in meta.value_fields))


def _codeless(ctx: Context, controller: type, doctype: str) -> bool:
    """Whether no code of the apps takes part in an insert of `doctype`: no hook, no `autoname`, no
    document method of the controller's own."""
    if getattr(controller, "autoname", None) is not None \
            or any(getattr(controller, name) is not getattr(Document, name) for name in DOCUMENT_METHODS):
        return False
    return not any(ctx.site.apps.hooked(controller, doctype, event) for event in INSERT_EVENTS)


async def create(ctx: Context, meta: Meta, body: Mapping[str, Any], *, no_nulls: bool) -> dict[str, Any] | None:
    """Insert the document `body` describes (a client's data, its server-set and read-only keys already
    dropped): the new document as `Document.as_dict(no_nulls=...)` gives it, or None when the ordinary
    insert must run (nothing is written then)."""
    if ctx.uow is None or not qualifies(ctx, meta) or workflow_for(ctx.site.meta, meta.name) is not None:
        return None
    if not await permissions.creates_any(ctx, meta):
        return None
    levels = await permissions.writable_levels(ctx, meta)
    if levels is not None and not meta.permlevels <= levels:
        return None
    values = _values(meta, body)
    if values is None:
        return None
    now = now_str()
    try:
        validation.fill_defaults(meta, values, now=now, today=now[:10])
        validation.coerce_values(meta, values)
    except exc.FwError:
        return None
    if any(fieldtypes.is_empty(field, values.get(field.fieldname)) for field in meta.mandatory_fields):
        return None
    name, user = naming.hash_name(), ctx.user
    values.update(name=name, owner=user, creation=now, modified=now, modified_by=user, docstatus=0, idx=0)
    record: dict[str, Any] = {"_id": name}
    record.update((key, value) for key, value in values.items() if value is not None and key != "name")
    final = ctx.single_operation and lifecycle.answer_fits(ctx, record)
    await store.insert(ctx, meta, record, final=final)
    realtime.notify_record_change(ctx, meta, name, now)
    answer: dict[str, Any] = {"doctype": meta.name}
    if no_nulls:
        answer.update((key, value) for key in meta.serial_keys if (value := values.get(key)) is not None)
    else:
        answer.update((key, values.get(key)) for key in meta.serial_keys)
    return answer


def _values(meta: Meta, body: Mapping[str, Any]) -> dict[str, Any] | None:
    """The body's field values, or None when a key needs the ordinary insert (not a field of the
    doctype, or a docstatus other than draft)."""
    fields = meta.data_fieldnames
    values: dict[str, Any] = {}
    for key, value in body.items():
        if key in fields:
            values[key] = value
        elif key == "docstatus":
            if not docstatus.is_draft(value):
                return None
        elif key not in IGNORED_INPUT and not key.startswith("__"):
            return None
    return values
