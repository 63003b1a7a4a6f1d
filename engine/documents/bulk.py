"""`insert_many`: many new documents of one doctype, validated, in one bulk write.

Why a separate path. `Document.insert()` costs several database round trips per document (its
naming counter, its link checks, the duplicate pre-check, the write) plus the lifecycle hooks. A
delivery of 10,000 external records must cost a handful instead, so this path:

- builds and validates every document in memory first, with the same rules as `insert()`:
  defaults, field types, mandatory fields, a new workflow document's first state, create
  permission (with `has_permission` hooks and permlevels when the doctype has them);
- checks every Link with one query per target doctype, filling `fetch_from` fields from it;
- names the documents without a query each: counter-based rules (`PRE-.#####`, `format:`,
  `naming_series:`, `autoincrement`) reserve a block of numbers with one atomic update per series;
- writes everything with one `insert_many`.

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
durable when the call returns: a later rollback of the unit does not undo it. Use it where each
document stands on its own and a partial batch is acceptable.

What it does not do (as Frappe's `bulk_insert` does not): run controller methods or `doc_events`,
write Version records, or insert submitted, single, child or tree documents. A document that fails
validation is left out and reported in `failed`; the others are still inserted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engine import db, naming, permissions
from engine import exceptions as exc
from engine.clock import now_str
from engine.context import unit_of_work
from engine.documents import docstatus, lifecycle, store, validation
from engine.meta import fieldtypes
from engine.meta.workflows import workflow_for
from engine.realtime import publish_realtime
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument
    from engine.documents.document import Document
    from engine.meta.schema import DocFieldSchema, Meta

__all__ = ["BulkInsertResult", "insert_many"]



@dataclass
class BulkInsertResult:
    """What happened to each input row, by its index in the input."""

    names: dict[int, str] = field(default_factory=dict)  # inserted rows → their names
    duplicates: list[int] = field(default_factory=list)  # refused by a unique index or a taken name (not atomic)
    failed: dict[int, exc.FwError] = field(default_factory=dict)  # refused by validation

    @property
    def inserted(self) -> list[str]:
        return [self.names[i] for i in sorted(self.names)]


async def insert_many(ctx: Context, doctype: str, rows: Sequence[Mapping[str, Any]], *,
                      ignore_permissions: bool = False, ignore_links: bool = False,
                      ignore_mandatory: bool = False, atomic: bool = False) -> BulkInsertResult:
    """Validate `rows` as new `doctype` documents and insert the valid ones in one bulk write.

    ```python
    result = await insert_many(ctx, "Employee Score", rows, ignore_permissions=True)
    created, skipped = len(result.names), len(result.duplicates)
    ```
    `atomic`: write the batch in the unit of work's transaction (read the module documentation for
    how each mode relates to the unit of work and to duplicates).
    """
    meta = ctx.meta(doctype)
    if meta.issingle or meta.istable or meta.is_tree:
        raise exc.DataError(_("{0} cannot be inserted in bulk: it is a single, child or tree doctype", doctype))
    if not ignore_permissions:
        await permissions.check_doctype(ctx, doctype, "create")
    result = BulkInsertResult()
    now = now_str()
    builder = _Builder(ctx, meta, now, ignore_mandatory=ignore_mandatory)
    docs: dict[int, Document] = {}
    for index, row in enumerate(rows):
        try:
            docs[index] = builder.build(row)
        except exc.FwError as e:
            result.failed[index] = e
    if not ignore_permissions:
        await _check_documents(ctx, meta, docs, result)
    if not ignore_links:
        await _check_links(ctx, docs, result)
    await _name(ctx, meta, docs, result)
    order = sorted(docs)
    records = [_record(docs[i]) for i in order]
    if not records:
        return result
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
        else:
            result.names[index] = docs[index].name
    if result.names:
        await publish_realtime(ctx, "list_update", {"doctype": doctype, "user": ctx.user}, doctype=doctype,
                               after_commit=atomic)
    return result


class _Builder:
    """New documents of one doctype from rows, with what `insert()` sets and checks before its
    hooks; what is the same for every row (controller, coercion plan, workflow) is looked up once."""

    def __init__(self, ctx: Context, meta: Meta, now: str, *, ignore_mandatory: bool) -> None:
        self.ctx = ctx
        self.meta = meta
        self.cls = ctx.site.apps.controller(meta.name)
        self.now = now
        self.ignore_mandatory = ignore_mandatory
        self.plans: dict[str, _CoercePlan] = {}
        self.workflow = workflow_for(ctx.site.meta, meta.name)

    def build(self, row: Mapping[str, Any]) -> Document:
        if not isinstance(row, Mapping):
            raise exc.DataError(_("Document data must be an object, not {0}", type(row).__name__))
        ctx, now = self.ctx, self.now
        doc: Document = self.cls(self.meta, ctx=ctx)
        doc.update(row)
        data = doc._data
        if docstatus.coerce(data.get("docstatus")) != 0:
            raise exc.DocstatusTransitionError(_("Documents inserted in bulk are drafts (docstatus 0)"),
                                               field="docstatus")
        data.update(owner=ctx.user, creation=now, modified=now, modified_by=ctx.user, docstatus=0, idx=0)
        validation.apply_defaults(doc, now=now, today=now[:10])
        validation.check_non_table_lists(doc)
        for d in validation.all_docs(doc):
            plan = self.plans.get(d.meta.name) or self.plans.setdefault(d.meta.name, _CoercePlan(d.meta))
            plan.apply(d)
        if self.workflow is not None:
            self._start_workflow(doc)
        if not self.ignore_mandatory:
            validation.check_mandatory(doc)
        return doc

    def _start_workflow(self, doc: Document) -> None:
        """A new document starts in the workflow's first state (as the lifecycle's check_workflow)."""
        wf = self.workflow
        assert wf is not None
        first = wf.states[0].state
        state = doc._data.get(wf.field)
        if state and state != first and not self.ctx.is_admin:
            raise exc.WorkflowTransitionError(_("A new {0} must start in state {1}", _(doc.doctype), first),
                                              field=wf.field)
        doc._data[wf.field] = state or first


class _CoercePlan:
    """`validation.coerce_fields` for many documents of one doctype: an empty field gets its type's
    empty value (worked out once per batch), only given values go through their type's coercion."""

    def __init__(self, meta: Meta) -> None:
        self.doctype = meta.name
        self.fields = [(f, fieldtypes.coerce_value(f, None, doctype=meta.name)) for f in meta.value_fields
                       if f.fieldtype != "Password"]

    def apply(self, doc: BaseDocument) -> None:
        data = doc._data
        for f, empty in self.fields:
            value = data.get(f.fieldname)
            data[f.fieldname] = empty if value is None else fieldtypes.coerce_value(f, value, doctype=self.doctype)
        data["docstatus"] = docstatus.coerce(data.get("docstatus"))


