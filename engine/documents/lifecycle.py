"""Insert, save, submit, cancel and delete as explicit lists of named steps (contract §3).

At each hook the controller method runs first, then `doc_events[doctype]`, then `doc_events["*"]`.
Every operation runs in the context's unit of work (its own one if none is open), so a hook that
raises after the write leaves nothing behind.

Every write path is a plan over these steps: a doctype's plan (`plan_for`) leaves out the hooks
nothing handles and the steps its meta gives nothing to do; the fast paths (engine/documents/
direct_create.py, one_call.py) declare which steps they cover (`FastPath`) and run only where
`fast_path_takes` finds nothing else in the plan; bulk (engine/documents/bulk.py) applies the
insert's plan to many documents.
"""

from __future__ import annotations

import inspect
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from engine import exceptions as exc
from engine import permissions, realtime
from engine.clock import now_str
from engine.context import unit_of_work
from engine.core import passwords
from engine.documents import (
    concurrency,
    docstatus,
    links,
    naming,
    store,
    trash,
    tree,
    validation,
    versioning,
    workflow_check,
)
from engine.documents.docstatus import Action
from engine.jobs import payload
from engine.meta import fieldtypes
from engine.meta.workflows import Transition, workflow_for
from engine.translation import _

if TYPE_CHECKING:
    from engine.apps.registry import AppRegistry
    from engine.context import Context
    from engine.documents.base import BaseDocument
    from engine.meta.schema import Meta

D = TypeVar("D", bound="BaseDocument")


@dataclass(frozen=True)
class SaveOptions:
    """What a caller may switch off. Never built from request data."""

    ignore_permissions: bool = False
    ignore_links: bool = False
    ignore_mandatory: bool = False
    ignore_if_duplicate: bool = False
    # the workflow transition `apply_workflow` takes (its state change needs no other check)
    workflow_transition: Transition | None = None


@dataclass
class Operation:
    doc: BaseDocument
    ctx: Context
    opts: SaveOptions
    action: Action
    now: str
    old_docstatus: int | None = None
    final_write: bool = False  # the persist is the unit of work's last write (no transaction needed)
    counted_name: bool = False  # from a counter or random: cannot clash, so no duplicate pre-check
    duplicate: bool = False  # `ignore_if_duplicate` found the name stored: the remaining steps are skipped
    stored_before: dict[str, Any] | None = None  # the record an update replaced (its Version diffs against it)
    # code ran since `coerce_types` that may have set values (a hook, autoname, the workflow), so
    # `validate_fields` types them again; without it the second pass would find nothing to change
    recoerce: bool = False
    naming_hook: bool = True  # a before_naming hook exists (from the plan: set_name skips asking)
    # no hook runs after the write: what the document will be is known before it (`match_notifications`)
    match_early: bool = False
    # the Notifications that fire on it, when `match_notifications` decided before the write (None: not yet)
    notifications: list[str] | None = None
    # jobs the write carries in the document's own record (`engine.jobs.queue.carry`: `{enqueue_id: entry}`)
    carried_jobs: dict[str, dict[str, Any]] | None = None


Step = Callable[[Operation], Awaitable[None]]


async def _call(fn: Callable[..., Any], *args: Any) -> Any:
    result = fn(*args)
    if inspect.isawaitable(result):
        result = await result
    return result


async def run_hook(doc: BaseDocument, event: str) -> bool:
    """Controller method, then doc_events[doctype], then doc_events["*"]. True when any ran."""
    method = getattr(type(doc), event, None)
    if method is not None:
        await _call(method, doc)
    handlers = doc.ctx.site.apps.handlers(doc.doctype, event)
    for handler in handlers:
        await _call(handler, doc, event)
    return method is not None or bool(handlers)


def hook(event: str) -> Step:
    async def step(op: Operation) -> None:
        if await run_hook(op.doc, event):
            op.recoerce = True

    step.__name__ = f"hook_{event}"
    HOOK_EVENTS[step] = event
    return step


# each hook step's event: `_run` passes over a hook nothing handles without calling it
HOOK_EVENTS: dict[Step, str] = {}


# -- steps ------------------------------------------------------------------------------------

