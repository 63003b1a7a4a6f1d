"""Data migrations (engine/apps/patches.py): patches.txt parsing, each patch once per site in order
(pre before the schema sync, post after), in its own unit of work with its Patch Log record; a failing
patch leaves nothing and runs again next time; a new install records its patches as skipped;
`fw.rename_field` on documents and on child rows."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

import engine as fw
from engine import exceptions as exc
from engine.apps import patches
from engine.apps.installer import install_app
from engine.apps.registry import AppRegistry
from engine.context import Context, unit_of_work
from engine.documents import store
from engine.migrate import migrate
from engine.settings import Settings
from engine.site import Site
from tests.engine.temp_apps import doctype_json, forget_apps, reset_site, temp_registry, temp_site, unique, write_app

APP = unique("patchy")
ITEM, ROW = "Patchy Item", "Patchy Row"

PATCH_CODE = '''
import engine as fw

RUNS: list[str] = []


def execute(ctx):
    RUNS.append("{name}")
'''

FAILING = '''
import engine as fw


async def execute(ctx):
    await fw.new_doc(ctx, "Patchy Item", title="written by the failing patch").insert()
    if ctx.site.settings.admin_password != "never":
        raise RuntimeError("the data is not what this patch expects")
'''


def test_patches_txt_sections_comments_and_errors() -> None:
    text = "a.one\n\n# a comment\n[pre_model_sync]\nb.two  # trailing\n[post_model_sync]\nc.three\n"
    assert patches.read_patches_txt(text, "x") == [("post_model_sync", "a.one"), ("pre_model_sync", "b.two"),
                                                    ("post_model_sync", "c.three")]
    with pytest.raises(exc.ConfigurationError, match="x:1: unknown section"):
        patches.read_patches_txt("[during_sync]\n", "x")
    with pytest.raises(exc.ConfigurationError, match=r"x:2: 'execute:frappe\.db\.sql' is not a dotted path"):
        patches.read_patches_txt("ok.path\nexecute:frappe.db.sql\n", "x")


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppRegistry]:
    apps_dir = tmp_path_factory.mktemp("patch-apps")
    fields = [{"fieldname": "title", "fieldtype": "Data", "label": "Title"},
              {"fieldname": "rows", "fieldtype": "Table", "options": ROW, "label": "Rows"}]
    write_app(apps_dir, APP, "", {
        "doctype/patchy_item/patchy_item.json": doctype_json(ITEM, fields),
        "doctype/patchy_row/patchy_row.json": doctype_json(
            ROW, [{"fieldname": "qty", "fieldtype": "Int", "label": "Qty"}], istable=1),
        "patches/__init__.py": "",
        "patches/first.py": PATCH_CODE.format(name="first"),
        "patches/early.py": PATCH_CODE.format(name="early"),
        "patches/failing.py": FAILING,
        "patches/functions.py": "RUNS = []\n\n\nasync def second(ctx):\n    RUNS.append('second')\n",
    })
    try:
        yield temp_registry(apps_dir, [APP])
    finally:
        forget_apps(apps_dir, [APP])


@pytest.fixture(scope="module")
async def module_site(settings: Settings, registry: AppRegistry) -> AsyncIterator[Site]:
    async with temp_site(settings, registry, "fw_patches") as site:
        yield site


@pytest.fixture
async def site(module_site: Site) -> Site:
    await reset_site(module_site)
    for module in ("first", "early"):
        runs(module).clear()
    return module_site


def runs(module: str) -> list[str]:
    import importlib

    return importlib.import_module(f"{APP}.patches.{module}").RUNS  # type: ignore[no-any-return]


def write_patches(site: Site, text: str) -> None:
    [app] = site.apps.apps
    (app.path / "patches.txt").write_text(text, encoding="utf-8")


async def log(site: Site) -> list[tuple[str, int]]:
    rows = await store.collection_of(site, "Patch Log").find({}).sort("creation", 1).to_list(None)
    return sorted((r["patch"], r["skipped"]) for r in rows)


async def test_installing_records_the_patches_as_skipped_and_runs_none(site: Site) -> None:
    write_patches(site, f"{APP}.patches.first\n")
    await install_app(site, APP)
    assert await log(site) == [(f"{APP}.patches.first", 1)]
    await migrate(site)
    assert runs("first") == []


async def test_migrate_runs_new_patches_once_in_order_pre_before_post(site: Site) -> None:
    write_patches(site, "")
    await install_app(site, APP)
    write_patches(site, f"{APP}.patches.first\n[pre_model_sync]\n{APP}.patches.early\n"
                        f"[post_model_sync]\n{APP}.patches.functions.second\n")
    report = await migrate(site)
    assert report.patches_run == [f"{APP}.patches.early", f"{APP}.patches.first", f"{APP}.patches.functions.second"]
    assert "patches run:" in report.summary()
    assert runs("early") == ["early"] and runs("first") == ["first"]
    assert await log(site) == [(f"{APP}.patches.early", 0), (f"{APP}.patches.first", 0),
                               (f"{APP}.patches.functions.second", 0)]
    again = await migrate(site)
    assert again.patches_run == []
    assert runs("first") == ["first"]  # once


async def test_a_failing_patch_stops_the_migrate_leaves_nothing_and_runs_again(site: Site) -> None:
    write_patches(site, "")
    await install_app(site, APP)
    write_patches(site, f"{APP}.patches.first\n{APP}.patches.failing\n{APP}.patches.early\n")
    with pytest.raises(exc.ConfigurationError, match=rf"Patch {APP}.patches.failing failed: RuntimeError: the data"):
        await migrate(site)
    assert runs("first") == ["first"] and runs("early") == []  # the ones before it ran; the ones after not
    assert await log(site) == [(f"{APP}.patches.first", 0)]
    assert await store.collection_of(site, ITEM).count_documents({}) == 0  # its write rolled back
    with pytest.raises(exc.ConfigurationError, match="failing failed"):  # tried again next time
        await migrate(site)
    assert runs("first") == ["first"]


async def test_run_one_and_unresolvable_paths(site: Site) -> None:
    await patches.run_one(site, f"{APP}.patches.first")
    await patches.run_one(site, f"{APP}.patches.first")  # (the command decides whether to force)
    assert runs("first") == ["first", "first"]
    with pytest.raises(exc.ConfigurationError, match="no callable 'missing'"):
        await patches.run_one(site, f"{APP}.patches.missing")
    with pytest.raises(exc.ConfigurationError, match="has no execute"):
        await patches.run_one(site, f"{APP}.patches")


async def test_rename_field_moves_values_in_documents_and_child_rows(site: Site) -> None:
    ctx: Context = site.context("Administrator")
    items = store.collection_of(site, ITEM)
    await items.insert_many([
        {"_id": "a", "old_title": "Alpha", "rows": [{"name": "r1", "old_qty": 3, "idx": 1}, {"name": "r2", "idx": 2}]},
        {"_id": "b", "title": "kept"}])
    async with unit_of_work(ctx):
        assert await fw.rename_field(ctx, ITEM, "old_title", "title") == 1
        assert await fw.rename_field(ctx, ROW, "old_qty", "qty") == 1
    a = await items.find_one({"_id": "a"})
    assert a is not None and a["title"] == "Alpha" and "old_title" not in a
    assert a["rows"] == [{"name": "r1", "qty": 3, "idx": 1}, {"name": "r2", "idx": 2}]
    assert await items.find_one({"_id": "b"}) == {"_id": "b", "title": "kept"}
    with pytest.raises(exc.DataError, match="has no field nope"):
        await fw.rename_field(ctx, ITEM, "title", "nope")
