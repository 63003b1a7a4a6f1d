"""`fw data-import`: a CSV or Excel file into a doctype as the Administrator, each document in its own
unit of work through the ordinary insert or save (engine/dataimport/), with a progress bar, a summary,
and exit status 0 when every row went in, 1 otherwise (the failed rows' messages printed)."""

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
def data_import(path: Path, doctype: str, kind: str, submit_after_import: bool, mute_emails: bool) -> None:
    """Import the rows of a CSV or Excel file into DOCTYPE."""
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.core.data_import import import_options
    from engine.dataimport import importer
    from engine.dataimport.reader import read_sheet

    async def go(settings: Settings) -> Any:
        async with opened_site(settings) as site:
            ctx = site.context("Administrator")
            meta = ctx.meta(doctype)
            content = path.read_bytes()
            sheet = read_sheet(path.name, content, site.settings.max_file_size)
            for notice in sheet.notices:
                console.print(f"[yellow]{notice}[/yellow]", soft_wrap=True)
            options = importer.Options(data_import=None, doctype=meta.name, import_type=TYPES[kind],
                                       submit_after_import=submit_after_import, mute_emails=mute_emails,
                                       template_options=await import_options(ctx, None))
            with Progress(TextColumn("Importing {task.description}"), BarColumn(), MofNCompleteColumn(),
                          TimeElapsedColumn(), console=console, transient=True) as bar:
                task = bar.add_task(meta.name, total=max((sheet.last_row or 1) - 1, 0) or None)

                async def progress(current: int, count: int, outcome: importer.Outcome) -> None:
                    bar.update(task, completed=current, total=count)

                started = time.perf_counter()
                outcome = await importer.run(ctx, sheet, options, progress)
            return outcome, time.perf_counter() - started

    outcome, seconds = run(go)
    for warning in outcome.warnings:
        console.print(f"[yellow]{warning}[/yellow]", soft_wrap=True)
    failed = len(outcome.failed)
    rate = (outcome.succeeded + failed) / max(seconds, 1e-9)
    colour = "green" if not failed else ("yellow" if outcome.succeeded else "red")
    console.print(f"[{colour}]{outcome.succeeded:,} of {outcome.succeeded + failed:,} documents imported[/{colour}]"
                  f", {failed:,} failed, in {seconds:.1f} s ({rate:,.0f} documents/s)", soft_wrap=True)
    for failure in outcome.failed[:SHOWN_FAILURES]:
        for message in failure["messages"]:
            click.echo(message, err=True)
    if failed > SHOWN_FAILURES:
        click.echo(f"... and {failed - SHOWN_FAILURES:,} more failed documents", err=True)
    if failed:
        click.echo("Fix these rows and import them again (a file of the failed rows only, or the same file with "
                   "--type update for the rows that went in).", err=True)
        sys.exit(1)
