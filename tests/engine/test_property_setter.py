"""Property Setters (business.md §7): applied by the meta over the doctype's JSON, cached and
re-applied in every process when one changes, kept by a migrate, refused with the property, field
or value named when they cannot apply (and then nothing is saved)."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from engine import exceptions as exc
from engine.apps.fixtures import export_fixtures, export_site_fixtures, import_app_fixtures
from engine.context import Context, unit_of_work
from engine.desk import customize_form
from engine.documents import store
from engine.documents.factory import get_doc, new_doc
from engine.meta.properties import DocTypeProperties, apply_properties, typed_value
from engine.migrate import migrate, sync_doctype
from engine.settings import Settings
from engine.site import Site
from tests.engine.temp_apps import doctype_json, forget_apps, temp_registry, temp_site, unique, write_app
from tests.engine.test_cache_bus import eventually, two_processes  # noqa: F401  (a fixture)

NOTE = "Test Note"


async def drop_property_setters(site: Site) -> None:
    """Put the session site back: no setters, and Test Note's DocType record as its JSON says."""
    await store.collection_of(site, "Property Setter").delete_many({})
    await site.meta.bump()
    await sync_doctype(site, NOTE)


@pytest.fixture
async def clean(site: Site) -> AsyncIterator[Site]:
    yield site
    await drop_property_setters(site)


async def setter(ctx: Context, field_name: str | None, prop: str, value: Any, **extra: Any) -> str:
    async with unit_of_work(ctx):
        doc = await new_doc(ctx, "Property Setter", doc_type=NOTE, field_name=field_name, property=prop,
                            value=value, doctype_or_field="DocField" if field_name else "DocType", **extra).insert()
    return str(doc.name)


async def test_the_meta_applies_them_over_the_json(clean: Site, ctx: Context) -> None:
    base = clean.meta.get(NOTE)
    assert base.by_name["title"].label is None and not base.by_name["region"].reqd
    name = await setter(ctx, "title", "label", "Heading")
    assert name == "Test Note-title-label"  # Frappe's name
    await setter(ctx, "region", "reqd", 1)
    await setter(ctx, "body", "hidden", "1")
    await setter(ctx, "code", "in_standard_filter", 1)
    await setter(ctx, "status", "options", "Open\nClosed\nArchived")
    await setter(ctx, "status", "default", "Archived")
    await setter(ctx, "reviewer_note", "permlevel", "1")
    await setter(ctx, "region", "description", "Where it happened")
    meta = clean.meta.get(NOTE)
    assert meta is not base  # the cached meta was rebuilt once, after the commit
    assert meta.by_name["title"].label == "Heading"
    assert meta.by_name["region"].reqd and meta.by_name["region"] in meta.mandatory_fields
    assert meta.by_name["body"].hidden
    assert (meta.by_name["code"].model_extra or {})["in_standard_filter"] == 1
    assert meta.by_name["status"].select_options == ["Open", "Closed", "Archived"]
    assert meta.by_name["status"].default == "Archived" and meta.by_name["status"] in meta.default_fields
    assert meta.by_name["reviewer_note"].permlevel == 1 and 1 in meta.permlevels
    assert meta.by_name["region"].description == "Where it happened"
    assert clean.meta.get(NOTE) is meta  # cached: no rebuild per request
    stored = await get_doc(ctx, "Property Setter", "Test Note-region-reqd")
    assert stored.value == "1" and stored.property_type == "Check" and stored.module == base.module
    record = await store.collection_of(clean, "DocType").find_one({"_id": NOTE})
    assert record is not None
    assert next(f for f in record["fields"] if f["fieldname"] == "title")["label"] == "Heading"
    # a mandatory field now holds for new documents
    with pytest.raises(exc.MandatoryError):
        async with unit_of_work(ctx):
            await new_doc(ctx, NOTE, title="no region").insert()
    # deleting the setter gives the JSON's property back
    async with unit_of_work(ctx):
        await (await get_doc(ctx, "Property Setter", "Test Note-region-reqd")).delete()
    assert not clean.meta.get(NOTE).by_name["region"].reqd


async def test_the_field_order(clean: Site, ctx: Context) -> None:
    order = [f.fieldname for f in clean.meta.get(NOTE).fields]
    wanted = ["status", "title", *[n for n in order if n not in ("status", "title")]]
    await setter(ctx, None, "field_order", json.dumps(wanted))
    meta = clean.meta.get(NOTE)
    assert [f.fieldname for f in meta.fields] == wanted
    stored = await get_doc(ctx, "Property Setter", "Test Note-main-field_order")
    assert stored.value.startswith('["status", "title"') and stored.doctype_or_field == "DocType"
    record = await store.collection_of(clean, "DocType").find_one({"_id": NOTE})
    assert record is not None and [f["fieldname"] for f in record["fields"]][:2] == ["status", "title"]


def test_an_order_naming_some_fields_puts_the_others_after_them(site: Site) -> None:
    fields = site.meta.get(NOTE).fields
    ordered = apply_properties(fields, DocTypeProperties(field_order=["body", "title"]))
    names = [f.fieldname for f in ordered]
    assert names[:2] == ["body", "title"]
    assert names[2:] == [f.fieldname for f in fields if f.fieldname not in ("body", "title")]


