"""Customize Form and the DocType editor in Chromium (business.md §7), on two `fw serve` processes of
one fresh site with the fixture apps: one in developer mode, one not.

- Customize Form: relabel a field, make it mandatory (the page says how many stored documents lack
  it), move a field, add a Custom Field, Update; the list and the form show the change; Reset to
  defaults undoes it.
- The DocType editor (developer mode): a new doctype typed into the DocType form is saved as
  doctype_json/<name>.json and listed at once, also by the other server; without developer mode
  the DocType form is read-only and says why.
"""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from engine.mongod import embedded
from tests.e2e.conftest import ADMIN_PASSWORD, FIXTURES, FwServer, FwServerFactory

NOTE = "Test Note"
FULL = {"read": 1, "write": 1, "create": 1, "delete": 1, "report": 1}


@dataclass
class Site:
    root: Path
    editing: FwServer  # FW_DEVELOPER_MODE=1
    plain: FwServer

    @contextlib.contextmanager
    def api(self, server: FwServer | None = None) -> Iterator[httpx.Client]:
        with httpx.Client(base_url=(server or self.plain).url, timeout=30.0) as client:
            r = client.post("/api/method/login", data={"usr": "Administrator", "pwd": ADMIN_PASSWORD})
            assert r.status_code == 200, r.text
            token = client.get("/api/method/fw.auth.get_csrf_token").json()["message"]
            client.headers["X-Frappe-CSRF-Token"] = token
            yield client


