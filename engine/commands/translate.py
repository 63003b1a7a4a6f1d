"""`fw extract-messages APP`: write the app's translatable strings to a CSV template."""

from __future__ import annotations

import click

from engine.commands._base import console, fail, operator_errors
from engine.settings import get_settings


@click.command("extract-messages")
@click.argument("app")
def extract_messages(app: str) -> None:
    """Write apps/APP/translations/template.csv (rows `source,,context`, sorted).

    Copy it to `<lang>.csv` (e.g. `de.csv`) and fill in the second column.
    """
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.messages import extract_messages as extract
    from engine.messages import write_template

    settings = get_settings()
    app_path = settings.apps_dir / app
    if not (app_path / "hooks.py").is_file():
        fail(f"App {app!r} not found: {app_path / 'hooks.py'} does not exist. Fetch it with `fw get-app PATH`.")
    with operator_errors(), console.status(f"Extracting messages of {app}"):
        extraction = extract(app_path)
        target = write_template(app_path, extraction)
    found = ", ".join(f"{extraction.counts[k]} {k}" for k in ("python", "javascript", "doctype", "report"))
    console.print(f"[green]Wrote[/green] {len(extraction.messages)} message(s) to {target} (found {found})")
