"""Printing in Chromium (business.md §5, §6): the form's Menu → Print opens a preview of /printview
with "Print Format" and "Letter Head" selectors; switching to the reference app's "Warning Letter"
changes the preview; "PDF" downloads a PDF whose text is the letter's. (Who is offered Print: the
unit test of offeredActions, tests/desk/js/form_actions.test.mjs.)"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect
from pypdf import PdfReader

from tests.desk.browser import DeskServer
from tests.desk.test_browser_list import api_rows


def a_confirmed_violation(desk_server: DeskServer) -> dict[str, str]:
    return api_rows(desk_server, "Warehouse Violation",  # type: ignore[no-any-return]
                    filters=[["workflow_state", "=", "Confirmed"]], fields=["name", "employee_name"], limit=1)[0]


def test_print_preview_format_and_pdf(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    violation = a_confirmed_violation(desk_server)
    login_as("reviewer")  # HR Reviewer: read and print on Warehouse Violation
    page.goto(f"/app/warehouse-violation/{violation['name']}")
    page.get_by_role("button", name="Menu").click()
    page.get_by_role("menu", name="Menu").get_by_role("menuitem", name="Print").click()
    dialog = page.get_by_role("dialog", name=f"Print {violation['name']}")
    preview = page.frame_locator("iframe[title='Print Preview']")
    expect(preview.locator("h1")).to_have_text(violation["employee_name"])  # the standard layout: title, then
    expect(preview.locator(".print-subtitle")).to_have_text(f"Warehouse Violation {violation['name']}")
    expect(preview.locator("body")).to_contain_text("Penalty Points")
    dialog.get_by_label("Print Format").select_option("Warning Letter")
    expect(preview.locator("h1")).to_have_text("Warning Letter")
    expect(preview.locator("body")).to_contain_text(violation["employee_name"])
    dialog.get_by_label("Letter Head").select_option("Workforce Scoring")
    expect(preview.locator("body")).to_contain_text("Human Resources")
    expect(dialog.get_by_role("button", name="Print")).to_be_enabled()
    with page.expect_download() as info:
        dialog.get_by_role("button", name="PDF").click()
    content = Path(info.value.path()).read_bytes()
    assert content.startswith(b"%PDF")
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(content)).pages)
    assert "Warning Letter" in text and violation["employee_name"] in text and violation["name"] in text