BAD: list[tuple[str | None, str, Any, str, str]] = [
    ("nowhere", "label", "X", "field_name", "has no field nowhere"),
    ("title", "colour", "red", "property", "Unknown property colour"),
    ("region", "reqd", "yes", "value", "reqd takes 0 or 1, not 'yes'"),
    ("priority", "permlevel", "twelve", "value", "permlevel takes a whole number"),
    ("priority", "permlevel", 12, "value", "permlevel takes a whole number"),
    ("customer", "options", "No Such Doctype", "value", "'No Such Doctype' does not exist"),
    ("customer", "options", "", "value", "options must name a doctype, and '' does not exist"),
    (None, "field_order", '["title", "ghost"]', "value", "'ghost'"),
    (None, "field_order", '{"a": 1}', "value", "takes a list of fieldnames"),
    (None, "label", "X", "property", "Unknown property label of a DocType"),
    ("status", "default", "Pending", "value", "default 'Pending' is not one of its options (Open, Closed)"),
]


@pytest.mark.parametrize(("field_name", "prop", "value", "field", "said"), BAD,
                         ids=[f"{b[0]}-{b[1]}-{b[2]}" for b in BAD])
async def test_bad_input_is_refused_naming_it_and_saves_nothing(clean: Site, ctx: Context, field_name: str | None,
                                                                prop: str, value: Any, field: str, said: str) -> None:
    before = clean.meta.get(NOTE)
    with pytest.raises(exc.ValidationError) as err:
        await setter(ctx, field_name, prop, value)
    assert err.value.field == field and said in err.value.message, err.value.message
    assert await store.collection_of(clean, "Property Setter").count_documents({}) == 0
    assert clean.meta.get(NOTE) is before  # no bump, no rebuild


async def test_an_unknown_doctype_is_refused(clean: Site, ctx: Context) -> None:
    with pytest.raises(exc.LinkValidationError) as err:
        async with unit_of_work(ctx):
            await new_doc(ctx, "Property Setter", doc_type="Nope", field_name="x", property="label",
                          value="X").insert()
    assert err.value.field == "doc_type"