async def set_defaults(op: Operation) -> None:
    doc, now = op.doc, op.now
    data = doc._data
    data["owner"] = op.ctx.user
    data["creation"] = now
    data["modified"] = now
    data["modified_by"] = op.ctx.user
    data["docstatus"] = docstatus.coerce(data.get("docstatus"))
    data["idx"] = data.get("idx") or 0
    validation.apply_defaults(doc, now=now, today=now[:10])
    for fieldname, value in (await permissions.link_defaults(op.ctx, doc.meta)).items():
        if data.get(fieldname) in (None, ""):  # the user's `is_default` User Permission
            data[fieldname] = value


async def check_create(op: Operation) -> None:
    if not op.opts.ignore_permissions:
        await permissions.check_document(op.ctx, op.doc, "create")
        if op.doc.get("amended_from") and op.doc.meta.is_submittable:
            await permissions.check_document(op.ctx, op.doc, "amend")
        if op.action is Action.SUBMIT:
            await permissions.check_document(op.ctx, op.doc, "submit")


async def set_name(op: Operation) -> None:
    """before_naming, then: Single → doctype; amendment → `<orig>-N`; controller `autoname()`;
    a name set by code is kept (the HTTP layer drops client names unless autoname is Prompt/UUID);
    otherwise the doctype's autoname rule."""
    doc, meta = op.doc, op.doc.meta
    if op.naming_hook and await run_hook(doc, "before_naming"):
        op.recoerce = True
    if meta.issingle:
        doc._data["name"] = meta.name
        return
    if doc.get("amended_from") and meta.is_submittable:
        source_amended = await _check_amended_from(op)
        doc._data["name"] = naming.amended_name(doc.amended_from, is_amendment=source_amended)
    elif callable(autoname := getattr(type(doc), "autoname", None)):
        op.recoerce = True
        await _call(autoname, doc)
    elif not doc.get("name") or meta.autoname.lower() in ("prompt", "uuid"):
        doc._data["name"] = await naming.make_name(op.ctx, doc)
        op.counted_name = _counted(meta.autoname) and not (meta.autoname.lower() == "uuid" and doc.get("name"))
    if not doc.get("name"):
        doc._data["name"] = await naming.make_name(op.ctx, doc)
    doc._data["name"] = naming.validate_name(meta.name, str(doc._data["name"]))
    name_children(doc)


def _counted(autoname: str) -> bool:
    rule = autoname.lower()
    return rule in ("", "hash", "autoincrement", "uuid") or rule.startswith(("naming_series:", "format:")) \
        or "#" in rule


async def _refuse_duplicates(op: Operation, record: dict[str, Any], *, check_name: bool,
                             fields: list[str] | None = None) -> None:
    doc = op.doc
    clash = await store.find_conflict(op.ctx, doc.meta, record, check_name=check_name,
                                      exclude=None if check_name else doc.name, fields=fields)
    if clash == "name":
        raise exc.DuplicateEntryError(_("{0} {1} already exists", _(doc.doctype), doc.name))
    if clash:
        raise exc.UniqueValidationError(
            _("{0} must be unique ({1} already exists)", _(doc.meta.label(clash)), record.get(clash)), field=clash)


def name_children(doc: BaseDocument) -> None:
    for table in doc.meta.table_fields:
        for idx, row in enumerate(doc._data.get(table.fieldname) or [], start=1):
            data = row._data
            if not data.get("name"):
                data["name"] = secrets.token_hex(5)
            data["idx"] = idx
            data["parent"] = doc.name
            data["parentfield"] = table.fieldname
            data["parenttype"] = doc.doctype
            data["docstatus"] = doc._data.get("docstatus", 0)
            for key in ("owner", "modified", "modified_by"):
                data[key] = doc._data.get(key)
            data["creation"] = data.get("creation") or doc._data.get("creation")  # a row keeps its own


async def _check_amended_from(op: Operation) -> bool:
    """The source must be a cancelled document; returns whether it is itself an amendment."""
    source = op.doc.amended_from
    meta = op.doc.meta
    record = await store.load(op.ctx, meta, source, {"docstatus": 1, "amended_from": 1})
    if record is None:
        raise exc.LinkValidationError(_("Could not find Amended From: {0}", source), field="amended_from")
    if record.get("docstatus") != 2:
        raise exc.DocstatusTransitionError(
            _("Only a cancelled document can be amended ({0} is not cancelled)", source), field="amended_from")
    return bool(record.get("amended_from"))


