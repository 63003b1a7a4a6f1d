"""The Deleted Document form in Chromium: "Restore" puts a deleted document back (the form then offers
"Open" instead), and a restore the server refuses (restored by someone else meanwhile) shows its reason."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.desk.browser import DeskServer
from tests.desk.test_browser_form_actions import a_score
from tests.desk.test_browser_list import api_rows


def deleted_record(desk_server: DeskServer, doctype: str, name: str) -> dict:
    [row] = api_rows(desk_server, "Deleted Document", fields=["name", "restored"],
                     filters=[["deleted_doctype", "=", doctype], ["deleted_name", "=", name]])
    return row  # type: ignore[no-any-return]


def test_restore_brings_a_deleted_document_back(page: Page, login_as: Callable[..., None],
                                                 desk_server: DeskServer) -> None:
    score = a_score(desk_server)
    desk_server.delete("Employee Score", score["name"])
    record = deleted_record(desk_server, "Employee Score", score["name"])
    assert record["restored"] == 0
    login_as("Administrator")
    page.goto(f"/app/deleted-document/{record['name']}")
    page.get_by_role("button", name="Restore").click()
    message = page.get_by_role("dialog").filter(has_text="Document Restored")
    expect(message).to_be_visible()
    page.keyboard.press("Escape")
    expect(message).to_have_count(0)
    expect(page.get_by_role("button", name="Open")).to_be_visible()
    expect(page.get_by_role("button", name="Restore")).to_have_count(0)
    assert deleted_record(desk_server, "Employee Score", score["name"])["restored"] == 1
    [back] = api_rows(desk_server, "Employee Score", filters=[["name", "=", score["name"]]], fields=["value"])
    assert back == {"value": 42}
    page.get_by_role("button", name="Open").click()
    expect(page).to_have_url(f"{desk_server.url}/app/employee-score/{score['name']}")


def test_a_refused_restore_shows_why(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    score = a_score(desk_server)
    desk_server.delete("Employee Score", score["name"])
    record = deleted_record(desk_server, "Employee Score", score["name"])
    login_as("Administrator")
    page.goto(f"/app/deleted-document/{record['name']}")
    expect(page.get_by_role("button", name="Restore")).to_be_visible()
    # someone else restores it meanwhile (through the API): this form's Restore is refused, saying why
    with desk_server.api() as client:
        r = client.post("/api/method/frappe.core.doctype.deleted_document.deleted_document.restore",
                        json={"name": record["name"]})
        assert r.status_code == 200, r.text[:300]
    page.get_by_role("button", name="Restore").click()
    expect(page.get_by_role("dialog").filter(has_text=f"Document {record['name']} Already Restored")).to_be_visible()
    page.keyboard.press("Escape")
    assert deleted_record(desk_server, "Employee Score", score["name"])["restored"] == 1
    assert len(api_rows(desk_server, "Employee Score", filters=[["name", "=", score["name"]]], fields=["name"])) == 1
