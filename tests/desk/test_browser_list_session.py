"""Who reaches a list (desk.md §1, issue 13 "Bad input and failure"): a Guest reaches nothing but the
login page, the Desk's static files and guest-enabled methods; a session that ends while a list is
open sends the user to /login and back to the same list, filters included."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
from playwright.sync_api import Page, expect

from tests.desk.browser import DEMO_PASSWORD, DEMO_USERS, DeskServer


def test_a_guest_reaches_only_login_and_guest_methods(page: Page, desk_server: DeskServer) -> None:
    guest = page.context.request
    for path in (
        "/app",
        "/app/employee",
        "/app/employee/new",
        "/app/warehouse-violation?employee=X",
        "/app/query-report/Employee Score Report",
    ):
        r = guest.get(path, max_redirects=0)
        assert r.status in (302, 303, 307), (path, r.status)
        assert r.headers["location"].startswith("/login?redirect-to="), (path, r.headers["location"])
    for path in (
        "/api/resource/Employee",
        "/api/v2/document/Warehouse Violation",
        "/api/v2/doctype/Employee/count",
        "/api/method/fw.desk.form.load.getdoctype?doctype=Employee",
        "/api/method/fw.desk.search.search_link?doctype=Employee&txt=a",
        "/api/method/fw.client.get_list?doctype=Employee",
    ):
        r = guest.get(path)
        assert r.status in (401, 403), (path, r.status, r.text()[:200])
        assert "HR-EMP" not in r.text(), path
    assert guest.get("/api/method/ping").json() == {"message": "pong"}  # guest-enabled
    assert guest.get("/api/method/fw.auth.get_logged_user").status in (401, 403)  # as Frappe: not for a Guest
    page.goto("/login")
    expect(page.get_by_role("button", name="Login")).to_be_visible()  # its assets load for a Guest
    stylesheets = page.evaluate("[...document.styleSheets].filter((s) => s.href).length")
    assert stylesheets >= 1


def test_an_expired_session_on_a_list_goes_to_login_and_back(
    page: Page, login_as: Callable[..., None], desk_server: DeskServer
) -> None:
    login_as("manager")
    page.goto("/app/employee")
    expect(page.get_by_role("table").locator("tbody").get_by_role("row")).to_have_count(20)
    sid = next(c["value"] for c in page.context.cookies() if c["name"] == "sid")
    with httpx.Client(base_url=desk_server.url, cookies={"sid": sid}) as other:  # the session ends elsewhere
        token = other.get("/api/method/fw.auth.get_csrf_token").json()["message"]
        assert other.post("/api/method/logout", headers={"X-Frappe-CSRF-Token": token}).status_code == 200
    page.get_by_label("Status", exact=True).select_option("Left")  # the list asks the server again
    # (polled, not `wait_for_url`: the list's own URL update and the redirect to /login race, and
    # `wait_for_url` fails outright on the navigation the redirect aborts)
    expect(page).to_have_url(re.compile(r"/login\?redirect-to="))
    assert "status%3DLeft" in page.url or "status=Left" in page.url, page.url
    page.get_by_label("Email").fill(DEMO_USERS["manager"])
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Login").click()
    expect(page).to_have_url(re.compile(r"/app/employee\?status=Left$"))
    expect(page.get_by_label("Status", exact=True)).to_have_value("Left")
    expect(page.get_by_role("table").locator("tbody").get_by_role("row").first).to_be_visible()
