"""A whole Data Import by clicking, in Chromium (business.md §3.1, §6): from the Branch list's Menu,
"Import" opens a new Data Import for Branch; after saving, the user downloads the template, attaches a
CSV, reads the preview (its mapping, its rows and the problem of the bad row, named by row and column),
starts the import, follows the progress bar, and reads the per-row log, whose created Branch is a
link that opens it; the bad row is refused, the good one imported."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.desk.browser import DeskServer


def test_import_branches_by_clicking(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    with desk_server.api() as admin:
        company = admin.get("/api/resource/Company", params={"limit_page_length": 1}).json()["data"][0]["name"]
    good, bad = f"Imported-{secrets.token_hex(3)}", f"Refused-{secrets.token_hex(3)}"
    login_as("Administrator")
    page.goto("/app/branch")
    page.get_by_role("button", name="Menu").click()
    page.get_by_role("menuitem", name="Import").click()
    expect(page).to_have_url(re.compile(r"/app/data-import/new"))
    expect(page.get_by_role("combobox", name="Document Type")).to_have_value("Branch")
    page.get_by_role("button", name="Save").click()
    expect(page).not_to_have_url(re.compile(r"/new"))

    with page.expect_download() as download:
        page.get_by_role("button", name="Download Template").click()
    assert download.value.suggested_filename == "Branch.csv"
    header = download.value.path().read_text(encoding="utf-8-sig").splitlines()[0]
    assert header == "ID,Branch,Company"

    csv_text = f"Branch,Company\r\n{good},{company}\r\n{bad},No Such Company\r\n"
    page.get_by_label("Import File").set_input_files(
        {"name": "branches.csv", "mimeType": "text/csv", "buffer": csv_text.encode()})
    expect(page.get_by_role("status").filter(has_text="2 documents in the file")).to_be_visible()
    expect(page.get_by_label("Field for column Company")).to_have_value("company")
    problems = page.get_by_role("list", name="Problems")
    expect(problems).to_contain_text("Row 3, column B (Company): Company No Such Company does not exist")
    preview = page.get_by_role("table", name="Preview")
    expect(preview.get_by_role("cell", name=good)).to_be_visible()

    page.get_by_role("button", name="Start Import").click()
    expect(page.get_by_role("progressbar", name="Import progress")).to_be_visible()
    log = page.get_by_role("table", name="Import Log")
    expect(log.get_by_role("row")).to_have_count(3)  # the header and one row per document
    expect(log.get_by_role("row").nth(1)).to_contain_text("Failed")  # the failed rows first
    expect(page.get_by_role("button", name="Show more rows")).to_have_count(0)  # all of them shown
    # the last progress event stands (the start's answer, arriving after the import's events, does not reset it)
    expect(page.get_by_role("status").filter(has_text="imported")).to_have_text("1 of 2 imported, 1 failed")
    expect(page.get_by_role("button", name="Retry Failed Rows")).to_be_visible()
    log.get_by_role("link", name=good).click()
    expect(page).to_have_url(re.compile(rf"/app/branch/{re.escape(good)}$"))
    with desk_server.api() as admin:
        assert admin.get(f"/api/resource/Branch/{good}").status_code == 200
        assert admin.get(f"/api/resource/Branch/{bad}").status_code == 404
        desk_server.delete("Branch", good)