@pytest.fixture(scope="module")
def site(mongod: embedded.EmbeddedMongo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    workdir = tmp_path_factory.mktemp("customize")
    root = workdir / "site"
    root.mkdir()
    (root / "apps").symlink_to((FIXTURES / "apps").resolve(), target_is_directory=True)
    (root / "apps.txt").write_text((FIXTURES / "site" / "apps.txt").read_text())
    (root / "doctype_json").mkdir()
    factory = FwServerFactory(mongod.url, f"fw_customize_{secrets.token_hex(4)}", workdir)
    try:
        editing = factory.start(env={"FW_ROOT_DIR": str(root), "FW_DEVELOPER_MODE": "1"})
        plain = factory.start(env={"FW_ROOT_DIR": str(root)})
        yield Site(root, editing, plain)
    finally:
        try:
            factory.stop_all()
        finally:
            factory.drop_database()


@contextlib.contextmanager
def _page(chromium: Browser, server: FwServer) -> Iterator[Page]:
    """A page logged in as Administrator at `server`; an uncaught JavaScript error fails the test."""
    ctx = chromium.new_context(base_url=server.url, viewport={"width": 1400, "height": 900}, locale="en-US")
    ctx.set_default_timeout(10_000)
    errors: list[str] = []
    try:
        r = ctx.request.post(f"{server.url}/api/method/login", data={"usr": "Administrator", "pwd": ADMIN_PASSWORD})
        assert r.ok, r.text()
        page = ctx.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
    finally:
        ctx.close()
    assert not errors, f"uncaught JavaScript errors: {errors}"


@pytest.fixture
def plain_page(chromium: Browser, site: Site) -> Iterator[Page]:
    with _page(chromium, site.plain) as page:
        yield page


@pytest.fixture
def editing_page(chromium: Browser, site: Site) -> Iterator[Page]:
    with _page(chromium, site.editing) as page:
        yield page


def test_customize_form_relabels_requires_moves_and_adds(plain_page: Page, site: Site) -> None:
    page = plain_page
    with site.api() as api:
        for title, region in (("north note", "North"), ("bare note", None)):
            r = api.post("/api/method/fw.client.insert", json={"doc": {"doctype": NOTE, "title": title,
                                                                       "region": region}})
            assert r.status_code == 200, r.text
    page.goto("/app/customize-form")
    page.get_by_label("DocType").select_option(NOTE)
    expect(page).to_have_url(f"{site.plain.url}/app/customize-form?doc_type=Test%20Note")
    fields = page.get_by_role("table", name="Fields")
    expect(fields.get_by_role("textbox", name="Label of region")).to_have_value("")  # the JSON gives none
    fields.get_by_role("textbox", name="Label of region").fill("Sales Region")
    fields.get_by_role("checkbox", name="Mandatory of region").check()
    expect(fields.get_by_role("status").filter(has_text="1 stored documents have no value")).to_be_visible()
    fields.get_by_role("checkbox", name="In List View of region").check()
    fields.get_by_role("button", name="Move region up").click()
    page.get_by_role("button", name="Update").click()
    expect(page.get_by_text("1 stored documents have no region")).to_be_visible()
    expect(page.get_by_role("button", name="Update")).to_be_disabled()  # nothing left to save

    with site.api() as api:
        meta = api.get("/api/method/fw.desk.customize_form.fetch", params={"doctype": NOTE}).json()["message"]
    region = next(f for f in meta["fields"] if f["fieldname"] == "region")
    assert (region["label"], region["reqd"], region["in_list_view"]) == ("Sales Region", 1, 1)
    order = meta["field_order"]
    assert order.index("region") < order.index("customer_name")

    # the list and the form show the change, in either server
    page.goto("/app/test-note")
    expect(page.get_by_role("columnheader", name="Sales Region")).to_be_visible()
    page.goto("/app/test-note/new")
    expect(page.get_by_label("Sales Region")).to_be_visible()
    page.get_by_label("Title").fill("needs a region")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Sales Region")).not_to_have_count(0)
    with site.api() as api:
        r = api.get(f"/api/resource/{NOTE}", params={"filters": '[["title", "=", "needs a region"]]'})
        assert r.json()["data"] == []  # mandatory now: not saved

    # a Custom Field, then Reset to defaults (the Custom Field stays, as in Frappe)
    page.goto("/app/customize-form?doc_type=Test Note")
    add = page.get_by_role("form", name="Add Custom Field")
    add.get_by_label("New field label").fill("Shelf Code")
    add.get_by_role("button", name="Add Custom Field").click()
    expect(page.get_by_role("table", name="Fields").get_by_role("textbox", name="Label of shelf_code")).to_have_value(
        "Shelf Code")
    page.get_by_role("button", name="Reset to defaults").click()
    page.get_by_role("dialog").get_by_role("button", name="Yes").click()
    expect(page.get_by_role("table", name="Fields").get_by_role("textbox", name="Label of region")).to_have_value("")
    with site.api() as api:
        meta = api.get("/api/method/fw.desk.customize_form.fetch", params={"doctype": NOTE}).json()["message"]
        assert meta["property_setters"] == []
        assert any(f["fieldname"] == "shelf_code" for f in meta["fields"])
        api.post("/api/method/fw.client.delete", json={"doctype": "Custom Field", "name": "Test Note-shelf_code"})


def test_without_developer_mode_the_doctype_form_is_read_only(plain_page: Page) -> None:
    page = plain_page
    page.goto("/app/doctype/Test Note")
    expect(page.get_by_role("note")).to_contain_text("read-only")
    expect(page.get_by_role("button", name="Save")).to_have_count(0)
    expect(page.get_by_label("Module", exact=True)).not_to_be_editable()


def test_the_doctype_editor_writes_the_json_and_both_servers_list_it(editing_page: Page, site: Site) -> None:
    page = editing_page
    page.goto("/app/doctype/new")
    page.get_by_label("Name", exact=True).fill("Browser Book")
    page.get_by_label("Module", exact=True).fill("Library")
    grid = page.get_by_role("table", name="Fields")
    page.get_by_role("button", name="Add Row").first.click()
    row = grid.get_by_role("row", name="Row 1")
    row.get_by_label("Label").fill("Title")
    row.get_by_label("Type").fill("Data")
    row.get_by_label("Name").fill("title")
    row.get_by_label("Mandatory").check()
    perms = page.get_by_role("table", name="Permissions")
    page.get_by_role("button", name="Add Row").nth(1).click()
    perm = perms.get_by_role("row", name="Row 1")
    perm.get_by_role("combobox", name="Role").fill("System Manager")
    perm.get_by_label("Read").check()
    perm.get_by_label("Write").check()
    perm.get_by_label("Create").check()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status").filter(has_text="Saved")).to_be_visible()

    written = json.loads((site.root / "doctype_json" / "browser_book.json").read_text())
    assert written["module"] == "Library"
    assert written["fields"][0]["fieldname"] == "title" and written["fields"][0]["reqd"] == 1
    # the new doctype is a resource at once in this server, and in the other one without a restart
    with site.api(site.editing) as api:
        r = api.post("/api/resource/Browser Book", json={"title": "Dune"})
        assert r.status_code == 200, r.text
    page.goto("/app/browser-book")
    expect(page.get_by_role("main").get_by_role("status").filter(has_text="1 of 1")).to_be_visible()
    page.get_by_role("table", name="Browser Book").get_by_role("rowheader").get_by_role("link").click()
    expect(page.get_by_label("Title")).to_have_value("Dune")
    with site.api(site.plain) as api:
        for _ in range(50):
            r = api.get("/api/resource/Browser Book")
            if r.status_code == 200:
                break
            page.wait_for_timeout(200)
        assert r.status_code == 200 and r.json()["data"] == [{"name": r.json()["data"][0]["name"]}], r.text
