"""Logging in and out in Chromium (desk.md §1): the login form by its labels, Enter logs in, the
server's message on wrong credentials, back to the page a Guest asked for, never to another site,
logout in the user menu, the page in the browser's language."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.desk.browser import DEMO_PASSWORD, DEMO_USERS, DeskServer
from tests.e2e.conftest import ADMIN_PASSWORD


def fill_login(page: Page, usr: str, pwd: str) -> None:
    page.get_by_label("Email").fill(usr)
    page.get_by_label("Password").fill(pwd)


def test_enter_logs_in(page: Page) -> None:
    page.goto("/login")
    expect(page.get_by_role("heading", name="Log in to fw")).to_be_visible()
    fill_login(page, "Administrator", ADMIN_PASSWORD)
    page.get_by_label("Password").press("Enter")
    page.wait_for_url("**/app")
    expect(page.get_by_role("heading", level=1, name="Home")).to_be_visible()
    expect(page.get_by_role("button", name="Administrator")).to_be_visible()  # the user menu


def test_the_login_button_and_wrong_credentials(page: Page) -> None:
    page.goto("/login")
    page.get_by_role("button", name="Login").click()
    expect(page.get_by_role("alert")).to_have_text("Enter your email and password")
    fill_login(page, DEMO_USERS["reviewer"], "not-the-password")
    page.get_by_role("button", name="Login").click()
    expect(page.get_by_role("alert")).to_have_text("Invalid login credentials")  # the server's message
    assert page.url.endswith("/login")
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Login").click()
    page.wait_for_url("**/app")


def test_a_guest_goes_to_login_and_back(page: Page) -> None:
    page.goto("/app/warehouse-violation?workflow_state=Pending")
    page.wait_for_url(re.compile(r"/login\?redirect-to="))
    fill_login(page, DEMO_USERS["reviewer"], DEMO_PASSWORD)
    page.get_by_role("button", name="Login").click()
    page.wait_for_url("**/app/warehouse-violation?workflow_state=Pending")
    expect(page.get_by_role("heading", level=1, name="Warehouse Violation")).to_be_visible()


def test_an_off_site_redirect_is_refused(page: Page) -> None:
    for target in ("https://evil.example/", "//evil.example/x", "/\\evil.example"):
        page.context.clear_cookies()
        page.goto(f"/login?redirect-to={target}")
        fill_login(page, DEMO_USERS["manager"], DEMO_PASSWORD)
        page.get_by_role("button", name="Login").click()
        page.wait_for_url("**/app")
        assert page.url.endswith("/app"), (target, page.url)


def test_logout_is_in_the_user_menu(page: Page, login_as: object, desk_server: DeskServer) -> None:
    login_as("warehouse")  # type: ignore[operator]
    page.goto("/app")
    page.get_by_role("button", name="Warehouse Manager").click()
    expect(page.get_by_role("menu")).to_be_visible()
    page.get_by_role("menuitem", name="Log out").click()
    page.wait_for_url("**/login")
    page.goto("/app/employee")
    page.wait_for_url(re.compile(r"/login\?redirect-to=%2Fapp%2Femployee|/login\?redirect-to=/app/employee"))


def test_the_login_page_in_german(chromium: Browser, desk_server: DeskServer) -> None:
    context = chromium.new_context(base_url=desk_server.url, locale="de-DE")
    try:
        page = context.new_page()
        page.goto("/login")
        expect(page.get_by_label("E-Mail")).to_be_visible()
        expect(page.get_by_label("Passwort")).to_be_visible()
        expect(page.get_by_role("button", name="Anmelden")).to_be_visible()
    finally:
        context.close()