async def keep_unwritable_row_values(op: Operation) -> None:
    """Child rows sent without fields the user may not write keep their stored values."""
    await permissions.keep_unwritable_row_values(op.ctx, op.doc, op.opts.ignore_permissions)


async def coerce_types(op: Operation) -> None:
    """Type-check before the hooks run, so controllers see typed values (again after, in validate_fields)."""
    validation.check_non_table_lists(op.doc)
    validation.coerce_fields(op.doc)


async def validate_fields(op: Operation) -> None:
    doc = op.doc
    if op.recoerce:
        validation.coerce_fields(doc)
    if not op.opts.ignore_mandatory:
        validation.check_mandatory(doc)


async def check_links(op: Operation) -> None:
    """Link targets exist (one query per target doctype); `fetch_from` fields filled from them."""
    if not op.opts.ignore_links:
        await validation.validate_links(op.ctx, op.doc)


async def guard_fields(op: Operation) -> None:
    await permissions.guard_field_writes(op.ctx, op.doc, op.opts.ignore_permissions)


async def hash_passwords(op: Operation) -> None:
    data = op.doc._data
    for field in op.doc.meta.password_fields:
        value = data.get(field.fieldname)
        if value and not passwords.is_hashed(value):
            data[field.fieldname] = passwords.hash_password(str(value))


async def check_set_only_once(op: Operation) -> None:
    doc = op.doc
    for field in doc.meta.set_only_once_fields:
        before = doc.stored_value(field.fieldname)
        if before not in (None, "") and doc._data.get(field.fieldname) != before:
            raise exc.CannotChangeConstantError(
                _("Value cannot be changed for {0}", _(field.display_label)), field=field.fieldname)


async def check_update_after_submit(op: Operation) -> None:
    doc = op.doc
    stored = doc._stored or {}
    current = doc.to_record()
    for field in doc.meta.fields:
        name = field.fieldname
        if not name or field.allow_on_submit or not (field.has_value or field.is_table):
            continue
        if current.get(name) != stored.get(name):
            raise exc.UpdateAfterSubmitError(
                _("Not allowed to change {0} after submission", _(field.display_label)), field=name)


async def persist_insert(op: Operation) -> None:
    doc = op.doc
    record = clean_record(doc.to_record(), doc.meta.table_fieldnames)
    if doc.meta.is_tree:
        record["_ancestors"] = await tree.ancestors_for(op.ctx, doc)
    if op.opts.ignore_if_duplicate and await store.load(op.ctx, doc.meta, doc.name, {"_id": 1}) is not None:
        op.duplicate = True
        return
    if not op.counted_name or doc.meta.unique_fields:  # (else nothing could clash: no query, no coroutines)
        await _refuse_duplicates(op, record, check_name=not op.counted_name)
    final = op.final_write and answer_fits(op.ctx, record)
    if op.carried_jobs:
        payload.carry_in_record(record, op.carried_jobs)
    await store.insert(op.ctx, doc.meta, record, final=final)
    doc.mark_stored()


async def persist_update(op: Operation) -> None:
    doc = op.doc
    stored = doc._stored or {}
    expected = stored.get("modified")
    doc._data["modified"] = op.now
    doc._data["modified_by"] = op.ctx.user
    name_children(doc)
    record = clean_record(doc.to_record(), doc.meta.table_fieldnames)
    set_: dict[str, Any] = {}
    unset: list[str] = []
    for key, value in record.items():
        if key != "_id" and stored.get(key) != value:
            set_[key] = value
    for key in stored:
        if key not in record and key not in store.INTERNAL_KEYS:
            unset.append(key)
    changed_unique = [f.fieldname for f in doc.meta.unique_fields if f.fieldname in set_]
    if changed_unique:
        await _refuse_duplicates(op, record, check_name=False, fields=changed_unique)
    if doc.meta.is_tree and (doc.meta.nsm_parent_field in set_ or doc.meta.nsm_parent_field in unset):
        set_["_ancestors"] = await tree.move(op.ctx, doc)
    final = op.final_write and not doc.meta.is_tree and answer_fits(op.ctx, record)
    if op.carried_jobs:
        payload.carry_in_update(set_, op.carried_jobs)
    try:
        matched = await store.update(op.ctx, doc.meta, doc.name, set_, unset, expected_modified=expected,
                                     final=final)
    except exc.TransientError as e:  # another transaction is writing it right now
        if concurrency.wants_rerun(doc):
            raise concurrency.changed_error(doc) from e
        raise
    if not matched:
        if concurrency.wants_rerun(doc):  # changed since it was read, and the client asked no check
            raise concurrency.changed_error(doc)
        await _raise_not_latest(op)
    op.stored_before = stored
    doc.mark_stored()


