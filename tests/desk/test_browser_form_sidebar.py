"""The form's sidebar in Chromium (desk.md §4, issue 14 point 4): comments in the timeline (add, edit
and delete one's own; no Edit or Delete on another's, and the server refuses a forged request),
interleaved with the versions; who created and last changed the document; attachments uploaded with
a progress bar, opened and removed; an upload over the limit refused before it is sent (and by the
server, 413), in an Attach field too; the timeline without changes to fields the user may not read; a
German user's sidebar."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, Request, Route, expect

from tests.desk.browser import DEMO_USERS, DeskServer
from tests.desk.test_browser_form import new_draft
from tests.desk.test_browser_form_controls import custom_fields  # noqa: F401  (the module's Custom Fields: Photo)
from tests.desk.test_browser_german import german_user
from tests.desk.test_browser_list import api_rows

UPDATE = "/api/method/fw.desk.form.utils.update_comment"
DELETE = "/api/method/fw.desk.form.utils.delete_comment"


def sidebar(page: Page) -> Locator:
    return page.get_by_role("complementary", name="Document information")


def timeline(page: Page) -> Locator:
    return sidebar(page).get_by_role("list", name=re.compile("^(Activity|Aktivität)$"))


def csrf(page: Page) -> str:
    return str(page.evaluate("JSON.parse(document.getElementById('fw-boot').textContent).csrf_token"))


def comment(page: Page, text: str) -> Locator:
    return timeline(page).get_by_role("listitem").filter(has_text=text)


def add_comment(page: Page, text: str) -> None:
    sidebar(page).get_by_label("New comment").fill(text)
    sidebar(page).get_by_role("button", name="Add comment", exact=True).click()


def test_comments_are_added_edited_and_deleted_by_their_author_only(
        page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    draft = new_draft(desk_server, "first words")
    login_as("warehouse")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    expect(sidebar(page)).to_contain_text(re.compile(r"Created by Warehouse Manager · just now"))
    expect(sidebar(page)).to_contain_text(re.compile(r"Last edited by Warehouse Manager · just now"))
    created = sidebar(page).locator("time").first  # the date and time in the system's format
    expect(created).to_have_attribute("title", re.compile(r"^\d{2}[-./]\d{2}[-./]\d{4} \d{2}:\d{2}(:\d{2})?$"))
    expect(created).to_have_attribute("datetime", draft["creation"])
    expect(sidebar(page).get_by_role("button", name="Add comment", exact=True)).to_be_disabled()  # nothing typed
    add_comment(page, "Scan checked: <b>late</b> & <script>alert(1)</script>\nsecond line")
    mine = comment(page, "Scan checked")
    # shown as typed, as text (no bold, no script), newest first above the version that created it
    expect(mine).to_contain_text("Warehouse Manager commented")
    expect(mine.locator(".comment-content")).to_have_text(
        "Scan checked: <b>late</b> & <script>alert(1)</script>second line")
    expect(mine.locator("b, script")).to_have_count(0)
    expect(mine.locator("time")).to_have_text("just now")
    expect(timeline(page).get_by_role("listitem").first).to_contain_text("Scan checked")
    expect(timeline(page).get_by_role("listitem").last).to_contain_text("Warehouse Manager created this")
    expect(sidebar(page).get_by_label("New comment")).to_have_value("")
    # edit one's own
    mine.get_by_role("button", name="Edit comment").click()
    editor = timeline(page).get_by_label("Comment text")  # (the entry's text is in the text area now)
    expect(editor).to_have_value("Scan checked: <b>late</b> & <script>alert(1)</script>\nsecond line")
    editor.fill("Scan checked again")
    timeline(page).get_by_role("button", name="Update comment").click()
    edited = comment(page, "Scan checked again")
    expect(edited.locator(".comment-content")).to_have_text("Scan checked again")
    name = _comment_name(desk_server, draft["name"], "Scan checked again")
    # a later change comes above the comment: versions and comments by time
    page.get_by_label("Description").fill("second words")
    page.get_by_role("button", name="Save").click()
    entries = timeline(page).get_by_role("listitem")
    expect(entries.first).to_contain_text("Warehouse Manager changed Description from first words to second words")
    expect(entries.nth(1)).to_contain_text("Scan checked again")
    expect(entries.last).to_contain_text("Warehouse Manager created this")

    # another user: sees the comment, has no Edit or Delete on it, and the server refuses forged calls
    page.context.clear_cookies()
    login_as("reviewer")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    theirs = comment(page, "Scan checked again")
    expect(theirs).to_contain_text("Warehouse Manager commented")
    expect(theirs.get_by_role("button")).to_have_count(0)
    token = csrf(page)
    for path, data in ((UPDATE, {"name": name, "content": "forged"}), (DELETE, {"name": name})):
        r = page.request.post(path, data=data, headers={"X-Frappe-CSRF-Token": token})
        assert r.status == 403, (path, r.status, r.text()[:300])
    add_comment(page, "Reviewer's note")
    expect(comment(page, "Reviewer's note")).to_contain_text("HR Reviewer commented")
    expect(timeline(page).get_by_role("button", name="Edit comment")).to_have_count(1)  # on their own only
    expect(comment(page, "Reviewer's note").get_by_role("button", name="Delete comment")).to_be_visible()
    page.reload()
    expect(comment(page, "Scan checked again").locator(".comment-content")).to_have_text("Scan checked again")

    # the author deletes theirs, after confirming
    page.context.clear_cookies()
    login_as("warehouse")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    mine = comment(page, "Scan checked again")
    mine.get_by_role("button", name="Delete comment").click()
    dialog = page.get_by_role("dialog", name="Delete comment")
    expect(dialog).to_contain_text("Delete this comment?")
    dialog.get_by_role("button", name="Yes").click()
    expect(comment(page, "Scan checked again")).to_have_count(0)
    expect(comment(page, "Reviewer's note")).to_be_visible()
    expect(comment(page, "Reviewer's note").get_by_role("button")).to_have_count(0)


def _comment_name(desk_server: DeskServer, violation: str, content: str) -> str:
    with desk_server.api() as client:
        r = client.get("/api/method/fw.desk.form.load.get_docinfo",
                       params={"doctype": "Warehouse Violation", "name": violation})
        assert r.status_code == 200, r.text
        found = [c["name"] for c in r.json()["docinfo"]["comments"] if content in c["content"]]
    assert len(found) == 1, found
    return str(found[0])


def test_a_user_who_cannot_read_the_document_cannot_comment(page: Page, login_as: Callable[..., None],
                                                            desk_server: DeskServer) -> None:
    own = api_rows(desk_server, "Employee", filters=[["user_id", "=", DEMO_USERS["employee"]]], fields=["name"])
    score = api_rows(desk_server, "Employee Score", filters=[["employee", "!=", own[0]["name"]]], fields=["name"],
                     limit=1)[0]["name"]
    login_as("employee")  # reads only their own scores (the app's row conditions)
    page.goto(f"/app/employee-score/{score}")
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("Not found|Not permitted"))
    expect(page.get_by_label("New comment")).to_have_count(0)
    r = page.request.post("/api/method/fw.desk.form.utils.add_comment", headers={"X-Frappe-CSRF-Token": csrf(page)},
                          data={"reference_doctype": "Employee Score", "reference_name": score, "content": "sneaky"})
    assert r.status == 403, (r.status, r.text()[:300])
    with desk_server.api() as client:
        r2 = client.get("/api/method/fw.desk.form.load.get_docinfo",
                        params={"doctype": "Employee Score", "name": score})
        assert r2.json()["docinfo"]["comments"] == []


def test_attachments_upload_with_progress_open_and_remove(page: Page, login_as: Callable[..., None],
                                                          desk_server: DeskServer) -> None:
    draft = new_draft(desk_server, "with evidence")
    login_as("warehouse")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    expect(sidebar(page)).to_contain_text("No attachments")
    held: list[Route] = []
    page.route("**/api/method/upload_file", lambda route: held.append(route))
    content = b"evidence " * 20_000
    sidebar(page).get_by_label("Attach a file").set_input_files(
        {"name": "evidence.txt", "mimeType": "text/plain", "buffer": content})
    bar = sidebar(page).get_by_role("progressbar", name="Uploading evidence.txt")
    expect(bar).to_be_visible()  # while the request is under way
    expect(bar).to_have_attribute("aria-valuenow", re.compile(r"^\d{1,3}$"))
    expect(sidebar(page).get_by_label("Attach a file")).to_be_disabled()
    assert len(held) == 1
    held[0].continue_()
    link = sidebar(page).get_by_role("link", name="evidence.txt")
    expect(link).to_be_visible()
    expect(bar).to_have_count(0)
    with page.expect_popup() as opened:
        link.click()
    popup = opened.value
    popup.wait_for_load_state()
    assert popup.url.endswith(str(link.get_attribute("href")))
    expect(popup.locator("body")).to_contain_text("evidence evidence")
    popup.close()
    sidebar(page).get_by_role("button", name="Remove evidence.txt").click()
    page.get_by_role("dialog", name="Remove").get_by_role("button", name="Yes").click()
    expect(link).to_have_count(0)
    expect(sidebar(page)).to_contain_text("No attachments")


def test_an_upload_over_the_limit_is_refused_before_it_is_sent(page: Page, login_as: Callable[..., None],
                                                               desk_server: DeskServer) -> None:
    draft = new_draft(desk_server, "too big")
    login_as("warehouse")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    limit = int(page.evaluate("JSON.parse(document.getElementById('fw-boot').textContent).max_file_size"))
    assert limit > 0
    uploads: list[Request] = []
    page.on("request", lambda request: uploads.append(request) if "upload_file" in request.url else None)
    big = b"x" * (limit + 1)
    sidebar(page).get_by_label("Attach a file").set_input_files(
        {"name": "huge.bin", "mimeType": "application/octet-stream", "buffer": big})
    dialog = page.get_by_role("dialog", name="File too large")
    expect(dialog).to_contain_text(re.compile(r"huge\.bin is [\d.]+ MB, over the upload limit of [\d.]+ MB"))
    dialog.get_by_role("button").first.click()
    assert uploads == []  # nothing was sent
    expect(sidebar(page)).to_contain_text("No attachments")
    # the server refuses it too, whatever the browser does
    part = {"name": "huge.bin", "mimeType": "application/octet-stream", "buffer": big}
    r = page.request.post("/api/method/upload_file", headers={"X-Frappe-CSRF-Token": csrf(page)},
                          multipart={"file": part, "doctype": "Warehouse Violation", "docname": draft["name"]})
    assert r.status == 413, (r.status, r.text()[:300])
    page.reload()
    expect(sidebar(page)).to_contain_text("No attachments")


@pytest.mark.usefixtures("custom_fields")
def test_an_attach_field_refuses_a_file_over_the_limit_too(page: Page, login_as: Callable[..., None]) -> None:
    login_as("Administrator")
    page.goto("/app/warehouse-violation-type/new")
    limit = int(page.evaluate("JSON.parse(document.getElementById('fw-boot').textContent).max_file_size"))
    uploads: list[Request] = []
    page.on("request", lambda request: uploads.append(request) if "upload_file" in request.url else None)
    page.get_by_label("Photo").set_input_files(
        {"name": "huge.png", "mimeType": "image/png", "buffer": b"\x89PNG" + b"x" * limit})
    dialog = page.get_by_role("dialog", name="File too large")
    expect(dialog).to_contain_text("huge.png is")
    dialog.get_by_role("button").first.click()
    assert uploads == []
    expect(page.get_by_role("link", name="huge.png")).to_have_count(0)
    expect(page.get_by_label("Photo")).to_be_enabled()


@pytest.fixture
def secret_field(desk_server: DeskServer) -> Iterator[dict[str, Any]]:
    """A permlevel-1 Custom Field on Warehouse Violation Type (only the System Manager reads level 1) and
    a fresh violation type in which the Administrator changes it and a level-0 field."""
    with desk_server.api() as client:
        r = client.post("/api/method/fw.client.insert", json={"doc": {
            "doctype": "Custom Field", "dt": "Warehouse Violation Type", "fieldname": "audit_code",
            "fieldtype": "Data", "label": "Audit Code", "permlevel": 1, "insert_after": "penalty_points"}})
        assert r.status_code == 200, r.text
        field = r.json()["message"]["name"]
    name = f"Sidebar Type {secrets.token_hex(3)}"
    try:
        desk_server.insert({"doctype": "Warehouse Violation Type", "violation_type": name, "penalty_points": 1,
                            "audit_code": "A-1"})
        with desk_server.api() as client:
            r = client.put(f"/api/resource/Warehouse Violation Type/{name}", json={"audit_code": "A-2"})
            assert r.status_code == 200, r.text
            r = client.put(f"/api/resource/Warehouse Violation Type/{name}",
                           json={"audit_code": "A-3", "description": "now described"})
            assert r.status_code == 200, r.text
        yield {"name": name}
    finally:
        with desk_server.api() as client:
            client.post("/api/method/fw.client.delete", json={"doctype": "Warehouse Violation Type", "name": name})
            client.post("/api/method/fw.client.delete", json={"doctype": "Custom Field", "name": field})


def test_the_timeline_leaves_out_fields_the_user_may_not_read(page: Page, login_as: Callable[..., None],
                                                              secret_field: dict[str, Any]) -> None:
    url = f"/app/warehouse-violation-type/{secret_field['name']}"
    login_as("Administrator")
    page.goto(url)
    expect(timeline(page)).to_contain_text("changed Audit Code from A-1 to A-2")
    expect(timeline(page)).to_contain_text("changed Audit Code from A-2 to A-3")
    expect(timeline(page)).to_contain_text("changed Description from (empty) to now described")
    page.context.clear_cookies()
    login_as("reviewer")  # reads violation types at level 0 only
    page.goto(url)
    expect(timeline(page)).to_contain_text("changed Description from (empty) to now described")
    expect(timeline(page)).to_contain_text("created this")
    expect(timeline(page)).not_to_contain_text("Audit Code")
    expect(timeline(page)).not_to_contain_text("A-2")
    # the version that changed only the secret field is not there at all
    expect(timeline(page).get_by_role("listitem")).to_have_count(2)


def test_a_german_user_sees_the_sidebar_in_german(page: Page, login_as: Callable[..., None],
                                                  desk_server: DeskServer) -> None:
    draft = new_draft(desk_server, "auf Deutsch")
    login_as(german_user(desk_server, "greta.warehouse@demo.example.com", "Warehouse Manager"), "german-pass-1")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    aside = page.get_by_role("complementary", name="Dokumentinformationen")
    expect(aside.get_by_role("heading", name="Anhänge")).to_be_visible()
    expect(aside.get_by_role("heading", name="Aktivität")).to_be_visible()
    expect(aside).to_contain_text("Keine Anhänge")
    expect(aside).to_contain_text("Erstellt von Warehouse Manager")
    aside.get_by_label("Neuer Kommentar").fill("Geprüft")
    aside.get_by_role("button", name="Kommentar hinzufügen").click()
    entry = aside.get_by_role("list", name="Aktivität").get_by_role("listitem").filter(has_text="Geprüft")
    expect(entry).to_contain_text("Greta hat kommentiert")
    expect(entry.get_by_role("button", name="Kommentar bearbeiten")).to_be_visible()
    expect(entry.get_by_role("button", name="Kommentar löschen")).to_be_visible()
