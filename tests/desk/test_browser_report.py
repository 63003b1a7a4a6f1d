"""The script report page in Chromium (desk.md §6, issue 14 point 2): an HR reviewer runs the Employee
Score Report from the sidebar with its default filters, changes the period (the report runs again and
the URL keeps it), reads the summary cards, the chart and the rows, sorts, opens an employee from a
Link cell (not offered an export: that needs the export right); a bad period shows the server's message; an Employee
is not offered the report, is refused the page, and a forged run is refused by the server; a German
reviewer sees the page in German."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date

from playwright.sync_api import Page, expect

from tests.desk.browser import DeskServer

REPORT = "Employee Score Report"
URL = "/app/query-report/Employee%20Score%20Report"
RUN = "/api/method/fw.desk.query_report.run"


def previous_month(today: date) -> str:
    return f"{today.year - 1}-12" if today.month == 1 else f"{today.year}-{today.month - 1:02d}"


def _ran(response_url: str) -> bool:
    return response_url.endswith(RUN)


def table_rows(page: Page) -> list[list[str]]:
    return page.locator(".report-table tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))")


def test_reviewer_runs_the_report(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    with desk_server.api() as admin:
        first_company = admin.get("/api/resource/Company", params={"order_by": "name asc", "limit_page_length": 1})
        company = first_company.json()["data"][0]["name"]
    login_as("reviewer")
    page.goto("/app")
    with page.expect_response(lambda r: _ran(r.url)) as first:
        page.get_by_role("navigation").get_by_role("link", name=REPORT).click()
    expect(page).to_have_url(re.compile(r"/app/query-report/Employee%20Score%20Report"))
    expect(page.get_by_role("heading", name=REPORT, level=1)).to_be_visible()
    month = date.today().strftime("%Y-%m")
    # the defaults: the first company (the reviewer has no Employee of their own), this month
    expect(page.get_by_role("combobox", name="Company")).to_have_value(company)
    expect(page.get_by_label("Period")).to_have_value(month)
    assert json.loads(first.value.request.post_data or "{}")["filters"] == {"company": company, "period": month}

    summary = page.get_by_role("list", name="Summary")
    expect(summary.get_by_role("listitem")).to_have_count(2)
    total_card = summary.get_by_role("listitem").filter(has_text="Total")
    expect(total_card).to_have_attribute("data-indicator", "blue")
    expect(page.get_by_role("img", name=f"Chart of {REPORT}").locator("svg")).to_be_visible()
    bar = page.locator(".report-chart svg rect.bar").first
    expect(bar).to_be_attached()
    # the chart's colour (set through the CSSOM: the vendored library writes no style attribute, which the CSP blocks)
    expect(bar).to_have_css("fill", "rgb(36, 144, 239)")
    average = summary.get_by_role("listitem").filter(has_text="Average").locator(".summary-value")
    expect(average).to_have_text(re.compile(r"^\d+(\.\d)?$"))  # as the report rounded it
    rows = table_rows(page)
    assert rows, "the report shows rows"
    count = int(total_card.locator(".summary-value").inner_text())
    assert len(rows) == count
    values = [float(r[1]) for r in rows]
    assert values == sorted(values, reverse=True)  # the report's order: best first
    assert all(re.fullmatch(r"\d+\.\d", r[1]) for r in rows)  # Float with precision 1

    # another period: the report runs again with it, and the URL keeps it
    before = previous_month(date.today())
    period = page.get_by_label("Period")
    with page.expect_response(lambda r: _ran(r.url)) as second:
        period.fill(before)
        period.press("Enter")
    assert json.loads(second.value.request.post_data or "{}")["filters"]["period"] == before
    expect(page).to_have_url(re.compile(rf"period={before}"))
    expect(page.get_by_role("status").filter(has_text=re.compile(r"^\d+ rows$"))).to_be_visible()

    # sort by Value, ascending
    page.get_by_role("button", name="Value").click()
    expect(page.get_by_role("columnheader", name="Value")).to_have_attribute("aria-sort", "ascending")
    ascending = [float(r[1]) for r in table_rows(page)]
    assert ascending == sorted(ascending)

    # exporting needs the export right on Employee Score, which a reviewer lacks: no button
    # (the export itself: tests/desk/test_browser_report_xlsx.py)
    shown = table_rows(page)
    expect(page.get_by_role("button", name="Refresh")).to_be_visible()
    expect(page.get_by_role("button", name="Export")).to_have_count(0)

    # a Link cell opens the employee's form
    first_employee = shown[0][0]
    page.locator(".report-table tbody").get_by_role("link", name=first_employee, exact=True).first.click()
    expect(page).to_have_url(re.compile(rf"/app/employee/{re.escape(first_employee)}$"))


def test_a_bad_period_shows_the_servers_message(page: Page, login_as: Callable[..., None]) -> None:
    login_as("reviewer")
    page.goto(f"{URL}?period=2024-13")
    expect(page.get_by_role("alert")).to_contain_text("2024-13")
    expect(page.locator(".report-table")).to_have_count(0)
    # a required filter left empty: the report waits for it
    period = page.get_by_label("Period")
    period.fill("")
    period.press("Enter")
    expect(page.get_by_role("status").filter(has_text="Please set filters: Period")).to_be_visible()


def test_a_hostile_filter_value_is_data(page: Page, login_as: Callable[..., None]) -> None:
    login_as("reviewer")
    page.goto(f"{URL}?company=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
    expect(page.get_by_role("combobox", name="Company")).to_have_value("<img src=x onerror=alert(1)>")
    expect(page.get_by_text("Nothing to show")).to_be_visible()
    expect(page.locator("img[src=x]")).to_have_count(0)


def test_an_employee_is_not_offered_the_report(page: Page, login_as: Callable[..., None]) -> None:
    login_as("employee")
    page.goto("/app")
    expect(page.get_by_role("navigation")).to_be_visible()
    expect(page.get_by_role("link", name=REPORT)).to_have_count(0)
    page.goto(URL)
    expect(page.get_by_role("heading", name="Not permitted")).to_be_visible()
    # a run forged with the page's own session and CSRF token is refused by the server
    token = page.request.get("/api/method/fw.auth.get_csrf_token").json()["message"]
    forged = page.request.post(RUN, data={"report_name": REPORT, "filters": {}},
                               headers={"X-Frappe-CSRF-Token": token, "Content-Type": "application/json"})
    assert forged.status == 403, forged.text()
    script = page.request.get(f"/api/method/fw.desk.query_report.get_script?report_name={REPORT}")
    assert script.status == 403


def test_a_german_reviewer_reads_the_report_in_german(page: Page, login_as: Callable[..., None],
                                                      desk_server: DeskServer) -> None:
    user = "/api/resource/User/manager@demo.example.com"
    with desk_server.api() as admin:
        before = admin.get(user).json()["data"].get("language")
        r = admin.put(user, json={"language": "de"})
        assert r.status_code == 200, r.text[:300]
    try:
        login_as("manager")
        page.goto(URL)
        expect(page.get_by_role("heading", name="Bericht Mitarbeiterbewertungen", level=1)).to_be_visible()
        expect(page.get_by_role("combobox", name="Unternehmen")).to_be_visible()
        expect(page.get_by_label("Zeitraum")).to_have_value(date.today().strftime("%Y-%m"))
        expect(page.get_by_role("button", name="Aktualisieren")).to_be_visible()
        expect(page.get_by_role("list", name="Zusammenfassung").get_by_role("listitem").first).to_contain_text("Gesamt")
        expect(page.get_by_role("columnheader", name="Wert")).to_be_visible()
    finally:
        with desk_server.api() as admin:
            admin.put(user, json={"language": before})
