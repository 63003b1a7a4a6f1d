"""`insert_many`: many new documents of one doctype, validated, in one bulk write.

Why a separate path. `Document.insert()` costs several database round trips per document (its
naming counter, its link checks, the duplicate pre-check, the write) plus the lifecycle hooks. A
delivery of 10,000 external records must cost a handful instead. So this path runs the insert's
own steps (engine/documents/lifecycle.py's INSERT, as the doctype's plan keeps them) over every
document, step by step, and batches only the three that are round trips:

- `set_name`: counter-based rules (`PRE-.#####`, `format:`, `naming_series:`, `autoincrement`)
  reserve a block of numbers with one atomic update per series; any other name (a field's value, a
  random one, an amendment's, a controller's `autoname`) is made by `set_name` itself;
- `check_links`: every Link is checked with one query per target doctype (`validation.check_links_of`,
  the rule `validate_links` applies to one document), filling `fetch_from` fields;
- `persist_insert`: everything is written with one `insert_many`.

Every other step (defaults, types, the create right and the File rule, the workflow's first state,
mandatory fields, permlevels, passwords, the realtime events) is the lifecycle's function, called
per document: a rule added to the insert is added here too. A document that fails a step is left
out and reported in `failed` with the error the ordinary insert raises; the others go on.

What it does not do by default (as Frappe's `bulk_insert` does not): run controller methods or
`doc_events` (the hook steps are left out of its plan) or write Version records. It never inserts
submitted, single, child or tree documents.

`run_hooks=True` (with `atomic=True`): the whole insert plan, hooks and Version records included, as
`Document.insert` runs it, for callers that must apply an app's rules to many documents at a time
(Data Import, engine/dataimport/importer.py). Hooks run document by document in the plan's order;
the Version records go in one write after the documents'. A document a step refuses before the
write is reported in `failed` as usual; if it was a hook that refused it, its index is also in
`refused_by_hook`, since a hook may have written before it raised and those writes are in the
unit's transaction: a caller that must store nothing for a refused document rolls the unit back and
inserts the others again (the importer does so one by one). An error after the write raises, and
the unit rolls back.

Where the write happens: two modes.

`atomic=True`: in the unit of work's transaction, so the batch commits or rolls back with
everything else the unit does (a crash in the middle stores nothing). But inside a MongoDB
transaction a duplicate-key error aborts the whole transaction, so a row that clashes with a
stored document cannot be reported and skipped: it raises `TransientError` instead, a conflict, and
`run_in_unit_of_work` runs the unit again. So the caller must leave out what is stored already
(a read-then-insert check), as `receive_data` does; the unique index remains the guard against a
concurrent request storing the same record between that read and the commit: the loser's unit
runs again, reads the winner's records and skips them.

`atomic=False` (the default): outside any transaction, unordered, so every document that clashes
with nothing is stored and the others come back as `duplicates` (a clash on the name or on any
unique index, with stored documents or within the batch) rather than as an error. Anything the
unit of work wrote before the call is committed first (writes stay in order), and the batch is
durable when the call returns: a later rollback of the unit does not undo it (its realtime events,
sent when the unit commits, are then dropped). Use it where each document stands on its own and a
partial batch is acceptable.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engine import db
from engine import exceptions as exc
from engine.clock import now_str
from engine.context import unit_of_work
from engine.documents import docstatus, lifecycle, naming, store, validation, versioning
from engine.documents.docstatus import Action
from engine.documents.lifecycle import Operation, SaveOptions, Step
from engine.jobs import payload
from engine.translation import _

if TYPE_CHECKING:
    from engine.apps.registry import AppRegistry
    from engine.context import Context
    from engine.documents.base import BaseDocument
    from engine.documents.document import Document
    from engine.meta.schema import Meta

__all__ = ["BulkInsertResult", "insert_many"]

Ops = dict[int, Operation]  # the documents still going, by their row's index


@dataclass
class BulkInsertResult:
    """What happened to each input row, by its index in the input."""

    names: dict[int, str] = field(default_factory=dict)  # inserted rows → their names
    duplicates: list[int] = field(default_factory=list)  # refused by a unique index or a taken name (not atomic)
    failed: dict[int, exc.FwError] = field(default_factory=dict)  # refused by validation
    refused_by_hook: set[int] = field(default_factory=set)  # of `failed`: refused by an app's hook (`run_hooks`)

    @property
    def inserted(self) -> list[str]:
        return [self.names[i] for i in sorted(self.names)]


async def insert_many(ctx: Context, doctype: str, rows: Sequence[Mapping[str, Any]], *,
                      ignore_permissions: bool = False, ignore_links: bool = False,
                      ignore_mandatory: bool = False, atomic: bool = False,
                      run_hooks: bool = False) -> BulkInsertResult:
    """Validate `rows` as new `doctype` documents and insert the valid ones in one bulk write.

    ```python
    result = await insert_many(ctx, "Employee Score", rows, ignore_permissions=True)
    created, skipped = len(result.names), len(result.duplicates)
    ```
    `atomic`: write the batch in the unit of work's transaction (read the module documentation for
    how each mode relates to the unit of work and to duplicates). `run_hooks` (atomic only): run the
    controller's hooks and doc_events and write Version records, as `Document.insert` does.
    """
    meta = ctx.meta(doctype)
    if meta.issingle or meta.istable or meta.is_tree:
        raise exc.DataError(_("{0} cannot be inserted in bulk: it is a single, child or tree doctype", doctype))
    if run_hooks and not atomic:  # a hook's own writes must stand or fall with the documents
        raise exc.DataError(_("insert_many runs hooks only with atomic=True"))
    result = BulkInsertResult()
    apps = ctx.site.apps
    controller = apps.controller(doctype)
    before, after, naming_hook = _steps(apps, controller, meta, run_hooks)
    opts = SaveOptions(ignore_permissions=ignore_permissions, ignore_links=ignore_links,
                       ignore_mandatory=ignore_mandatory)
    now = now_str()
    # no hook after the write: a Notification's job rides in its document's record (written with it
    # in either mode), as a single insert's does
    early = not any(step in lifecycle.HOOK_EVENTS for step in after)
    ops: Ops = {}
    for index, row in enumerate(rows):
        try:
            ops[index] = _operation(ctx, meta, controller, row, opts, now, naming_hook)
            ops[index].match_early = early
        except exc.FwError as e:
            result.failed[index] = e
    async with unit_of_work(ctx):  # (its own without one: the realtime events go out on its commit)
        await _run(ctx, meta, _busy(ctx, meta, opts, before), ops, result, run_hooks)
        if not ops:
            return result
        order = sorted(ops)
        tables = meta.table_fieldnames
        records = [lifecycle.clean_record(ops[i].doc.to_record(), tables) for i in order]
        for position, index in enumerate(order):
            if carried := ops[index].carried_jobs:
                payload.carry_in_record(records[position], carried)
        if atomic:
            await _write_in_transaction(ctx, meta, records)
            refused: set[int] = set()
        else:
            if ctx.uow is not None and ctx.uow.in_transaction:
                await ctx.commit()  # keep the unit's earlier writes before the batch
            refused = await _write(ctx, meta, records)
        for position, index in enumerate(order):
            if position in refused:
                result.duplicates.append(index)
                del ops[index]
            else:
                result.names[index] = ops[index].doc.name
                if run_hooks:  # as `persist_insert` leaves it for the hooks after the write
                    ops[index].doc.mark_stored()
        # (the realtime events: sent when the unit commits)
        await _run(ctx, meta, _busy(ctx, meta, opts, after), ops, result, run_hooks, written=True)
    return result


def _steps(apps: AppRegistry, controller: type, meta: Meta, run_hooks: bool
           ) -> tuple[tuple[Step, ...], tuple[Step, ...], bool]:
    """The doctype's insert plan (without its hooks and Version record unless `run_hooks`), split at
    the write: (the steps before it, the steps after it, whether `set_name` runs a before_naming
    hook). Worked out once per plan (kept with it in `AppRegistry.derived`)."""
    plan = lifecycle.plan_for(apps, controller, meta, lifecycle.INSERT)
    kept = apps.derived(controller, meta.name)
    key = "bulk with hooks" if run_hooks else "bulk"
    split = kept.get(key)
    if split is None or split[0] is not plan:
        steps = list(plan.steps) if run_hooks else [
            step for step in plan.steps if step not in lifecycle.HOOK_EVENTS and step not in LEFT_OUT]
        at = steps.index(lifecycle.persist_insert)
        split = kept[key] = (plan, tuple(steps[:at]), tuple(steps[at + 1:]))
    return split[1], split[2], run_hooks and plan.naming_hook


def _operation(ctx: Context, meta: Meta, controller: type, row: Mapping[str, Any], opts: SaveOptions,
               now: str, naming_hook: bool) -> Operation:
    """A row as the ordinary insert takes it (`lifecycle.insert`): the document, its docstatus judged."""
    doc: Document = controller(meta, ctx=ctx)
    doc.update(row)
    status = docstatus.coerce(doc._data.get("docstatus"))
    action = docstatus.transition(None, status, submittable=meta.is_submittable)
    if action is not Action.INSERT:
        raise exc.DocstatusTransitionError(_("Documents inserted in bulk are drafts (docstatus 0)"),
                                           field="docstatus")
    op = Operation(doc, ctx, opts, action, now)
    op.naming_hook = naming_hook  # (only with `run_hooks`)
    return op


def _busy(ctx: Context, meta: Meta, opts: SaveOptions, steps: tuple[Step, ...]) -> tuple[Step, ...]:
    """`steps` without those that do nothing in this call (`lifecycle.IDLE`: the create right when
    permissions are ignored, the workflow step without a workflow, the events when nobody listens)."""
    return tuple(step for step in steps if (idle := lifecycle.IDLE.get(step)) is None or not idle(ctx, meta, opts))


async def _run(ctx: Context, meta: Meta, steps: tuple[Step, ...], ops: Ops, result: BulkInsertResult,
               run_hooks: bool, *, written: bool = False) -> None:
    """`steps` in order on every document: a batched one on all of them at once, a run of the others
    document by document. With hooks, an error after the write (`written`) raises: the document is
    in the unit's transaction already."""
    run: list[Step] = []
    strict = run_hooks and written
    for step in steps:
        batched = BATCHED.get(step)
        if batched is None:
            run.append(step)
            continue
        if run:
            await _each(tuple(run), ops, result, strict)
            run = []
        await batched(ctx, meta, ops, result)
    if run:
        await _each(tuple(run), ops, result, strict)


