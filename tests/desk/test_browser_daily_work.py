"""The reference app's daily work, end to end in Chromium (desk.md §10, issue 13): a warehouse manager
records a violation with the Link search and sends it for review; a reviewer confirms it (the alert
naming the penalty points and the employee); the employee it concerns appeals; a department manager
reads it. Each step in the role's own browser context, only through what the Desk offers."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.desk.browser import DEMO_PASSWORD, DEMO_USERS, DeskServer
from tests.desk.test_browser_list import api_rows, body_rows


def pill(page: Page) -> Any:
    return page.locator(".page-title .indicator-pill")


def as_user(chromium: Browser, desk_server: DeskServer, role: str) -> tuple[BrowserContext, Page]:
    ctx = chromium.new_context(base_url=desk_server.url, viewport={"width": 1280, "height": 900}, locale="en-US")
    ctx.set_default_timeout(10_000)
    r = ctx.request.post(f"{desk_server.url}/api/method/login", data={"usr": DEMO_USERS[role], "pwd": DEMO_PASSWORD})
    assert r.ok, r.text()
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    return ctx, page


def actions_menu(page: Page) -> Any:
    return page.get_by_role("button", name="Actions")


def take_action(page: Page, action: str) -> None:
    actions_menu(page).click()
    page.get_by_role("menu", name="Actions").get_by_role("menuitem", name=action).click()


def test_record_review_appeal_and_read(page: Page, login_as: Callable[..., None], chromium: Browser,
                                       desk_server: DeskServer) -> None:
    employee = api_rows(desk_server, "Employee", filters=[["user_id", "=", DEMO_USERS["employee"]]],
                        fields=["name", "employee_name"], limit=1)[0]
    points = api_rows(desk_server, "Warehouse Violation Type", filters=[["name", "=", "Late Scan"]],
                      fields=["penalty_points"], limit=1)[0]["penalty_points"]

    # 1. the warehouse manager records the violation, finding the employee by name, and sends it for review
    login_as("warehouse")
    page.goto("/app/warehouse-violation")
    page.get_by_role("button", name="Add Warehouse Violation").click()
    page.wait_for_url("**/app/warehouse-violation/new")
    combobox = page.get_by_role("combobox", name="Employee")
    combobox.fill(employee["employee_name"])
    page.get_by_role("listbox", name="Employee").get_by_role("option").filter(
        has_text=employee["employee_name"]).first.click()
    expect(combobox).to_have_value(employee["name"])
    violation_type = page.get_by_role("combobox", name="Violation Type")
    violation_type.fill("Late")
    page.get_by_role("listbox", name="Violation Type").get_by_role("option", name="Late Scan").click()
    page.get_by_label("Description").fill("Scanned the pallet 40 minutes late")
    expect(actions_menu(page)).to_have_count(0)  # nothing to act on before it is saved
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(re.compile(r"/app/warehouse-violation/WV-\d{4}-\d+$"))
    name = page.url.rsplit("/", 1)[-1]
    expect(pill(page)).to_have_text("Draft")
    expect(page.get_by_role("button", name="Submit")).to_have_count(0)  # a workflow moves it, not Submit
    take_action(page, "Submit for Review")
    expect(pill(page)).to_have_text("Pending")
    expect(pill(page)).to_have_class(re.compile(r"\borange\b"))
    expect(actions_menu(page)).to_have_count(0)  # only a reviewer acts on a pending violation
    expect(page.get_by_role("button", name="Save")).to_have_count(0)  # Pending is the reviewer's to edit
    expect(page.get_by_label("Description")).to_have_attribute("readonly", "")

    # 2. the reviewer finds it among the pending ones and confirms it
    reviewer_ctx, reviewer = as_user(chromium, desk_server, "reviewer")
    try:
        reviewer.goto("/app/warehouse-violation?workflow_state=Pending")
        body_rows(reviewer).filter(has=reviewer.get_by_role("link", name=employee["employee_name"])).get_by_role(
            "link", name=employee["employee_name"]).first.click()
        reviewer.wait_for_url(f"**/app/warehouse-violation/{name}")
        expect(pill(reviewer)).to_have_text("Pending")
        actions_menu(reviewer).click()
        menu = reviewer.get_by_role("menu", name="Actions")
        expect(menu.get_by_role("menuitem")).to_have_text(["Confirm", "Reject"])
        menu.get_by_role("menuitem", name="Confirm").click()
        expect(pill(reviewer)).to_have_text("Confirmed")
        expect(pill(reviewer)).to_have_class(re.compile(r"\bgreen\b"))
        # the interface spec's alert on submit: the penalty points and the employee's name
        expect(reviewer.get_by_role("status").filter(has_text="Violation confirmed")).to_have_text(
            re.compile(rf"Violation confirmed: {points:g} penalty points for {re.escape(employee['employee_name'])}"))
        expect(reviewer.get_by_label("Confirmed By", exact=True)).to_have_value(DEMO_USERS["reviewer"])
        expect(reviewer.get_by_role("button", name="Other Violations")).to_have_count(0)  # drafts only
        assert reviewer.errors == []  # type: ignore[attr-defined]
    finally:
        reviewer_ctx.close()

    # 3. the employee it concerns appeals
    employee_ctx, employee_page = as_user(chromium, desk_server, "employee")
    try:
        employee_page.goto(f"/app/warehouse-violation/{name}")
        expect(pill(employee_page)).to_have_text("Confirmed")
        expect(employee_page.get_by_role("button", name="Save")).to_have_count(0)
        actions_menu(employee_page).click()
        menu = employee_page.get_by_role("menu", name="Actions")
        expect(menu.get_by_role("menuitem")).to_have_text(["Appeal"])
        menu.get_by_role("menuitem", name="Appeal").click()
        expect(pill(employee_page)).to_have_text("Appealed")
        expect(actions_menu(employee_page)).to_have_count(0)  # the reviewer decides now
        assert employee_page.errors == []  # type: ignore[attr-defined]
    finally:
        employee_ctx.close()

    # 4. the department manager reads it: in the list as Appealed, and its form, with nothing to do
    manager_ctx, manager = as_user(chromium, desk_server, "manager")
    try:
        manager.goto(f"/app/warehouse-violation?employee={employee['name']}")
        row = body_rows(manager).filter(has=manager.locator(f'a[href="/app/warehouse-violation/{name}"]'))
        expect(row.get_by_text("Appealed", exact=True)).to_be_visible()
        expect(manager.get_by_role("button", name="Add Warehouse Violation")).to_have_count(0)
        row.locator(f'a[href="/app/warehouse-violation/{name}"]').first.click()
        manager.wait_for_url(f"**/app/warehouse-violation/{name}")
        expect(pill(manager)).to_have_text("Appealed")
        expect(manager.get_by_label("Description")).to_have_value("Scanned the pallet 40 minutes late")
        expect(manager.get_by_label("Description")).to_have_attribute("readonly", "")
        for button in ("Actions", "Save", "Submit", "Cancel", "Amend"):
            expect(manager.get_by_role("button", name=button, exact=True)).to_have_count(0)
        manager.get_by_role("button", name="Menu").click()
        expect(manager.get_by_role("menu", name="Menu").get_by_role("menuitem")).to_have_text(["Reload"])
        assert manager.errors == []  # type: ignore[attr-defined]
    finally:
        manager_ctx.close()

    stored = api_rows(desk_server, "Warehouse Violation", filters=[["name", "=", name]],
                      fields=["workflow_state", "docstatus", "confirmed_by"], limit=1)[0]
    assert stored == {"workflow_state": "Appealed", "docstatus": 1, "confirmed_by": DEMO_USERS["reviewer"]}
