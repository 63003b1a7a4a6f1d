"""`fw run-patch`, `fw drop-site`, `fw uninstall-app` and `fw clear-cache`: the operator's commands
on a site beyond migrate, backup and restore."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from engine.apps.installed import read_apps_txt
from engine.commands._base import console, opened_site, run, status
from engine.settings import Settings, get_settings

if TYPE_CHECKING:
    from engine.site import Site


async def _backup_first(site: Site, what: str) -> None:
    """A backup before something that cannot be undone (`fw backup`'s, in FW_DATA_DIR/backups)."""
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.operations.backup import backup_site

    with status(f"Backing up before {what}") as progress:
        result = await backup_site(site, progress=lambda collection, done, total: progress(f"{collection} {done}"))
    console.print(f"[green]Backed up[/green] {result.documents:,} documents to {result.path} "
                  "(restore it with `fw restore PATH`)", soft_wrap=True)


def remove_from_apps_txt(apps_txt: Path, name: str) -> bool:
    """Drop `name`'s line from apps.txt (comments and the other lines stay); False when not listed."""
    if not apps_txt.exists() or name not in read_apps_txt(apps_txt):
        return False
    kept = [line for line in apps_txt.read_text(encoding="utf-8").splitlines()
            if line.split("#", 1)[0].strip() != name]
    apps_txt.write_text("".join(f"{line}\n" for line in kept), encoding="utf-8")
    return True


@click.command("run-patch")
@click.argument("dotted_path", metavar="DOTTED.PATH")
@click.option("--force", is_flag=True, help="Run it again even if Patch Log says it ran.")
def run_patch(dotted_path: str, force: bool) -> None:
    """Run one patch (a module with execute(ctx), or a function) in its own transaction and log it."""
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.apps import patches

    async def go(settings: Settings) -> bool:
        async with opened_site(settings) as site:
            if not force and dotted_path in await patches.logged(site):
                return False
            with status("Running") as progress:
                await patches.run_one(site, dotted_path, progress)
            return True

    if run(go):
        console.print(f"[green]Ran[/green] {dotted_path}")
    else:
        console.print(f"{dotted_path} has run already (Patch Log); add --force to run it again.")


@click.command("drop-site")
@click.option("--no-backup", is_flag=True, help="Do not take a backup first.")
@click.option("--force", is_flag=True, help="Do not ask for confirmation.")
def drop_site(no_backup: bool, force: bool) -> None:
    """Delete the site's database (after a backup, unless --no-backup)."""
    settings = get_settings()
    if not force:
        click.confirm(f"Drop database {settings.db_name!r} with every document and file of the site"
                      f"{'' if no_backup else ' (a backup is taken first)'}?", abort=True, err=True)

    async def go(settings: Settings) -> str:
        async with opened_site(settings) as site:
            if not no_backup:
                await _backup_first(site, "dropping the site")
            await site.db.drop()
            return site.db.name

    name = run(go)
    console.print(f"[green]Dropped[/green] database {name}. `fw migrate` (or `fw serve`) makes a new, empty site; "
                  "`fw restore PATH` brings a backup back.", soft_wrap=True)


@click.command("uninstall-app")
@click.argument("app")
@click.option("--no-backup", is_flag=True, help="Do not take a backup first.")
@click.option("--dry-run", is_flag=True, help="List what would be removed; change nothing.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
def uninstall_app(app: str, no_backup: bool, dry_run: bool, yes: bool) -> None:
    """Remove APP from the site: its doctypes and their records, its custom fields, property setters,
    fixtures, scheduled job types, reports and module defs; then its line in apps.txt."""
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.apps import uninstaller

    async def go(settings: Settings) -> Any:
        async with opened_site(settings) as site:
            plan = await uninstaller.plan(site, app)
            console.print(f"{'Would remove' if dry_run else 'Removing'} from site {site.name}:")
            for line in plan.lines() or ["(nothing but the app's entry)"]:
                console.print(f"  {line}", soft_wrap=True, markup=False)
            if dry_run:
                return plan
            if not yes:
                click.confirm(f"Uninstall {app}? The records above go for good", abort=True, err=True)
            if not no_backup:
                await _backup_first(site, f"uninstalling {app}")
            with status(f"Uninstalling {app}") as progress:
                await uninstaller.uninstall(site, plan, progress)
            remove_from_apps_txt(settings.apps_txt, app)
            return plan

    run(go)
    if dry_run:
        console.print("Nothing was changed (--dry-run).")
    else:
        console.print(f"[green]Uninstalled[/green] {app} and removed it from apps.txt; restart running fw processes "
                      f"(they still have its code loaded). Its folder apps/{app} is left in place.", soft_wrap=True)


@click.command("clear-cache")
def clear_cache() -> None:
    """Make every fw process of the site drop its caches (meta, roles, sessions) and re-read them."""

    async def go(settings: Settings) -> int:
        # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
        from engine import cache_bus

        async with opened_site(settings) as site:
            await site.meta.bump()
            await cache_bus.announce(site, "all", "")
            return site.meta.version

    version = run(go)
    console.print(f"[green]Cleared[/green] the caches (meta version {version}): every process re-reads its "
                  "definitions at its next request, and with FW_REDIS_URL drops roles and sessions at once too.",
                  soft_wrap=True)
