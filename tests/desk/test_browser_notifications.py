"""The bell and Assign To in Chromium (business.md §2.3, §2.4, §6): the top bar's "Notifications"
button counts the unread logs live (an assignment made elsewhere shows up without a reload), its
panel opens the document and marks the entry read, "Mark all as read" clears the count; the form
sidebar's "Assigned To" assigns through a dialog with a user field and removes with "Remove <user>";
a user who may not read the document is refused by name; the list sidebar's "Assigned To" filters
the list; the ToDo list opens on the user's own open ToDos."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Locator, Page, expect

from tests.desk.browser import DEMO_PASSWORD, DEMO_USERS, DeskServer
from tests.desk.test_browser_form import new_draft

ASSIGN = "/api/method/fw.desk.form.assign_to.add"
REVIEWER = DEMO_USERS["reviewer"]


def assign(desk_server: DeskServer, doc: dict[str, Any], user: str) -> None:
    with desk_server.api() as client:
        r = client.post(ASSIGN, data={"doctype": doc["doctype"], "name": doc["name"], "assign_to": json.dumps([user])})
        assert r.status_code == 200, r.text[:300]


def bell(page: Page) -> Locator:
    return page.get_by_role("button", name="Notifications", exact=True)


def panel(page: Page) -> Locator:
    return page.get_by_role("dialog", name="Notifications")


def mark_everything_read(desk_server: DeskServer) -> None:
    with desk_server.api(REVIEWER, DEMO_PASSWORD) as client:
        r = client.post("/api/method/frappe.desk.doctype.notification_log.notification_log.mark_all_as_read")
        assert r.status_code == 200, r.text[:300]


def test_the_bell_counts_live_opens_the_document_and_marks_read(
        page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    mark_everything_read(desk_server)
    login_as("reviewer")
    page.goto("/app")
    expect(bell(page)).to_be_visible()
    count = page.locator(".notifications-count")
    expect(count).to_have_count(0)  # nothing unread
    first = new_draft(desk_server, "bell one")
    assign(desk_server, first, REVIEWER)  # made elsewhere: the realtime event updates the count
    expect(count).to_have_text("1")
    expect(bell(page)).to_have_accessible_description("1 unread")
    bell(page).click()
    entry = panel(page).get_by_role("button", name=re.compile("Administrator assigned a new task Warehouse Violation"))
    expect(entry).to_have_count(1)
    expect(entry).to_contain_text("Unread")
    entry.click()
    expect(page).to_have_url(re.compile(f"/app/warehouse-violation/{first['name']}$"))
    expect(count).to_have_count(0)
    for text in ("bell two", "bell three"):
        assign(desk_server, new_draft(desk_server, text), REVIEWER)
    expect(count).to_have_text("2")
    bell(page).click()
    panel(page).get_by_role("button", name="Mark all as read").click()
    expect(count).to_have_count(0)
    expect(panel(page).get_by_text("Unread", exact=True)).to_have_count(0)
    page.keyboard.press("Escape")
    expect(panel(page)).to_have_count(0)
    expect(bell(page)).to_be_focused()
    page.goto("/app/notification-log")  # the list of one's own logs
    expect(page.get_by_role("link", name=re.compile("Administrator assigned a new task"))).to_have_count(3)


def test_assign_and_remove_in_the_form_sidebar_and_filter_the_list(
        page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    draft = new_draft(desk_server, "to be assigned")
    outsider = f"outsider-{secrets.token_hex(3)}@demo.example.com"  # a user without a role: may not read it
    desk_server.insert({"doctype": "User", "email": outsider, "first_name": "Outsider", "send_welcome_email": 0})
    login_as("warehouse")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    sidebar = page.get_by_role("complementary", name="Document information")
    assigned = sidebar.get_by_role("region", name="Assigned To")
    expect(assigned).to_contain_text("Nobody yet")
    assigned.get_by_role("button", name="Assign To").click()
    dialog = page.get_by_role("dialog", name="Add to ToDo")
    dialog.get_by_label("Assign To").fill(outsider)
    dialog.get_by_label("Assign To").press("Tab")
    dialog.get_by_role("button", name="Add").click()
    refusal = page.get_by_role("dialog", name="Error")
    expect(refusal).to_contain_text(f"{outsider} may not read")
    page.keyboard.press("Escape")  # the message closes, the dialog stays for another try
    expect(refusal).to_have_count(0)
    expect(dialog).to_be_visible()
    expect(assigned).to_contain_text("Nobody yet")
    dialog.get_by_label("Assign To").fill(REVIEWER)
    dialog.get_by_label("Assign To").press("Tab")
    dialog.get_by_role("button", name="Add").click()
    expect(dialog).to_have_count(0)
    expect(assigned.get_by_role("button", name=f"Remove {REVIEWER}")).to_be_visible()

    page.goto("/app/warehouse-violation")
    page.get_by_role("button", name="Assigned To").click()
    page.get_by_role("list", name="Counts by Assigned To").get_by_role("button", name=re.compile(
        re.escape(REVIEWER))).click()
    expect(page).to_have_url(re.compile("_assign="))
    expect(page.get_by_role("link", name=draft["employee_name"]).first).to_be_visible()

    login_as("reviewer")
    page.goto("/app/todo")  # the ToDo list opens on one's own open ToDos
    expect(page).to_have_url(re.compile("allocated_to="))
    expect(page).to_have_url(re.compile("status=Open"))

    login_as("warehouse")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    assigned = page.get_by_role("region", name="Assigned To")
    assigned.get_by_role("button", name=f"Remove {REVIEWER}").click()
    expect(assigned.get_by_role("button", name=f"Remove {REVIEWER}")).to_have_count(0)
    expect(assigned).to_contain_text("Nobody yet")
