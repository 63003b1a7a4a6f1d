"""The operator commands of `fw` beyond serve/migrate (contract §1), which engine/cli.py adds to its
`main` group."""

from __future__ import annotations

import click

from engine.commands import apps, console, init, jobs, maintenance, operations, site, start, translate, users
from engine.commands import data_import as imports

COMMANDS: list[click.Command] = [
    apps.get_app, apps.install_app, apps.new_app, apps.build,
    site.export_fixtures, site.execute,
    users.set_admin_password, users.add_user,
    translate.extract_messages,
    jobs.worker, jobs.scheduler,
    start.start, init.init,
    operations.backup, operations.restore,
    maintenance.run_patch, console.console, maintenance.drop_site, maintenance.uninstall_app,
    maintenance.clear_cache,
    imports.data_import,
]

