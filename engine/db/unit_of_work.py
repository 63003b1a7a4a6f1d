"""Units of work: the transaction of one request or job, started lazily at its first write."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pymongo import errors as driver_errors
from pymongo.read_concern import ReadConcern

from engine import exceptions as exc
from engine.db.connection import Database
from engine.db.errors import driver_error, translate_errors

log = logging.getLogger("fw.db")

@dataclass
class UnitOfWork:
    """The transaction of one request or job: started lazily at the first write.

    `after_commit` callbacks (jobs, realtime messages) run only once the writes are durable and
    are dropped on rollback.
    """

    db: Database
    session: Any = None
    after_commit: list[Callable[[], Awaitable[None] | None]] = field(default_factory=list)
    writes: int = 0
    # writes of this unit a rollback cannot undo (`Retry` does not run such a unit again): a `final`
    # write that ran without a transaction (see `write_session`), an earlier `commit()`
    wrote_outside_transaction: bool = False
    committed: bool = False
    # `get_cached_value`'s reads since the unit's last write (any write or commit drops them all)
    reads: dict[Any, Any] = field(default_factory=dict)

    @property
    def in_transaction(self) -> bool:
        return self.session is not None and self.session.in_transaction

    async def write_session(self, *, final: bool = False) -> Any:
        """The session a write must use; opens the transaction on the first write.

        `final=True` says this write is certainly the unit's last one: if it is also the first, it
        runs without a transaction (a single-document write is atomic by itself) and saves the
        commit round trip. Any later write in the unit would then open a transaction of its own.
        """
        self.writes += 1
        if self.reads:
            self.reads.clear()
        if not self.db.transactional:
            return None
        if final and self.writes == 1 and not self.in_transaction:
            self.wrote_outside_transaction = True
            return None
        if self.session is None:
            self.session = self.db.start_session()
        if not self.session.in_transaction:
            await self.session.start_transaction(read_concern=ReadConcern(self.db.transaction_read_concern))
        return self.session

    def read_session(self) -> Any:
        """Reads join the transaction once one is open, so they see the unit's own writes."""
        return self.session if self.session is not None and self.session.in_transaction else None

    async def commit(self) -> None:
        if self.in_transaction:
            await self._commit_transaction()
            self.committed = True
        callbacks, self.after_commit = self.after_commit, []
        self.writes = 0
        self.reads.clear()
        for cb in callbacks:
            try:
                result = cb()
                if asyncio.iscoroutine(result):
                    await result
            except Exception:  # an after-commit side effect must not undo a committed request
                log.exception("after-commit callback failed")

    async def _commit_transaction(self) -> None:
        """Commit; a commit whose outcome is unknown (the connection or the primary was lost) is sent
        again, as the driver's `with_transaction` does, while a member answers and the budget lasts:
        the server applies one transaction's commit once however often it is sent."""
        deadline: float | None = None
        attempt = 0
        while True:
            try:
                with translate_errors():
                    await self.session.commit_transaction()
                return
            except exc.FwError as e:
                driver = driver_error(e)
                if driver is None or not driver.has_error_label("UnknownTransactionCommitResult") or (
                        isinstance(driver, driver_errors.OperationFailure) and driver.code == 50):  # MaxTimeMSExpired
                    raise
                now = time.monotonic()
                deadline = deadline if deadline is not None else now + self.db.retry_budget_ms / 1000
                if now >= deadline or not await self.db.reachable():
                    _end_on_server(self.db, self.session.session_id)
                    raise
                attempt += 1
                await asyncio.sleep(min(random.uniform(0.5, 1.0) * min(0.1 * 2 ** attempt, 1.0), deadline - now))

    async def rollback(self) -> None:
        self.after_commit = []
        self.writes = 0
        if self.in_transaction:
            with contextlib.suppress(driver_errors.PyMongoError):
                await self.session.abort_transaction()

    async def close(self) -> None:
        if self.session is not None:
            await self.session.end_session()
            self.session = None


_ending: set[asyncio.Task[None]] = set()
KILL_SESSION_WAIT = 10.0  # s to wait for a member to answer before giving up killing a session


def _end_on_server(database: Database, session_id: Any) -> None:
    """Kill the session of a commit given up on, in the background once a server answers: if its
    transaction did not commit, it is aborted then, rather than holding its documents against the
    client's next try until MongoDB's transaction lifetime (60 s) runs out. (The driver cannot abort
    a transaction it has sent a commit for; a server that restarted has forgotten it anyway.)"""

    async def kill() -> None:
        with contextlib.suppress(Exception):  # best effort: the transaction expires by itself at worst
            if await database.reachable(wait=KILL_SESSION_WAIT):
                await database.client.admin.command("killSessions", [session_id])

    task = asyncio.get_running_loop().create_task(kill())
    _ending.add(task)
    task.add_done_callback(_ending.discard)


async def end_unit(uow: UnitOfWork, *, failed: bool) -> None:
    """A unit of work's end: roll back after an error, else commit (after-commit callbacks included);
    then close its session."""
    try:
        if failed:
            await uow.rollback()
        else:
            await uow.commit()
    finally:
        await uow.close()
