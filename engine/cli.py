"""The `fw` command line. Each command builds its Settings once and opens the site it needs."""

from __future__ import annotations

import logging
import signal
import time
from collections.abc import Awaitable, Callable
from typing import Any

import click
from rich.console import Console

from engine.commands import COMMANDS
from engine.commands._base import hold_embedded_mongod, run
from engine.settings import Settings, get_settings

console = Console(stderr=True)


def _run(coro_factory: Callable[[Settings], Awaitable[Any]]) -> Any:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    return run(coro_factory)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """fw: a document application service with Frappe's programming model on MongoDB."""


@main.command()
@click.option("--force", is_flag=True, help="Re-check every collection and index even if nothing changed.")
def migrate(force: bool) -> None:
    """Sync doctype JSON to the database (meta, indexes), then run after_migrate hooks."""
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.migrate import migrate as run_migrate
    from engine.wiring import open_site

    async def go(settings: Settings) -> None:
        started = time.perf_counter()
        site = await open_site(settings)
        try:
            with console.status("Migrating...") as status:
                report = await run_migrate(site, force=force, progress=lambda m: status.update(f"Migrating {m}"))
        finally:
            await site.close()
        console.print(f"[green]Migrated[/green] {site.name}: {report.summary()} "
                      f"({time.perf_counter() - started:.2f}s)")

    _run(go)


def _exit_cleanly(signum: int, frame: Any) -> None:
    raise SystemExit(0)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=1, show_default=True, type=int, help="uvicorn worker processes")
def serve(host: str, port: int, workers: int) -> None:
    """Run the HTTP server (migrates first; idempotent and fast when nothing changed)."""
    import uvicorn

    settings = get_settings()
    # the site's embedded mongod, held while the server runs: the app (and each of uvicorn's worker
    # processes, also one it restarts) attaches to it rather than starting its own
    held = hold_embedded_mongod(settings)
    try:
        if workers > 1:
            # each worker migrates on startup too; on a fresh database they would race (two creates of one
            # collection, two bootstraps), so migrate once here first and leave the workers nothing to do
            from engine.migrate import migrate as run_migrate
            from engine.wiring import open_site

            async def go(settings: Settings) -> None:
                site = await open_site(settings)
                try:
                    await run_migrate(site)
                finally:
                    await site.close()

            _run(go)
        # uvicorn re-raises a SIGTERM after its graceful shutdown, so the process would die of the signal
        # (exit status -15/143); exit 0 instead: a requested stop that shut down cleanly is a success
        signal.signal(signal.SIGTERM, _exit_cleanly)
        uvicorn.run("server.app:create_app_from_env", factory=True, host=host, port=port, workers=workers,
                    log_level="info", access_log=False,
                    proxy_headers=False,  # the app honours FW_FORWARDED_ALLOW_IPS itself
                    http="server.http_protocol:HeaderTimeoutProtocol")  # FW_HTTP_HEADER_TIMEOUT
    finally:
        if held is not None:
            held.release()


# get-app, install-app, new-app, build, worker, scheduler, start, ...
for _command in COMMANDS:
    main.add_command(_command)

if __name__ == "__main__":
    main()
