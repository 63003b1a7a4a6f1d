"""The list view in Chromium (desk.md §3): title and `in_list_view` columns, the status indicator in
its workflow colour, the modified age, 20 rows then more (20/100/500, fetching only the missing rows),
the count of matching rows, URL and standard filters (kept in the URL), sorting by the sort control and
by a column header, the rows by keyboard, an app's list settings (default filters, `get_indicator`,
formatters shown as text), the empty state, and `Add <Doctype>` only for who may create."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from tests.desk.browser import DeskServer


def api_rows(desk_server: DeskServer, doctype: str, **params: Any) -> Any:
    with desk_server.api() as client:
        query = {k: json.dumps(v) if not isinstance(v, str | int) else v for k, v in params.items()}
        r = client.get(f"/api/v2/document/{doctype}", params=query)
        assert r.status_code == 200, r.text
        return r.json()["data"]


def api_count(desk_server: DeskServer, doctype: str, filters: Any = None) -> int:
    with desk_server.api() as client:
        params = {"filters": json.dumps(filters)} if filters else {}
        return int(client.get(f"/api/v2/doctype/{doctype}/count", params=params).json()["data"])


def body_rows(page: Page) -> Any:
    return page.get_by_role("table").locator("tbody").get_by_role("row")


def test_columns_indicator_and_count(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    login_as("reviewer")
    page.goto("/app/warehouse-violation")
    expect(body_rows(page)).to_have_count(20)
    table = page.get_by_role("table", name="Warehouse Violation")
    headers = [h.strip() for h in table.get_by_role("columnheader").all_inner_texts()]
    assert headers == [
        "",  # the rows' checkboxes ("Select all": tests/desk/test_browser_list_tools.py)
        "Employee Name",
        "Status",
        "Employee",
        "Date",
        "Violation Type",
        "Penalty Points",
        "Last Updated",
    ]
    total = api_count(desk_server, "Warehouse Violation")
    expect(page.get_by_role("status").filter(has_text=" of ")).to_have_text(f"20 of {total}")
    pending = api_rows(
        desk_server,
        "Warehouse Violation",
        filters=[["workflow_state", "=", "Pending"]],
        fields=["name", "employee_name", "modified"],
        limit=1,
    )[0]
    page.goto("/app/warehouse-violation?workflow_state=Pending")
    row = body_rows(page).filter(has=page.get_by_role("link", name=pending["employee_name"])).first
    pill = row.get_by_text("Pending", exact=True)
    expect(pill).to_be_visible()
    expect(pill).to_have_class("indicator-pill orange ")  # the Workflow State's colour (Warning)
    expect(row.get_by_role("link", name=pending["employee_name"])).to_have_attribute(
        "href", f"/app/warehouse-violation/{pending['name']}"
    )
    expect(body_rows(page)).to_have_count(
        min(20, api_count(desk_server, "Warehouse Violation", [["workflow_state", "=", "Pending"]]))
    )
    states = {t.strip() for t in page.locator("td.list-indicator").all_inner_texts()}
    assert states == {"Pending"}
    age = row.locator("time")
    expect(age).to_have_attribute("datetime", pending["modified"])
    expect(age).to_have_text(re.compile(r"^(just now|\d+ (minute|hour)s? ago|1 (minute|hour) ago)$"))


def test_twenty_rows_then_more(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    login_as("manager")
    page.goto("/app/employee")
    expect(body_rows(page)).to_have_count(20)
    page.get_by_role("button", name="More").click()
    expect(body_rows(page)).to_have_count(40)
    total = api_count(desk_server, "Employee")
    calls: list[str] = []
    page.on("request", lambda r: calls.append(r.url) if "/api/" in r.url else None)
    page.get_by_role("group", name="Rows per page").get_by_role("button", name="100").click()
    expect(body_rows(page)).to_have_count(100)
    assert len(calls) == 1 and "start=40" in calls[0] and "limit=60" in calls[0], calls  # only the missing rows
    expect(page.get_by_role("button", name="100")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_role("status").filter(has_text=" of ")).to_have_text(f"100 of {total}")
    page.get_by_role("button", name="More").click()
    expect(body_rows(page)).to_have_count(min(200, total))
    before = len(calls)
    page.get_by_role("group", name="Rows per page").get_by_role("button", name="20").click()
    expect(body_rows(page)).to_have_count(20)  # the first 20 rows, without a request
    page.wait_for_timeout(200)
    assert len(calls) == before, calls
    expect(page.get_by_role("status").filter(has_text=" of ")).to_have_text(f"20 of {total}")


def test_standard_and_url_filters(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    login_as("manager")
    page.goto("/app/employee")
    left = api_count(desk_server, "Employee", [["status", "=", "Left"]])
    assert left > 0
    page.get_by_label("Status", exact=True).select_option("Left")
    expect(page.get_by_role("status").filter(has_text=" of ")).to_have_text(f"{left} of {left}")
    assert page.url.endswith("/app/employee?status=Left")
    assert {t.strip() for t in page.locator("td.list-indicator").all_inner_texts()} == {"Left"}
    chip = page.get_by_role("list", name="Active filters").get_by_role("listitem")
    expect(chip).to_have_text("Status = Left×")
    page.reload()
    expect(page.get_by_label("Status", exact=True)).to_have_value("Left")
    page.get_by_role("button", name="Clear filters").click()
    everyone = api_count(desk_server, "Employee")
    expect(page.get_by_role("status").filter(has_text=" of ")).to_have_text(f"20 of {everyone}")
    assert page.url.endswith("/app/employee")
    company = api_rows(desk_server, "Company", fields=["name"], limit=1)[0]["name"]
    page.goto(f"/app/employee?company={company}&status=Active")
    expected = api_count(desk_server, "Employee", [["company", "=", company], ["status", "=", "Active"]])
    expect(page.get_by_role("status").filter(has_text=" of ")).to_have_text(f"20 of {expected}")
    expect(page.get_by_label("Company", exact=True)).to_have_value(company)


def test_sorting(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    login_as("manager")
    page.goto("/app/employee")
    page.get_by_label("Sort by").select_option(label="Employee Name")
    page.get_by_role("button", name="Descending").click()  # now ascending
    expect(page.get_by_role("button", name="Ascending")).to_be_visible()
    first = api_rows(desk_server, "Employee", fields=["employee_name"], order_by="employee_name asc", limit=1)[0]
    expect(body_rows(page).first.get_by_role("rowheader")).to_contain_text(first["employee_name"])


def test_add_only_when_the_user_may_create(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    login_as("warehouse")
    employee = api_rows(desk_server, "Employee", fields=["name"], limit=1)[0]["name"]
    page.goto(f"/app/warehouse-violation?employee={employee}")
    add = page.get_by_role("button", name="Add Warehouse Violation")
    expect(add).to_be_visible()
    page.goto("/app/employee")
    expect(page.get_by_role("heading", level=1, name="Employee")).to_be_visible()
    expect(page.get_by_role("button", name="Add Employee")).to_have_count(0)
    page.goto(f"/app/warehouse-violation?employee={employee}")
    page.get_by_role("button", name="Add Warehouse Violation").click()  # the list's filter fills the new form
    page.wait_for_url("**/app/warehouse-violation/new")
    expect(page.get_by_role("combobox", name="Employee")).to_have_value(employee)
    page.context.clear_cookies()
    login_as("manager")
    page.goto("/app/warehouse-violation")
    expect(page.get_by_role("heading", level=1, name="Warehouse Violation")).to_be_visible()
    expect(page.get_by_role("button", name="Add Warehouse Violation")).to_have_count(0)


def test_a_list_costs_two_requests_once_its_meta_is_cached(page: Page, login_as: Callable[..., None]) -> None:
    login_as("reviewer")
    page.goto("/app/warehouse-violation")
    expect(body_rows(page)).to_have_count(20)
    calls: list[str] = []
    page.on("request", lambda r: calls.append(r.url) if "/api/" in r.url else None)
    page.reload()  # the meta comes from the browser's cache: the boot says it is current
    expect(body_rows(page)).to_have_count(20)
    page.wait_for_timeout(300)
    assert len(calls) == 2, calls
    assert any("/api/v2/document/Warehouse%20Violation" in url for url in calls)
    assert any("/api/v2/doctype/Warehouse%20Violation/count" in url for url in calls)


def test_sort_by_a_column_header(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    login_as("manager")
    page.goto("/app/employee")
    expect(body_rows(page)).to_have_count(20)
    table = page.get_by_role("table", name="Employee")
    expect(page.get_by_label("Sort by")).to_have_value("creation")  # Employee's sort_field: not a column
    expect(table.locator("th[aria-sort]")).to_have_count(0)
    header = table.get_by_role("columnheader", name="Employee Name")
    expect(header).not_to_have_attribute("aria-sort", re.compile("."))
    header.get_by_role("button", name="Employee Name").click()  # another column: descending first
    expect(header).to_have_attribute("aria-sort", "descending")
    last = api_rows(desk_server, "Employee", fields=["employee_name"], order_by="employee_name desc", limit=1)[0]
    expect(body_rows(page).first.get_by_role("rowheader")).to_contain_text(last["employee_name"])
    header.get_by_role("button", name="Employee Name").click()  # the same column: the other order
    expect(header).to_have_attribute("aria-sort", "ascending")
    first = api_rows(desk_server, "Employee", fields=["employee_name"], order_by="employee_name asc", limit=1)[0]
    expect(body_rows(page).first.get_by_role("rowheader")).to_contain_text(first["employee_name"])
    expect(page.get_by_role("button", name="Ascending")).to_be_visible()  # the sort control agrees
    expect(page.get_by_label("Sort by")).to_have_value("employee_name")


def test_the_rows_by_keyboard(page: Page, login_as: Callable[..., None]) -> None:
    login_as("manager")
    page.goto("/app/employee")
    expect(body_rows(page)).to_have_count(20)
    links = body_rows(page).get_by_role("link")
    links.first.focus()
    page.keyboard.press("ArrowDown")
    expect(links.nth(1)).to_be_focused()
    page.keyboard.press("End")
    expect(links.nth(19)).to_be_focused()
    page.keyboard.press("ArrowDown")  # stays on the last row
    expect(links.nth(19)).to_be_focused()
    page.keyboard.press("Home")
    expect(links.first).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(links.first).to_be_focused()
    page.keyboard.press("ArrowDown")
    target = links.nth(1).get_attribute("href")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**{target}")
    expect(page.locator("#main")).to_be_focused()  # the focus moves on to the new page


def test_the_list_script_settings(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    """`frappe.listview_settings[doctype]` (an app's `<doctype>_list.js`): default `filters`,
    `get_indicator` (it wins over the `status` field) and `formatters` (their markup shown as text)."""
    login_as("manager")
    page.goto("/app")
    expect(page.get_by_role("heading", level=1, name="Home")).to_be_visible()
    page.evaluate("""() => {
        frappe.listview_settings["Employee"] = {
            filters: [["status", "=", "Left"]],
            get_indicator: (doc) => [doc.status === "Left" ? "Gone" : "Here", "purple", "status,=," + doc.status],
            formatters: {employee_number: (value) => "<b>No. " + value + "</b>"},
        };
        return frappe.set_route("List", "Employee");
    }""")
    page.wait_for_url("**/app/employee?status=Left")
    left = api_count(desk_server, "Employee", [["status", "=", "Left"]])
    expect(page.get_by_role("status").filter(has_text=" of ")).to_have_text(f"{min(20, left)} of {left}")
    row = body_rows(page).first
    expect(row.get_by_text("Gone", exact=True)).to_have_class(re.compile(r"\bpurple\b"))
    expect(row.get_by_role("cell", name=re.compile(r"^No\. "))).to_be_visible()  # the formatter's text, no <b>
    assert page.evaluate("document.querySelectorAll('main tbody b').length") == 0


def test_an_empty_list(page: Page, login_as: Callable[..., None]) -> None:
    login_as("warehouse")
    page.goto("/app/warehouse-violation?employee=NO-SUCH-EMPLOYEE")
    expect(page.get_by_text("No Warehouse Violation matches these filters")).to_be_visible()
    expect(page.get_by_role("status").filter(has_text=" of ")).to_have_text("0 of 0")
    expect(page.get_by_role("table")).to_have_count(0)
