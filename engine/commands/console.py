"""`fw console`: Python's interactive console on the site, with top-level `await` (the compile flag
`PyCF_ALLOW_TOP_LEVEL_AWAIT`, as `python -m asyncio` uses), `fw` (the public API) and `ctx`
(Administrator) bound. Everything `ctx` writes joins one unit of work that lasts the session: it is
committed only by `await ctx.commit()` (later writes open the next transaction), discarded by
`await ctx.rollback()`, and what is not committed when the console ends is rolled back."""

from __future__ import annotations

import ast
import asyncio
import code
import inspect
import sys
import types
from typing import TYPE_CHECKING, Any

import click

import engine as fw
from engine.commands._base import console as err_console
from engine.commands._base import operator_errors
from engine.settings import get_settings

if TYPE_CHECKING:
    from engine.site import Context, Site

BANNER = """fw console on site {site} (database {db}), as Administrator.
`fw` is `import engine as fw`, `ctx` the site context; top-level `await` works, e.g.
    doc = await fw.get_doc(ctx, "User", "Administrator")
Writes are kept only after `await ctx.commit()`; `await ctx.rollback()` discards them, and so does leaving
(Ctrl+D) without a commit. MongoDB aborts a transaction left open for about a minute: commit soon after writing."""


class SiteConsole(code.InteractiveConsole):
    """Runs each statement on the console's event loop (a coroutine statement to its end), with `ctx`
    as the ambient context (for `_()`)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, ctx: Context, namespace: dict[str, Any]) -> None:
        super().__init__(namespace, filename="<fw console>")
        self.compile.compiler.flags |= ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        self.loop = loop
        self.ctx = ctx

    def runcode(self, code_object: types.CodeType) -> None:
        # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
        from engine.context import bind

        async def run() -> None:
            with bind(self.ctx):
                result = types.FunctionType(code_object, self.locals)()
                if inspect.isawaitable(result):
                    await result

        try:
            self.loop.run_until_complete(run())
        except SystemExit:
            raise
        except BaseException:
            self.showtraceback()
            if "transaction" in str(sys.exc_info()[1]).lower():
                self.write("The transaction is gone (MongoDB aborts one left open too long, or after some errors): "
                           "what was not committed is lost. `await ctx.rollback()` starts afresh.\n")


async def _open(settings: Any) -> tuple[Site, Context]:
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine import db
    from engine.wiring import open_site

    site = await open_site(settings)
    ctx = site.context("Administrator")
    ctx.uow = db.UnitOfWork(ctx.db)  # one unit for the session: `unit_of_work` blocks join it
    return site, ctx


async def _close(site: Site, ctx: Context) -> int:
    """Roll back what was not committed (returns how many writes that was) and close the site."""
    uow = ctx.uow
    pending = 0
    if uow is not None:
        pending = uow.writes
        await uow.rollback()
        await uow.close()
        ctx.uow = None
    await site.close()
    return pending


@click.command("console")
def console() -> None:
    """An interactive Python console on the site: `fw` and `ctx` bound, top-level await, writes kept
    only after `await ctx.commit()`."""

    settings = get_settings()
    loop = asyncio.new_event_loop()
    try:
        with operator_errors():
            site, ctx = loop.run_until_complete(_open(settings))
        namespace: dict[str, Any] = {"fw": fw, "ctx": ctx, "site": site, "asyncio": asyncio,
                                     "__name__": "__console__", "__builtins__": __builtins__}
        shell = SiteConsole(loop, ctx, namespace)
        try:
            shell.interact(banner=BANNER.format(site=site.name, db=site.db.name), exitmsg="")
        finally:
            pending = loop.run_until_complete(_close(site, ctx))
            if pending:
                err_console.print(f"[yellow]Rolled back {pending} uncommitted write(s)[/yellow] "
                                  "(no `await ctx.commit()` after them).")
    finally:
        loop.close()
