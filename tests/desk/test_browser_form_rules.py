"""Form rules of desk.md §4 that need a submitted document or a changed workflow, in Chromium: a submitted
form is read-only except its `allow_on_submit` fields, which "Update" saves; a workflow transition with a
`condition` is offered only while the condition holds (the server's `get_transitions`). The extra field is
a Custom Field on Employee Score and the condition is set on the reference workflow over the API, each
removed again afterwards."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.desk.browser import DEMO_PASSWORD, DEMO_USERS, DeskServer
from tests.desk.test_browser_form import new_draft, pill
from tests.desk.test_browser_form_actions import a_score
from tests.desk.test_browser_list import api_rows

WORKFLOW = "Warehouse Violation Workflow"
CONDITION = 'doc.description == "ready for review"'


@pytest.fixture
def review_note(desk_server: DeskServer) -> Iterator[None]:
    """Employee Score gets `review_note`, a Small Text that may change after submit."""
    with desk_server.api() as client:
        r = client.post("/api/method/fw.client.insert", json={"doc": {
            "doctype": "Custom Field", "dt": "Employee Score", "fieldname": "review_note", "fieldtype": "Small Text",
            "label": "Review Note", "allow_on_submit": 1, "insert_after": "value"}})
        assert r.status_code == 200, r.text
        name = r.json()["message"]["name"]
    try:
        yield
    finally:
        with desk_server.api() as client:
            client.post("/api/method/fw.client.delete", json={"doctype": "Custom Field", "name": name})


def test_a_submitted_form_changes_only_its_allow_on_submit_fields(page: Page, login_as: Callable[..., None],
                                                                  review_note: None, desk_server: DeskServer) -> None:
    score = a_score(desk_server)
    with desk_server.api() as client:
        r = client.post("/api/method/fw.client.submit", json={"doc": {**score}})
        assert r.status_code == 200, r.text
    login_as("reviewer")  # HR Reviewer: write, submit, cancel
    page.goto(f"/app/employee-score/{score['name']}")
    expect(pill(page)).to_have_text("Submitted")
    expect(page.get_by_label("Value", exact=True)).to_have_attribute("readonly", "")
    expect(page.get_by_label("Period", exact=True)).to_have_attribute("readonly", "")
    note = page.get_by_label("Review Note")
    expect(note).to_be_editable()
    expect(page.get_by_role("button", name="Update")).to_have_count(0)  # nothing changed yet
    note.fill("checked after submit")
    expect(pill(page)).to_have_text("Not Saved")
    page.get_by_role("button", name="Update").click()
    expect(pill(page)).to_have_text("Submitted")
    expect(page.get_by_role("button", name="Update")).to_have_count(0)
    expect(page.get_by_role("button", name="Cancel")).to_be_visible()
    page.reload()
    expect(page.get_by_label("Review Note")).to_have_value("checked after submit")
    expect(page.get_by_label("Value", exact=True)).to_have_attribute("readonly", "")
    stored = api_rows(desk_server, "Employee Score", filters=[["name", "=", score["name"]]],
                      fields=["docstatus", "value", "review_note"], limit=1)[0]
    assert stored == {"docstatus": 1, "value": 42, "review_note": "checked after submit"}
    # what the form does not offer, the server refuses: a field without allow_on_submit stays as submitted
    with desk_server.api(DEMO_USERS["reviewer"], DEMO_PASSWORD) as client:
        doc = client.get(f"/api/resource/Employee Score/{score['name']}").json()["data"]
        r = client.put(f"/api/resource/Employee Score/{score['name']}", json={"value": 7, "modified": doc["modified"]})
        assert r.status_code >= 400, r.text
    assert api_rows(desk_server, "Employee Score", filters=[["name", "=", score["name"]]],
                    fields=["value"], limit=1) == [{"value": 42}]


@pytest.fixture
def conditional_workflow(desk_server: DeskServer) -> Iterator[None]:
    """The reference workflow's "Submit for Review" only for a violation described as ready for review."""
    with desk_server.api() as client:
        workflow = client.get("/api/method/fw.client.get", params={"doctype": "Workflow", "name": WORKFLOW}).json()[
            "message"]
        original: list[dict[str, Any]] = workflow["transitions"]
        changed = [{**t, "condition": CONDITION} if t["action"] == "Submit for Review" else t for t in original]
        r = client.put(f"/api/resource/Workflow/{WORKFLOW}", json={"transitions": changed})
        assert r.status_code == 200, r.text
    try:
        yield
    finally:
        with desk_server.api() as client:
            r = client.put(f"/api/resource/Workflow/{WORKFLOW}", json={"transitions": original})
            assert r.status_code == 200, r.text


def test_a_transition_with_a_condition_is_offered_only_when_it_holds(
        page: Page, login_as: Callable[..., None], conditional_workflow: None, desk_server: DeskServer) -> None:
    draft = new_draft(desk_server, "not yet")
    login_as("warehouse")  # Warehouse Manager: Submit for Review is their only transition from Draft
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    expect(pill(page)).to_have_text("Draft")
    expect(page.get_by_label("Description")).to_have_value("not yet")
    page.wait_for_load_state("networkidle")  # the server has answered get_transitions
    expect(page.get_by_role("button", name="Actions")).to_have_count(0)
    with desk_server.api(DEMO_USERS["warehouse"], DEMO_PASSWORD) as client:  # nor does the server take it
        r = client.post("/api/method/fw.model.workflow.apply_workflow",
                        json={"doc": {"doctype": "Warehouse Violation", "name": draft["name"]},
                              "action": "Submit for Review"})
        assert r.status_code == 417, r.text
    page.get_by_label("Description").fill("ready for review")
    page.get_by_role("button", name="Save").click()
    expect(pill(page)).to_have_text("Draft")
    actions = page.get_by_role("button", name="Actions")
    expect(actions).to_be_visible()  # the saved document meets the condition now
    actions.click()
    page.get_by_role("menu", name="Actions").get_by_role("menuitem", name="Submit for Review").click()
    expect(pill(page)).to_have_text("Pending")
    assert api_rows(desk_server, "Warehouse Violation", filters=[["name", "=", draft["name"]]],
                    fields=["workflow_state"]) == [{"workflow_state": "Pending"}]
