"""The DocType editor over HTTP (business.md §7): with FW_DEVELOPER_MODE a DocType saved through the
API (what the Desk's DocType form sends) writes the doctype's JSON into the site's doctype_json/,
checked as `fw migrate` checks a drop-in file, and is a working resource at once, in this process
and in another one on the same database; bad definitions are refused 417 naming the field, with no
file written; without developer mode a DocType cannot be saved (403 saying why)."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine import auth, db
from engine.context import Context
from engine.core.doctype_editor import definition_path
from engine.jobs import runner
from engine.jobs.payload import JobPayload
from engine.migrate import migrate
from engine.query.listing import count
from engine.settings import Settings
from engine.site import Site
from server.app import create_app
from tests.engine.temp_apps import FULL, doctype_json, forget_apps, temp_registry, temp_site, unique, write_app
from tests.server.helpers import ok, refused

BOOK = "Editor Book"


def book(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "doctype": "DocType", "name": BOOK, "module": "Library", "autoname": "field:title",
        "track_changes": 1,
        "fields": [{"fieldname": "title", "fieldtype": "Data", "label": "Title", "reqd": 1, "in_list_view": 1},
                   {"fieldname": "pages", "fieldtype": "Int", "label": "Pages", "in_standard_filter": 1},
                   {"fieldname": "notes", "fieldtype": "Small Text", "label": "Notes", "depends_on": "eval:doc.pages"}],
        "permissions": [{"role": "System Manager", **FULL}],
        "indexes": [{"fields": ["pages", "title"]}]}
    data.update(extra)
    return data


async def count_books(ctx: Context) -> int:
    """A job: how many Editor Books there are (the worker's meta must know the doctype)."""
    return await count(ctx, BOOK)


class Editor:
    def __init__(self, client: httpx.AsyncClient, token: dict[str, str], site: Site, folder: Path) -> None:
        self.client, self.token, self.site, self.folder = client, token, site, folder


async def _open(settings: Settings, tmp_path: Path, developer_mode: bool) -> AsyncIterator[Editor]:
    folder = tmp_path / "doctype_json"
    folder.mkdir(exist_ok=True)
    settings = settings.model_copy(update={"developer_mode": developer_mode, "root_dir": tmp_path})
    registry = temp_registry(tmp_path / "apps", [], folder)
    async with temp_site(settings, registry, "fw_editor") as site:
        await migrate(site)
        keys = await auth.generate_keys_for(site, "Administrator")
        token = {"Authorization": f"token {keys['api_key']}:{keys['api_secret']}"}
        app = create_app(site.settings, site=site)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
            yield Editor(c, token, site, folder)


@pytest.fixture
async def editor(settings: Settings, tmp_path: Path) -> AsyncIterator[Editor]:
    async for e in _open(settings, tmp_path, True):
        yield e


@pytest.fixture
async def locked(settings: Settings, tmp_path: Path) -> AsyncIterator[Editor]:
    async for e in _open(settings, tmp_path, False):
        yield e


async def test_a_new_doctype_is_written_and_works_at_once(editor: Editor, settings: Settings) -> None:
    c, token = editor.client, editor.token
    # a second "process": its own registry read from the same folder, its own Site on the same database
    other_registry = temp_registry(editor.folder.parent / "apps", [], editor.folder)
    other = Site(editor.site.settings, editor.site.db, other_registry)
    await other.meta.refresh_if_stale()
    assert not other.meta.exists(BOOK)

    ok(await c.post("/api/resource/DocType", headers=token, json=book()))
    written = json.loads((editor.folder / "editor_book.json").read_text())
    assert written["module"] == "Library" and written["autoname"] == "field:title"
    assert written["field_order"] == ["title", "pages", "notes"]
    assert written["fields"][2] == {"fieldname": "notes", "fieldtype": "Small Text", "label": "Notes",
                                    "depends_on": "eval:doc.pages"}
    assert written["permissions"][0]["role"] == "System Manager"
    assert written["indexes"] == [{"fields": ["pages", "title"]}]
    assert "owner" not in written and "creation" not in written

    created = ok(await c.post(f"/api/resource/{BOOK}", headers=token, json={"title": "Dune", "pages": "412"}))["data"]
    assert created["name"] == "Dune" and created["pages"] == 412
    listed = ok(await c.get(f"/api/resource/{BOOK}", headers=token, params={"fields": '["name", "pages"]'}))["data"]
    assert listed == [{"name": "Dune", "pages": 412}]
    indexes = {ix["name"] for ix in await db.list_indexes(editor.site.db.collection("editor_book"))}
    assert "fw_cidx_pages_title" in indexes
    record = ok(await c.get(f"/api/resource/DocType/{BOOK}", headers=token))["data"]
    assert [f["fieldname"] for f in record["fields"]] == ["title", "pages", "notes"]
    assert ok(await c.get("/api/resource/Module Def/Library", headers=token))["data"]["custom"] == 1

    # the other process re-reads the definitions at its next meta check (the bus tells it at once)
    # a job in the other process (a worker) sees it: the runner checks the meta version first
    other.meta._checked_at = time.monotonic() + 3600  # as if just checked: only a new version re-reads
    other.meta.mark_stale()  # what the cache bus does on the announcement
    payload = JobPayload(site=other.settings.db_name, user="Administrator", lang="en",
                         method="tests.server.test_doctype_editor.count_books")
    assert await runner.execute(other, payload) == 1
    assert other.meta.exists(BOOK) and other.meta.get(BOOK).by_name["pages"].fieldtype == "Int"

    # a Property Setter (Customize Form) relabels title: the DocType form shows it applied ...
    ok(await c.post("/api/method/fw.desk.customize_form.save", headers=token,
                    json={"doctype": BOOK, "fields": {"title": {"label": "Book Title"}}}))
    record = ok(await c.get(f"/api/resource/DocType/{BOOK}", headers=token))["data"]
    assert record["fields"][0]["label"] == "Book Title"

    # editing: a field added, one relabelled; the file follows, stored data stays
    record["fields"][1]["label"] = "Page Count"
    record["fields"].append({"fieldname": "isbn", "fieldtype": "Data", "label": "ISBN", "unique": 1})
    ok(await c.put(f"/api/resource/DocType/{BOOK}", headers=token, json=record))
    rewritten = json.loads((editor.folder / "editor_book.json").read_text())
    assert rewritten["field_order"] == ["title", "pages", "notes", "isbn"]
    assert rewritten["fields"][1]["label"] == "Page Count"
    # ... and the editor's save keeps the setter a setter: the file has its own label
    assert rewritten["fields"][0]["label"] == "Title"
    assert editor.site.meta.get(BOOK).by_name["title"].label == "Book Title"
    assert editor.site.meta.get(BOOK).by_name["isbn"].unique
    got = ok(await c.get(f"/api/resource/{BOOK}/Dune", headers=token))["data"]
    assert got["pages"] == 412
    other.meta.mark_stale()
    await other.meta.refresh_if_stale()
    assert other.meta.get(BOOK).by_name["pages"].label == "Page Count"


@pytest.mark.parametrize(("fields", "field", "said"), [
    ([{"fieldname": "docstatus", "fieldtype": "Int"}], "docstatus", "'docstatus' is reserved"),
    ([{"fieldname": "parent", "fieldtype": "Data"}], "parent", "'parent' is reserved"),
    ([{"fieldname": "title", "fieldtype": "Texty"}], "title", "unknown fieldtype 'Texty'"),
    ([{"fieldname": "title", "fieldtype": "Data"}, {"fieldname": "title", "fieldtype": "Int"}], "title",
     "duplicate fieldname"),
    ([{"fieldname": "shelf", "fieldtype": "Link", "options": "No Such Shelf"}], "shelf", "'No Such Shelf'"),
])
async def test_a_bad_definition_is_refused_naming_the_field(editor: Editor, fields: list[dict[str, Any]],
                                                            field: str, said: str) -> None:
    body = refused(await editor.client.post("/api/resource/DocType", headers=editor.token,
                                            json=book(fields=fields)), 417)
    text = json.dumps(body)
    assert said.replace("'", "") in text.replace("'", "").replace("\\", ""), body
    assert field in text
    assert not (editor.folder / "editor_book.json").exists()
    assert not editor.site.meta.exists(BOOK)


async def test_a_core_doctype_is_not_edited(editor: Editor) -> None:
    record = ok(await editor.client.get("/api/resource/DocType/Role", headers=editor.token))["data"]
    body = refused(await editor.client.put("/api/resource/DocType/Role", headers=editor.token, json=record), 403)
    assert "core doctype" in json.dumps(body)


async def test_without_developer_mode_a_doctype_is_read_only(locked: Editor) -> None:
    body = refused(await locked.client.post("/api/resource/DocType", headers=locked.token, json=book()), 403)
    assert "FW_DEVELOPER_MODE" in json.dumps(body)
    assert not (locked.folder / "editor_book.json").exists()
    assert not locked.site.meta.exists(BOOK)


def test_a_new_doctype_of_an_apps_module_is_written_into_the_app(tmp_path: Path) -> None:
    app_name = unique("edapp")
    apps_dir, folder = tmp_path / "apps", tmp_path / "doctype_json"
    write_app(apps_dir, app_name, "", {
        "doctype/__init__.py": "", "doctype/ed_thing/__init__.py": "",
        "doctype/ed_thing/ed_thing.json": doctype_json("Ed Thing", [
            {"fieldname": "title", "fieldtype": "Data", "label": "Title"}], module="Ed Module")})
    try:
        registry = temp_registry(apps_dir, [app_name], folder)
        app = registry.apps[0]
        assert definition_path(registry, "Ed Gadget", "Ed Module", folder) == (
            app.path / "doctype" / "ed_gadget" / "ed_gadget.json")
        assert definition_path(registry, "Ed Gadget", "Site Things", folder) == folder / "ed_gadget.json"
        # an existing doctype stays in its own file
        assert definition_path(registry, "Ed Thing", "Site Things", folder) == Path(registry.doctype_source["Ed Thing"])
    finally:
        forget_apps(apps_dir, [app_name])
