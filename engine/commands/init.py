"""`fw init PATH`: a new site folder (Frappe's `bench init` + `bench new-site`) for fw installed as a
package: `apps.txt`, `apps/`, `doctype_json/` (drop-in doctypes) and a `.env`, optionally with the
reference apps. Run fw's commands inside it (`cd PATH && fw start`): the settings' defaults
(`FW_ROOT_DIR=.`, `FW_DATA_DIR=./.fw`) and `.env` are read from the current folder."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import click

import engine
from engine.commands._base import console, fail

DEMO_APPS = ("hr", "workforce_scoring")
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "node_modules", ".pytest_cache")

ENV_TEMPLATE = """\
# Settings of this fw site (README "Configuration"); FW_* environment variables override them.
FW_DB_NAME={db_name}
# Administrator's password when the site is created (unset: a random one is printed once).
# FW_ADMIN_PASSWORD=
# A MongoDB replica set of your own (unset: the embedded MongoDB, its data in ./.fw).
# FW_MONGO_URL=mongodb://127.0.0.1:27017/?replicaSet=rs0
# Redis for background workers, realtime and caches (unset: jobs run in-process).
# FW_REDIS_URL=redis://127.0.0.1:6379/0
"""
DOCTYPE_JSON_README = """\
Drop-in doctypes of this site: each <scrubbed name>.json here is a doctype in an app's JSON format
(it must name its "module"); `fw migrate` loads them. See fw's README, "Add a doctype in one minute".
"""


def demo_apps_dir() -> Path | None:
    """Where this installation keeps the reference apps: inside the installed package (a wheel, see
    setup.py), or the `apps/` folder of a source checkout."""
    package = Path(engine.__file__).resolve().parent
    for folder in (package / "demo_apps", package.parent / "apps"):
        if all((folder / app / "hooks.py").is_file() for app in DEMO_APPS):
            return folder
    return None


def db_name_for(path: Path) -> str:
    """A database name from the folder's name (MongoDB forbids `/\\. "$` and more in names)."""
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", path.resolve().name).strip("_-")
    return (name or "fw")[:60]


@click.command("init")
@click.argument("path", type=click.Path(path_type=Path, file_okay=False))
@click.option("--with-demo-apps", is_flag=True, help="Add the reference apps hr and workforce_scoring.")
def init(path: Path, with_demo_apps: bool) -> None:
    """Create a site folder PATH: apps.txt, apps/, doctype_json/ and .env (the database is named after the folder)."""
    if path.exists() and any(path.iterdir()):
        fail(f"{path} already exists and is not empty; choose a new folder.")
    source = demo_apps_dir() if with_demo_apps else None
    if with_demo_apps and source is None:
        fail("The reference apps are not part of this installation (they ship in fw's wheel and in its "
             "repository's apps/); reinstall fw from its wheel, or fetch apps with `fw get-app PATH`.")
    (path / "apps").mkdir(parents=True, exist_ok=True)
    (path / "doctype_json").mkdir()
    (path / "doctype_json" / "README.md").write_text(DOCTYPE_JSON_README, encoding="utf-8")
    apps: list[str] = []
    if source is not None:
        for app in DEMO_APPS:
            shutil.copytree(source / app, path / "apps" / app, ignore=IGNORED)
            apps.append(app)
    (path / "apps.txt").write_text("".join(f"{app}\n" for app in apps), encoding="utf-8")
    (path / ".env").write_text(ENV_TEMPLATE.format(db_name=db_name_for(path)), encoding="utf-8")
    with_apps = f" with {', '.join(apps)}" if apps else ""
    console.print(f"[green]Created[/green] site folder {path}{with_apps} (database {db_name_for(path)!r}).",
                  soft_wrap=True)
    console.print(f"Next: `cd {path} && fw start` (or `fw migrate` first; `fw new-app NAME` for an app of your own, "
                  "or a doctype's JSON in doctype_json/)", soft_wrap=True)
