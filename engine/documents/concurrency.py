"""Saves that did not ask for a timestamp check never fail because another request wrote the
document meanwhile (issue 16): a PUT, `set_value` or v2 PATCH that sends no `modified`.

A save reads the document, runs its hooks, then writes only if the document is still the one it
read (its `modified` unchanged). When a client sent `modified`, a mismatch is its
`TimestampMismatchError` (contract §2.1). When it did not, two things make the save succeed:
- within a process, such saves of one document take turns (`take_turn`): a lock taken before the
  document is read and held until its unit of work has committed or rolled back, so they never
  overtake one another (the usual case: a busy document's writers reach one process or two);
- a save that still finds the document changed (another process wrote it, or a save that took no
  turn) raises `DocumentChangedError`, and `run_in_unit_of_work` runs the whole unit again on the
  fresh document, its hooks included, so they always see one consistent document and no field
  another request wrote is lost. Each re-run means another save finished, so they end.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import TYPE_CHECKING

from engine import exceptions as exc
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument

# a turn that has not come by then (say, two requests holding two documents in opposite orders) is
# skipped rather than waited for: the save then runs without it and a re-run settles any conflict
TURN_WAIT_SECONDS = 10.0
RERUN_FLAG = "rerun_if_changed"


def _locks(ctx: Context) -> weakref.WeakValueDictionary[tuple[str, str], asyncio.Lock]:
    return ctx.site.document_turns


async def take_turn(ctx: Context, doctype: str, name: str) -> None:
    """Wait until no other save of this process that sent no `modified` holds the document; the turn
    lasts until the unit of work ends. Outside a unit of work (nothing would end it) nothing happens."""
    held = ctx.unit_locks
    if held is None:
        return
    locks = _locks(ctx)
    key = (doctype, str(name))
    lock = locks.get(key)
    if lock is None:
        lock = locks[key] = asyncio.Lock()
    if any(h is lock for h in held):
        return
    try:
        async with asyncio.timeout(TURN_WAIT_SECONDS):
            await lock.acquire()
    except TimeoutError:
        return
    held.append(lock)


def rerun_if_changed(doc: BaseDocument) -> None:
    """Mark a save the client sent no `modified` for: a concurrent change re-runs it, never fails it."""
    doc.flags[RERUN_FLAG] = True


def wants_rerun(doc: BaseDocument) -> bool:
    return bool(doc.flags.get(RERUN_FLAG))


def changed_error(doc: BaseDocument) -> exc.DocumentChangedError:
    return exc.DocumentChangedError(
        _("{0} {1} kept being changed by other requests while this one saved it; please retry",
          _(doc.doctype), doc.name))
