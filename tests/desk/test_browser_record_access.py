"""Record access in Chromium (business.md §1, §6): the form sidebar's "Shared With" (share with a
user and the rights as checkboxes, remove), a User Permission made in its form with the Dynamic
Link searching the chosen doctype, and its effect on a restricted user's list."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.desk.browser import DEMO_USERS, DeskServer
from tests.desk.test_browser_form import new_draft
from tests.desk.test_browser_form_sidebar import sidebar
from tests.desk.test_browser_list import api_rows


def pick(page: Page, label: str, text: str, doctype: str | None = None) -> None:
    """Type `text` into the Link field `label` and take the first option holding it (the listbox is
    named after the doctype searched)."""
    combobox = page.get_by_role("combobox", name=label)
    combobox.fill(text)
    listbox = page.get_by_role("listbox", name=doctype or label)
    listbox.get_by_role("option").filter(has_text=text).first.click()
    expect(combobox).to_have_value(re.compile(re.escape(text)))


def test_a_document_is_shared_and_unshared_from_the_sidebar(page: Page, login_as: Callable[..., None],
                                                            desk_server: DeskServer) -> None:
    draft = new_draft(desk_server, "to share")
    reviewer = DEMO_USERS["reviewer"]
    login_as("Administrator")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    shared = sidebar(page).get_by_role("region", name="Shared With")
    expect(shared).to_contain_text("Not shared with anyone")
    shared.get_by_role("button", name="Share", exact=True).click()
    dialog = page.get_by_role("dialog", name=f"Share {draft['name']}")
    expect(dialog.get_by_role("checkbox", name="Read")).to_be_checked()
    pick(page, "User", reviewer)
    dialog.get_by_role("checkbox", name="Write").check()
    dialog.get_by_role("button", name="Share", exact=True).click()
    expect(dialog).to_be_hidden()
    expect(shared.get_by_role("listitem")).to_have_count(1)
    expect(shared.get_by_role("listitem")).to_contain_text("(read, write)")
    shares = api_rows(desk_server, "DocShare", filters=[["share_name", "=", draft["name"]]],
                      fields=["user", "read", "write"])
    assert shares == [{"user": reviewer, "read": 1, "write": 1}]
    shared.get_by_role("button", name=f"Remove {reviewer}").click()
    expect(shared).to_contain_text("Not shared with anyone")
    assert api_rows(desk_server, "DocShare", filters=[["share_name", "=", draft["name"]]]) == []


def test_a_user_permission_made_in_its_form_restricts_the_users_list(
        page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    user = "restricted@demo.example.com"
    companies = [r["name"] for r in api_rows(desk_server, "Company", fields=["name"], order_by="name asc")]
    assert len(companies) >= 2, companies
    with desk_server.api() as api:
        if not api.get(f"/api/resource/User/{user}").is_success:
            r = api.post("/api/resource/User", json={"email": user, "first_name": "Restricted", "new_password":
                                                    "demo-pass-1", "send_welcome_email": 0,
                                                    "roles": [{"role": "System Manager"}]})
            assert r.is_success, r.text
    login_as("Administrator")
    page.goto("/app/user-permission/new")
    pick(page, "User", user)
    pick(page, "Allow", "Company", "DocType")
    pick(page, "For Value", companies[0], "Company")  # the Dynamic Link searches the doctype chosen in Allow
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(re.compile(r"/app/user-permission/[^/]+$"))
    page.goto(f"/app/user/{user}")  # the User form links to the user's records
    page.get_by_role("button", name="User Permissions").click()
    page.wait_for_url(re.compile(r"/app/user-permission"))
    expect(page.get_by_role("table").get_by_role("row").filter(has_text=companies[0])).to_have_count(1)
    login_as(user, "demo-pass-1")
    page.goto("/app/company")
    rows = page.get_by_role("table").get_by_role("row")
    expect(rows.filter(has_text=companies[0])).to_have_count(1)
    expect(rows.filter(has_text=companies[1])).to_have_count(0)