async def _each(steps: tuple[Step, ...], ops: Ops, result: BulkInsertResult, strict: bool) -> None:
    """`steps` on every document still going; one they refuse is reported and left out (unless
    `strict`: then the error raises)."""
    for index, op in list(ops.items()):
        step = steps[0]
        try:
            for step in steps:
                await step(op)
        except exc.FwError as e:
            if strict:
                raise
            result.failed[index] = e
            if step in lifecycle.HOOK_EVENTS:
                result.refused_by_hook.add(index)
            del ops[index]


async def _check_links(ctx: Context, meta: Meta, ops: Ops, result: BulkInsertResult) -> None:
    """`lifecycle.check_links` for every document, with one query per target doctype."""
    checked = [index for index, op in ops.items() if not op.opts.ignore_links]
    errors = await validation.check_links_of(ctx, [ops[i].doc for i in checked])
    for position, error in errors.items():
        index = checked[position]
        result.failed[index] = error
        del ops[index]


# -- naming ---------------------------------------------------------------------------------------

def _uses_counter(meta: Meta) -> bool:
    rule = meta.autoname.lower()
    return rule.startswith(("naming_series:", "format:")) or rule == "autoincrement" or "#" in rule


async def _name(ctx: Context, meta: Meta, ops: Ops, result: BulkInsertResult) -> None:
    """`lifecycle.set_name` for every document, but with a counter's numbers reserved in one block per
    series: a document a counter names (no name set by code, no amendment, no controller `autoname`)
    gets its number here, any other its name from `set_name` itself."""
    counter_rule = (_uses_counter(meta) and not callable(getattr(ctx.site.apps.controller(meta.name), "autoname", None))
                    and not any(op.naming_hook for op in ops.values()))  # (a before_naming hook: by `set_name`)
    counted: dict[int, BaseDocument] = {}
    for index, op in list(ops.items()):
        doc = op.doc
        data = doc._data
        if counter_rule and not data.get("name") and not (data.get("amended_from") and meta.is_submittable):
            counted[index] = doc
            continue
        try:
            await lifecycle.set_name(op)
        except exc.FwError as e:
            result.failed[index] = e
            del ops[index]
    await _name_from_counters(ctx, meta, counted, result, datetime.now())
    for index in counted:
        if index in result.failed:
            del ops[index]
        else:
            lifecycle.name_children(ops[index].doc)


