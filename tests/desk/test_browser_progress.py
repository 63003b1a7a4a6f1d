"""Progress in Chromium (desk.md §7, issue 14 point 5): a job's `publish_progress` shows a progress bar
to its user. A Warehouse Manager starts a bulk workflow action as a job; the Desk shows the bar (named
by the job's title, at 100% with "3 of 3") and, when the job ends, a toast with the rows' results."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.desk.browser import DEMO_USERS, DeskServer

APPROVE = "/api/method/fw.model.workflow.bulk_workflow_approval"


def test_a_jobs_progress_reaches_its_user(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    with desk_server.api() as admin:
        first = {"limit_page_length": 1}
        employee = admin.get("/api/resource/Employee", params=first).json()["data"][0]["name"]
        kind = admin.get("/api/resource/Warehouse Violation Type", params=first).json()["data"][0]["name"]
    names = [desk_server.insert({"doctype": "Warehouse Violation", "employee": employee, "date": "2024-03-15",
                                 "violation_type": kind}, usr=DEMO_USERS["warehouse"], pwd="demo-pass-1")["name"]
             for _ in range(3)]
    login_as("warehouse")
    with page.expect_websocket() as socket:
        page.goto("/app")
    socket.value.wait_for_event("framereceived")  # connected: the user's room is joined
    token = page.request.get("/api/method/fw.auth.get_csrf_token").json()["message"]
    r = page.request.post(APPROVE, data={"doctype": "Warehouse Violation", "docnames": names,
                                         "action": "Submit for Review", "background": 1},
                          headers={"X-Frappe-CSRF-Token": token, "Content-Type": "application/json"})
    assert r.ok, r.text()
    assert r.json()["message"]["total"] == 3
    bar = page.get_by_role("progressbar", name="Submit for Review: Warehouse Violation")
    expect(bar).to_have_attribute("aria-valuenow", "100")
    expect(bar).to_have_attribute("aria-valuetext", "3 of 3")
    expect(page.get_by_role("status").filter(has_text="Submit for Review: 3 done, 0 failed")).to_be_visible()
    page.get_by_role("button", name="Dismiss Submit for Review: Warehouse Violation").click()
    expect(bar).to_have_count(0)
    with desk_server.api() as admin:
        states = {admin.get(f"/api/resource/Warehouse Violation/{n}").json()["data"]["workflow_state"] for n in names}
    assert states == {"Pending"}