def answer_fits(ctx: Context, record: dict[str, Any]) -> bool:
    """Whether the answer to a write of `record` surely fits the caller's response limit. A write that
    skips the transaction is committed before its answer is measured: one whose answer might be
    refused keeps the transaction, so that the refusal rolls it back."""
    room = ctx.answer_room()
    if room is None:
        return True
    try:
        return len(orjson.dumps(record)) <= room
    except TypeError:  # a value orjson cannot write: measured later, with the transaction kept
        return False


async def _raise_not_latest(op: Operation) -> None:
    record = await store.load(op.ctx, op.doc.meta, op.doc.name, {"modified": 1})
    if record is None:
        raise exc.DoesNotExistError(_("{0} {1} not found", _(op.doc.doctype), op.doc.name))
    raise exc.TimestampMismatchError(
        _("Error: {0} ({1}) has been modified after you have opened it. Please refresh to get the latest document.",
          op.doc.name, _(op.doc.doctype)), field="modified")


def clean_record(record: dict[str, Any], tables: frozenset[str]) -> dict[str, Any]:
    """Nulls are not stored (so sparse unique indexes work and documents stay small); child rows too."""
    if not tables and None not in record.values():  # nothing to drop (tested at C speed): kept as it is
        return record
    out: dict[str, Any] = {}
    for key, value in record.items():
        if value is None:
            continue
        if key in tables and isinstance(value, list):
            value = [{k: v for k, v in row.items() if v is not None} for row in value]
        out[key] = value
    return out


async def check_write(op: Operation) -> None:
    if op.opts.ignore_permissions:
        return
    ptype = {Action.SUBMIT: "submit", Action.CANCEL: "cancel"}.get(op.action, "write")
    await permissions.check_document(op.ctx, op.doc, ptype)


async def check_latest(op: Operation) -> None:
    """A `modified` sent by the client must match the stored one (optimistic concurrency)."""
    sent = op.doc._data.get("modified")
    stored = (op.doc._stored or {}).get("modified")
    if sent is not None and stored is not None and str(sent) != str(stored):
        raise exc.TimestampMismatchError(
            _("Error: {0} ({1}) has been modified after you have opened it. Please refresh to get the latest "
              "document.", op.doc.name, _(op.doc.doctype)), field="modified")
    op.doc._data["modified"] = stored
    for key in ("owner", "creation"):  # never changed by a save
        op.doc._data[key] = (op.doc._stored or {}).get(key)


async def write_version(op: Operation) -> None:
    if op.doc.meta.track_changes and op.doc.doctype != "Version":
        await versioning.record(op.ctx, op.doc, op.action, op.now, before=op.stored_before)


async def check_workflow(op: Operation) -> None:
    if await workflow_check.validate_on_save(op.ctx, op.doc, op.action, op.opts.workflow_transition):
        op.recoerce = True


async def emit_realtime(op: Operation) -> None:
    realtime.notify_change(op.ctx, op.doc)


async def match_notifications(op: Operation) -> None:
    """Before the write of an operation with no hook after it (`match_early`): the Notifications that
    fire on it (engine/notifications/alerts.py, through the core's `fw_notifications_match` doc_event),
    whose job the write then carries in the document's own record (`carried_jobs`): no transaction
    and no second write. Only doctypes with an enabled Notification keep this step in their plans
    (`NEEDED`)."""
    if op.match_early:
        for handler in op.ctx.site.apps.handlers(op.doc.doctype, MATCH_EVENT):
            await _call(handler, op)