async def _write_versions(ctx: Context, meta: Meta, ops: Ops, result: BulkInsertResult) -> None:
    """`lifecycle.write_version` for every document (`run_hooks` only), in one write."""
    records = [record for op in ops.values()
               if (record := versioning.version_record(ctx, op.doc, op.action, op.now)) is not None]
    if records:
        await _write_in_transaction(ctx, ctx.meta("Version"), records)


BATCHED: dict[Step, Callable[[Context, Meta, Ops, BulkInsertResult], Awaitable[None]]] = {
    lifecycle.set_name: _name, lifecycle.check_links: _check_links, lifecycle.write_version: _write_versions}
# the insert's steps bulk leaves out besides the hooks: a Version record per document is a write per document
LEFT_OUT = frozenset({lifecycle.write_version})


def _expression(meta: Meta, doc: BaseDocument) -> str:
    if meta.autoname.lower().startswith("naming_series:"):
        return naming.naming_series(doc)
    return meta.autoname


async def _name_from_counters(ctx: Context, meta: Meta, docs: dict[int, BaseDocument], result: BulkInsertResult,
                              now: datetime) -> None:
    if not docs:
        return
    if meta.autoname.lower() == "autoincrement":
        numbers = await naming.reserve_counters(ctx, f"{meta.name}:autoincrement", len(docs))
        for doc, number in zip(docs.values(), numbers, strict=True):
            doc._data["name"] = str(number)
        return
    shared: dict[str, _Template] = {}  # expressions that read no field render the same for every document
    by_key: dict[str, list[tuple[int, _Template]]] = defaultdict(list)
    for index, doc in docs.items():
        try:
            expression = _expression(meta, doc)
            template = shared.get(expression) or _Template.render(expression, doc, now)
            if not template.reads_fields:
                shared[expression] = template
            if len(template.counters) == 1:
                by_key[template.counters[0][0]].append((index, template))
            else:  # several counters in one name (rare): one by one
                doc._data["name"] = await naming.make_name(ctx, doc, now=now)
        except exc.FwError as e:
            result.failed[index] = e
    for key, entries in by_key.items():
        numbers = await naming.reserve_counters(ctx, key, len(entries))
        for (index, template), number in zip(entries, numbers, strict=True):
            try:
                docs[index]._data["name"] = naming.validate_name(meta.name, template.fill(number))
            except exc.FwError as e:
                result.failed[index] = e


