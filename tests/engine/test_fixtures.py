"""Fixtures (contract §4, reference §8.1): export writes one JSON list per hooks `fixtures` entry
without volatile fields and refuses a doctype without `module`; import upserts by name, changes
nothing the second time, never deletes and re-inserts, is atomic per file, and takes Workflows
before their Workflow State / Workflow Action Master records exist."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import exceptions as exc
from engine.apps.fixtures import ImportReport, export_fixtures, import_app_fixtures, import_file
from engine.apps.installed import App
from engine.apps.registry import AppRegistry
from engine.context import Context, unit_of_work
from engine.documents.factory import get_doc, new_doc
from engine.query.listing import get_all
from engine.settings import Settings
from engine.site import Site
from tests.engine.temp_apps import doctype_json, forget_apps, reset_site, temp_registry, temp_site, unique, write_app

APP = unique("fxapp")
BAD = unique("fxbad")
HOOKS = '''
fixtures = [
    {"dt": "Role", "filters": [["name", "in", ["FX Role A", "FX Role B"]]]},
    {"dt": "FX Thing", "filters": [["kind", "=", "Large"]]},
    {"dt": "Workflow", "filters": [["document_type", "=", "FX Thing"]]},
    "FX Settings",
]
'''


@pytest.fixture(scope="module")
def apps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[AppRegistry, App, App]]:
    apps_dir = tmp_path_factory.mktemp("fixture-apps")
    write_app(apps_dir, APP, HOOKS, {
        "doctype/__init__.py": "",
        "doctype/fx_thing/__init__.py": "",
        "doctype/fx_thing/fx_thing.json": doctype_json("FX Thing", [
            {"fieldname": "title", "fieldtype": "Data", "label": "Title", "reqd": 1},
            {"fieldname": "value", "fieldtype": "Int", "label": "Value"},
            {"fieldname": "kind", "fieldtype": "Select", "label": "Kind", "options": "Small\nLarge",
             "default": "Small"},
            {"fieldname": "items", "fieldtype": "Table", "label": "Items", "options": "FX Thing Item"},
        ], module="FX App", autoname="field:title"),
        "doctype/fx_thing_item/__init__.py": "",
        "doctype/fx_thing_item/fx_thing_item.json": doctype_json("FX Thing Item", [
            {"fieldname": "item", "fieldtype": "Data", "label": "Item", "reqd": 1},
            {"fieldname": "qty", "fieldtype": "Int", "label": "Qty", "default": "1"},
        ], module="FX App", istable=1),
        "doctype/fx_settings/__init__.py": "",
        "doctype/fx_settings/fx_settings.json": doctype_json("FX Settings", [
            {"fieldname": "threshold", "fieldtype": "Int", "label": "Threshold"},
            {"fieldname": "mode", "fieldtype": "Data", "label": "Mode"},
        ], module="FX App", issingle=1),
    })
    write_app(apps_dir, BAD, 'fixtures = ["FX Loose"]\n', {
        "doctype/__init__.py": "",
        "doctype/fx_loose/__init__.py": "",
        "doctype/fx_loose/fx_loose.json": doctype_json(
            "FX Loose", [{"fieldname": "note", "fieldtype": "Data", "label": "Note"}], module=None),
    })
    try:
        registry = temp_registry(apps_dir, [APP, BAD])
        by_name = {a.name: a for a in registry.apps}
        yield registry, by_name[APP], by_name[BAD]
    finally:
        forget_apps(apps_dir, [APP, BAD])


@pytest.fixture(scope="module")
async def module_site(settings: Settings, apps: tuple[AppRegistry, App, App]) -> AsyncIterator[Site]:
    async with temp_site(settings, apps[0], "fw_fixtures") as site:
        yield site


@pytest.fixture
async def fx(module_site: Site, apps: tuple[AppRegistry, App, App]) -> tuple[Site, Context, App]:
    """An emptied site and the app, with no fixture files yet."""
    await reset_site(module_site)
    app = apps[1]
    folder = app.path / "fixtures"
    if folder.exists():
        for path in folder.iterdir():
            path.unlink()
    return module_site, module_site.context("Administrator"), app


async def make_records(ctx: Context) -> None:
    async with unit_of_work(ctx):
        for role in ("FX Role A", "FX Role B", "FX Role C"):
            await new_doc(ctx, "Role", role_name=role, description=f"{role} description").insert()
        await new_doc(ctx, "FX Thing", title="Big One", value=10, kind="Large",
                      items=[{"item": "bolt", "qty": 2}, {"item": "nut"}]).insert()
        await new_doc(ctx, "FX Thing", title="Big Two", value=20, kind="Large").insert()
        await new_doc(ctx, "FX Thing", title="Small One", value=1, kind="Small").insert()
        await new_doc(ctx, "Workflow", workflow_name="FX Flow", document_type="FX Thing", is_active=1,
                      states=[{"state": "Draft", "doc_status": "0"}, {"state": "Checked", "doc_status": "0"}],
                      transitions=[{"state": "Draft", "action": "Check", "next_state": "Checked",
                                    "allowed": "FX Role A"}]).insert()
        settings = await get_doc(ctx, "FX Settings")
        settings.update({"threshold": 7, "mode": "strict"})
        await settings.save()


def read(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


def write(path: Path, docs: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(docs, indent=1), encoding="utf-8")
    return path


async def stamps(ctx: Context, doctype: str) -> dict[str, tuple[str, str]]:
    rows = await get_all(ctx, doctype, fields=["name", "creation", "modified"])
    return {r["name"]: (r["creation"], r["modified"]) for r in rows}


# -- export -------------------------------------------------------------------------------------

async def test_export_writes_one_file_per_entry_honouring_filters(fx: tuple[Site, Context, App]) -> None:
    site, ctx, app = fx
    await make_records(ctx)
    written = await export_fixtures(site, app)
    folder = app.path / "fixtures"
    assert written == [folder / "role.json", folder / "fx_thing.json", folder / "workflow.json",
                       folder / "fx_settings.json"]
    assert sorted(p.name for p in folder.iterdir()) == ["fx_settings.json", "fx_thing.json", "role.json",
                                                        "workflow.json"]

    roles = read(folder / "role.json")
    assert sorted(r["name"] for r in roles) == ["FX Role A", "FX Role B"]  # FX Role C is filtered out
    things = read(folder / "fx_thing.json")
    assert sorted(t["name"] for t in things) == ["Big One", "Big Two"]  # only kind = Large
    flows = read(folder / "workflow.json")
    assert [w["name"] for w in flows] == ["FX Flow"]
    settings = read(folder / "fx_settings.json")  # a Single: its one document
    assert [(s["name"], s["threshold"], s["mode"]) for s in settings] == [("FX Settings", 7, "strict")]


async def test_export_of_a_single_never_saved_is_empty(fx: tuple[Site, Context, App]) -> None:
    site, _ctx, app = fx
    await export_fixtures(site, app)
    assert read(app.path / "fixtures" / "fx_settings.json") == []


async def test_export_strips_volatile_fields(fx: tuple[Site, Context, App]) -> None:
    site, ctx, app = fx
    await make_records(ctx)
    await export_fixtures(site, app)
    things = {t["name"]: t for t in read(app.path / "fixtures" / "fx_thing.json")}
    big = things["Big One"]
    for key in ("modified_by", "creation", "owner", "idx"):
        assert key not in big, key
    for key in ("name", "modified", "docstatus", "doctype"):
        assert key in big, key
    assert big["doctype"] == "FX Thing" and big["docstatus"] == 0 and big["value"] == 10
    assert big["items"] == [{"item": "bolt", "qty": 2}, {"item": "nut", "qty": 1}]  # child rows: values only
    assert "items" not in things["Big Two"] or things["Big Two"]["items"] == []
    flow = read(app.path / "fixtures" / "workflow.json")[0]
    for row in (*flow["states"], *flow["transitions"]):
        for key in ("docstatus", "doctype", "modified", "name", "parent", "parentfield", "parenttype", "idx",
                    "owner", "creation", "modified_by"):
            assert key not in row, (key, row)
    assert [s["state"] for s in flow["states"]] == ["Draft", "Checked"]


async def test_export_refuses_a_doctype_without_module(fx: tuple[Site, Context, App],
                                                        apps: tuple[AppRegistry, App, App]) -> None:
    site, _ctx, _app = fx
    bad = apps[2]
    with pytest.raises(exc.ConfigurationError, match="FX Loose") as err:
        await export_fixtures(site, bad)
    assert "module" in err.value.message
    assert not (bad.path / "fixtures").exists()


# -- import -------------------------------------------------------------------------------------

async def test_round_trip_and_idempotent_reimport(fx: tuple[Site, Context, App]) -> None:
    site, ctx, app = fx
    await make_records(ctx)
    await export_fixtures(site, app)
    await reset_site(site)  # a new site: nothing of the app's configuration exists

    first = await import_app_fixtures(site, app)
    assert sorted(first.created) == ["FX Settings FX Settings", "FX Thing Big One", "FX Thing Big Two",
                                     "Role FX Role A", "Role FX Role B", "Workflow FX Flow"]
    assert (await get_doc(ctx, "FX Settings")).threshold == 7
    assert first.updated == []
    big = await get_doc(ctx, "FX Thing", "Big One")
    assert big.value == 10 and big.kind == "Large"
    assert [(r.item, r.qty) for r in big.items] == [("bolt", 2), ("nut", 1)]
    assert (await get_doc(ctx, "Role", "FX Role A")).description == "FX Role A description"
    assert not await ctx.db.collection("role").find_one({"_id": "FX Role C"})
    flow = await get_doc(ctx, "Workflow", "FX Flow")
    assert [t.allowed for t in flow.transitions] == ["FX Role A"]

    before = {dt: await stamps(ctx, dt) for dt in ("FX Thing", "Role", "Workflow", "Workflow State")}
    second = await import_app_fixtures(site, app)
    assert second.created == [] and second.updated == []
    assert second.unchanged == 6
    after = {dt: await stamps(ctx, dt) for dt in ("FX Thing", "Role", "Workflow", "Workflow State")}
    assert after == before  # not even `modified` moved


async def test_import_updates_in_place_and_deletes_nothing(fx: tuple[Site, Context, App]) -> None:
    site, ctx, app = fx
    path = write(app.path / "fixtures" / "fx_thing.json", [
        {"doctype": "FX Thing", "name": "Kept", "title": "Kept", "value": 1, "kind": "Large",
         "items": [{"item": "a", "qty": 1}]},
    ])
    await import_app_fixtures(site, app)
    created, first_modified = (await stamps(ctx, "FX Thing"))["Kept"]
    async with unit_of_work(ctx):  # an edit on the site, and a document the fixtures do not know
        doc = await get_doc(ctx, "FX Thing", "Kept")
        doc.value = 99
        await doc.save()
        await new_doc(ctx, "FX Thing", title="Local Only", kind="Large").insert()

    write(path, [{"doctype": "FX Thing", "name": "Kept", "title": "Kept", "value": 2, "kind": "Large",
                  "items": [{"item": "a", "qty": 1}, {"item": "b", "qty": 5}]}])
    report = await import_app_fixtures(site, app)
    assert report.updated == ["FX Thing Kept"] and report.created == []
    doc = await get_doc(ctx, "FX Thing", "Kept")
    assert doc.value == 2  # the fixture wins over the site's edit
    assert [(r.item, r.qty) for r in doc.items] == [("a", 1), ("b", 5)]
    creation, modified = (await stamps(ctx, "FX Thing"))["Kept"]
    assert creation == created  # updated in place, never deleted and inserted again
    assert modified > first_modified
    assert (await ctx.db.collection("fx_thing").find_one({"_id": "Kept"}))["owner"] == "Administrator"
    assert await ctx.db.collection("fx_thing").find_one({"_id": "Local Only"})  # not removed


async def test_fields_missing_from_the_file_are_left_alone(fx: tuple[Site, Context, App]) -> None:
    site, ctx, app = fx
    async with unit_of_work(ctx):
        await new_doc(ctx, "Role", role_name="FX Role A", description="written on the site").insert()
    write(app.path / "fixtures" / "role.json", [{"doctype": "Role", "name": "FX Role A", "desk_access": 0}])
    report = await import_app_fixtures(site, app)
    assert report.updated == ["Role FX Role A"]
    role = await get_doc(ctx, "Role", "FX Role A")
    assert role.desk_access == 0
    assert role.description == "written on the site"


async def test_invalid_document_rolls_back_its_file_only(fx: tuple[Site, Context, App]) -> None:
    site, ctx, app = fx
    folder = app.path / "fixtures"
    bad = write(folder / "a_things.json", [
        {"doctype": "FX Thing", "name": "First", "title": "First", "kind": "Large"},
        {"doctype": "FX Thing", "name": "Broken", "kind": "Large"},  # title is mandatory
        {"doctype": "FX Thing", "name": "Third", "title": "Third"},
    ])
    write(folder / "b_roles.json", [{"doctype": "Role", "name": "FX Role B", "role_name": "FX Role B"}])
    with pytest.raises(exc.ConfigurationError) as err:
        await import_app_fixtures(site, app)
    message = err.value.message
    assert str(bad) in message and "document #2 (Broken)" in message and "MandatoryError" in message
    assert await get_all(ctx, "FX Thing", pluck="name") == []  # nothing of the failing file
    assert await ctx.db.collection("role").find_one({"_id": "FX Role B"})  # the other file is imported


async def test_unreadable_files_name_the_file(fx: tuple[Site, Context, App]) -> None:
    site, _ctx, app = fx
    folder = app.path / "fixtures"
    folder.mkdir(exist_ok=True)
    (folder / "broken.json").write_text("[{not json", encoding="utf-8")
    with pytest.raises(exc.ConfigurationError, match=r"broken\.json"):
        await import_file(site, folder / "broken.json", ImportReport())
    write(folder / "broken.json", [{"name": "no doctype"}])
    with pytest.raises(exc.ConfigurationError, match=r"broken\.json, document #1 \(no doctype\)"):
        await import_file(site, folder / "broken.json", ImportReport())
    write(folder / "broken.json", [{"doctype": "No Such Doctype", "name": "x"}])
    with pytest.raises(exc.ConfigurationError, match="No Such Doctype"):
        await import_file(site, folder / "broken.json", ImportReport())


async def test_workflow_imports_before_its_states_and_actions_exist(fx: tuple[Site, Context, App]) -> None:
    site, ctx, app = fx
    # written by hand, as apps ship them: no defaults, no Workflow State or Workflow Action Master files
    write(app.path / "fixtures" / "workflow.json", [{
        "doctype": "Workflow", "name": "FX Review", "workflow_name": "FX Review", "document_type": "FX Thing",
        "is_active": 1, "workflow_state_field": "workflow_state",
        "states": [{"state": "Open", "doc_status": "0"}, {"state": "Reviewed", "doc_status": "0"}],
        "transitions": [{"state": "Open", "action": "Review", "next_state": "Reviewed", "allowed": "FX Role A"}],
    }])
    assert not await ctx.db.collection("workflow_state").find_one({"_id": "Open"})
    report = await import_app_fixtures(site, app)
    assert report.created == ["Workflow FX Review"]
    assert {r["_id"] for r in await ctx.db.collection("workflow_state").find({}).to_list(None)} >= {
        "Open", "Reviewed"}
    assert await ctx.db.collection("workflow_action_master").find_one({"_id": "Review"})
    flow = await get_doc(ctx, "Workflow", "FX Review")
    assert [s.state for s in flow.states] == ["Open", "Reviewed"]
    assert flow.transitions[0].allow_self_approval == 1  # the default filled in

    before = await stamps(ctx, "Workflow")
    again = await import_app_fixtures(site, app)
    assert again.created == [] and again.updated == []  # defaults of child rows are not a difference
    assert await stamps(ctx, "Workflow") == before


async def test_workflow_state_fixture_after_the_workflow(fx: tuple[Site, Context, App]) -> None:
    site, ctx, app = fx
    folder = app.path / "fixtures"
    write(folder / "workflow.json", [{
        "doctype": "Workflow", "name": "FX Styled", "workflow_name": "FX Styled", "document_type": "FX Thing",
        "is_active": 1, "states": [{"state": "Pending", "doc_status": "0"}], "transitions": [],
    }])
    write(folder / "workflow_state.json", [
        {"doctype": "Workflow State", "name": "Pending", "workflow_state_name": "Pending", "style": "Warning"},
    ])
    report = await import_app_fixtures(site, app)
    assert "Workflow FX Styled" in report.created
    assert (await get_doc(ctx, "Workflow State", "Pending")).style == "Warning"
    again = await import_app_fixtures(site, app)
    assert again.created == [] and again.updated == []
