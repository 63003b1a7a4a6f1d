"""The script report's XLSX export in Chromium (issue 14 point 2): a reviewer downloads the rows as
shown as a workbook (zipped by the vendored fflate); it is a valid Office Open XML package whose
sheet holds the column labels and each row, values as numbers."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable
from xml.etree import ElementTree

from playwright.sync_api import Page, expect

from tests.desk.test_browser_report import REPORT, URL, table_rows

NS = {"x": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}


def sheet_rows(path: str) -> tuple[str, list[list[str]]]:
    with zipfile.ZipFile(path) as book:
        assert book.testzip() is None
        names = set(book.namelist())
        assert {"[Content_Types].xml", "_rels/.rels", "xl/workbook.xml", "xl/_rels/workbook.xml.rels",
                "xl/worksheets/sheet1.xml"} <= names
        workbook = ElementTree.fromstring(book.read("xl/workbook.xml"))
        sheet = ElementTree.fromstring(book.read("xl/worksheets/sheet1.xml"))
    name = workbook.find("x:sheets/x:sheet", NS).get("name")  # type: ignore[union-attr]
    rows = []
    for row in sheet.iterfind("x:sheetData/x:row", NS):
        cells = []
        for cell in row.iterfind("x:c", NS):
            if cell.get("t") == "inlineStr":
                cells.append("".join(t.text or "" for t in cell.iterfind("x:is/x:t", NS)))
            else:
                cells.append(f"n:{cell.findtext('x:v', '', NS)}")
        rows.append(cells)
    return str(name), rows


def test_the_report_downloads_as_xlsx(page: Page, login_as: Callable[..., None]) -> None:
    login_as("reviewer")
    page.goto(URL)
    expect(page.get_by_role("heading", name=REPORT, level=1)).to_be_visible()
    expect(page.locator(".report-table tbody tr").first).to_be_visible()
    page.get_by_role("button", name="Value").click()  # sorted as shown
    expect(page.get_by_role("columnheader", name="Value")).to_have_attribute("aria-sort", "ascending")
    shown = table_rows(page)
    with page.expect_download() as download:
        page.get_by_role("button", name="Download XLSX").click()
    assert re.fullmatch(r"Employee_Score_Report_.+\.xlsx", download.value.suggested_filename)
    name, rows = sheet_rows(str(download.value.path()))
    assert name == REPORT
    assert rows[0] == ["Employee", "Value"]
    assert [r[0] for r in rows[1:]] == [r[0] for r in shown]
    assert all(r[1].startswith("n:") for r in rows[1:])  # numbers, not text
    assert [round(float(r[1][2:]), 1) for r in rows[1:]] == [float(r[1]) for r in shown]