_SLOT = "\x00"  # where the counter goes in a rendered name (never part of a valid name)


@dataclass(frozen=True)
class _Template:
    text: str
    counters: list[tuple[str, int]]  # (series key, digits) in order
    reads_fields: bool

    @classmethod
    def render(cls, expression: str, doc: BaseDocument, now: datetime) -> _Template:
        counters: list[tuple[str, int]] = []

        def counter(key: str, digits: int) -> str:
            counters.append((key, digits))
            return _SLOT

        probe = _Probe(doc)
        text = naming.parse_expression(expression, probe, counter, now)
        return cls(text, counters, probe.reads_fields)

    def fill(self, number: int) -> str:
        return self.text.replace(_SLOT, str(number).zfill(self.counters[0][1]), 1)


class _Probe:
    """The document as naming sees it, noting whether the expression read one of its fields."""

    def __init__(self, doc: BaseDocument) -> None:
        self.doc = doc
        self.meta = doc.meta
        self.name = doc.get("name")
        self.reads_fields = False

    def get(self, fieldname: str, default: Any = None) -> Any:
        self.reads_fields = True
        return self.doc.get(fieldname, default)


# -- the write ------------------------------------------------------------------------------------

async def _write_in_transaction(ctx: Context, meta: Meta, records: list[dict[str, Any]]) -> None:
    """Insert in the unit of work's transaction (one of its own without a unit); a duplicate aborts
    the transaction, so it is a conflict (`TransientError`): the unit runs again."""
    async with unit_of_work(ctx):
        await store.insert_many(ctx, meta, records)


async def _write(ctx: Context, meta: Meta, records: list[dict[str, Any]]) -> set[int]:
    """Insert outside any transaction, unordered; returns the positions refused as duplicates."""
    try:
        with db.translate_errors(meta.name):
            await store.collection(ctx, meta).insert_many(records, ordered=False)
    except Exception as e:
        # a bulk write error lists each refused document; only duplicates are expected
        errors = db.bulk_write_errors(e)
        if errors is None:
            raise
        other = [err for err in errors if not db.is_duplicate_key(err)]
        if other:
            raise exc.ValidationError(_("{0} documents could not be written: {1}", len(other),
                                        other[0].get("errmsg", ""))) from e
        return {int(err["index"]) for err in errors}
    return set()
