"""`fw get-app`, `fw install-app`, `fw new-app` and `fw build`: apps on disk and on the site."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

from engine.commands._base import append_to_apps_txt, console, fail, opened_site, operator_errors, run, status
from engine.settings import Settings, get_settings

IGNORED = ("__pycache__", "*.pyc", ".git", "node_modules", ".pytest_cache", ".ruff_cache")


def _tree(root: Path) -> dict[str, bytes]:
    """Relative path → content of every file under `root` that get-app copies."""
    ignore = shutil.ignore_patterns(*IGNORED)
    out: dict[str, bytes] = {}

    def walk(folder: Path) -> None:
        names = sorted(p.name for p in folder.iterdir())
        skipped = ignore(str(folder), names)
        for name in names:
            if name in skipped:
                continue
            path = folder / name
            if path.is_dir():
                walk(path)
            else:
                out[path.relative_to(root).as_posix()] = path.read_bytes()

    walk(root)
    return out


def _build_assets(settings: Settings) -> None:
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.assets import build

    with status("Building assets") as progress:
        manifest = build(settings, progress)
    count = sum(len(a["files"]) for a in manifest["apps"].values())
    console.print(f"[green]Built[/green] {count} asset file(s) into {settings.root_dir / 'assets'}")


@click.command("get-app")
@click.argument("path", type=click.Path(file_okay=False, path_type=Path))
@click.option("--skip-assets", is_flag=True, help="Do not run `fw build` afterwards (what CI does).")
def get_app(path: Path, skip_assets: bool) -> None:
    """Copy the app folder PATH (the one holding hooks.py) into apps/ and add it to apps.txt.

    Run `fw install-app NAME` next to install it on the site.
    """
    settings = get_settings()
    src = path.expanduser().resolve()
    if not (src / "hooks.py").is_file():
        fail(f"{src} is not an fw app: it has no hooks.py. Give the app's own folder (the package "
             "holding hooks.py), e.g. `fw get-app ../library/library`.")
    name = src.name
    if not name.isidentifier() or name != name.lower():
        fail(f"App folder name {name!r} is not a lowercase Python identifier; rename the folder.")
    dest = settings.apps_dir / name
    if dest.exists() and dest.resolve() != src:
        if _tree(dest) != _tree(src):
            fail(f"App {name!r} already exists at {dest} with different content. Remove that folder first "
                 "if you mean to replace it.")
        console.print(f"App {name!r} is already in {dest} (same content).")
    elif not dest.exists():
        settings.apps_dir.mkdir(parents=True, exist_ok=True)
        shutil.copytree(src, dest, ignore=shutil.ignore_patterns(*IGNORED))
        console.print(f"[green]Copied[/green] {src} → {dest}")
    if append_to_apps_txt(settings.apps_txt, name):
        console.print(f"[green]Added[/green] {name} to {settings.apps_txt}")
    if not skip_assets:
        with operator_errors():
            _build_assets(settings)
    console.print(f"Next: `fw install-app {name}`")


@click.command("install-app")
@click.argument("app")
def install_app(app: str) -> None:
    """Install APP on the site: its required apps first, its fixtures, then its after_install hooks.

    Migrates first (idempotent), so a fresh database works.
    """
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.apps.installed import read_apps_txt
    from engine.apps.installer import install_app as install
    from engine.migrate import migrate

    settings = get_settings()
    if app not in read_apps_txt(settings.apps_txt):
        fail(f"App {app!r} is not in {settings.apps_txt}. Fetch it first with `fw get-app PATH` "
             "(or create one with `fw new-app`).")

    async def go(settings: Settings) -> list[str]:
        async with opened_site(settings) as site:
            with status("Migrating") as progress:
                await migrate(site, progress=progress, install=False)
            with status("Installing") as progress:
                return await install(site, app, progress)

    done = run(go)
    if done:
        console.print(f"[green]Installed[/green] {', '.join(done)} on site {settings.db_name}")
    else:
        console.print(f"App {app!r} is already installed on site {settings.db_name}; nothing to do.")


@click.command("new-app")
@click.argument("name")
def new_app(name: str) -> None:
    """Create a working app NAME under apps/ (a sample doctype, API, translations, JS, tests)."""
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.apps.installed import read_apps_txt
    from engine.commands.scaffold import create_app, name_problem

    settings = get_settings()
    problem = name_problem(name, settings.apps_dir, read_apps_txt(settings.apps_txt))
    if problem:
        fail(problem)
    created = create_app(settings.apps_dir, name)
    append_to_apps_txt(settings.apps_txt, name)
    console.print(f"[green]Created[/green] app {name!r} in {settings.apps_dir / name} ({len(created)} files) "
                  f"and added it to {settings.apps_txt}")
    console.print(f"Next: `fw migrate && fw install-app {name}`, then `fw build` for its JS")


@click.command("build")
def build() -> None:
    """Collect the installed apps' JS/CSS into <root>/assets (served at /assets); run after a change."""
    with operator_errors():
        _build_assets(get_settings())
