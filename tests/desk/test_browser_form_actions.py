"""Document actions in Chromium (desk.md §4): Submit and Cancel ask first and move the pill; Amend makes
`<name>-1`; Delete asks and goes back to the list; Reload and Duplicate; what a user may not do is not
offered, and the same request forged over the API is refused; someone else's change reaches the open
form (it reloads when unchanged, says so when changed)."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from tests.desk.browser import DEMO_PASSWORD, DEMO_USERS, DeskServer
from tests.desk.test_browser_form import new_draft, pill
from tests.desk.test_browser_list import api_rows


def an_employee(desk_server: DeskServer) -> dict[str, Any]:
    """An active employee of the demo's first company (whose scores the Department Manager reviews)."""
    return api_rows(desk_server, "Employee",  # type: ignore[no-any-return]
                    filters=[["status", "=", "Active"], ["company", "=", "Northwind Logistics"]],
                    fields=["name", "employee_name"], order_by="name desc", limit=1)[0]


def a_score(desk_server: DeskServer, usr: str = DEMO_USERS["reviewer"], pwd: str = DEMO_PASSWORD) -> dict[str, Any]:
    """A draft Employee Score (submittable, no workflow)."""
    day = f"20{secrets.randbelow(70) + 30}-0{secrets.randbelow(9) + 1}-1{secrets.randbelow(9)}"
    return desk_server.insert({"doctype": "Employee Score", "employee": an_employee(desk_server)["name"],
                               "period_type": "Daily", "period_value": day, "date": day, "value": 42}, usr, pwd)


def menu_items(page: Page) -> list[str]:
    page.get_by_role("button", name="Menu").click()
    items = page.get_by_role("menu", name="Menu").get_by_role("menuitem")
    expect(items.first).to_be_visible()
    texts = [t.strip() for t in items.all_inner_texts()]
    page.keyboard.press("Escape")
    return texts


def confirm(page: Page, title: str, message: str) -> None:
    dialog = page.get_by_role("dialog", name=title)
    expect(dialog).to_contain_text(message)
    dialog.get_by_role("button", name="Yes").click()
    expect(dialog).to_be_hidden()


