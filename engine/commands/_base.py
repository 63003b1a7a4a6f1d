"""Shared plumbing of the `fw` commands: one error style (exit code 2, "Error: ..."), async runs
with the process Settings, an open site, and rich progress on stderr."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click
from rich.console import Console

from engine import exceptions as exc
from engine.apps.installed import read_apps_txt
from engine.mongod import embedded, site_mongod
from engine.settings import Settings, get_settings

if TYPE_CHECKING:
    from engine.site import Site

console = Console(stderr=True, highlight=False)
Progress = Callable[[str], None]


class CommandError(click.ClickException):
    """A problem the operator can fix: printed as `Error: ...`, exit code 2 (like a usage error)."""

    exit_code = 2


def fail(message: str) -> NoReturn:
    raise CommandError(message)


@contextlib.contextmanager
def operator_errors() -> Iterator[None]:
    """Configuration and engine errors inside the block become `CommandError`s (exit code 2)."""
    try:
        yield
    except exc.ConfigurationError as e:
        fail(str(e))
    except exc.FwError as e:
        fail(f"{type(e).__name__}: {e.message}")


def run(coro_factory: Callable[[Settings], Awaitable[Any]]) -> Any:
    """Run `coro_factory(settings)` with the process Settings, reporting errors as `operator_errors`.

    Ctrl+C or SIGTERM cancels the command where it is: its `finally` blocks run (the open unit of work
    rolls back, locks are released, the site is closed) and it exits 130 / 143 with one line."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    settings = get_settings()

    async def main() -> Any:
        task = asyncio.current_task()
        if task is not None:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        return await coro_factory(settings)

    try:
        with operator_errors():
            return asyncio.run(main())
    except (KeyboardInterrupt, asyncio.CancelledError) as e:
        console.print("Interrupted: what the command had not finished was rolled back; run it again to finish.",
                      soft_wrap=True)
        sys.exit(130 if isinstance(e, KeyboardInterrupt) else 143)


@contextlib.asynccontextmanager
async def opened_site(settings: Settings) -> AsyncIterator[Site]:
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.wiring import open_site

    site = await open_site(settings)
    try:
        yield site
    finally:
        await site.close()


@contextlib.contextmanager
def status(message: str) -> Iterator[Progress]:
    """A rich spinner on stderr; the yielded callback updates its text."""
    with console.status(message) as spinner:
        yield lambda text: spinner.update(f"{message} {text}")


def append_to_apps_txt(apps_txt: Path, name: str) -> bool:
    """Add `name` to apps.txt on its own line (the file first gets its missing final newline).
    Returns False when the app is already listed."""
    if name in read_apps_txt(apps_txt):
        return False
    text = apps_txt.read_text(encoding="utf-8") if apps_txt.exists() else ""
    if text and not text.endswith("\n"):
        text += "\n"
    apps_txt.parent.mkdir(parents=True, exist_ok=True)
    apps_txt.write_text(f"{text}{name}\n", encoding="utf-8")
    return True


def hold_embedded_mongod(settings: Settings) -> site_mongod.SharedMongod | None:
    """Attach to (or start) the site's embedded mongod when the settings use it; None otherwise (or
    when this machine has no mongod, where the site falls back to memory with a warning)."""
    if settings.mongo_url or settings.memory_backend:
        return None
    try:
        with operator_errors():
            try:
                return site_mongod.attach(settings.data_dir / "mongo", durable=settings.durable_writes)
            except embedded.EmbeddedUnavailable:
                return None
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
