"""The form view in Chromium (desk.md §4): open, edit and save (Ctrl+S too) with the indicator pill;
a new document with the Link search; mandatory fields checked before the request; the server's error
shown at its field with the form kept as typed; who may edit; the form script's indicator, dashboard
and buttons; leaving a changed form asks (Escape closes the dialog); an expired session keeps what
was typed and comes back after logging in."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx
from playwright.sync_api import Page, Request, expect

from tests.desk.browser import DEMO_PASSWORD, DEMO_USERS, DeskServer
from tests.desk.test_browser_list import api_rows


def a_violation(desk_server: DeskServer, state: str) -> dict[str, Any]:
    return api_rows(desk_server, "Warehouse Violation", filters=[["workflow_state", "=", state]],
                    fields=["name", "employee", "employee_name", "penalty_points"], limit=1)[0]  # type: ignore[no-any-return]


def new_draft(desk_server: DeskServer, description: str = "") -> dict[str, Any]:
    employee = api_rows(desk_server, "Employee", filters=[["status", "=", "Active"]], fields=["name"], limit=1)[0]
    return desk_server.insert({"doctype": "Warehouse Violation", "employee": employee["name"], "date": "2024-05-02",
                               "violation_type": "Late Scan", "description": description},
                              DEMO_USERS["warehouse"], DEMO_PASSWORD)


def pill(page: Page) -> Any:
    return page.locator(".page-title .indicator-pill")


def test_open_edit_and_save_with_ctrl_s(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    draft = new_draft(desk_server, "first words")
    login_as("warehouse")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    expect(page.get_by_role("heading", level=1)).to_have_text(draft["employee_name"])
    expect(pill(page)).to_have_text("Draft")
    description = page.get_by_label("Description")
    expect(description).to_have_value("first words")
    description.fill("second words")
    expect(pill(page)).to_have_text("Not Saved")
    page.keyboard.press("Control+s")
    expect(page.get_by_role("status").filter(has_text="Saved")).to_be_visible()
    expect(pill(page)).to_have_text("Draft")
    page.reload()
    expect(page.get_by_label("Description")).to_have_value("second words")


def test_a_new_document_with_the_link_search(page: Page, login_as: Callable[..., None],
                                             desk_server: DeskServer) -> None:
    employee = api_rows(desk_server, "Employee", filters=[["status", "=", "Active"]],
                        fields=["name", "employee_name"], order_by="name asc", limit=1)[0]
    login_as("warehouse")
    page.goto("/app/warehouse-violation")
    page.get_by_role("button", name="Add Warehouse Violation").click()
    page.wait_for_url("**/app/warehouse-violation/new")
    expect(page.get_by_role("heading", level=1)).to_have_text("New Warehouse Violation")
    combobox = page.get_by_role("combobox", name="Employee")
    combobox.fill(employee["name"])
    listbox = page.get_by_role("listbox", name="Employee")
    expect(listbox).to_be_visible()
    expect(combobox).to_have_attribute("aria-expanded", "true")
    option = listbox.get_by_role("option").filter(has_text=employee["employee_name"]).first
    expect(option).to_be_visible()
    combobox.press("ArrowDown")  # keyboard: the active option follows aria-activedescendant
    combobox.press("ArrowUp")
    option.click()
    expect(combobox).to_have_value(employee["name"])
    expect(listbox).to_be_hidden()
    violation_type = page.get_by_role("combobox", name="Violation Type")
    violation_type.fill("Late")
    page.get_by_role("listbox", name="Violation Type").get_by_role("option", name="Late Scan").click()
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(re.compile(r"/app/warehouse-violation/WV-\d{4}-\d+$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(employee["employee_name"])
    expect(pill(page)).to_have_text("Draft")
    expect(page.get_by_role("link", name=f"Open Employee {employee['name']}")).to_have_attribute(
        "href", f"/app/employee/{employee['name']}")


def test_mandatory_fields_are_checked_first(page: Page, login_as: Callable[..., None]) -> None:
    login_as("warehouse")
    page.goto("/app/warehouse-violation/new")
    saves: list[Request] = []
    page.on("request", lambda r: saves.append(r) if "fw.client.insert" in r.url else None)
    page.get_by_role("button", name="Save").click()
    employee = page.get_by_role("combobox", name="Employee")
    expect(employee).to_have_attribute("aria-invalid", "true")
    expect(employee).to_have_accessible_description("Employee is mandatory")
    expect(page.get_by_role("alert").filter(has_text="Missing fields")).to_have_text(
        "Missing fields: Employee, Violation Type×")
    expect(employee).to_be_focused()
    assert saves == []  # nothing was sent


def test_the_servers_error_at_its_field_keeps_the_form(page: Page, login_as: Callable[..., None]) -> None:
    login_as("warehouse")
    page.goto("/app/warehouse-violation/new")
    employee = page.get_by_role("combobox", name="Employee")
    employee.fill("HR-EMP-99999")
    employee.press("Escape")
    violation_type = page.get_by_role("combobox", name="Violation Type")
    violation_type.fill("Late")
    page.get_by_role("listbox", name="Violation Type").get_by_role("option", name="Late Scan").click()
    page.get_by_label("Description").fill("typed before the error")
    page.get_by_role("button", name="Save").click()
    expect(employee).to_have_attribute("aria-invalid", "true")
    expect(employee).to_have_accessible_description("Could not find Employee: HR-EMP-99999")
    expect(page.get_by_role("alert").filter(has_text="Could not find")).to_be_visible()
    assert page.url.endswith("/app/warehouse-violation/new")
    expect(employee).to_have_value("HR-EMP-99999")
    expect(violation_type).to_have_value("Late Scan")
    expect(page.get_by_label("Description")).to_have_value("typed before the error")
    expect(pill(page)).to_have_text("Not Saved")


def test_who_may_edit(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    draft = new_draft(desk_server)
    login_as("reviewer")  # may write violations, but a Draft is the Warehouse Manager's (allow_edit)
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    expect(page.get_by_role("heading", level=1)).to_have_text(draft["employee_name"])
    expect(page.get_by_role("button", name="Save")).to_have_count(0)
    expect(page.get_by_label("Description")).to_have_attribute("readonly", "")
    page.context.clear_cookies()
    login_as("manager")  # reads only
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    expect(page.get_by_role("heading", level=1)).to_have_text(draft["employee_name"])
    expect(page.get_by_role("button", name="Save")).to_have_count(0)


def test_the_form_script_runs(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    pending = a_violation(desk_server, "Pending")
    login_as("reviewer")
    page.goto(f"/app/warehouse-violation/{pending['name']}")
    expect(pill(page)).to_have_text("Pending")
    expect(pill(page)).to_have_class(re.compile(r"\borange\b"))
    points = pending.get("penalty_points") or 0
    dashboard = page.get_by_role("list", name="Dashboard")
    expect(dashboard).to_contain_text(f"Penalty Points: {points:g}")
    page.get_by_role("button", name="Other Violations").click()
    page.wait_for_url(f"**/app/warehouse-violation?employee={pending['employee']}")
    expect(page.get_by_role("list", name="Active filters")).to_contain_text(f"Employee = {pending['employee']}")


def test_leaving_a_changed_form_asks(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    draft = new_draft(desk_server)
    login_as("warehouse")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    page.get_by_label("Description").fill("not saved yet")
    nav = page.get_by_role("navigation", name="Modules")
    nav.get_by_role("link", name="Employee", exact=True).click()
    dialog = page.get_by_role("dialog", name="Unsaved changes")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("button", name="No")).to_be_focused()  # focus moved into the dialog
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert page.url.endswith(draft["name"])
    expect(page.get_by_label("Description")).to_have_value("not saved yet")
    nav.get_by_role("link", name="Employee", exact=True).click()
    expect(dialog).to_be_visible()
    page.locator("body").focus()  # Escape closes the dialog wherever the focus is
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    nav.get_by_role("link", name="Employee", exact=True).click()
    page.get_by_role("dialog", name="Unsaved changes").get_by_role("button", name="Yes").click()
    page.wait_for_url("**/app/employee")


def test_leaving_a_new_form_asks_only_once_something_was_typed(page: Page, login_as: Callable[..., None]) -> None:
    login_as("warehouse")
    nav = page.get_by_role("navigation", name="Modules")
    page.goto("/app/warehouse-violation/new")
    expect(page.get_by_role("heading", name="New Warehouse Violation", level=1)).to_be_visible()
    expect(page.locator(".indicator-pill").first).to_have_text("Not Saved")  # unsaved, as in Frappe
    nav.get_by_role("link", name="Employee", exact=True).click()  # nothing typed: nothing to lose
    page.wait_for_url("**/app/employee")
    expect(page.get_by_role("dialog", name="Unsaved changes")).to_have_count(0)

    page.goto("/app/warehouse-violation/new")
    page.get_by_label("Description").fill("seen at the loading dock")
    nav.get_by_role("link", name="Employee", exact=True).click()
    dialog = page.get_by_role("dialog", name="Unsaved changes")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="No").click()
    expect(page.get_by_label("Description")).to_have_value("seen at the loading dock")
    assert page.url.endswith("/app/warehouse-violation/new")


def test_an_expired_session_keeps_what_was_typed(page: Page, login_as: Callable[..., None],
                                                 desk_server: DeskServer) -> None:
    draft = new_draft(desk_server)
    login_as("warehouse")
    path = f"/app/warehouse-violation/{draft['name']}"
    page.goto(path)
    page.get_by_label("Description").fill("typed while the session ended")
    sid = next(c["value"] for c in page.context.cookies() if c["name"] == "sid")
    with httpx.Client(base_url=desk_server.url, cookies={"sid": sid}) as other:  # the session ends elsewhere
        token = other.get("/api/method/fw.auth.get_csrf_token").json()["message"]
        assert other.post("/api/method/logout", headers={"X-Frappe-CSRF-Token": token}).status_code == 200
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(re.compile(r"/login\?redirect-to="))
    page.get_by_label("Email").fill(DEMO_USERS["warehouse"])
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Login").click()
    page.wait_for_url(f"**{path}")
    expect(page.get_by_label("Description")).to_have_value("typed while the session ended")
    expect(page.get_by_role("status").filter(has_text="restored")).to_be_visible()
    expect(pill(page)).to_have_text("Not Saved")
    page.keyboard.press("Control+s")
    expect(pill(page)).to_have_text("Draft")


def test_a_single_doctype_opens_as_its_form(page: Page, login_as: Callable[..., None]) -> None:
    login_as("reviewer")
    page.goto("/app/scoring-settings")
    expect(page.get_by_role("heading", level=1)).to_have_text("Scoring Settings")
    expect(page.get_by_role("button", name="Save")).to_have_count(0)  # HR Reviewer reads it only