def test_submit_and_cancel_ask_first(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    score = a_score(desk_server)
    login_as("reviewer")  # HR Reviewer: create, write, submit, cancel; neither delete nor amend
    page.goto(f"/app/employee-score/{score['name']}")
    expect(pill(page)).to_have_text("Draft")
    assert menu_items(page) == ["Reload", "Duplicate", "New Employee Score"]  # no Delete
    page.get_by_role("button", name="Submit").click()
    dialog = page.get_by_role("dialog", name="Submit")
    expect(dialog).to_contain_text(f"Permanently Submit {score['name']}?")
    dialog.get_by_role("button", name="No").click()
    expect(pill(page)).to_have_text("Draft")  # nothing happened
    page.get_by_label("Value", exact=True).fill("55")
    expect(page.get_by_role("button", name="Submit")).to_have_count(0)  # a changed draft saves first
    page.get_by_role("button", name="Save").click()
    expect(pill(page)).to_have_text("Draft")
    page.get_by_role("button", name="Submit").click()
    confirm(page, "Submit", f"Permanently Submit {score['name']}?")
    expect(pill(page)).to_have_text("Submitted")
    expect(pill(page)).to_have_class(re.compile(r"\bblue\b"))
    expect(page.get_by_label("Value", exact=True)).to_have_attribute("readonly", "")
    expect(page.get_by_role("button", name="Save")).to_have_count(0)
    page.get_by_role("button", name="Cancel").click()
    confirm(page, "Cancel", f"Permanently Cancel {score['name']}?")
    expect(pill(page)).to_have_text("Cancelled")
    expect(page.get_by_role("button", name="Amend")).to_have_count(0)  # no amend right
    assert menu_items(page) == ["Reload", "Duplicate", "New Employee Score"]
    stored = api_rows(desk_server, "Employee Score", filters=[["name", "=", score["name"]]],
                      fields=["docstatus", "value"], limit=1)[0]
    assert stored == {"docstatus": 2, "value": 55}


def test_amend_a_cancelled_document(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    score = a_score(desk_server)
    with desk_server.api() as client:
        assert client.post("/api/method/fw.client.submit", json={"doc": {**score}}).status_code == 200
        assert client.post("/api/method/fw.client.cancel",
                           json={"doctype": "Employee Score", "name": score["name"]}).status_code == 200
    login_as("Administrator")
    page.goto(f"/app/employee-score/{score['name']}")
    expect(pill(page)).to_have_text("Cancelled")
    page.get_by_role("button", name="Amend").click()
    page.wait_for_url("**/app/employee-score/new")
    expect(pill(page)).to_have_text("Not Saved")
    expect(page.get_by_label("Value", exact=True)).to_have_value("42")
    page.get_by_label("Value", exact=True).fill("43")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(f"**/app/employee-score/{score['name']}-1")
    expect(pill(page)).to_have_text("Draft")
    amended = api_rows(desk_server, "Employee Score", filters=[["name", "=", f"{score['name']}-1"]],
                       fields=["amended_from", "value", "docstatus"], limit=1)[0]
    assert amended == {"amended_from": score["name"], "value": 43, "docstatus": 0}


def test_delete_asks_and_returns_to_the_list(page: Page, login_as: Callable[..., None],
                                             desk_server: DeskServer) -> None:
    draft = new_draft(desk_server, "to be deleted")
    login_as("Administrator")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    expect(pill(page)).to_have_text("Draft")
    page.get_by_role("button", name="Menu").click()
    page.get_by_role("menu", name="Menu").get_by_role("menuitem", name="Delete").click()
    confirm(page, "Delete", f"Permanently delete {draft['name']}?")
    page.wait_for_url(re.compile(r"/app/warehouse-violation$"))
    expect(page.get_by_role("status").filter(has_text="Deleted")).to_be_visible()
    assert api_rows(desk_server, "Warehouse Violation", filters=[["name", "=", draft["name"]]], fields=["name"]) == []


def test_duplicate_and_reload(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    draft = new_draft(desk_server, "the original")
    login_as("warehouse")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    page.get_by_label("Description").fill("typed, then reloaded")
    page.get_by_role("button", name="Menu").click()
    page.get_by_role("menu", name="Menu").get_by_role("menuitem", name="Reload").click()
    confirm(page, "Reload", "Discard your unsaved changes and reload?")
    expect(page.get_by_label("Description")).to_have_value("the original")
    expect(pill(page)).to_have_text("Draft")
    page.get_by_role("button", name="Menu").click()
    page.get_by_role("menu", name="Menu").get_by_role("menuitem", name="Duplicate").click()
    page.wait_for_url("**/app/warehouse-violation/new")
    expect(page.get_by_role("combobox", name="Employee")).to_have_value(draft["employee"])
    expect(page.get_by_label("Description")).to_have_value("the original")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(re.compile(r"/app/warehouse-violation/WV-\d{4}-\d+$"))
    assert not page.url.endswith(draft["name"])
    expect(pill(page)).to_have_text("Draft")  # the copy starts at the workflow's first state


def test_what_a_user_may_not_do_is_neither_offered_nor_accepted(page: Page, login_as: Callable[..., None],
                                                                desk_server: DeskServer) -> None:
    score = a_score(desk_server)
    draft = new_draft(desk_server)
    login_as("manager")  # Department Manager: reads violations and scores
    page.goto(f"/app/employee-score/{score['name']}")
    expect(pill(page)).to_have_text("Draft")
    for button in ("Save", "Submit", "Actions"):
        expect(page.get_by_role("button", name=button, exact=True)).to_have_count(0)
    assert menu_items(page) == ["Reload"]
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    expect(pill(page)).to_have_text("Draft")
    expect(page.get_by_role("button", name="Actions")).to_have_count(0)
    # the same requests, forged: the server refuses each and changes nothing
    with desk_server.api(DEMO_USERS["manager"], DEMO_PASSWORD) as client:
        r = client.post("/api/method/fw.client.submit", json={"doc": {**score}})
        assert r.status_code == 403, r.text
        r = client.post("/api/method/fw.model.workflow.apply_workflow",
                        json={"doc": {"doctype": "Warehouse Violation", "name": draft["name"]},
                              "action": "Submit for Review"})
        assert r.status_code == 417, r.text  # not a transition this user may take
        r = client.post("/api/method/fw.client.delete", json={"doctype": "Warehouse Violation", "name": draft["name"]})
        assert r.status_code == 403, r.text
    with desk_server.api(DEMO_USERS["warehouse"], DEMO_PASSWORD) as client:
        # a Warehouse Manager may not submit, nor confirm a violation past its workflow
        r = client.post("/api/method/fw.client.submit", json={"doc": {**draft}})
        assert r.status_code == 403, r.text
        r = client.post("/api/method/fw.model.workflow.apply_workflow",
                        json={"doc": {"doctype": "Warehouse Violation", "name": draft["name"]}, "action": "Confirm"})
        assert r.status_code == 417, r.text
    with desk_server.api(DEMO_USERS["reviewer"], DEMO_PASSWORD) as client:
        r = client.post("/api/method/fw.client.delete", json={"doctype": "Employee Score", "name": score["name"]})
        assert r.status_code == 403, r.text
    assert api_rows(desk_server, "Employee Score", filters=[["name", "=", score["name"]]], fields=["docstatus"]) == [
        {"docstatus": 0}]
    assert api_rows(desk_server, "Warehouse Violation", filters=[["name", "=", draft["name"]]],
                    fields=["workflow_state", "docstatus"]) == [{"workflow_state": "Draft", "docstatus": 0}]


def test_someone_elses_change_reaches_the_open_form(page: Page, login_as: Callable[..., None],
                                                    desk_server: DeskServer) -> None:
    draft = new_draft(desk_server, "as opened")
    login_as("warehouse")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    description = page.get_by_label("Description")
    expect(description).to_have_value("as opened")

    def change(text: str) -> None:
        with desk_server.api(DEMO_USERS["warehouse"], DEMO_PASSWORD) as client:
            doc = client.get(f"/api/resource/Warehouse Violation/{draft['name']}").json()["data"]
            r = client.put(f"/api/resource/Warehouse Violation/{draft['name']}", json={"description": text,
                                                                                       "modified": doc["modified"]})
            assert r.status_code == 200, r.text

    page.wait_for_timeout(500)  # the form has joined the document's room
    change("changed elsewhere")
    expect(description).to_have_value("changed elsewhere")  # an unchanged form reloads by itself
    description.fill("my own words")
    change("changed again elsewhere")
    notice = page.get_by_role("alert").filter(has_text="modified after you opened it")
    expect(notice).to_be_visible()
    expect(description).to_have_value("my own words")  # nothing typed is lost
    notice.get_by_role("button", name="Reload").click()
    expect(description).to_have_value("changed again elsewhere")
    expect(notice).to_be_hidden()
    expect(pill(page)).to_have_text("Draft")


def test_waiving_cancels_with_the_alert_naming_the_employee(page: Page, login_as: Callable[..., None],
                                                            desk_server: DeskServer) -> None:
    appealed = api_rows(desk_server, "Warehouse Violation", filters=[["workflow_state", "=", "Appealed"]],
                        fields=["name", "employee_name"], limit=1)[0]
    login_as("reviewer")
    page.goto(f"/app/warehouse-violation/{appealed['name']}")
    expect(pill(page)).to_have_text("Appealed")
    page.get_by_role("button", name="Actions").click()
    menu = page.get_by_role("menu", name="Actions")
    expect(menu.get_by_role("menuitem")).to_have_text(["Uphold", "Waive"])
    menu.get_by_role("menuitem", name="Waive").click()
    expect(pill(page)).to_have_text("Waived")
    expect(pill(page)).to_have_class(re.compile(r"\bred\b"))
    # the interface spec's alert on cancel, naming the employee
    expect(page.get_by_role("status").filter(has_text="cancelled")).to_contain_text(
        f"Violation of {appealed['employee_name']} cancelled")
    expect(page.get_by_role("button", name="Actions")).to_have_count(0)  # Waived is the end
    expect(page.get_by_role("button", name="Amend")).to_have_count(0)  # HR Reviewer has no amend right


def test_a_german_reviewer_confirms_in_german(page: Page, login_as: Callable[..., None],
                                              desk_server: DeskServer) -> None:
    from tests.desk.test_browser_german import german_user

    pending = api_rows(desk_server, "Warehouse Violation", filters=[["workflow_state", "=", "Pending"]],
                       fields=["name", "employee_name"], order_by="modified asc", limit=1)[0]
    login_as(german_user(desk_server, "greta.reviewer@demo.example.com", "HR Reviewer"), "german-pass-1")
    page.goto(f"/app/warehouse-violation/{pending['name']}")
    expect(pill(page)).to_have_text("Ausstehend")
    page.get_by_role("button", name="Menü").click()
    expect(page.get_by_role("menu", name="Menü").get_by_role("menuitem")).to_have_text(["Neu laden", "Drucken"])
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Aktionen").click()
    menu = page.get_by_role("menu", name="Aktionen")
    expect(menu.get_by_role("menuitem")).to_have_text(["Bestätigen", "Ablehnen"])
    menu.get_by_role("menuitem", name="Bestätigen").click()
    expect(pill(page)).to_have_text("Bestätigt")
    expect(page.get_by_role("status").filter(has_text="Verstoß bestätigt")).to_contain_text(
        f"für {pending['employee_name']}")
