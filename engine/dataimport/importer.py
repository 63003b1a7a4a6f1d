"""Running a Data Import: each document of the file in its own unit of work, through the ordinary
`Document.insert` / `save` (/ `submit`) as the importing user, so every check an insert or save by
that user meets applies (permissions, user permissions, row rules, mandatory values, Links, hooks).
A failed document writes nothing but its `Data Import Log`; the others go in. Progress goes out as
`data_import_progress` events and the `progress` bar. A second run imports only the rows that failed."""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from engine import exceptions as exc
from engine import realtime
from engine.context import Context, run_in_unit_of_work
from engine.dataimport.mapping import Column, map_columns
from engine.dataimport.preview import UPDATE, mandatory_problems
from engine.dataimport.reader import Sheet
from engine.dataimport.rows import Payload, payloads
from engine.documents import store
from engine.documents.document import Document
from engine.documents.factory import get_doc, new_doc
from engine.meta.schema import Meta
from engine.translation import _

LOG = "Data Import Log"
PROGRESS_EVERY = 0.5  # seconds between progress events


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
    total: int = 0
    succeeded: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)  # {rows, messages}
    created: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


Progress = Callable[[int, int, Outcome], Awaitable[None]]


def _problem_messages(error: exc.FwError, columns: list[Column], rows: list[int]) -> list[str]:
    """The error as the import reports it: its message, after the row and the column when it names a field."""
    where = _("Row {0}", rows[0])
    if error.field:
        for c in columns:
            if c.fieldname == error.field and c.table is None:
                where = c.where(rows[0])
                break
    return [f"{where}: {error.message}"]


async def _write(ctx: Context, meta: Meta, payload: Payload, options: Options) -> Document:
    values = {k: v for k, v in payload.values.items() if k in payload.given}
    if options.import_type == UPDATE:
        name = values.pop("name")
        doc = await get_doc(ctx, meta.name, str(name))
        doc.update(values)
        await doc.save()
    else:
        if meta.autoname.lower() != "prompt" or not values.get("name"):
            values.pop("name", None)
        doc = new_doc(ctx, meta.name, {k: v for k, v in values.items() if v is not None})
        await doc.insert()
    if options.submit_after_import and meta.is_submittable and doc.docstatus == 0:
        await doc.submit()
    return doc


async def _log(ctx: Context, options: Options, index: int, payload: Payload, *, docname: str | None,
               messages: list[str], exception: str | None = None) -> None:
    if options.data_import is None:
        return
    earlier = (options.only_rows or {}).get(payload.rows[0])
    if earlier:  # the failed try's log goes with this try's, in the same unit of work
        await store.delete(ctx, ctx.meta(LOG), earlier)
    await new_doc(ctx, LOG, data_import=options.data_import, log_index=index, success=0 if messages else 1,
                  row_indexes=orjson.dumps(payload.rows).decode(), docname=docname,
                  messages=orjson.dumps(messages).decode() if messages else None,
                  exception=exception).insert(ignore_permissions=True, ignore_links=True)  # its import exists


async def run(ctx: Context, sheet: Sheet, total: int, options: Options, progress: Progress | None = None
              ) -> Outcome:
    meta = ctx.meta(options.doctype)
    columns = map_columns(meta, sheet.header, options.template_options)
    outcome = Outcome(total=total, warnings=[c.warning for c in columns if c.warning])
    shown = 0.0
    for index, payload in enumerate(payloads(sheet.rows, columns), start=1):
        if options.only_rows is not None and payload.rows[0] not in options.only_rows:
            continue
        row_ctx = Context(ctx.site, ctx.user, lang=ctx.lang)  # its own transaction, not the job's
        row_ctx.flags["mute_emails"] = options.mute_emails
        # Links are the lifecycle's to check (its error names the field, which names the column)
        problems = payload.problems + mandatory_problems(meta, payload, columns, options.import_type)
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
            outcome.failed.append({"rows": payload.rows, "messages": problems})
            await run_in_unit_of_work(row_ctx, functools.partial(
                _log, row_ctx, options, index, payload, docname=None, messages=problems, exception=exception))
        else:
            outcome.succeeded += 1
            if docname:
                outcome.created.append(docname)
        now = time.monotonic()
        if progress is not None and (now - shown >= PROGRESS_EVERY or index == total):
            shown = now
            await progress(index, total, outcome)
    return outcome


async def _write_and_log(ctx: Context, meta: Meta, payload: Payload, options: Options, index: int) -> Document:
    doc = await _write(ctx, meta, payload, options)
    await _log(ctx, options, index, payload, docname=str(doc.name), messages=[])
    return doc


def count_documents(sheet: Sheet, meta: Meta, template_options: dict[str, Any] | None) -> int:
    """How many documents the sheet holds (a pass over its rows, for the progress bar)."""
    return sum(1 for _payload in payloads(sheet.rows, map_columns(meta, sheet.header, template_options)))


async def announce(ctx: Context, data_import: str, current: int, total: int, outcome: Outcome) -> None:
    """Frappe's `data_import_progress` event and the Desk's progress bar, to the importing user."""
    await realtime.publish_realtime(ctx, "data_import_progress", {
        "data_import": data_import, "current": current, "total": total, "success": outcome.succeeded,
        "failed": len(outcome.failed), "docname": outcome.created[-1] if outcome.created else None,
    }, user=ctx.user)
    await realtime.publish_progress(ctx, current * 100 / max(total, 1), title=_("Importing {0}", data_import),
                                    description=_("{0} of {1}", current, total))