async def queue_notifications(op: Operation) -> None:
    """The site's Notifications on the document (engine/notifications/alerts.py, reached through the
    core's `fw_notifications` doc_event), unless `match_notifications` decided before the write: a job
    queued with the commit for those that fire. Only doctypes with an enabled Notification keep this
    step in their plans (`NEEDED`)."""
    for handler in op.ctx.site.apps.handlers(op.doc.doctype, NOTIFY_EVENT):
        await _call(handler, op)


NOTIFY_EVENT = "fw_notifications"
MATCH_EVENT = "fw_notifications_match"


async def check_cancel_links(op: Operation) -> None:
    await links.check_no_links(op.ctx, op.doc, submitted_only=True)


# -- the step lists -----------------------------------------------------------------------------

INSERT: tuple[Step, ...] = (
    set_defaults, coerce_types, check_create, hook("before_insert"), set_name, hook("before_validate"),
    hook("validate"), hook("before_save"), check_workflow, validate_fields, check_links, guard_fields, hash_passwords,
    match_notifications, persist_insert, hook("after_insert"),
    hook("on_update"), write_version, hook("on_change"), queue_notifications, emit_realtime)
INSERT_SUBMIT: tuple[Step, ...] = (
    set_defaults, coerce_types, check_create, hook("before_insert"), set_name, hook("before_validate"),
    hook("validate"), hook("before_submit"), check_workflow, validate_fields, check_links, guard_fields, hash_passwords,
    match_notifications, persist_insert, hook("after_insert"),
    hook("on_update"), hook("on_submit"), write_version, hook("on_change"), queue_notifications, emit_realtime)
SAVE: tuple[Step, ...] = (
    check_write, check_latest, keep_unwritable_row_values, coerce_types, hook("before_validate"), hook("validate"),
    hook("before_save"), check_workflow, validate_fields, check_links, guard_fields, hash_passwords,
    check_set_only_once, match_notifications, persist_update, hook("on_update"),
    write_version, hook("on_change"), queue_notifications, emit_realtime)
SUBMIT: tuple[Step, ...] = (
    check_write, check_latest, keep_unwritable_row_values, coerce_types, hook("before_validate"), hook("validate"),
    hook("before_submit"), check_workflow, validate_fields, check_links, guard_fields, hash_passwords,
    check_set_only_once, match_notifications, persist_update, hook("on_update"),
    hook("on_submit"), write_version, hook("on_change"), queue_notifications, emit_realtime)
UPDATE_AFTER_SUBMIT: tuple[Step, ...] = (
    check_write, check_latest, keep_unwritable_row_values, coerce_types, hook("before_update_after_submit"),
    check_workflow, validate_fields, check_links, guard_fields, hash_passwords,
    check_update_after_submit, match_notifications, persist_update, hook("on_update_after_submit"),
    write_version, hook("on_change"), queue_notifications, emit_realtime)
CANCEL: tuple[Step, ...] = (
    check_write, check_latest, hook("before_cancel"), check_workflow, check_cancel_links, match_notifications,
    persist_update, hook("on_cancel"), write_version, hook("on_change"), queue_notifications, emit_realtime)

_SAVE_STEPS = {Action.SAVE: SAVE, Action.SUBMIT: SUBMIT, Action.UPDATE_AFTER_SUBMIT: UPDATE_AFTER_SUBMIT,
               Action.CANCEL: CANCEL}


# steps that do something only for a doctype whose meta has what they work on (every other step: for
# every doctype); a plan leaves them out of the others
NEEDED: dict[Step, Callable[[Meta], bool]] = {
    keep_unwritable_row_values: lambda meta: meta.rows_have_permlevels,
    check_links: lambda meta: bool(meta.link_fields or meta.dynamic_link_fields or meta.table_fields),
    hash_passwords: lambda meta: bool(meta.password_fields),
    check_set_only_once: lambda meta: bool(meta.set_only_once_fields),
    write_version: lambda meta: meta.track_changes and meta.name != "Version",
    match_notifications: lambda meta: meta.registry is not None and meta.name in meta.registry.notified,
    queue_notifications: lambda meta: meta.registry is not None and meta.name in meta.registry.notified,
}


