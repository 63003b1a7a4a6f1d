"""The form's controls and field rules in Chromium (desk.md §4): the Table grid (add, edit in row,
reorder, delete, saved), `fetch_from` when a Link changes, "Create a new <Doctype>" from a Link,
`depends_on` / `mandatory_depends_on` / `read_only_depends_on`, and Duration, Rating, Text Editor
(sanitised), Attach Image, Dynamic Link; permlevel; the sidebar. The field rules and the extra controls
come from Custom Fields added to Warehouse Violation Type for this module (and removed afterwards; a
Custom Field cannot be a table: Table MultiSelect is in test_browser_form_fixture_app)."""

from __future__ import annotations

import base64
import re
import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.desk.browser import DeskServer
from tests.desk.test_browser_form import pill
from tests.desk.test_browser_list import api_rows

PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
CUSTOM_FIELDS = [
    {"fieldname": "rule_note", "fieldtype": "Data", "label": "Rule Note", "insert_after": "penalty_points",
     "depends_on": "eval:doc.penalty_points > 5", "mandatory_depends_on": "eval:doc.penalty_points >= 8"},
    {"fieldname": "locked_note", "fieldtype": "Data", "label": "Locked Note", "insert_after": "rule_note",
     "read_only_depends_on": "eval:!doc.penalty_points"},
    {"fieldname": "handling_time", "fieldtype": "Duration", "label": "Handling Time", "insert_after": "locked_note"},
    {"fieldname": "severity", "fieldtype": "Rating", "label": "Severity", "insert_after": "handling_time"},
    {"fieldname": "guidance", "fieldtype": "Text Editor", "label": "Guidance", "insert_after": "severity"},
    {"fieldname": "photo", "fieldtype": "Attach Image", "label": "Photo", "insert_after": "guidance"},
    {"fieldname": "ref_doctype", "fieldtype": "Link", "label": "Reference Type", "options": "DocType",
     "insert_after": "photo"},
    {"fieldname": "ref_name", "fieldtype": "Dynamic Link", "label": "Reference", "options": "ref_doctype",
     "insert_after": "ref_doctype"},
]


@pytest.fixture(scope="module")
def custom_fields(desk_server: DeskServer) -> Iterator[None]:
    names = []
    with desk_server.api() as client:
        for field in CUSTOM_FIELDS:
            r = client.post("/api/method/fw.client.insert",
                            json={"doc": {"doctype": "Custom Field", "dt": "Warehouse Violation Type", **field}})
            assert r.status_code == 200, r.text
            names.append(r.json()["message"]["name"])
    try:
        yield
    finally:
        with desk_server.api() as client:
            for name in names:
                client.post("/api/method/fw.client.delete", json={"doctype": "Custom Field", "name": name})


