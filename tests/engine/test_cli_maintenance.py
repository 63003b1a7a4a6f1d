"""The operator's site commands as real `fw` processes against the session's mongod (business.md §4):
`fw console` driven through its stdin (top-level await, writes kept only after `await ctx.commit()`),
patches in `fw migrate` and `fw run-patch`, `fw uninstall-app` (--dry-run first, then with its backup),
`fw drop-site` (asks first; a backup before) and `fw clear-cache`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engine.constants import STATE_COLLECTION
from tests.engine.cli_apps import write_cliapp, write_files
from tests.engine.test_cli import Bench, bench  # noqa: F401  (a fixture)


def console(b: Bench, script: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "engine.cli", "console"], cwd=b.root, env=b.env(), input=script,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}"
    return proc


def installed(b: Bench) -> Bench:
    write_cliapp(b.root / "apps")
    b.apps_txt.write_text("cliapp\n", encoding="utf-8")
    b.fw("install-app", "cliapp")
    return b


def things(b: Bench) -> set[str]:
    with b.db() as client:
        return {str(row["_id"]) for row in client[b.db_name]["cli_thing"].find({}, {"_id": 1})}


def test_console_commits_only_when_asked(bench: Bench) -> None:  # noqa: F811
    b = installed(bench)
    first = console(b, 'doc = await fw.new_doc(ctx, "CLI Thing", title="dropped").insert()\n'
                       'print("inserted", doc.name, await fw.exists(ctx, "CLI Thing", "dropped"))\n')
    assert "inserted dropped" in first.stdout
    assert "Rolled back 1 uncommitted write" in first.stderr
    assert "dropped" not in things(b)
    second = console(b, 'await fw.new_doc(ctx, "CLI Thing", title="kept").insert()\n'
                        "await ctx.commit()\n"
                        'await fw.new_doc(ctx, "CLI Thing", title="after").insert()\n'
                        'print("sees", bool(await fw.exists(ctx, "CLI Thing", "after")))\n'
                        "1 / 0\n"
                        'print("still here")\n')
    assert "sees True" in second.stdout and "still here" in second.stdout
    assert "ZeroDivisionError" in second.stderr  # a failing statement is shown; the console goes on
    assert things(b) == {"kept"}


PATCH_ONE = '''import engine as fw


async def execute(ctx):
    await fw.new_doc(ctx, "CLI Thing", title="from a patch").insert()
'''
PATCH_BAD = '''def execute(ctx):
    raise RuntimeError("the data is not what this patch expects")
'''


def test_patches_run_once_in_migrate_a_failing_one_stops_it_and_run_patch(bench: Bench) -> None:  # noqa: F811
    b = installed(bench)
    app = b.root / "apps" / "cliapp"
    write_files(app, {"patches/__init__.py": "", "patches/one.py": PATCH_ONE, "patches/bad.py": PATCH_BAD,
                      "patches.txt": "[post_model_sync]\ncliapp.patches.one\ncliapp.patches.bad\n"})
    failed = b.fw("migrate", expect=2)
    assert "Patch cliapp.patches.bad failed: RuntimeError: the data is not what this patch expects" in failed.stderr
    assert "from a patch" in things(b)  # the patch before it ran and was kept
    (app / "patches.txt").write_text("[post_model_sync]\ncliapp.patches.one\n", encoding="utf-8")
    again = b.fw("migrate")
    assert "patches run" not in again.stderr  # one ran already: not again
    with b.db() as client:
        assert [r["patch"] for r in client[b.db_name]["patch_log"].find()] == ["cliapp.patches.one"]
    out = b.fw("run-patch", "cliapp.patches.one")
    assert "has run already" in out.stderr
    forced = b.fw("run-patch", "cliapp.patches.one", "--force", expect=2)  # the title is taken now
    assert "Patch cliapp.patches.one failed: DuplicateEntryError" in forced.stderr


def test_uninstall_app_dry_run_then_for_real_with_a_backup(bench: Bench) -> None:  # noqa: F811
    b = installed(bench)
    b.fw("execute", "cliapp.api.make_thing", "--kwargs", '{"title": "t1"}')
    write_files(b.root / "apps" / "cliapp", {"fixtures/role.json": '[{"doctype": "Role", "name": "CLI Role"}]'})
    dry = b.fw("uninstall-app", "cliapp", "--dry-run")
    assert "CLI Thing: the doctype and its 1 records" in dry.stderr
    assert "Role: CLI Role" in dry.stderr  # a record of its fixtures
    assert "Nothing was changed (--dry-run)" in dry.stderr
    assert things(b) == {"t1"} and b.apps_txt.read_text() == "cliapp\n"
    done = b.fw("uninstall-app", "cliapp", "--yes")
    assert "Backed up" in done.stderr and "Uninstalled cliapp" in done.stderr
    assert list((b.root / ".fw" / "backups").iterdir())
    assert b.apps_txt.read_text() == ""
    with b.db() as client:
        database = client[b.db_name]
        assert "cli_thing" not in database.list_collection_names()
        assert database["doctype"].find_one({"_id": "CLI Thing"}) is None
        assert database["role"].find_one({"_id": "CLI Role"}) is None
        assert "cliapp" not in (database[STATE_COLLECTION].find_one({"_id": "installed_apps"}) or {}).get("apps", [])
    b.fw("migrate")  # the site works without it
    missing = b.fw("uninstall-app", "cliapp", expect=2)
    assert "is not in apps.txt" in missing.stderr


def test_drop_site_asks_then_backs_up_and_drops(bench: Bench) -> None:  # noqa: F811
    b = bench
    b.fw("migrate")
    refused = b.fw("drop-site", expect=1)  # no answer to the question: nothing happens
    assert "Aborted" in refused.stderr
    with b.db() as client:
        assert b.db_name in client.list_database_names()
    done = b.fw("drop-site", "--force")
    assert "Backed up" in done.stderr and f"Dropped database {b.db_name}" in done.stderr
    [backup] = (b.root / ".fw" / "backups").iterdir()
    assert (backup / "fw-backup.json").exists()
    with b.db() as client:
        assert b.db_name not in client.list_database_names()


def test_clear_cache_bumps_the_meta_version(bench: Bench) -> None:  # noqa: F811
    b = bench
    b.fw("migrate")
    with b.db() as client:
        before = (client[b.db_name][STATE_COLLECTION].find_one({"_id": "meta"}) or {}).get("version", 0)
    out = b.fw("clear-cache")
    assert "Cleared" in out.stderr
    with b.db() as client:
        assert client[b.db_name][STATE_COLLECTION].find_one({"_id": "meta"})["version"] == before + 1


def test_new_app_scaffolds_an_empty_patches_txt(bench: Bench) -> None:  # noqa: F811
    bench.fw("new-app", "patched_app")
    patches_txt: Path = bench.root / "apps" / "patched_app" / "patches.txt"
    assert patches_txt.exists()
    assert "[post_model_sync]" in patches_txt.read_text()
