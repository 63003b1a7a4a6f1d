"""Running a Data Import as the importing user, so every check an insert or save by that user meets
applies (permissions, user permissions, row rules, mandatory values, Links, hooks). A failed
document writes nothing but its `Data Import Log`; the others go in. Progress goes out as
`data_import_progress` events and the `progress` bar. A second run imports only the rows that failed.

Two ways in. New drafts go in batches of `BATCH`: one unit of work each, through `insert_many` with
the whole insert plan (`run_hooks`: the hooks, Version records and every check of `Document.insert`,
but one round trip per batch for the names, the Links and each write), their logs in the same unit.
A document refused before its write is simply left out of its batch. One an app's hook refused may
have written first: the batch rolls back, goes in again without it, and it goes in on its own. When
the batch's write failed (a duplicate aborts the transaction), each of its documents goes in on its
own. Updates, submits and those documents take the other way: each in its own unit of work through
`Document.insert` / `save` (/ `submit`)."""

from __future__ import annotations

import asyncio
import functools
import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from engine import exceptions as exc
from engine import realtime
from engine.clock import now_str
from engine.context import Context, run_in_unit_of_work
from engine.dataimport.mapping import Column, map_columns
from engine.dataimport.preview import UPDATE, mandatory_problems
from engine.dataimport.reader import Sheet
from engine.dataimport.rows import Payload, payloads
from engine.documents import store
from engine.documents.bulk import BulkInsertResult, insert_many
from engine.documents.document import Document
from engine.documents.factory import get_doc, new_doc
from engine.documents.naming import hash_name
from engine.meta.schema import Meta
from engine.translation import _

LOG = "Data Import Log"
PROGRESS_EVERY = 0.5  # seconds between progress events
KEPT_FAILURES = 1000  # failures an outcome keeps the messages of (the command line shows the first 50)
BATCH = 1000  # new documents per unit of work (a unit must stay well inside MongoDB's 60 s transaction limit)


@dataclass
class Options:
    data_import: str | None  # None: a command-line import writes no log records
    doctype: str
    import_type: str
    submit_after_import: bool = False
    mute_emails: bool = True
    template_options: dict[str, Any] | None = None
    # a retry: the first rows of the documents that failed, each to its log (replaced by the new one)
    only_rows: dict[int, str] | None = None


@dataclass
class Outcome:
    """What an import did; it stays small whatever the file's size (the per-row log is the record)."""

    total: int = 0  # documents in the file
    rows: int = 0  # rows in the file (what progress counts)
    succeeded: int = 0
    failed_count: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)  # {rows, messages}: the first KEPT_FAILURES
    last_created: str | None = None
    warnings: list[str] = field(default_factory=list)

    def fail(self, rows: list[int], messages: list[str]) -> None:
        self.failed_count += 1
        if len(self.failed) < KEPT_FAILURES:
            self.failed.append({"rows": rows, "messages": messages})

    def create(self, name: str) -> None:
        self.succeeded += 1
        self.last_created = name


Progress = Callable[[int, int, Outcome], Awaitable[None]]  # (rows done, rows in the file, the outcome so far)


def _problem_messages(error: exc.FwError, columns: list[Column], rows: list[int]) -> list[str]:
    """The error as the import reports it: its message, after the row and the column when it names a field."""
    where = _("Row {0}", rows[0])
    if error.field:
        for c in columns:
            if c.fieldname == error.field and c.table is None:
                where = c.where(rows[0])
                break
    return [f"{where}: {error.message}"]


def _new_values(meta: Meta, payload: Payload) -> dict[str, Any]:
    """A new document's values from the file: the columns it has, the ID only where names are typed in."""
    values = {k: v for k, v in payload.values.items() if k in payload.given and v is not None}
    if meta.autoname.lower() != "prompt" or not values.get("name"):
        values.pop("name", None)
    return values


async def _write(ctx: Context, meta: Meta, payload: Payload, options: Options) -> Document:
    if options.import_type == UPDATE:
        values = {k: v for k, v in payload.values.items() if k in payload.given}
        name = values.pop("name")
        doc = await get_doc(ctx, meta.name, str(name))
        doc.update(values)
        await doc.save()
    else:
        doc = new_doc(ctx, meta.name, _new_values(meta, payload))
        await doc.insert()
    if options.submit_after_import and meta.is_submittable and doc.docstatus == 0:
        await doc.submit()
    return doc


def _log_values(options: Options, index: int, payload: Payload, *, docname: str | None, messages: list[str],
                exception: str | None = None) -> dict[str, Any]:
    return {"data_import": options.data_import, "log_index": index, "success": 0 if messages else 1,
            "row_indexes": orjson.dumps(payload.rows).decode(), "docname": docname,
            "messages": orjson.dumps(messages).decode() if messages else None, "exception": exception}


