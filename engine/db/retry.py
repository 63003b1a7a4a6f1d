"""`Retry`: whether a failed unit of work runs again, and after how long."""

from __future__ import annotations

import asyncio
import random
import time

from engine import exceptions as exc
from engine.db.connection import Database
from engine.db.errors import failure_kind, never_sent, translate_error
from engine.db.unit_of_work import UnitOfWork


class Retry:
    """When to run a failed unit of work again, and how long to wait first.

    A conflict is retried up to `conflicts` times with a short jittered backoff (the other
    transaction is usually done within milliseconds). A database out of reach is retried only
    while some replica-set member answers (an election is under way: the driver will find the new
    primary) and only until `Database.retry_budget_ms` has passed since the first failure; a lone
    server that is down fails at once. A unit whose writes may be durable already is not run
    again, since they would be applied twice: after an earlier `commit()`, never; after a `final`
    write outside a transaction (by contract the unit's last operation that can fail), only if
    the driver never sent it (server selection timed out).
    """

    __slots__ = ("attempts", "conflicts", "database", "deadline")

    def __init__(self, database: Database, *, conflicts: int = 10) -> None:
        self.database = database
        self.conflicts = conflicts
        self.attempts = 0
        self.deadline: float | None = None

    async def again(self, error: BaseException, uow: UnitOfWork | None = None) -> bool:
        """Wait, then True if the unit (`uow`, for a unit that may have written) should run again;
        False at once if it should not."""
        kind = failure_kind(error)
        if kind is None:
            return False
        if uow is not None and (uow.committed or (uow.wrote_outside_transaction and not never_sent(error))):
            return False
        now = time.monotonic()
        if self.deadline is None:
            self.deadline = now + self.database.retry_budget_ms / 1000
        remaining = self.deadline - now
        if kind == "conflict":
            if self.attempts >= self.conflicts:
                return False
            delay = min(0.005 * 2 ** self.attempts, 0.25)
        else:
            if remaining <= 0 or not await self.database.reachable():
                return False
            delay = min(0.1 * 2 ** self.attempts, 1.0)
        self.attempts += 1
        await asyncio.sleep(min(random.uniform(0.5, 1.0) * delay, max(remaining, 0.0)))
        return True

    @staticmethod
    def final_error(error: BaseException) -> BaseException:
        """What the caller sees once the retries are over: engine exceptions for driver errors."""
        if isinstance(error, exc.FwError):
            return error
        return translate_error(error)
