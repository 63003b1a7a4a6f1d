"""The home page and sidebar per role in Chromium (desk.md §1): one section per module with what the
role may read and run; "Not permitted" and "Not found" inside the Desk; reload-safe routes; the Desk
in German; a narrow screen gets the sidebar as a drawer."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.desk.browser import DeskServer


def sidebar_links(page: Page) -> list[str]:
    nav = page.get_by_role("navigation", name="Modules")
    expect(nav.get_by_role("link").first).to_be_visible()
    return [text.strip() for text in nav.get_by_role("link").all_inner_texts()]


def test_an_employee_sees_only_what_they_may_read(page: Page, login_as: Callable[..., None]) -> None:
    login_as("employee")
    page.goto("/app")
    links = sidebar_links(page)
    assert {"Employee", "Company", "Branch", "Warehouse Violation", "Employee Score"} <= set(links)
    for hidden in ("Scoring Settings", "Employee Score Report", "User", "Role", "DocType", "Workflow"):
        assert hidden not in links, hidden
    nav = page.get_by_role("navigation", name="Modules")
    expect(nav.get_by_role("heading", name="HR")).to_be_visible()
    expect(nav.get_by_role("heading", name="Workforce Scoring")).to_be_visible()


def test_a_reviewer_sees_the_report_and_the_settings(page: Page, login_as: Callable[..., None]) -> None:
    login_as("reviewer")
    page.goto("/app")
    links = sidebar_links(page)
    assert {"Scoring Settings", "Employee Score Report", "Warehouse Violation"} <= set(links)
    main = page.get_by_role("main")
    expect(main.get_by_role("heading", name="Workforce Scoring")).to_be_visible()  # the home page's module card
    page.get_by_role("navigation", name="Modules").get_by_role("link", name="Warehouse Violation", exact=True).click()
    page.wait_for_url("**/app/warehouse-violation")
    expect(page.get_by_role("heading", level=1, name="Warehouse Violation")).to_be_visible()
    link = page.get_by_role("navigation", name="Modules").get_by_role("link", name="Warehouse Violation", exact=True)
    expect(link).to_have_attribute("aria-current", "page")


def test_not_permitted_and_not_found(page: Page, login_as: Callable[..., None]) -> None:
    login_as("employee")
    page.goto("/app/scoring-settings")
    expect(page.get_by_role("heading", level=1, name="Not permitted")).to_be_visible()
    page.goto("/app/warehouse-violation/new")  # may read, may not create
    expect(page.get_by_role("heading", level=1, name="Not permitted")).to_be_visible()
    page.goto("/app/no-such-doctype")
    expect(page.get_by_role("heading", level=1, name="Not found")).to_be_visible()
    page.goto("/app/warehouse-violation/WV-0000-99999")
    expect(page.get_by_role("heading", level=1, name="Not found")).to_be_visible()


def test_routes_survive_a_reload_and_back(page: Page, login_as: Callable[..., None]) -> None:
    login_as("manager")
    page.goto("/app/employee?status=Left")
    expect(page.get_by_role("heading", level=1, name="Employee")).to_be_visible()
    page.reload()
    expect(page.get_by_role("heading", level=1, name="Employee")).to_be_visible()
    expect(page.get_by_label("Status", exact=True)).to_have_value("Left")
    page.get_by_role("navigation", name="Modules").get_by_role("link", name="Company").click()
    expect(page.get_by_role("heading", level=1, name="Company")).to_be_visible()
    page.go_back()
    expect(page.get_by_role("heading", level=1, name="Employee")).to_be_visible()
    assert page.url.endswith("/app/employee?status=Left")


def test_the_desk_in_german(page: Page, desk_server: DeskServer, login_as: Callable[..., None]) -> None:
    desk_server.insert({"doctype": "User", "email": "german@demo.example.com", "first_name": "Greta",
                        "language": "de", "new_password": "german-pass-1", "roles": [{"role": "HR Reviewer"}]})
    login_as("german@demo.example.com", "german-pass-1")
    page.goto("/app")
    expect(page.get_by_role("heading", level=1, name="Startseite")).to_be_visible()
    expect(page.get_by_role("navigation", name="Module")).to_be_visible()
    assert page.evaluate("document.documentElement.lang") == "de"
    page.goto("/app/warehouse-violation")
    expect(page.get_by_role("button", name="Mehr")).to_be_visible()  # more than a page of rows
    # (filtered: which states the newest rows are in depends on the date the demo data was loaded on)
    page.goto("/app/warehouse-violation?workflow_state=Pending")
    expect(page.get_by_role("cell", name="Ausstehend").first).to_be_visible()  # the workflow state, translated


def test_a_narrow_screen_opens_the_sidebar_as_a_drawer(page: Page, login_as: Callable[..., None]) -> None:
    login_as("warehouse")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/app")
    toggle = page.get_by_role("button", name="Menu")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    nav = page.get_by_role("navigation", name="Modules")
    expect(nav).to_be_hidden()  # off screen, and out of the tab order
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    nav.get_by_role("link", name="Warehouse Violation", exact=True).click()
    expect(page.get_by_role("heading", level=1, name="Warehouse Violation")).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "false")  # the drawer closes on navigation
