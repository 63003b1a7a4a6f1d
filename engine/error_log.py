"""`log_error`: an Error Log document written outside the current transaction, so it survives
the rollback of the request or job that failed."""

from __future__ import annotations

import traceback

from engine.clock import now_str
from engine.context import Context
from engine.documents import naming, store

MAX_TEXT = 100_000


async def log_error(ctx: Context, title: str | None = None, message: str | None = None,
                    reference_doctype: str | None = None, reference_name: str | None = None) -> str:
    """Record an error (the current traceback when no message is given); returns the log's name."""
    if title and "\n" in title:  # a traceback passed as the title (Frappe's old argument order)
        title, message = (message, title) if message else (None, title)
    text = message if message is not None else traceback.format_exc()
    if text.strip() == "NoneType: None":
        text = ""
    writer = Context(ctx.site, ctx.user, lang=ctx.lang)  # no unit of work: the write stands on its own
    now = now_str()
    name = naming.hash_name()
    record = {"_id": name, "method": (title or "Error")[:140], "error": text[:MAX_TEXT], "seen": 0,
              "reference_doctype": reference_doctype, "reference_name": reference_name,
              "owner": ctx.user, "modified_by": ctx.user, "creation": now, "modified": now, "docstatus": 0, "idx": 0}
    await store.insert(writer, ctx.meta("Error Log"), {k: v for k, v in record.items() if v is not None})
    return name
