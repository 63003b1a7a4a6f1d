"""`fw data-import`: a CSV or Excel file into a doctype, as the Administrator or `--user`, through a
Data Import record as the Desk's form makes one (engine/core/data_import.py, engine/dataimport/): the
same checks, per-row log, status and "Retry Failed Rows" in the Desk. A progress bar, a summary naming
the record, and exit status 0 when every row went in, 1 otherwise (the failed rows' messages printed),
2 for a file that cannot be read (nothing written)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from engine.commands._base import console, opened_site, run
from engine.settings import Settings

TYPES = {"insert": "Insert New Records", "update": "Update Existing Records"}
SHOWN_FAILURES = 50


@click.command("data-import")
@click.option("--doctype", required=True, help="The doctype to import into.")
@click.option("--file", "path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A CSV or Excel (.xlsx) file; its first row names the columns (as the template does).")
@click.option("--type", "kind", type=click.Choice(sorted(TYPES)), default="insert", show_default=True,
              help="insert: new documents; update: change the documents named in the ID column.")
@click.option("--submit-after-import", is_flag=True, help="Submit each imported document (submittable doctypes).")
@click.option("--mute-emails", is_flag=True, help="Send no emails while importing.")
@click.option("--user", default="Administrator", show_default=True,
              help="Import as this user: their permissions and User Permissions apply, and they own the documents.")
def data_import(path: Path, doctype: str, kind: str, submit_after_import: bool, mute_emails: bool, user: str) -> None:
    """Import the rows of a CSV or Excel file into DOCTYPE."""
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine import exceptions as exc
    from engine.context import unit_of_work
    from engine.core.data_import import DATA_IMPORT, run_import
    from engine.dataimport import importer
    from engine.dataimport.reader import read_sheet
    from engine.documents.factory import new_doc
    from engine.files.upload import save_file
    from engine.query.listing import exists

    async def go(settings: Settings) -> Any:
        async with opened_site(settings) as site:
            admin = site.context("Administrator")
            if not await exists(admin, "User", {"name": user, "enabled": 1}):
                raise exc.ValidationError(f"--user {user}: no enabled user of that name", field="user")
            ctx = site.context(user)
            meta = ctx.meta(doctype)
            content = path.read_bytes()
            sheet = read_sheet(path.name, content, site.settings.max_file_size)  # (refused here: nothing written)
            for notice in sheet.notices:
                console.print(f"[yellow]{notice}[/yellow]", soft_wrap=True)
            async with unit_of_work(ctx):  # the Data Import, as the Desk's form makes it, with its file
                file = await save_file(ctx, content, path.name, is_private=True)
                record = await new_doc(ctx, DATA_IMPORT, reference_doctype=meta.name, import_type=TYPES[kind],
                                       import_file=file.file_url, submit_after_import=int(submit_after_import),
                                       mute_emails=int(mute_emails)).insert()
            with Progress(TextColumn("Importing {task.description}"), BarColumn(), MofNCompleteColumn(),
                          TimeElapsedColumn(), console=console, transient=True) as bar:
                task = bar.add_task(meta.name, total=max((sheet.last_row or 1) - 1, 0) or None)

                async def progress(current: int, count: int, outcome: importer.Outcome) -> None:
                    bar.update(task, completed=current, total=count)

                started = time.perf_counter()
                _status, outcome = await run_import(ctx, str(record.name), progress)
            return str(record.name), outcome, time.perf_counter() - started

    name, outcome, seconds = run(go)
    for warning in outcome.warnings:
        console.print(f"[yellow]{warning}[/yellow]", soft_wrap=True)
    failed = outcome.failed_count
    rate = (outcome.succeeded + failed) / max(seconds, 1e-9)
    colour = "green" if not failed else ("yellow" if outcome.succeeded else "red")
    console.print(f"[{colour}]{outcome.succeeded:,} of {outcome.succeeded + failed:,} documents imported[/{colour}]"
                  f", {failed:,} failed, in {seconds:.1f} s ({rate:,.0f} documents/s); its log: Data Import {name} "
                  f"(/app/data-import/{name})", soft_wrap=True)
    for failure in outcome.failed[:SHOWN_FAILURES]:
        for message in failure["messages"]:
            click.echo(message, err=True)
    if failed > SHOWN_FAILURES:
        click.echo(f"... and {failed - SHOWN_FAILURES:,} more failed documents", err=True)
    if failed:
        click.echo(f"Fix these rows and import them again: attach the corrected file to Data Import {name} in the "
                   "Desk and Retry Failed Rows, or import a file of the failed rows only.", err=True)
        sys.exit(1)