# steps that do nothing in a given call, whatever the document (what the caller switched off, what the
# site has): a batch of documents leaves them out of its plan (engine/documents/bulk.py)
IDLE: dict[Step, Callable[[Context, Meta, SaveOptions], bool]] = {
    check_create: lambda ctx, meta, opts: opts.ignore_permissions,
    guard_fields: lambda ctx, meta, opts: opts.ignore_permissions,
    check_links: lambda ctx, meta, opts: opts.ignore_links,
    check_workflow: lambda ctx, meta, opts: opts.workflow_transition is None
    and workflow_for(ctx.site.meta, meta.name) is None,
    emit_realtime: lambda ctx, meta, opts: not realtime.heard(ctx.site),
}


@dataclass(frozen=True, slots=True)
class Plan:
    """An operation's steps for one doctype and controller: the hooks nothing handles and the steps the
    doctype does not need left out."""

    meta: Meta  # what it was worked out from (a reloaded meta, with other fields, gets its own plan)
    steps: tuple[Step, ...]
    hooks_after_write: bool  # a hook runs after the persist (it can still write or fail)
    naming_hook: bool  # a before_naming hook exists (`set_name` runs it)

    @property
    def runs_code(self) -> bool:
        """Whether an app's code takes part: a hook step, or a before_naming hook `set_name` runs."""
        return any(step in HOOK_EVENTS for step in self.steps) or (self.naming_hook and set_name in self.steps)


def plan_for(apps: AppRegistry, controller: type, meta: Meta, steps: tuple[Step, ...]) -> Plan:
    """`steps` for documents of `meta` whose class is `controller`, without the hooks that have no
    controller method and no doc_events handler and the steps the meta gives nothing to do: worked out
    once per doctype, controller, meta and step list (most hooks of most doctypes: not asking on every
    save spares a dozen lookups)."""
    plans = apps.derived(controller, meta.name)
    plan = plans.get(steps)
    if plan is None or plan.meta is not meta:
        doctype = meta.name
        kept = tuple(step for step in steps
                     if ((event := HOOK_EVENTS.get(step)) is None or apps.hooked(controller, doctype, event))
                     and ((needed := NEEDED.get(step)) is None or needed(meta)))
        persist = next(i for i, step in enumerate(kept) if step in (persist_insert, persist_update))
        plan = plans[steps] = Plan(meta, kept, any(step in HOOK_EVENTS for step in kept[persist + 1:]),
                                   apps.hooked(controller, doctype, "before_naming"))
    return plan


# -- fast paths -----------------------------------------------------------------------------------

Cover = Callable[["Meta", type], bool]


@dataclass(frozen=True, eq=False)  # (hashed by identity: the key of its verdicts among the plans)
class FastPath:
    """A way of doing one of the step lists above with fewer moving parts (from the request, without a
    `Document`: engine/documents/direct_create.py, one_call.py). `covers` names each step it does the
    same way, each with whether it can for a doctype (its meta and controller); a step it does not
    name, it cannot do, so a doctype whose plan needs that step takes the ordinary path."""

    name: str
    steps: tuple[Step, ...]
    covers: Mapping[Step, Cover]


def fast_path_takes(apps: AppRegistry, controller: type, meta: Meta, path: FastPath) -> bool:
    """Whether `path` may stand in for its step list on documents of `meta` whose class is `controller`:
    no app code takes part (a hook, before_naming included) and it covers every step the doctype's plan
    keeps. The one eligibility rule of the fast paths, creates and saves alike; kept with the plans, so
    a step or hook added to a step list is either covered or sends the doctype the ordinary way."""
    plans = apps.derived(controller, meta.name)
    verdict: tuple[Meta, bool] | None = plans.get(path)
    if verdict is None or verdict[0] is not meta:
        plan = plan_for(apps, controller, meta, path.steps)
        takes = not plan.runs_code and all(
            (cover := path.covers.get(step)) is not None and cover(meta, controller) for step in plan.steps)
        verdict = plans[path] = (meta, takes)
    return verdict[1]


