"""The operator commands of `fw` beyond serve/migrate (contract §1), added to the `main` group of
engine/cli.py when that module imports this package (its last import line)."""

from __future__ import annotations

import sys

import click

from engine.commands import apps, init, jobs, site, start, translate, users

COMMANDS: list[click.Command] = [
    apps.get_app, apps.install_app, apps.new_app, apps.build,
    site.export_fixtures, site.execute,
    users.set_admin_password, users.add_user,
    translate.extract_messages,
    jobs.worker, jobs.scheduler,
    start.start, init.init,
]


def _cli_group() -> click.Group:
    """engine/cli.py's `main`, also when that file runs as `python -m engine.cli` (as `__main__`)."""
    main_module = sys.modules.get("__main__")
    if getattr(getattr(main_module, "__spec__", None), "name", None) == "engine.cli":
        return main_module.main  # type: ignore[union-attr, no-any-return]
    from engine.cli import main

    return main


for _command in COMMANDS:
    _cli_group().add_command(_command)