def test_the_grid_adds_edits_reorders_and_deletes_rows(page: Page, login_as: Callable[..., None],
                                                       desk_server: DeskServer) -> None:
    with desk_server.api() as client:
        before = client.get("/api/method/fw.client.get", params={"doctype": "Scoring Settings"}).json()["message"]
    try:
        login_as("Administrator")
        page.goto("/app/scoring-settings")
        grid = page.get_by_role("table", name="Performance Level Thresholds")
        expect(grid).to_be_visible()
        for _row in range(grid.locator("tbody tr[aria-label]").count()):  # start empty
            grid.get_by_role("button", name="Delete row 1").click()
        expect(grid.locator("tbody")).to_contain_text("No rows")
        page.get_by_role("button", name="Add Row").click()
        first = grid.get_by_role("row", name="Row 1")
        expect(first.get_by_label("Level")).to_be_focused()  # the new row's first cell
        first.get_by_label("Level").select_option("average")
        first.get_by_label("Min").fill("35")
        first.get_by_label("Max").fill("55")
        page.get_by_role("button", name="Add Row").click()
        second = grid.get_by_role("row", name="Row 2")
        second.get_by_label("Level").select_option("needs_improvement")
        second.get_by_label("Min").fill("0")
        second.get_by_label("Max").fill("34.96")
        second.get_by_label("Max").press("Tab")
        expect(second.get_by_label("Max")).to_have_value("35")  # rounded to the field's precision (1)
        grid.get_by_role("button", name="Move row 2 up").click()
        expect(grid.get_by_role("row", name="Row 1").get_by_label("Level")).to_have_value("needs_improvement")
        page.get_by_role("button", name="Add Row").click()
        expect(grid.get_by_role("row", name="Row 3")).to_be_visible()
        grid.get_by_role("button", name="Delete row 3").click()
        expect(grid.get_by_role("row", name="Row 3")).to_have_count(0)
        expect(pill(page)).to_have_text("Not Saved")
        page.get_by_role("button", name="Save").click()
        expect(page.get_by_role("status").filter(has_text="Saved")).to_be_visible()
        page.reload()
        rows = page.get_by_role("table", name="Performance Level Thresholds").locator("tbody tr[aria-label]")
        expect(rows).to_have_count(2)
        with desk_server.api() as client:
            stored = client.get("/api/method/fw.client.get", params={"doctype": "Scoring Settings"}).json()["message"]
        assert [(r["idx"], r["level"], r["min_pph"], r["max_pph"]) for r in stored["thresholds"]] == [
            (1, "needs_improvement", 0, 35), (2, "average", 35, 55)]
    finally:
        with desk_server.api() as client:
            current = client.get("/api/method/fw.client.get", params={"doctype": "Scoring Settings"}).json()["message"]
            keep = [{k: r[k] for k in ("level", "min_pph", "max_pph") if k in r} for r in before.get("thresholds", [])]
            r = client.post("/api/method/fw.client.save", json={"doc": {**current, "thresholds": keep}})
            assert r.status_code == 200, r.text


def test_fetch_from_fills_in_when_the_link_changes(page: Page, login_as: Callable[..., None],
                                                   desk_server: DeskServer) -> None:
    employee = api_rows(desk_server, "Employee", filters=[["status", "=", "Active"]],
                        fields=["name", "employee_name", "company"], order_by="name asc", limit=1)[0]
    login_as("reviewer")
    page.goto("/app/employee-score/new")
    expect(page.get_by_label("Employee Name")).to_have_count(0)  # read-only and empty: not shown
    combobox = page.get_by_role("combobox", name="Employee")
    combobox.fill(employee["name"])
    page.get_by_role("listbox", name="Employee").get_by_role("option").filter(
        has_text=employee["employee_name"]).first.click()
    expect(page.get_by_label("Employee Name")).to_have_value(employee["employee_name"])
    expect(page.get_by_role("combobox", name="Company")).to_have_value(employee["company"])


def test_create_a_new_document_from_a_link(page: Page, login_as: Callable[..., None],
                                           desk_server: DeskServer) -> None:
    new_type = f"Blocked Exit {secrets.token_hex(3)}"
    login_as("Administrator")
    page.goto("/app/warehouse-violation/new")
    combobox = page.get_by_role("combobox", name="Violation Type")
    combobox.fill(new_type)
    page.get_by_role("listbox", name="Violation Type").get_by_role(
        "option", name="Create a new Warehouse Violation Type").click()
    dialog = page.get_by_role("dialog", name="New Warehouse Violation Type")
    expect(dialog.get_by_label("Violation Type")).to_have_value(new_type)  # what was typed
    dialog.get_by_role("button", name="Save").click()
    expect(dialog).to_be_hidden()
    expect(combobox).to_have_value(new_type)
    assert api_rows(desk_server, "Warehouse Violation Type", filters=[["name", "=", new_type]], fields=["name"]) == [
        {"name": new_type}]


