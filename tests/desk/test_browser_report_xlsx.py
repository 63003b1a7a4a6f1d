"""The script report's export in Chromium (business.md §3.2): the Administrator downloads the rows as
shown (sorted by Value) as CSV and as Excel, both written by the server
(`fw.desk.query_report.export_query` with the shown order as `visible_idx`); the workbook opens with
openpyxl, holds the column labels and each row, values as numbers."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

from openpyxl import load_workbook
from playwright.sync_api import Page, expect

from tests.desk.test_browser_report import REPORT, URL, table_rows


def test_the_report_downloads_as_csv_and_xlsx(page: Page, login_as: Callable[..., None]) -> None:
    login_as("Administrator")
    page.goto(URL)
    expect(page.get_by_role("heading", name=REPORT, level=1)).to_be_visible()
    expect(page.locator(".report-table tbody tr").first).to_be_visible()
    page.get_by_role("button", name="Value").click()  # sorted as shown
    expect(page.get_by_role("columnheader", name="Value")).to_have_attribute("aria-sort", "ascending")
    shown = table_rows(page)

    with page.expect_download() as download:
        page.get_by_role("button", name="Download XLSX").click()
    assert download.value.suggested_filename == f"{REPORT}.xlsx"
    sheet = load_workbook(io.BytesIO(download.value.path().read_bytes())).active
    assert sheet is not None and sheet.title == REPORT
    rows = [list(r) for r in sheet.iter_rows(values_only=True)]
    assert rows[0] == ["Employee", "Value"]
    assert [r[0] for r in rows[1:]] == [r[0] for r in shown]
    assert all(isinstance(r[1], int | float) for r in rows[1:])  # numbers, not text
    assert [round(float(r[1]), 1) for r in rows[1:]] == [float(r[1]) for r in shown]

    with page.expect_download() as download:
        page.get_by_role("button", name="Export").click()
    assert download.value.suggested_filename == f"{REPORT}.csv"
    exported = list(csv.reader(io.StringIO(download.value.path().read_text(encoding="utf-8-sig"))))
    assert exported[0] == ["Employee", "Value"]
    assert [r[0] for r in exported[1:]] == [r[0] for r in shown]
