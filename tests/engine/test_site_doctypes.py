"""Drop-in doctypes (business.md §7): `doctype_json/<scrubbed>.json` at the site's root is a doctype
after `fw migrate`, in a site module when no app owns its module; a bad file is refused naming the
file and the field, with nothing of any file added; removing a field never deletes stored data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import exceptions as exc
from engine.apps.site_doctypes import site_modules
from engine.context import unit_of_work
from engine.documents import store
from engine.documents.factory import get_doc, new_doc
from engine.migrate import migrate
from engine.settings import Settings
from engine.site import Site
from tests.engine.temp_apps import FULL, forget_apps, temp_registry, temp_site, unique, write_app

PROJECT_FIELDS: list[dict[str, Any]] = [
    {"fieldname": "title", "fieldtype": "Data", "label": "Title", "reqd": 1, "in_list_view": 1},
    {"fieldname": "budget", "fieldtype": "Currency", "label": "Budget"},
    {"fieldname": "owner_user", "fieldtype": "Link", "label": "Owner", "options": "User"},
    {"fieldname": "stage", "fieldtype": "Select", "label": "Stage", "options": "Open\nDone", "default": "Open"},
]


def doctype(name: str, fields: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"doctype": "DocType", "name": name, "module": "Projects", "fields": fields,
                            "permissions": [{"role": "System Manager", **FULL}]}
    data.update(extra)
    return data


def drop(folder: Path, data: dict[str, Any] | str, file_name: str | None = None) -> Path:
    folder.mkdir(exist_ok=True)
    name = file_name or data["name"].lower().replace(" ", "_") + ".json"  # type: ignore[index]
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1), encoding="utf-8")
    return path


def test_a_dropped_file_is_a_doctype_of_a_site_module(tmp_path: Path) -> None:
    folder = tmp_path / "doctype_json"
    drop(folder, doctype("DI Project", PROJECT_FIELDS))
    drop(folder, doctype("DI Task", [{"fieldname": "project", "fieldtype": "Link", "options": "DI Project"}],
                         module="HR"))  # a drop-in may link to another, and use a module an app owns
    registry = temp_registry(tmp_path / "apps", [], folder)
    assert registry.site_doctypes == ["DI Project", "DI Task"]
    assert registry.doctype_app["DI Project"] is None
    assert registry.doctype_source["DI Project"] == str(folder / "di_project.json")
    assert registry.doctypes["DI Project"].fields[0].reqd
    assert site_modules(registry, registry.site_doctypes) == ["Projects", "HR"]  # no app installed here


def test_a_module_an_app_owns_is_no_site_module(tmp_path: Path) -> None:
    app = unique("diapp")
    write_app(tmp_path / "apps", app, "", {
        "doctype/__init__.py": "", "doctype/di_thing/__init__.py": "",
        "doctype/di_thing/di_thing.json": json.dumps(doctype("DI Thing", [], module="Things"))})
    folder = tmp_path / "doctype_json"
    drop(folder, doctype("DI Extra", [], module="Things"))
    drop(folder, doctype("DI Other", [], module="Elsewhere"))
    try:
        registry = temp_registry(tmp_path / "apps", [app], folder)
    finally:
        forget_apps(tmp_path / "apps", [app])
    assert site_modules(registry, registry.site_doctypes) == ["Elsewhere"]


def test_no_folder_or_an_empty_one_adds_nothing(tmp_path: Path) -> None:
    assert temp_registry(tmp_path / "apps", [], tmp_path / "missing").site_doctypes == []
    (tmp_path / "doctype_json").mkdir()
    (tmp_path / "doctype_json" / "README.md").write_text("not a doctype")
    assert temp_registry(tmp_path / "apps", [], tmp_path / "doctype_json").site_doctypes == []


BAD: list[tuple[str, Any, list[str]]] = [
    ("not JSON", '{"name": "DI Bad", "fields": [,]}', ["not valid JSON"]),
    ("not an object", "[1, 2]", ["must hold one JSON object"]),
    ("no module", doctype("DI Bad", PROJECT_FIELDS, module=None), ["names no `module`"]),
    ("unknown fieldtype", doctype("DI Bad", [{"fieldname": "size", "fieldtype": "Huge"}]),
     ["field 'size'", "unknown fieldtype 'Huge'"]),
    ("unknown option", doctype("DI Bad", [{"fieldname": "size", "fieldtype": "Int", "mandatory": 1}]),
     ["field 'size'", "unknown option(s) 'mandatory'"]),
    ("select default", doctype("DI Bad", [{"fieldname": "size", "fieldtype": "Select", "options": "S\nM",
                                           "default": "XL"}]), ["field 'size'", "'XL' is not one of its options"]),
    ("duplicate fieldname", doctype("DI Bad", [{"fieldname": "size", "fieldtype": "Int"},
                                               {"fieldname": "size", "fieldtype": "Data"}]),
     ["field 'size'", "duplicate fieldname"]),
    ("reserved fieldname", doctype("DI Bad", [{"fieldname": "docstatus", "fieldtype": "Int"}]),
     ["fieldname 'docstatus' is reserved"]),
    ("collides with a core doctype", doctype("User", PROJECT_FIELDS), ["'User' collides with the core doctype"]),
    ("file named otherwise", doctype("DI Bad", PROJECT_FIELDS), ["must be in a file named di_bad.json"]),
]


@pytest.mark.parametrize(("case", "content", "said"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_file_is_refused_naming_file_and_field(tmp_path: Path, case: str, content: Any,
                                                     said: list[str]) -> None:
    folder = tmp_path / "doctype_json"
    good = drop(folder, doctype("DI Good", PROJECT_FIELDS))
    file_name = "wrong_name.json" if case == "file named otherwise" else (
        "user.json" if case == "collides with a core doctype" else "di_bad.json")
    bad = drop(folder, content, file_name)
    with pytest.raises(exc.ConfigurationError) as err:
        temp_registry(tmp_path / "apps", [], folder)
    message = err.value.message
    assert str(bad) in message and "nothing was migrated" in message
    assert str(good) not in message  # the good file is not blamed ...
    for words in said:
        assert words in message, message


def test_a_link_to_a_missing_doctype_names_file_and_field(tmp_path: Path) -> None:
    folder = tmp_path / "doctype_json"
    bad = drop(folder, doctype("DI Bad", [{"fieldname": "client", "fieldtype": "Link", "options": "Nowhere"}]))
    with pytest.raises(exc.ConfigurationError) as err:
        temp_registry(tmp_path / "apps", [], folder)
    assert f"{bad}: field 'client' points at unknown doctype 'Nowhere'" in err.value.message


def test_every_bad_file_is_named_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "doctype_json"
    first = drop(folder, doctype("DI One", [{"fieldname": "a", "fieldtype": "Nope"}]))
    second = drop(folder, doctype("DI Two", [], module=""))
    third = drop(folder, doctype("DI Three", [{"fieldname": "two", "fieldtype": "Link", "options": "DI Twoo"}]))
    with pytest.raises(exc.ConfigurationError) as err:
        temp_registry(tmp_path / "apps", [], folder)
    assert str(first) in err.value.message and str(second) in err.value.message
    assert f"{third}: field 'two' points at unknown doctype 'DI Twoo'" in err.value.message


def test_a_doctype_defined_twice_in_the_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "doctype_json"
    drop(folder, doctype("DI Twice", []))
    drop(folder, doctype("DI Twice", []), "di_twice_copy.json")  # the file name check comes later: same name first
    with pytest.raises(exc.ConfigurationError, match="di_twice"):
        temp_registry(tmp_path / "apps", [], folder)


async def test_migrate_loads_it_and_removing_a_field_keeps_the_data(tmp_path: Path, settings: Settings) -> None:
    folder = tmp_path / "doctype_json"
    drop(folder, doctype("DI Project", PROJECT_FIELDS))
    registry = temp_registry(tmp_path / "apps", [], folder)
    async with temp_site(settings, registry) as site:
        await migrate(site)
        assert "di_project" in await site.db.handle.list_collection_names()
        record = await store.collection_of(site, "DocType").find_one({"_id": "DI Project"})
        assert record is not None and record["module"] == "Projects"
        assert [f["fieldname"] for f in record["fields"]] == ["title", "budget", "owner_user", "stage"]
        module = await store.collection_of(site, "Module Def").find_one({"_id": "Projects"})
        assert module is not None and module["custom"] == 1 and not module.get("app_name")
        ctx = site.context("Administrator")
        async with unit_of_work(ctx):
            doc = await new_doc(ctx, "DI Project", title="Roof", budget="1200.5").insert()
        assert doc.stage == "Open" and doc.budget == 1200.5

        # the file loses `budget` and renames nothing else: the stored value stays in the database
        drop(folder, doctype("DI Project", [f for f in PROJECT_FIELDS if f["fieldname"] != "budget"]))
        later = Site(settings, site.db, temp_registry(tmp_path / "apps", [], folder))  # the next process
        await migrate(later)
        record = await store.collection_of(later, "DocType").find_one({"_id": "DI Project"})
        assert record is not None and "budget" not in [f["fieldname"] for f in record["fields"]]
        stored = await store.collection_of(later, "DI Project").find_one({"_id": doc.name})
        assert stored is not None and stored["budget"] == 1200.5
        assert (await get_doc(later.context("Administrator"), "DI Project", doc.name)).title == "Roof"