def test_field_rules(page: Page, login_as: Callable[..., None], custom_fields: None) -> None:
    login_as("Administrator")
    page.goto("/app/warehouse-violation-type/new")
    points = page.get_by_label("Penalty Points")
    expect(page.get_by_label("Rule Note")).to_have_count(0)  # depends_on: points above 5
    expect(page.get_by_label("Locked Note")).to_have_attribute("readonly", "")  # read_only_depends_on: no points
    points.fill("6")
    points.press("Tab")
    rule = page.get_by_label("Rule Note")
    expect(rule).to_be_visible()
    expect(rule).not_to_have_attribute("aria-required", "true")
    expect(page.get_by_label("Locked Note")).not_to_have_attribute("readonly", "")
    points.fill("9")
    points.press("Tab")
    expect(rule).to_have_attribute("aria-required", "true")  # mandatory_depends_on: 8 or more
    page.get_by_role("textbox", name="Violation Type", exact=True).fill(f"Rules {secrets.token_hex(3)}")
    page.get_by_role("button", name="Save").click()
    expect(rule).to_have_accessible_description("Rule Note is mandatory")
    expect(rule).to_be_focused()  # the first missing field takes the focus (before anything is typed)
    points.fill("2")
    points.press("Tab")
    expect(page.get_by_label("Rule Note")).to_have_count(0)  # hidden again, so not asked for
    page.get_by_role("button", name="Save").click()
    expect(pill(page)).to_have_count(0)
    page.wait_for_url(re.compile(r"/app/warehouse-violation-type/Rules%20\w+$"))


def test_duration_rating_text_editor_and_attach(page: Page, login_as: Callable[..., None], custom_fields: None,
                                                desk_server: DeskServer) -> None:
    name = f"Controls {secrets.token_hex(3)}"
    login_as("Administrator")
    page.goto("/app/warehouse-violation-type/new")
    page.get_by_role("textbox", name="Violation Type", exact=True).fill(name)
    duration = page.get_by_label("Handling Time")
    duration.fill("soon")
    duration.press("Tab")
    expect(duration).to_have_accessible_description("Enter a duration such as 1h 30m")
    duration.fill("1h 30m")
    duration.press("Tab")
    expect(duration).to_have_value("1h 30m")
    severity = page.get_by_role("group", name="Severity")
    severity.get_by_role("radio", name="4 stars").check()
    expect(severity.get_by_role("radio", name="4 stars")).to_be_checked()
    hostile = ('<p>Keep <b>calm</b></p><img src=x onerror="window.__pwned=1">'
               '<script>window.__pwned=2</script><a href="javascript:window.__pwned=3">link</a>')
    page.get_by_label("Guidance").fill(hostile)
    preview = page.get_by_role("region", name="Preview")
    expect(preview).to_contain_text("Keep calm")
    expect(preview.locator("b")).to_have_text("calm")
    expect(preview.locator("img, script")).to_have_count(0)
    expect(preview.locator("a")).to_have_text("link")
    expect(preview.locator("a")).not_to_have_attribute("href", re.compile("javascript"))  # an unsafe link has none
    page.get_by_label("Photo").set_input_files({"name": "pixel.png", "mimeType": "image/png", "buffer": PIXEL_PNG})
    expect(page.get_by_role("link", name="pixel.png")).to_be_visible()
    expect(page.get_by_role("img", name="pixel.png")).to_be_visible()
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(re.compile(r"/app/warehouse-violation-type/Controls%20\w+$"))
    assert page.evaluate("() => window.__pwned") is None
    stored: dict[str, Any] = api_rows(desk_server, "Warehouse Violation Type", filters=[["name", "=", name]],
                                      fields=["handling_time", "severity", "guidance", "photo"], limit=1)[0]
    assert stored["handling_time"] == 5400
    assert stored["severity"] == pytest.approx(0.8)
    assert stored["guidance"] == hostile  # stored as typed; every place that shows it sanitises it
    assert re.fullmatch(r"/files/pixel[\w-]*\.png", stored["photo"]), stored["photo"]
    page.reload()
    expect(page.get_by_label("Handling Time")).to_have_value("1h 30m")
    expect(page.get_by_role("group", name="Severity").get_by_role("radio", name="4 stars")).to_be_checked()


