"""The Deleted Document form in Chromium: "Restore" puts a deleted document back (the form then offers
"Open" instead), and a restore the server refuses (the name was taken meanwhile) shows its reason."""

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
    # the name is taken meanwhile: the server refuses, and the form says why
    desk_server.insert({k: v for k, v in score.items() if k not in ("creation", "modified")})
    page.get_by_role("button", name="Restore").click()
    expect(page.get_by_text("a document with this name exists")).to_be_visible()
    assert deleted_record(desk_server, "Employee Score", score["name"])["restored"] == 0