async def _check_documents(ctx: Context, meta: Meta, docs: dict[int, Document], result: BulkInsertResult) -> None:
    """Per-document rules, only where the doctype has them (`has_permission` hooks, permlevels)."""
    per_document = bool(ctx.site.apps.permission_hooks("has_permission", meta.name))
    if not per_document and (not meta.has_permlevels or ctx.is_admin):
        return
    for index in list(docs):
        try:
            if per_document:
                await permissions.check_document(ctx, docs[index], "create")
            await permissions.guard_field_writes(ctx, docs[index], False)
        except exc.FwError as e:
            result.failed[index] = e
            del docs[index]


async def _check_links(ctx: Context, docs: dict[int, Document], result: BulkInsertResult) -> None:
    """Every Link target exists (one query per target doctype); fills `fetch_from` fields."""
    checks: list[tuple[int, BaseDocument, DocFieldSchema, str, str]] = []
    wanted: dict[str, set[str]] = defaultdict(set)
    for index, doc in docs.items():
        for d in validation.all_docs(doc):
            for f in d.meta.link_fields:
                value = d._data.get(f.fieldname)
                if value:
                    checks.append((index, d, f, f.options or "", value))
                    wanted[f.options or ""].add(value)
            for f in d.meta.value_fields:
                if f.fieldtype == "Dynamic Link" and d._data.get(f.fieldname):
                    target = d._data.get(f.options or "")
                    if not target or not ctx.site.meta.exists(target):
                        result.failed.setdefault(index, exc.LinkValidationError(
                            _("{0}: set a valid document type in {1} first", f.display_label, f.options),
                            field=f.fieldname))
                        continue
                    checks.append((index, d, f, target, d._data[f.fieldname]))
                    wanted[target].add(d._data[f.fieldname])
    found: dict[str, dict[str, dict[str, Any]]] = {}
    metas = list({d.meta.name: d.meta for _i, d, _f, _t, _v in checks}.values())
    for target, names in wanted.items():
        target_meta = ctx.meta(target)
        if target_meta.issingle:
            found[target] = {target: {}} if target in names else {}
            continue
        projection = {"docstatus": 1, **_fetch_sources(metas, target)}
        rows = await store.find(ctx, target_meta, {"_id": {"$in": sorted(names)}}, projection=projection)
        found[target] = {row["_id"]: row for row in rows}
    fetches: dict[tuple[str, str], list[DocFieldSchema]] = {}
    for index, d, f, target, value in checks:
        if index in result.failed:
            continue
        row = found[target].get(value)
        if row is None:
            result.failed[index] = exc.LinkValidationError(
                _("Could not find {0}: {1}", _(f.display_label), value), field=f.fieldname)
        elif ctx.meta(target).is_submittable and row.get("docstatus") == 2:
            result.failed[index] = exc.LinkValidationError(
                _("Cannot link cancelled document: {0} {1}", _(target), value), field=f.fieldname)
        else:
            key = (d.meta.name, f.fieldname)
            fields = fetches.get(key)
            if fields is None:
                fields = fetches[key] = [x for x in d.meta.fetch_fields
                                         if (x.fetch_from or "").partition(".")[0] == f.fieldname]
            if fields:
                _fetch(d, fields, row)
    for index in result.failed:
        docs.pop(index, None)


