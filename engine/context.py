"""Units of work and the ambient context. `Context` (who is acting, on which site, in which language,
inside which unit of work) is defined beside `Site` in engine/site.py and re-exported here.

Engine functions take `ctx` first. Only translation and logging read the ambient
`current_context`, which fails loudly when unset; binding a context also sets the language of `_()`.
"""

from __future__ import annotations

import asyncio
import contextvars
import random
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

from engine import db, translation
from engine import exceptions as exc
from engine.site import Context

_current: contextvars.ContextVar[Context] = contextvars.ContextVar("fw_context")


class unit_of_work:  # (a lowercase name: it is used as a function, `async with unit_of_work(ctx)`)
    """One transaction for everything `ctx` writes inside the block; joins an enclosing one.

    Commits on success (running after-commit callbacks), rolls back on any exception. A class rather
    than a generator-based context manager: every write request enters one or two, and a generator
    costs a frame and two coroutines each time.
    """

    __slots__ = ("ctx", "held", "joined", "language", "token")
    joined: bool
    token: contextvars.Token[Context]
    language: contextvars.Token[str]
    held: list[asyncio.Lock]

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def __aenter__(self) -> Context:
        ctx = self.ctx
        self.joined = ctx.uow is not None
        if self.joined:
            return ctx
        self.token = _current.set(ctx)
        self.language = translation.set_language(ctx.lang)
        self.held = []
        ctx.unit_locks = self.held
        ctx.uow = db.UnitOfWork(ctx.db)
        return ctx

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: Any) -> None:
        if self.joined:
            return
        ctx = self.ctx
        uow = ctx.uow
        ctx.uow = None
        try:
            if uow is not None:
                await db.end_unit(uow, failed=kind is not None)
        finally:
            ctx.unit_locks = None
            for lock in self.held:  # after the commit (or rollback): the next holder reads what this unit wrote
                lock.release()
            translation.reset_language(self.language)
            _current.reset(self.token)


# how often a unit runs again because a save that sent no `modified` found its document changed
# (engine/documents/concurrency.py): each time, another save of it finished, so this is a bound
# against the improbable, not a budget a busy document uses up
DOCUMENT_CHANGED_RERUNS = 100


async def run_in_unit_of_work(ctx: Context, fn: Callable[[], Awaitable[Any]], *, retries: int = 10) -> Any:
    """Run `fn` in a unit of work. The whole unit runs again after a write conflict (up to `retries`
    times), after a concurrent change to a document saved without `modified`, and while the database
    fails over (`db.Retry` says when); a driver error that remains becomes an engine exception
    (`DatabaseUnavailableError`, `TransientError`)."""
    retry: db.Retry | None = None
    reruns = 0
    while True:
        uow: db.UnitOfWork | None = None
        try:
            async with unit_of_work(ctx):
                uow = ctx.uow
                return await fn()
        except Exception as e:
            if ctx.uow is not None:  # joined an enclosing unit: only the outermost one may run again
                raise
            if isinstance(e, exc.DocumentChangedError):  # nothing of it was written: run it on the new document
                if reruns >= DOCUMENT_CHANGED_RERUNS:
                    raise
                reruns += 1
                ctx.messages.clear()
                ctx.response.clear()
                await asyncio.sleep(random.uniform(0, 0.001 * min(reruns, 20)))  # (desynchronise the racers)
                continue
            retry = retry or db.Retry(ctx.db, conflicts=retries)
            if await retry.again(e, uow):
                ctx.messages.clear()
                ctx.response.clear()
                continue
            _raise_final(e)


async def run_read(ctx: Context, fn: Callable[[], Awaitable[Any]]) -> Any:
    """Run `fn`, which only reads, outside a unit of work: run again while the database fails over,
    and a driver error that remains becomes an engine exception, as `run_in_unit_of_work` does."""
    try:
        return await read_with_retry(ctx.db, fn)
    except Exception as e:
        _raise_final(e)


async def read_with_retry(database: db.Database, fn: Callable[[], Awaitable[Any]]) -> Any:
    """`run_read` before there is a context: the reads that identify a request's caller (session or
    API key, roles) wait out a failover within the same budget as the unit of work that follows. An
    error that remains is raised as it is (server/errors.py words a driver's in the caller's language)."""
    try:
        return await fn()
    except Exception as e:
        retry = db.Retry(database)
        error = e
    while await retry.again(error):
        try:
            return await fn()
        except Exception as e:
            error = e
    raise error


def _raise_final(error: Exception) -> NoReturn:
    final = db.Retry.final_error(error)
    if final is error:
        raise error
    raise final from error


class bind:  # used like a function: `with bind(ctx):`
    """Make `ctx` the ambient context (for `_()` and logging) inside the block. A plain class rather
    than `@contextmanager`: every request enters it, and a generator-based one costs several calls."""

    __slots__ = ("ctx", "language", "token")

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def __enter__(self) -> Context:
        self.token = _current.set(self.ctx)
        self.language = translation.set_language(self.ctx.lang)
        return self.ctx

    def __exit__(self, *exc_info: object) -> None:
        translation.reset_language(self.language)
        _current.reset(self.token)


def current_context() -> Context:
    try:
        return _current.get()
    except LookupError:
        raise RuntimeError("no active fw context (are you outside a request or job?)") from None


def maybe_current_context() -> Context | None:
    return _current.get(None)
