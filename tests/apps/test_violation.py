"""Warehouse Violation over HTTP: the validate rules, the workflow by role, submit and cancel effects."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import httpx

from engine.site import Site
from tests.apps.conftest import Org, People, call, drain_jobs
from tests.server.conftest import ApiUser

RESOURCE = "/api/resource/Warehouse Violation"
APPLY = "fw.model.workflow.apply_workflow"


async def create(client: httpx.AsyncClient, user: ApiUser, **fields: Any) -> dict[str, Any]:
    r = await client.post(RESOURCE, json=fields, headers=user.token)
    assert r.status_code == 200, r.text
    return r.json()["data"]


async def get(client: httpx.AsyncClient, user: ApiUser, name: str) -> dict[str, Any]:
    r = await client.get(f"{RESOURCE}/{name}", headers=user.token)
    assert r.status_code == 200, r.text
    return r.json()["data"]


async def act(client: httpx.AsyncClient, user: ApiUser, name: str, action: str) -> httpx.Response:
    return await call(client, user, APPLY, doc={"doctype": "Warehouse Violation", "name": name}, action=action)


def messages(response: httpx.Response) -> list[dict[str, Any]]:
    raw = response.json().get("_server_messages")
    return [json.loads(m) for m in json.loads(raw)] if raw else []


async def test_validate_derives_employee_period_and_points(client: httpx.AsyncClient, people: People, org: Org,
                                                           ws: Site) -> None:
    doc = await create(client, people.warehouse, employee=org.emp("E-1001"), date="2024-03-15",
                       violation_type="Blocked Aisle", description="Pallet left in aisle 4")
    assert (doc["employee_name"], doc["company"], doc["branch"]) == ("Ada Lovelace", "Acme Logistics", "North Hub")
    assert doc["period"] == "2024-03"
    assert doc["penalty_points"] == 5.0  # empty: taken from the type
    assert doc["workflow_state"] == "Draft" and doc["docstatus"] == 0
    assert doc["name"].startswith(f"WV-{date.today().year}-")  # `.YYYY.` is the year of creation
    explicit = await create(client, people.warehouse, employee=org.emp("E-1002"), date="2024-04-01",
                            violation_type="Blocked Aisle", penalty_points=3)
    assert explicit["penalty_points"] == 3.0  # given: kept
    zero = await create(client, people.warehouse, employee=org.emp("E-1002"), date="2024-04-01",
                        violation_type="Missing Safety Gear", penalty_points=0)
    assert zero["penalty_points"] == 8.0  # zero counts as empty
    pointless = await create(client, people.warehouse, employee=org.emp("E-1002"), date="2024-04-01",
                             violation_type="Late Scan", penalty_points=2)
    assert pointless["penalty_points"] == 2.0  # the type has no points: left unchanged
    # every save re-derives: another employee and date
    r = await client.put(f"{RESOURCE}/{doc['name']}", headers=people.warehouse.token,
                         json={"employee": org.emp("E-2001"), "date": "2024-05-02"})
    assert r.status_code == 200, r.text
    moved = r.json()["data"]
    assert (moved["employee_name"], moved["company"], moved["branch"], moved["period"]) == (
        "Alan Turing", "Borealis Freight", "East Depot", "2024-05")


async def test_clients_cannot_set_derived_fields(client: httpx.AsyncClient, people: People, org: Org) -> None:
    doc = await create(client, people.warehouse, employee=org.emp("E-1001"), date="2024-03-15",
                       violation_type="Blocked Aisle", employee_name="Someone Else", company="Borealis Freight",
                       confirmed_by="warehouse@example.com")
    assert (doc["employee_name"], doc["company"]) == ("Ada Lovelace", "Acme Logistics")
    assert "confirmed_by" not in doc


async def test_the_workflow_by_role(client: httpx.AsyncClient, people: People, org: Org, ws: Site) -> None:
    doc = await create(client, people.warehouse, employee=org.emp("E-1001"), date="2024-03-15",
                       violation_type="Missing Safety Gear")
    name = doc["name"]
    # Draft: only the Warehouse Manager submits for review
    for user in (people.ada, people.hr, people.manager):
        r = await act(client, user, name, "Submit for Review")
        assert r.status_code == 417 and r.json()["exc_type"] == "WorkflowTransitionError", user.email
    r = await act(client, people.warehouse, name, "Submit for Review")
    assert r.status_code == 200, r.text
    assert (r.json()["message"]["workflow_state"], r.json()["message"]["docstatus"]) == ("Pending", 0)
    # Pending: the HR Reviewer rejects (back to Draft) or confirms (submits)
    assert (await act(client, people.warehouse, name, "Confirm")).status_code == 417
    r = await act(client, people.hr, name, "Reject")
    assert r.json()["message"]["workflow_state"] == "Draft"
    await act(client, people.warehouse, name, "Submit for Review")
    r = await act(client, people.hr, name, "Confirm")
    assert r.status_code == 200, r.text
    confirmed = r.json()["message"]
    assert (confirmed["workflow_state"], confirmed["docstatus"]) == ("Confirmed", 1)
    assert confirmed["confirmed_by"] == people.hr.email and confirmed["confirmed_at"]
    alert = messages(r)
    assert len(alert) == 1 and alert[0]["alert"] == 1
    assert "8" in alert[0]["message"] and "Ada Lovelace" in alert[0]["message"]
    stored = await get(client, people.manager, name)  # persisted, and readable by a Department Manager
    assert stored["confirmed_by"] == people.hr.email and len(stored["confirmed_at"]) == len("2024-03-15 10:00:00")
    # Confirmed: only an Employee appeals
    assert (await act(client, people.hr, name, "Appeal")).status_code == 417
    r = await act(client, people.ada, name, "Appeal")
    assert r.status_code == 200, r.text
    assert (r.json()["message"]["workflow_state"], r.json()["message"]["docstatus"]) == ("Appealed", 1)
    # Appealed: the HR Reviewer upholds (Confirmed again) or waives (cancels)
    assert (await act(client, people.ada, name, "Waive")).status_code == 417
    r = await act(client, people.hr, name, "Uphold")
    assert r.json()["message"]["workflow_state"] == "Confirmed"
    await act(client, people.grace, name, "Appeal")  # any Employee may appeal
    r = await act(client, people.hr, name, "Waive")
    assert r.status_code == 200, r.text
    assert (r.json()["message"]["workflow_state"], r.json()["message"]["docstatus"]) == ("Waived", 2)
    alert = messages(r)
    assert len(alert) == 1 and "Ada Lovelace" in alert[0]["message"] and alert[0]["alert"] == 1
    assert (await act(client, people.hr, name, "Uphold")).status_code == 417  # Waived is final


async def test_transitions_offered_per_role(client: httpx.AsyncClient, people: People, org: Org) -> None:
    doc = await create(client, people.warehouse, employee=org.emp("E-1001"), date="2024-03-15",
                       violation_type="Blocked Aisle")
    ref = {"doctype": "Warehouse Violation", "name": doc["name"]}

    async def offered(user: ApiUser) -> list[str]:
        r = await call(client, user, "fw.model.workflow.get_transitions", doc=ref)
        return [t["action"] for t in r.json()["message"]]

    assert await offered(people.warehouse) == ["Submit for Review"]
    assert await offered(people.hr) == []
    await act(client, people.warehouse, doc["name"], "Submit for Review")
    assert await offered(people.hr) == ["Confirm", "Reject"]


async def test_direct_workflow_state_changes_are_refused(client: httpx.AsyncClient, people: People,
                                                         org: Org) -> None:
    doc = await create(client, people.warehouse, employee=org.emp("E-1001"), date="2024-03-15",
                       violation_type="Blocked Aisle")
    for user, state in ((people.warehouse, "Confirmed"), (people.warehouse, "Waived"), (people.hr, "Pending")):
        r = await client.put(f"{RESOURCE}/{doc['name']}", headers=user.token, json={"workflow_state": state})
        assert r.status_code == 417, r.text
        assert r.json()["exc_type"] == "WorkflowTransitionError"
    r = await client.post(RESOURCE, headers=people.warehouse.token, json={
        "employee": org.emp("E-1001"), "date": "2024-03-15", "violation_type": "Blocked Aisle",
        "workflow_state": "Confirmed"})
    assert r.status_code == 417 and r.json()["exc_type"] == "WorkflowTransitionError"
    assert (await get(client, people.warehouse, doc["name"]))["workflow_state"] == "Draft"


async def test_permissions_per_role(client: httpx.AsyncClient, people: People, org: Org) -> None:
    fields = {"employee": org.emp("E-1001"), "date": "2024-03-15", "violation_type": "Blocked Aisle"}
    for user in (people.hr, people.manager, people.ada):
        r = await client.post(RESOURCE, json=fields, headers=user.token)
        assert r.status_code == 403, user.email
    doc = await create(client, people.warehouse, **fields)
    for user in (people.hr, people.manager, people.ada, people.sysman):
        assert (await client.get(f"{RESOURCE}/{doc['name']}", headers=user.token)).status_code == 200
    # the Warehouse Manager cannot submit directly; Department Manager and Employee cannot edit
    r = await client.put(f"{RESOURCE}/{doc['name']}", headers=people.warehouse.token, json={"docstatus": 1})
    assert r.status_code == 403
    for user in (people.manager, people.ada):
        r = await client.put(f"{RESOURCE}/{doc['name']}", headers=user.token, json={"description": "x"})
        assert r.status_code == 403, user.email
    # masters: everyone of contract §5 reads them, only the System Manager writes
    for doctype in ("Warehouse Violation Type", "Company", "Branch", "Employee"):
        for user in (people.hr, people.manager, people.warehouse, people.ada):
            r = await client.get(f"/api/resource/{doctype}", headers=user.token)
            assert r.status_code == 200 and r.json()["data"], (doctype, user.email)
    r = await client.post("/api/resource/Warehouse Violation Type", headers=people.hr.token,
                          json={"violation_type": "Other", "penalty_points": 1})
    assert r.status_code == 403
    r = await client.post("/api/resource/Warehouse Violation Type", headers=people.sysman.token,
                          json={"violation_type": "Other", "penalty_points": 1})
    assert r.status_code == 200


async def test_submit_through_the_resource_api_records_the_confirmer(client: httpx.AsyncClient, people: People,
                                                                     org: Org, ws: Site) -> None:
    doc = await create(client, people.sysman, employee=org.emp("E-1002"), date="2024-03-15",
                       violation_type="Blocked Aisle")
    r = await client.put(f"{RESOURCE}/{doc['name']}", headers=people.hr.token, json={"docstatus": 1})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["confirmed_by"] == people.hr.email
    assert r.json()["data"]["workflow_state"] == "Confirmed"
    assert any("Grace Hopper" in m["message"] for m in messages(r))
    r = await client.put(f"{RESOURCE}/{doc['name']}", headers=people.hr.token, json={"docstatus": 2})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["docstatus"] == 2
    assert any("Grace Hopper" in m["message"] and "cancel" in m["message"].lower() for m in messages(r))
    await drain_jobs(ws)