def _fetch(d: BaseDocument, fields: list[DocFieldSchema], row: dict[str, Any]) -> None:
    """`fetch_from` as `validation` applies it, for the fields that read this link."""
    for f in fields:
        source = (f.fetch_from or "").partition(".")[2]
        if not source or (f.fetch_if_empty and d._data.get(f.fieldname) not in (None, "", 0)):
            continue
        d._data[f.fieldname] = fieldtypes.coerce_value(f, row.get(source), doctype=d.doctype)


def _fetch_sources(metas: list[Meta], target: str) -> dict[str, int]:
    """The fields of `target` that `fetch_from` fields of these doctypes read."""
    sources: dict[str, int] = {}
    for meta in metas:
        for f in meta.fetch_fields:
            link, _sep, source = (f.fetch_from or "").partition(".")
            link_field = meta.by_name.get(link)
            if link_field is not None and link_field.options == target and source:
                sources[source] = 1
    return sources


# -- naming ---------------------------------------------------------------------------------------

def _uses_counter(meta: Meta) -> bool:
    rule = meta.autoname.lower()
    return rule.startswith(("naming_series:", "format:")) or rule == "autoincrement" or "#" in rule


async def _name(ctx: Context, meta: Meta, docs: dict[int, Document], result: BulkInsertResult) -> None:
    """Name every document as `insert()` would: a name set by code is kept (except for Prompt and
    UUID, which validate it), counter rules reserve one block per series, other rules need no query."""
    now = datetime.now()
    counted: dict[int, Document] = {}
    for index, doc in list(docs.items()):
        try:
            if doc._data.get("name") and meta.autoname.lower() not in ("prompt", "uuid"):
                doc._data["name"] = naming.validate_name(meta.name, str(doc._data["name"]))
            elif _uses_counter(meta):
                counted[index] = doc
            else:
                doc._data["name"] = await naming.make_name(ctx, doc, now=now)  # hash, field:, prompt, uuid
        except exc.FwError as e:
            result.failed[index] = e
    await _name_from_counters(ctx, meta, counted, result, now)
    for index in result.failed:
        docs.pop(index, None)
    for doc in docs.values():
        lifecycle.name_children(doc)


def _expression(meta: Meta, doc: Document) -> str:
    if meta.autoname.lower().startswith("naming_series:"):
        return naming.naming_series(doc)
    return meta.autoname


async def _name_from_counters(ctx: Context, meta: Meta, docs: dict[int, Document], result: BulkInsertResult,
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
    def render(cls, expression: str, doc: Document, now: datetime) -> _Template:
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

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.meta = doc.meta
        self.name = doc.get("name")
        self.reads_fields = False

    def get(self, fieldname: str, default: Any = None) -> Any:
        self.reads_fields = True
        return self.doc.get(fieldname, default)


def _record(doc: Document) -> dict[str, Any]:
    """The stored shape (what `insert()` writes): `_id` for the name, no nulls."""
    if doc.meta.table_fields:
        return lifecycle.clean_record(doc.to_record(), doc.meta.table_fieldnames)
    return {("_id" if key == "name" else key): value for key, value in doc._data.items() if value is not None}


# -- the write ------------------------------------------------------------------------------------

async def _write_in_transaction(ctx: Context, meta: Meta, records: list[dict[str, Any]]) -> None:
    """Insert in the unit of work's transaction (one of its own without a unit); a duplicate aborts
    the transaction, so it is a conflict (`TransientError`): the unit runs again."""
    async with unit_of_work(ctx):
        session = await ctx.write_session()
        try:
            with db.translate_errors(meta.name):
                await store.collection(ctx, meta).insert_many(records, ordered=True, session=session)
        except exc.FwError:
            raise
        except Exception as e:
            errors = db.bulk_write_errors(e)
            if errors and all(db.is_duplicate_key(err) for err in errors):
                raise db.conflict_error() from e  # stored by a concurrent request since the caller looked
            raise


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
