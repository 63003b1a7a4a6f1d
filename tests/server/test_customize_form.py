"""Over HTTP (business.md §7): the Customize Form API writes Property Setters the meta applies at
once, counts the stored documents a new mandatory field leaves empty, refuses bad input with 417
and nothing saved; a drop-in doctype is a resource after `fw migrate`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine import auth
from engine.context import Context, unit_of_work
from engine.documents import store
from engine.documents.factory import new_doc
from engine.migrate import migrate
from engine.settings import Settings
from engine.site import Site
from server.app import create_app
from tests.engine.temp_apps import FULL, temp_registry, temp_site
from tests.engine.test_property_setter import drop_property_setters
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import ok, refused

M = "/api/method"
SAVE = f"{M}/fw.desk.customize_form.save"
NOTE = "Test Note"


@pytest.fixture
async def clean(site: Site) -> AsyncIterator[Site]:
    yield site
    await drop_property_setters(site)


async def notes(ctx: Context, regions: list[str | None]) -> None:
    async with unit_of_work(ctx):
        for i, region in enumerate(regions):
            await new_doc(ctx, NOTE, title=f"note {i}", region=region).insert()


def field(answer: dict[str, Any], fieldname: str) -> dict[str, Any]:
    return next(f for f in answer["fields"] if f["fieldname"] == fieldname)


async def setters(site: Site) -> list[dict[str, Any]]:
    return await store.collection_of(site, "Property Setter").find({}, {"value": 1, "_id": 1}).to_list(None)


async def test_customize_a_form(clean: Site, ctx: Context, client: httpx.AsyncClient, admin: ApiUser) -> None:
    await notes(ctx, ["North", None, ""])
    fetched = ok(await client.get(f"{M}/fw.desk.customize_form.fetch", params={"doctype": NOTE},
                                  headers=admin.token))["message"]
    assert field(fetched, "region")["reqd"] == 0 and fetched["property_setters"] == []
    assert fetched["field_order"][0] == "title"
    # what fetch answers, sent back unchanged, changes nothing
    same = ok(await client.post(SAVE, headers=admin.token, json={
        "doctype": NOTE, "fields": fetched["fields"], "field_order": fetched["field_order"]}))["message"]
    assert same["property_setters"] == [] and same["missing"] == {} and await setters(clean) == []
    counted = ok(await client.get(f"{M}/fw.desk.customize_form.missing_values", headers=admin.token,
                                  params={"doctype": NOTE, "fieldname": "region"}))["message"]
    assert counted == 2  # asked before making it mandatory

    answer = ok(await client.post(SAVE, headers=admin.token, json={
        "doctype": NOTE, "fields": {"region": {"reqd": 1, "label": "Area"}, "title": {"bold": 1}},
        "field_order": ["region", *[n for n in fetched["field_order"] if n != "region"]]}))["message"]
    assert answer["missing"] == {"region": 2}  # allowed, as in Frappe, and counted
    assert field(answer, "region")["label"] == "Area" and field(answer, "title")["bold"] == 1
    assert answer["field_order"][0] == "region"
    assert sorted(s["name"] for s in answer["property_setters"]) == [
        "Test Note-main-field_order", "Test Note-region-label", "Test Note-region-reqd", "Test Note-title-bold"]
    # the meta applies them at once: a new note needs a region now
    body = refused(await client.post(f"/api/resource/{NOTE}", headers=admin.token, json={"title": "x"}), 417,
                   "MandatoryError")
    assert "Area" in json.dumps(body)
    # back to the JSON's value: the setter goes, instead of a setter that changes nothing
    answer = ok(await client.post(SAVE, headers=admin.token, json={"doctype": NOTE, "fields": [
        {"fieldname": "region", "reqd": 0}]}))["message"]
    assert "Test Note-region-reqd" not in {s["name"] for s in answer["property_setters"]}
    assert answer["missing"] == {}
    ok(await client.post(f"/api/resource/{NOTE}", headers=admin.token, json={"title": "x"}))
    # Frappe's path resets the doctype
    reset = ok(await client.post(f"{M}/frappe.custom.doctype.customize_form.customize_form.reset_customization",
                                 headers=admin.token, json={"doctype": NOTE}))["message"]
    assert reset["property_setters"] == [] and field(reset, "region")["label"] == ""  # the JSON gives none
    assert await setters(clean) == []


@pytest.mark.parametrize(("fields", "said"), [
    ({"region": {"reqd": 1}, "ghost": {"label": "Boo"}}, "has no field ghost"),
    ({"region": {"reqd": "yes"}}, "reqd takes 0 or 1"),
    ({"region": {"colour": "red"}}, "Unknown property colour"),
    ({"customer": {"options": "Nope"}}, "'Nope' does not exist"),
    ({"priority": {"permlevel": 42}}, "permlevel takes a whole number from 0 to 9"),
])
async def test_bad_input_is_417_and_saves_nothing(clean: Site, client: httpx.AsyncClient, admin: ApiUser,
                                                  fields: dict[str, Any], said: str) -> None:
    body = refused(await client.post(SAVE, headers=admin.token, json={"doctype": NOTE, "fields": fields}), 417)
    assert said in json.dumps(body), body
    assert await setters(clean) == []
    assert not clean.meta.get(NOTE).by_name["region"].reqd


async def test_a_property_setter_resource_naming_a_missing_field_is_417(clean: Site, client: httpx.AsyncClient,
                                                                        admin: ApiUser) -> None:
    body = refused(await client.post("/api/resource/Property Setter", headers=admin.token, json={
        "doc_type": NOTE, "field_name": "ghost", "property": "label", "value": "X"}), 417, "ValidationError")
    assert "Test Note has no field ghost" in json.dumps(body)
    created = ok(await client.post("/api/resource/Property Setter", headers=admin.token, json={
        "doc_type": NOTE, "field_name": "region", "property": "hidden", "value": "1"}))["data"]
    assert created["name"] == "Test Note-region-hidden" and created["property_type"] == "Check"
    assert clean.meta.get(NOTE).by_name["region"].hidden


async def test_only_who_may_write_property_setters_customizes(clean: Site, ctx: Context,
                                                              client: httpx.AsyncClient) -> None:
    user = await make_user(ctx, "plain@example.com", ["Test Reader"])
    refused(await client.post(SAVE, headers=user.token, json={"doctype": NOTE, "fields": {"region": {"reqd": 1}}}),
            403)
    refused(await client.get(f"{M}/fw.desk.customize_form.fetch", params={"doctype": NOTE}, headers=user.token),
            403)
    assert await setters(clean) == []


async def test_a_dropped_in_doctype_is_a_resource_after_migrate(tmp_path: Path, settings: Settings) -> None:
    folder = tmp_path / "doctype_json"
    folder.mkdir()
    (folder / "site_project.json").write_text(json.dumps({
        "doctype": "DocType", "name": "Site Project", "module": "Projects", "autoname": "field:title",
        "fields": [{"fieldname": "title", "fieldtype": "Data", "label": "Title", "reqd": 1, "in_list_view": 1},
                   {"fieldname": "hours", "fieldtype": "Int", "label": "Hours"}],
        "permissions": [{"role": "System Manager", **FULL}]}))
    registry = temp_registry(tmp_path / "apps", [], folder)
    async with temp_site(settings, registry, "fw_dropin") as site:
        await migrate(site)
        keys = await auth.generate_keys_for(site, "Administrator")
        token = {"Authorization": f"token {keys['api_key']}:{keys['api_secret']}"}
        app = create_app(site.settings, site=site)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
            created = ok(await c.post("/api/resource/Site Project", headers=token,
                                      json={"title": "Roof", "hours": "12"}))["data"]
            assert created["name"] == "Roof" and created["hours"] == 12
            listed = ok(await c.get("/api/resource/Site Project", headers=token,
                                    params={"fields": '["name", "hours"]'}))["data"]
            assert listed == [{"name": "Roof", "hours": 12}]
            refused(await c.post("/api/resource/Site Project", headers=token, json={"hours": 1}), 417,
                    "MandatoryError")
            record = ok(await c.get("/api/resource/DocType/Site Project", headers=token))["data"]
            assert record["module"] == "Projects" and [f["fieldname"] for f in record["fields"]] == ["title", "hours"]
            module = ok(await c.get("/api/resource/Module Def/Projects", headers=token))["data"]
            assert module["custom"] == 1
            spec = ok(await c.get("/api/openapi.json"))
            assert any("Site Project" in path for path in spec["paths"])


async def test_a_select_default_and_its_options_are_checked_together(clean: Site, client: httpx.AsyncClient,
                                                                     admin: ApiUser) -> None:
    # both changed in one save: the new default is one of the new options, though not of the old ones
    saved = ok(await client.post(SAVE, headers=admin.token, json={"doctype": NOTE, "fields": {
        "status": {"default": "Waiting", "options": "Waiting\nDone"}}}))["message"]
    assert field(saved, "status")["default"] == "Waiting" and field(saved, "status")["options"] == "Waiting\nDone"
    body = refused(await client.post(SAVE, headers=admin.token, json={"doctype": NOTE, "fields": {
        "status": {"options": "Open\nClosed"}}}), 417)  # would leave the default "Waiting" outside them
    assert "'Waiting' is not one of its options" in json.dumps(body) and "status" in json.dumps(body)
    assert clean.meta.get(NOTE).by_name["status"].options == "Waiting\nDone"