async def _run(op: Operation, steps: tuple[Step, ...]) -> None:
    doc = op.doc
    plan = plan_for(doc.ctx.site.apps, type(doc), doc.meta, steps)
    op.naming_hook = plan.naming_hook
    # the write may skip the transaction only when this operation is all the unit of work does (it owns
    # the unit, or the caller, a route doing one operation, said so) and nothing after the write can
    # write or fail: no post-write hook, no Version record
    op.final_write = ((op.ctx.uow is None or op.ctx.single_operation) and not plan.hooks_after_write
                      and not op.doc.meta.track_changes)
    op.match_early = not plan.hooks_after_write
    async with unit_of_work(op.ctx):
        for step in plan.steps:
            await step(op)
            if op.duplicate:
                break


async def insert(doc: D, opts: SaveOptions = SaveOptions()) -> D:
    if not doc.is_new():
        raise exc.DuplicateEntryError(_("{0} {1} already exists", _(doc.doctype), doc.name))
    status = docstatus.coerce(doc._data.get("docstatus"))
    action = docstatus.transition(None, status, submittable=doc.meta.is_submittable)
    op = Operation(doc, doc.ctx, opts, action, now_str())
    await _run(op, INSERT_SUBMIT if action is Action.SUBMIT else INSERT)
    return doc


async def save(doc: D, opts: SaveOptions = SaveOptions()) -> D:
    if doc.is_new():
        return await insert(doc, opts)
    old = int((doc._stored or {}).get("docstatus") or 0)
    new = docstatus.coerce(doc._data.get("docstatus"))
    action = docstatus.transition(old, new, submittable=doc.meta.is_submittable)
    doc._data["docstatus"] = new
    op = Operation(doc, doc.ctx, opts, action, now_str(), old_docstatus=old)
    await _run(op, _SAVE_STEPS[action])
    return doc


async def delete(doc: BaseDocument, opts: SaveOptions = SaveOptions()) -> None:
    """on_trash, [delete, its Deleted Document], after_delete. Submitted documents must be cancelled first."""
    ctx = doc.ctx
    async with unit_of_work(ctx):
        if not opts.ignore_permissions:
            await permissions.check_document(ctx, doc, "delete")
        if int(doc._data.get("docstatus") or 0) == 1:
            raise exc.DocstatusTransitionError(
                _("Submitted document cannot be deleted; cancel it first: {0} {1}", _(doc.doctype), doc.name))
        await run_hook(doc, "on_trash")
        await links.check_no_links(ctx, doc, submitted_only=False)
        gone = await store.delete_returning(ctx, doc.meta, doc.name, {payload.CARRIED: 1})
        if gone is None:
            raise exc.DoesNotExistError(_("{0} {1} not found", _(doc.doctype), doc.name))
        stored = doc._stored or {}
        if gone.get(payload.CARRIED) != stored.get(payload.CARRIED):
            # the jobs the record carried when it went (a save may have added some since it was read),
            # for the core's after_delete handler that hands them to the job outbox
            object.__setattr__(doc, "_stored", {**stored, payload.CARRIED: gone.get(payload.CARRIED)})
        if trash.keeps(doc):  # in the same unit of work: the delete and its record stand or fall together
            await trash.record(ctx, doc, now_str())
        await run_hook(doc, "after_delete")  # the last "*" handler deletes its attached Files (engine/core/hooks.py)
        realtime.notify_change(ctx, doc, deleted=True)


async def db_set(doc: BaseDocument, values: Mapping[str, Any], *, update_modified: bool = True) -> None:
    meta = doc.meta
    set_: dict[str, Any] = {}
    unset: list[str] = []
    for key, value in values.items():
        field = meta.require_field(key)
        if field.is_table:
            raise exc.DataError(_("db_set cannot change table {0}", key), field=key)
        value = fieldtypes.coerce_value(field, value, doctype=meta.name)
        doc._data[key] = value
        if value is None:
            unset.append(key)
        else:
            set_[key] = value
    if update_modified:
        now = now_str()
        doc._data["modified"] = set_["modified"] = now
        doc._data["modified_by"] = set_["modified_by"] = doc.ctx.user
    async with unit_of_work(doc.ctx):
        if not await store.update(doc.ctx, meta, doc.name, set_, unset):
            raise exc.DoesNotExistError(_("{0} {1} not found", _(doc.doctype), doc.name))
    doc.mark_stored()