def test_the_sidebar_shows_who_attachments_and_activity(page: Page, login_as: Callable[..., None],
                                                        desk_server: DeskServer) -> None:
    from tests.desk.test_browser_form import new_draft

    draft = new_draft(desk_server, "first words")
    login_as("warehouse")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    sidebar = page.get_by_role("complementary", name="Document information")
    expect(sidebar).to_contain_text("Created by Warehouse Manager")
    page.get_by_label("Description").fill("<b>second</b> words")
    page.get_by_role("button", name="Save").click()
    activity = sidebar.get_by_role("list").last
    expect(activity).to_contain_text("Warehouse Manager changed Description from first words to <b>second</b> words")
    sidebar.get_by_label("Attach a file").set_input_files(
        {"name": "note.txt", "mimeType": "text/plain", "buffer": b"a note"})
    expect(sidebar.get_by_role("link", name="note.txt")).to_be_visible()
    sidebar.get_by_role("button", name="Remove note.txt").click()
    page.get_by_role("dialog", name="Remove").get_by_role("button", name="Yes").click()
    expect(sidebar.get_by_role("link", name="note.txt")).to_have_count(0)
    expect(sidebar).to_contain_text("No attachments")


def test_a_field_above_the_users_permlevel_is_not_shown(page: Page, login_as: Callable[..., None],
                                                        desk_server: DeskServer) -> None:
    with desk_server.api() as client:
        r = client.post("/api/method/fw.client.insert", json={"doc": {
            "doctype": "Custom Field", "dt": "Warehouse Violation Type", "fieldname": "internal_code",
            "fieldtype": "Data", "label": "Internal Code", "permlevel": 1, "insert_after": "penalty_points"}})
        assert r.status_code == 200, r.text
        field = r.json()["message"]["name"]
    try:
        with desk_server.api() as client:
            r = client.put("/api/resource/Warehouse Violation Type/Late Scan", json={"internal_code": "LS-1"})
            assert r.status_code == 200, r.text
        login_as("reviewer")  # reads violation types at level 0 only: the server leaves the field out
        page.goto("/app/warehouse-violation-type/Late Scan")
        expect(page.get_by_label("Penalty Points")).to_be_visible()
        expect(page.get_by_label("Internal Code")).to_have_count(0)
        page.context.clear_cookies()
        login_as("Administrator")
        page.goto("/app/warehouse-violation-type/Late Scan")
        expect(page.get_by_label("Internal Code")).to_have_value("LS-1")
    finally:
        with desk_server.api() as client:
            client.post("/api/method/fw.client.delete", json={"doctype": "Custom Field", "name": field})


def test_dynamic_link(page: Page, login_as: Callable[..., None], custom_fields: None,
                                           desk_server: DeskServer) -> None:
    employee = api_rows(desk_server, "Employee", filters=[["status", "=", "Active"]],
                        fields=["name", "employee_name"], order_by="name asc", limit=1)[0]
    name = f"Picks {secrets.token_hex(3)}"
    login_as("Administrator")
    page.goto("/app/warehouse-violation-type/new")
    page.get_by_role("textbox", name="Violation Type", exact=True).fill(name)
    reference_type = page.get_by_role("combobox", name="Reference Type")
    reference_type.fill("Employee")
    page.get_by_role("listbox", name="DocType").get_by_role("option", name="Employee").first.click()
    reference = page.get_by_role("combobox", name="Reference", exact=True)
    reference.fill(employee["name"])  # a Dynamic Link searches the doctype its other field names
    page.get_by_role("listbox", name="Employee").get_by_role("option").filter(
        has_text=employee["employee_name"]).first.click()
    expect(reference).to_have_value(employee["name"])
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(re.compile(r"/app/warehouse-violation-type/Picks%20\w+$"))
    with desk_server.api() as client:
        stored = client.get("/api/method/fw.client.get",
                            params={"doctype": "Warehouse Violation Type", "name": name}).json()["message"]
    assert (stored["ref_doctype"], stored["ref_name"]) == ("Employee", employee["name"])
