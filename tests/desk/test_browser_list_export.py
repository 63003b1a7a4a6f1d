"""The list's Menu in Chromium (business.md §3.2, §6): the Administrator exports the Employees who
left as Excel (columns picked in the dialog) and two selected rows as CSV, and checks the downloaded
files; a user without the export right is not offered Export."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable

from openpyxl import load_workbook
from playwright.sync_api import Page, expect

from tests.desk.browser import DeskServer


def left_employees(desk_server: DeskServer) -> list[dict[str, str]]:
    with desk_server.api() as client:
        r = client.get("/api/resource/Employee", params={
            "fields": json.dumps(["name", "employee_name", "company"]),
            "filters": json.dumps([["status", "=", "Left"]]), "limit_page_length": 0})
        assert r.status_code == 200, r.text
        return list(r.json()["data"])


def test_export_a_filtered_list_as_excel_and_selected_rows_as_csv(page: Page, login_as: Callable[..., None],
                                                                    desk_server: DeskServer) -> None:
    expected = left_employees(desk_server)
    assert expected
    login_as("Administrator")
    page.goto("/app/employee?status=Left")
    expect(page.get_by_role("status").filter(has_text=" of ")).to_have_text(f"{len(expected)} of {len(expected)}")

    page.get_by_role("button", name="Menu").click()
    page.get_by_role("menuitem", name="Export").click()
    dialog = page.get_by_role("dialog", name="Export Employee")
    for label, wanted in (("ID", True), ("Employee Name", True), ("Company", True)):
        box = dialog.get_by_role("checkbox", name=label, exact=True)
        if box.is_checked() != wanted:
            box.click()
    status = dialog.get_by_role("checkbox", name="Status", exact=True)
    if status.is_checked():
        status.click()
    dialog.get_by_role("radio", name="Excel").check()
    expect(dialog.get_by_role("radio", name="All rows that match the filters")).to_be_checked()
    with page.expect_download() as download:
        dialog.get_by_role("button", name="Download").click()
    assert download.value.suggested_filename == "Employee.xlsx"
    sheet = load_workbook(io.BytesIO(download.value.path().read_bytes())).active
    assert sheet is not None
    rows = [list(r) for r in sheet.iter_rows(values_only=True)]
    header = rows[0]
    assert header[0] == "ID" and {"Employee Name", "Company"} <= set(header) and "Status" not in header
    name_at, company_at = header.index("Employee Name"), header.index("Company")
    assert sorted((r[0], r[name_at], r[company_at]) for r in rows[1:]) == sorted(
        (e["name"], e["employee_name"], e["company"]) for e in expected)
    expect(dialog).to_have_count(0)  # closed after the download

    # two selected rows, as CSV
    page.get_by_role("checkbox", name=re.compile(r"^Select (?!all)")).nth(0).check()
    page.get_by_role("checkbox", name=re.compile(r"^Select (?!all)")).nth(1).check()
    page.get_by_role("button", name="Menu").click()
    page.get_by_role("menuitem", name="Export").click()
    dialog = page.get_by_role("dialog", name="Export Employee")
    expect(dialog.get_by_role("radio", name="Selected rows (2)")).to_be_checked()
    with page.expect_download() as download:
        dialog.get_by_role("button", name="Download").click()
    assert download.value.suggested_filename == "Employee.csv"
    exported = list(csv.reader(io.StringIO(download.value.path().read_text(encoding="utf-8-sig"))))
    assert exported[0][0] == "ID" and len(exported) == 3
    assert {r[0] for r in exported[1:]} <= {e["name"] for e in expected}


def test_no_export_without_the_right(page: Page, login_as: Callable[..., None]) -> None:
    login_as("reviewer")  # reads Employees, may not export them
    page.goto("/app/employee")
    expect(page.get_by_role("status").filter(has_text=" of ")).to_be_visible()
    menu = page.get_by_role("button", name="Menu")
    if menu.count():  # other list features may offer this user items
        menu.click()
        expect(page.get_by_role("menuitem", name="Export")).to_have_count(0)