async def _write_logs(ctx: Context, logs: list[dict[str, Any]]) -> None:
    """Data Import Logs as records, in the unit of work: the engine writes them from values it made
    (their import exists, their types are right), so they skip the insert's checks, which would cost
    as much again as the documents they log."""
    now = now_str()
    standard = {"owner": ctx.user, "creation": now, "modified": now, "modified_by": ctx.user, "docstatus": 0,
                "idx": 0}
    await store.insert_many(ctx, ctx.meta(LOG), [
        {"_id": hash_name(), **{k: v for k, v in log.items() if v is not None}, **standard} for log in logs])


async def _log(ctx: Context, options: Options, index: int, payload: Payload, *, docname: str | None,
               messages: list[str], exception: str | None = None) -> None:
    if options.data_import is None:
        return
    earlier = (options.only_rows or {}).get(payload.rows[0])
    if earlier:  # the failed try's log goes with this try's, in the same unit of work
        await store.delete(ctx, ctx.meta(LOG), earlier)
    await _write_logs(ctx, [_log_values(options, index, payload, docname=docname, messages=messages,
                                        exception=exception)])


def _row_context(ctx: Context, options: Options) -> Context:
    row_ctx = Context(ctx.site, ctx.user, lang=ctx.lang)  # its own transactions, not the job's
    row_ctx.flags["mute_emails"] = options.mute_emails
    return row_ctx


async def run(ctx: Context, sheet: Sheet, options: Options, progress: Progress | None = None) -> Outcome:
    """Import the sheet's documents; `progress` hears how many of the sheet's rows are done (the
    file says how many it has, so no pass of its own counts them) every PROGRESS_EVERY seconds."""
    meta = ctx.meta(options.doctype)
    columns = map_columns(meta, sheet.header, options.template_options)
    outcome = Outcome(warnings=[c.warning for c in columns if c.warning])
    rows = outcome.rows = max((sheet.last_row or 0) - 1, 0)
    batched = options.import_type != UPDATE and not (options.submit_after_import and meta.is_submittable)
    pending: list[tuple[int, Payload]] = []
    shown = 0.0

    async def report(payload: Payload) -> None:
        nonlocal shown
        now = time.monotonic()
        if progress is not None and now - shown >= PROGRESS_EVERY:
            shown = now
            done = payload.rows[-1] - 1
            outcome.rows = max(rows, done)  # (a file's dimension may say fewer rows than it has)
            await progress(done, outcome.rows, outcome)

    async def flush() -> None:
        if pending:
            await _import_batch(ctx, meta, pending, columns, options, outcome)
            last = pending[-1][1]
            pending.clear()
            await report(last)

    index = 0
    async for payload in _read_ahead(payloads(sheet.rows, columns), BATCH):
        index += 1
        outcome.total = index
        if options.only_rows is not None and payload.rows[0] not in options.only_rows:
            continue
        # Links are the lifecycle's to check (its error names the field, which names the column)
        problems = payload.problems + mandatory_problems(meta, payload, columns, options.import_type)
        if problems:
            await flush()  # (the logs and the progress stay in the file's order)
            await _import_one(ctx, meta, index, payload, columns, options, outcome, problems)
        elif batched:
            pending.append((index, payload))
            if len(pending) >= BATCH:
                await flush()
            continue
        else:
            await _import_one(ctx, meta, index, payload, columns, options, outcome, [])
        await report(payload)
    await flush()
    outcome.rows = max(rows, outcome.rows)
    return outcome


async def _read_ahead(items: Iterator[Payload], size: int) -> AsyncIterator[Payload]:
    """`items`, read `size` at a time in a thread, one chunk ahead: the file's rows are parsed into
    values while the event loop waits for the database on the chunk before. One chunk is read at a
    time, so the reader is never used by two threads at once; an error of the file's is raised after
    the items read before it, where the loop would have met it."""

    def take() -> tuple[list[Payload], BaseException | None]:
        chunk: list[Payload] = []
        try:
            chunk.extend(itertools.islice(items, size))
        except Exception as error:  # (raised once the rows before it are done)
            return chunk, error
        return chunk, None

    chunk, error = await asyncio.to_thread(take)
    while chunk:
        ahead = asyncio.ensure_future(asyncio.to_thread(take)) if error is None else None
        try:
            for item in chunk:
                yield item
        finally:
            if ahead is not None and not ahead.done():  # the loop stopped early: let the read finish unheard
                ahead.add_done_callback(lambda done: done.exception())
        if ahead is None:
            break
        chunk, error = await ahead
    if error is not None:
        raise error