async def test_a_record_written_around_the_engine_is_skipped_and_logged(clean: Site, ctx: Context,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    await setter(ctx, "title", "label", "Heading")
    await store.collection_of(clean, "Property Setter").insert_many([
        {"_id": "bad-1", "doc_type": NOTE, "field_name": "ghost", "property": "label", "value": "X"},
        {"_id": "bad-2", "doc_type": NOTE, "field_name": "title", "property": "reqd", "value": "maybe"},
        {"_id": "bad-3", "doc_type": "Gone", "field_name": "title", "property": "label", "value": "X"}])
    with caplog.at_level(logging.ERROR, logger="fw.meta"):
        await clean.meta.bump()
    meta = clean.meta.get(NOTE)
    assert meta.by_name["title"].label == "Heading" and meta.by_name["title"].reqd  # the JSON's, not "maybe"
    assert {r.args[0] for r in caplog.records if r.args} >= {"bad-1", "bad-2", "bad-3"}  # type: ignore[index]


async def test_a_migrate_keeps_them(clean: Site, ctx: Context) -> None:
    await setter(ctx, "title", "label", "Heading")
    await migrate(clean, force=True)
    assert await store.collection_of(clean, "Property Setter").count_documents({}) == 1
    await clean.meta.reload()
    assert clean.meta.get(NOTE).by_name["title"].label == "Heading"
    record = await store.collection_of(clean, "DocType").find_one({"_id": NOTE})
    assert record is not None
    assert next(f for f in record["fields"] if f["fieldname"] == "title")["label"] == "Heading"


async def test_a_setter_reaches_the_other_process_at_once(two_processes: tuple[Site, Site]) -> None:  # noqa: F811
    first, second = two_processes
    for one in (first, second):  # an hour between version checks: only the announcement can tell
        one.meta.check_interval = 3600
        await one.meta.refresh_if_stale()
    assert second.meta.get(NOTE).by_name["title"].label is None
    try:
        await setter(first.context(), "title", "label", "Bus Heading")

        async def seen() -> bool:
            await second.meta.refresh_if_stale()
            return second.meta.get(NOTE).by_name["title"].label == "Bus Heading"

        await eventually(seen)
    finally:
        await drop_property_setters(first)


def test_values_are_typed_by_their_property() -> None:
    assert typed_value("reqd", "1") == 1 and typed_value("reqd", False) == 0 and typed_value("bold", "true") == 1
    assert typed_value("permlevel", "3") == 3
    assert typed_value("label", 5) == "5" and typed_value("default", "") is None
    assert typed_value("field_order", '["a", "b"]', doctype_level=True) == ["a", "b"]
    with pytest.raises(ValueError, match="unknown property 'unique'"):
        typed_value("unique", 1)


async def test_fixtures_round_trip_with_their_module(tmp_path: Path, settings: Settings) -> None:
    app_name = unique("psapp")
    apps_dir = tmp_path / "apps"
    write_app(apps_dir, app_name, 'fixtures = [{"dt": "Property Setter", "filters": [["module", "=", "PS App"]]}]\n', {
        "doctype/__init__.py": "", "doctype/ps_thing/__init__.py": "",
        "doctype/ps_thing/ps_thing.json": doctype_json("PS Thing", [
            {"fieldname": "title", "fieldtype": "Data", "label": "Title"}], module="PS App")})
    try:
        registry = temp_registry(apps_dir, [app_name])
        async with temp_site(settings, registry, "fw_ps") as site:
            ctx = site.context("Administrator")
            async with unit_of_work(ctx):
                await new_doc(ctx, "Property Setter", doc_type="PS Thing", field_name="title", property="label",
                              value="Heading").insert()  # module: the doctype's
                await new_doc(ctx, "Property Setter", doc_type="PS Thing", field_name="title", property="bold",
                              value="1", module="Elsewhere").insert()  # another module's: not exported here
            app = registry.apps[0]
            [path] = await export_fixtures(site, app)
            exported = json.loads(path.read_text())
            assert path.name == "property_setter.json"
            assert [(d["name"], d["module"], d["value"]) for d in exported] == [
                ("PS Thing-title-label", "PS App", "Heading")]
            await store.collection_of(site, "Property Setter").delete_many({})
            await site.meta.bump()
            assert site.meta.get("PS Thing").by_name["title"].label == "Title"
            report = await import_app_fixtures(site, app)
            assert report.created == ["Property Setter PS Thing-title-label"]
            assert site.meta.get("PS Thing").by_name["title"].label == "Heading"
            again = await import_app_fixtures(site, app)
            assert again.created == [] and again.updated == [] and again.unchanged == 1
    finally:
        forget_apps(apps_dir, [app_name])


async def test_a_site_modules_setters_round_trip_through_doctype_json(tmp_path: Path, settings: Settings) -> None:
    folder = tmp_path / "doctype_json"
    folder.mkdir()
    (folder / "ps_site_thing.json").write_text(doctype_json("PS Site Thing", [
        {"fieldname": "title", "fieldtype": "Data", "label": "Title"}], module="Site Stuff"))
    registry = temp_registry(tmp_path / "apps", [], folder)
    site_settings = settings.model_copy(update={"root_dir": tmp_path})
    async with temp_site(site_settings, registry, "fw_ps_site") as site:
        await migrate(site)
        ctx = site.context("Administrator")
        async with unit_of_work(ctx):
            await new_doc(ctx, "Property Setter", doc_type="PS Site Thing", field_name="title", property="label",
                          value="Heading").insert()  # module: the doctype's, a site module no app owns
        [path] = await export_site_fixtures(site)
        assert path == folder / "fixtures" / "property_setter.json"
        exported = json.loads(path.read_text())
        assert [(d["name"], d["module"], d["value"]) for d in exported] == [
            ("PS Site Thing-title-label", "Site Stuff", "Heading")]
        await store.collection_of(site, "Property Setter").delete_many({})
        await site.meta.bump()
        assert site.meta.get("PS Site Thing").by_name["title"].label == "Title"
        report = await migrate(site)  # migrate imports the site's fixtures
        assert report.fixtures_created == ["Property Setter PS Site Thing-title-label"]
        assert site.meta.get("PS Site Thing").by_name["title"].label == "Heading"
        again = await migrate(site)
        assert again.fixtures_created == [] and again.fixtures_updated == []


async def test_fetch_shows_a_jsons_odd_value_as_written(clean: Site, ctx: Context,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    meta = clean.meta.get(NOTE)
    odd = meta.by_name["region"].model_copy(update={"bold": "yes"})
    monkeypatch.setitem(meta.by_name, "region", odd)
    monkeypatch.setattr(clean.meta, "preview", lambda doctype, setters: meta)
    answer = await customize_form.fetch(ctx, NOTE)
    assert next(f for f in answer["fields"] if f["fieldname"] == "region")["bold"] == "yes"


async def test_setters_saved_in_one_unit_resync_the_doctype_once(clean: Site, ctx: Context) -> None:
    async with unit_of_work(ctx):
        for fieldname, label in (("title", "Heading"), ("region", "Area"), ("body", "Text")):
            await new_doc(ctx, "Property Setter", doc_type=NOTE, field_name=fieldname, property="label",
                          value=label, doctype_or_field="DocField").insert()
        assert ctx.uow is not None
        queued = [cb for cb in ctx.uow.after_commit if type(cb).__name__ == "_ResyncAfterCommit"]
        assert len(queued) == 1  # one meta bump and one DocType rewrite, not three
    assert clean.meta.get(NOTE).by_name["region"].label == "Area"


async def test_a_select_default_is_checked_against_the_options_in_force(clean: Site, ctx: Context) -> None:
    await setter(ctx, "status", "options", "Open\nPending\nClosed")
    await setter(ctx, "status", "default", "Pending")  # one of the options the setter put in force
    assert clean.meta.get(NOTE).by_name["status"].default == "Pending"
