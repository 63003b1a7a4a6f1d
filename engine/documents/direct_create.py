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
from engine import permissions, realtime
from engine.clock import now_str
from engine.documents import docstatus, lifecycle, naming, store, validation
from engine.documents.base import IGNORED_INPUT
from engine.documents.document import Document
from engine.meta import fieldtypes
from engine.meta.workflows import workflow_for

if TYPE_CHECKING:
    from engine.context import Context
    from engine.meta.schema import Meta

# what the ordinary insert calls on the document: a controller that defines any of them (its own
# `insert`, say) takes the ordinary path, which calls them
DOCUMENT_METHODS = ("__init__", "__setattr__", "update", "set", "insert", "save", "as_dict", "to_record",
                    "mark_stored")


def _plain(meta: Meta, controller: type) -> bool:
    """A document of the doctype is one record (no Single, child, tree or submittable doctype, no
    table) and its controller adds no document method of its own."""
    return not (meta.issingle or meta.istable or meta.is_tree or meta.is_submittable or meta.table_fields) \
        and all(getattr(controller, name) is getattr(Document, name) for name in DOCUMENT_METHODS)


def _always(meta: Meta, controller: type) -> bool:
    return True


# the insert's steps a direct create does, and for which doctypes (engine/documents/lifecycle.py's
# INSERT; any other step the doctype's plan keeps, a hook above all, sends it the ordinary way)
PATH = lifecycle.FastPath("direct_create", lifecycle.INSERT, {
    lifecycle.set_defaults: _always,  # validation.fill_defaults
    lifecycle.coerce_types: _always,  # validation.coerce_values
    lifecycle.check_create: _always,  # permissions.creates_any, asked per caller
    # a random name (a counter, a field's value or a client's name is another round trip or a clash)
    lifecycle.set_name: lambda meta, controller: meta.autoname.lower() in ("", "hash")
    and getattr(controller, "autoname", None) is None,
    lifecycle.check_workflow: _always,  # no workflow, asked per call (Workflow records change)
    lifecycle.validate_fields: _always,  # mandatory, as the ordinary insert asks it
    lifecycle.guard_fields: _always,  # permissions.writable_levels, asked per caller
    # one `insert_one`: no unique field (its clash is refused before the write), Version or tree record
    lifecycle.persist_insert: lambda meta, controller: _plain(meta, controller) and not meta.unique_fields,
    lifecycle.emit_realtime: _always,  # realtime.notify_record_change
})


def qualifies(ctx: Context, meta: Meta) -> bool:
    """Whether creates of `meta` may go direct (the fast paths' one rule, kept with the lifecycle's plans)."""
    apps = ctx.site.apps
    return lifecycle.fast_path_takes(apps, apps.controller(meta.name), meta, PATH)


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