async def _import_one(ctx: Context, meta: Meta, index: int, payload: Payload, columns: list[Column],
                      options: Options, outcome: Outcome, problems: list[str]) -> None:
    """One document in its own unit of work (its log in the same one), or its problems logged."""
    row_ctx = _row_context(ctx, options)
    docname = None
    exception = None
    if not problems:
        try:
            doc = await run_in_unit_of_work(row_ctx, functools.partial(
                _write_and_log, row_ctx, meta, payload, options, index))
            docname = str(doc.name)
        except exc.FwError as error:
            problems = _problem_messages(error, columns, payload.rows)
            exception = type(error).__name__
    if problems:
        outcome.fail(payload.rows, problems)
        await run_in_unit_of_work(row_ctx, functools.partial(
            _log, row_ctx, options, index, payload, docname=None, messages=problems, exception=exception))
    elif docname:
        outcome.create(docname)


class _RefusedByHook(Exception):
    """The batch must roll back: an app's hook refused some of its documents (`positions`)."""

    def __init__(self, positions: set[int]) -> None:
        super().__init__(positions)
        self.positions = positions


async def _import_batch(ctx: Context, meta: Meta, batch: list[tuple[int, Payload]], columns: list[Column],
                        options: Options, outcome: Outcome) -> None:
    """New documents in one unit of work with their logs (see the module's documentation). When a
    hook refused some, the batch rolls back and goes in again without them, and they go in one by one
    (each hook's own writes stand or fall with its document); when the write failed (a duplicate, a
    conflict), every document goes in on its own and says for itself."""
    row_ctx = _row_context(ctx, options)
    try:
        result = await run_in_unit_of_work(row_ctx, functools.partial(
            _insert_batch, row_ctx, meta, batch, columns, options), retries=0)
    except _RefusedByHook as refused:
        others = [item for position, item in enumerate(batch) if position not in refused.positions]
        if others:
            await _import_batch(ctx, meta, others, columns, options, outcome)
        for index, payload in (batch[position] for position in sorted(refused.positions)):
            await _import_one(ctx, meta, index, payload, columns, options, outcome, [])
        return
    except exc.FwError:
        for index, payload in batch:
            await _import_one(ctx, meta, index, payload, columns, options, outcome, [])
        return
    for position, (_index, payload) in enumerate(batch):
        error = result.failed.get(position)
        if error is None:
            outcome.create(result.names[position])
        else:
            outcome.fail(payload.rows, _problem_messages(error, columns, payload.rows))


async def _insert_batch(ctx: Context, meta: Meta, batch: list[tuple[int, Payload]], columns: list[Column],
                        options: Options) -> BulkInsertResult:
    result = await insert_many(ctx, meta.name, [_new_values(meta, payload) for _index, payload in batch],
                               atomic=True, run_hooks=True)
    if result.refused_by_hook:
        raise _RefusedByHook(result.refused_by_hook)
    if options.data_import is None:
        return result
    earlier = [name for _index, payload in batch if (name := (options.only_rows or {}).get(payload.rows[0]))]
    if earlier:  # the failed tries' logs go with this try's, in the same unit of work
        await store.delete_many(ctx, ctx.meta(LOG), {"_id": {"$in": earlier}})
    logs = []
    for position, (index, payload) in enumerate(batch):
        error = result.failed.get(position)
        messages = _problem_messages(error, columns, payload.rows) if error is not None else []
        logs.append(_log_values(options, index, payload, docname=result.names.get(position), messages=messages,
                                exception=type(error).__name__ if error is not None else None))
    await _write_logs(ctx, logs)
    return result


async def _write_and_log(ctx: Context, meta: Meta, payload: Payload, options: Options, index: int) -> Document:
    doc = await _write(ctx, meta, payload, options)
    await _log(ctx, options, index, payload, docname=str(doc.name), messages=[])
    return doc


async def announce(ctx: Context, data_import: str, current: int, total: int, outcome: Outcome) -> None:
    """Frappe's `data_import_progress` event and the Desk's progress bar, to the importing user."""
    await realtime.publish_realtime(ctx, "data_import_progress", {
        "data_import": data_import, "current": current, "total": total, "success": outcome.succeeded,
        "failed": outcome.failed_count, "docname": outcome.last_created,
    }, user=ctx.user)
    await realtime.publish_progress(ctx, current * 100 / max(total, 1), title=_("Importing {0}", data_import),
                                    description=_("{0} of {1}", current, total))
