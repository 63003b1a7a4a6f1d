"""Form rules of desk.md §4 the reference apps have no doctype for, in Chromium against the test fixture
site (tests/fixtures/site: fwtest with hr and workforce_scoring): a field at a permlevel the user may read
but not write is read-only, one at a level they may not read is absent (DocPerm rows above level 0 come
only from a doctype's JSON, so `Test Tagged` declares them for a `Test Grader`); a Table MultiSelect
(`Test Tagged.categories`, rows of `Test Tag` with one Link) keeps several picked values through save and
reload. Its own `fw serve` (migrated, no demo data) for this module."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from engine.mongod import embedded
from tests.desk.browser import DeskServer, _fw
from tests.e2e.conftest import FwServerFactory

GRADER = "grader@fixture.example.com"
GRADER_PASSWORD = "grader-pass-1"
CATEGORIES = ("Alpha", "Beta", "Gamma")


@pytest.fixture(scope="module")
def fixture_desk(mongod: embedded.EmbeddedMongo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DeskServer]:
    """`fw serve` on the fixture site, a Test Grader (who also reads Test Categories) and three categories."""
    factory = FwServerFactory(mongod.url, f"fw_deskfx_{secrets.token_hex(4)}", tmp_path_factory.mktemp("deskfx"))
    try:
        _fw(factory, {}, "migrate")
        desk = DeskServer((server := factory.start()).url, server)
        for role in ("Test Grader", "Test Reader"):  # the fixture site's roles are DocPerm names only
            desk.insert({"doctype": "Role", "role_name": role})
        desk.insert({"doctype": "User", "email": GRADER, "first_name": "Grace", "new_password": GRADER_PASSWORD,
                     "roles": [{"role": "Test Grader"}, {"role": "Test Reader"}]})
        for category in CATEGORIES:
            desk.insert({"doctype": "Test Category", "category_name": category})
        yield desk
    finally:
        try:
            factory.stop_all()
        finally:
            factory.drop_database()


@pytest.fixture
def fx_page(chromium: Browser, fixture_desk: DeskServer) -> Iterator[Page]:
    ctx: BrowserContext = chromium.new_context(base_url=fixture_desk.url, viewport={"width": 1280, "height": 900},
                                               locale="en-US")
    ctx.set_default_timeout(10_000)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield page
    finally:
        ctx.close()
    assert not errors, f"uncaught JavaScript errors: {errors}"


@pytest.fixture
def login(fx_page: Page, fixture_desk: DeskServer) -> Callable[[str, str], None]:
    def log_in(usr: str, pwd: str) -> None:
        r = fx_page.context.request.post(f"{fixture_desk.url}/api/method/login", data={"usr": usr, "pwd": pwd})
        assert r.ok, r.text()
    return log_in


def saved(page: Page) -> None:
    page.get_by_role("button", name="Save").click()
    toast = page.get_by_role("status").filter(has_text="Saved")
    expect(toast).to_be_visible()
    expect(toast).to_be_hidden()  # gone before the next save shows its own


def stored(desk: DeskServer, name: str) -> dict[str, Any]:
    with desk.api() as client:
        r = client.get("/api/method/fw.client.get", params={"doctype": "Test Tagged", "name": name})
        assert r.status_code == 200, r.text
        return r.json()["message"]  # type: ignore[no-any-return]


def test_permlevels_read_only_and_absent(fx_page: Page, login: Callable[[str, str], None],
                                         fixture_desk: DeskServer) -> None:
    doc = fixture_desk.insert({"doctype": "Test Tagged", "title": "graded", "grade_note": "B+",
                               "audit_note": "seen by auditors only"})
    login(GRADER, GRADER_PASSWORD)
    fx_page.goto(f"/app/test-tagged/{doc['name']}")
    title = fx_page.get_by_role("textbox", name="Title", exact=True)
    expect(title).to_have_value("graded")
    expect(title).to_be_editable()  # level 0: read and write
    grade = fx_page.get_by_label("Grade Note")
    expect(grade).to_have_value("B+")  # level 1: read only
    expect(grade).not_to_be_editable()
    expect(fx_page.get_by_label("Audit Note")).to_have_count(0)  # level 2: the server leaves it out
    assert "seen by auditors only" not in fx_page.content()
    title.fill("graded again")
    saved(fx_page)
    after = stored(fixture_desk, doc["name"])
    assert (after["title"], after["grade_note"], after["audit_note"]) == ("graded again", "B+", "seen by auditors only")
    # what the form does not offer, the server refuses
    with fixture_desk.api(GRADER, GRADER_PASSWORD) as api:
        r = api.put(f"/api/resource/Test Tagged/{doc['name']}", json={"grade_note": "A"})
        assert r.status_code >= 400, r.text
    assert stored(fixture_desk, doc["name"])["grade_note"] == "B+"


def test_table_multiselect_keeps_several_values(fx_page: Page, login: Callable[[str, str], None],
                                                fixture_desk: DeskServer) -> None:
    doc = fixture_desk.insert({"doctype": "Test Tagged", "title": "tagged"})
    login(GRADER, GRADER_PASSWORD)
    fx_page.goto(f"/app/test-tagged/{doc['name']}")
    search = fx_page.get_by_role("combobox", name="Categories")
    chips = fx_page.get_by_role("list", name="Selected: Categories")
    for category in ("Alpha", "Gamma"):
        search.fill(category)
        fx_page.get_by_role("listbox", name="Test Category").get_by_role("option", name=category).first.click()
        expect(chips).to_contain_text(category)
    saved(fx_page)
    fx_page.reload()
    chips = fx_page.get_by_role("list", name="Selected: Categories")
    expect(chips.get_by_role("listitem")).to_have_count(2)
    expect(chips).to_contain_text("Alpha")
    expect(chips).to_contain_text("Gamma")
    rows = stored(fixture_desk, doc["name"])["categories"]
    assert [(row["category"], row["idx"], row["parentfield"]) for row in rows] == [
        ("Alpha", 1, "categories"), ("Gamma", 2, "categories")]
    chips.get_by_role("button", name="Remove Alpha").click()
    saved(fx_page)
    assert [row["category"] for row in stored(fixture_desk, doc["name"])["categories"]] == ["Gamma"]
