"""`fw backup` and `fw restore` (engine/operations/), with a progress bar on stderr."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from engine.commands._base import console, opened_site, run
from engine.settings import Settings


@contextlib.contextmanager
def document_progress(verb: str) -> Iterator[Callable[[str, int, int], None]]:
    """A rich bar over documents; the callback takes (collection, documents done, documents in all)."""
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("documents"),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task(verb, total=None)

        def update(collection: str, done: int, total: int) -> None:
            bar.update(task, description=f"{verb} {collection}", completed=done, total=total)

        yield update


def _size(count: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if count >= scale:
            return f"{count / scale:,.1f} {unit}"
    return f"{count} bytes"


@click.command("backup")
@click.option("--output", "output", type=click.Path(file_okay=False, path_type=Path),
              help="Folder to put the backup in (default: FW_DATA_DIR/backups).")
@click.option("--encrypt", is_flag=True, help="Encrypt it with FW_BACKUP_ENCRYPTION_KEY (generated on first use).")
def backup(output: Path | None, encrypt: bool) -> None:
    """Back the site up: every collection at one point in time, in mongodump's layout (gzip)."""
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.operations.backup import backup_site
    from engine.operations.keys import ENV_NAME, ensure_key

    async def go(settings: Settings) -> Any:
        key = None
        if encrypt:
            key, written = ensure_key(settings)
            if written is not None:
                console.print(f"[yellow]Generated a backup encryption key and added it to {written}:[/yellow]\n"
                              f"  {ENV_NAME}={key}\nKeep a copy somewhere other than this machine (a password "
                              "manager): without it, no encrypted backup can be restored. It is printed only "
                              "this once.", soft_wrap=True)
        async with opened_site(settings) as site:
            with document_progress("Backing up") as progress:
                return await backup_site(site, output_dir=output, encrypt=encrypt, key=key, progress=progress)

    result = run(go)
    seconds = max(result.seconds, 1e-9)
    console.print(f"[green]Backed up[/green] {result.documents:,} documents of {len(result.manifest.collections)} "
                  f"collections ({_size(result.bytes)}) in {result.seconds:.1f} s "
                  f"({result.documents / seconds:,.0f} documents/s)", soft_wrap=True)
    click.echo(str(result.path))


@click.command("restore")
@click.argument("path", type=click.Path(file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace a site that holds documents (all of them are lost).")
def restore(path: Path, force: bool) -> None:
    """Restore the backup folder PATH into the site, then migrate. Stop fw serve and workers first."""
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.operations.restore import restore_site

    async def go(settings: Settings) -> Any:
        async with opened_site(settings) as site:
            with document_progress("Restoring") as progress:
                return await restore_site(site, path, force=force, progress=progress)

    result = run(go)
    console.print(f"[green]Restored[/green] {result.documents:,} documents of {len(result.manifest.collections)} "
                  f"collections from {path} (site {result.manifest.site}, backed up {result.manifest.created}) "
                  f"in {result.seconds:.1f} s, and migrated. Start fw serve and the workers again.", soft_wrap=True)
