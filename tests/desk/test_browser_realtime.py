"""Realtime in Chromium (desk.md §3, §7): another user's insert, save and delete appear in an open list
without a reload (`list_update`), and a lost Socket.IO connection comes back by itself, rejoins the
list's room and reloads what it missed meanwhile."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from tests.desk.browser import DEMO_PASSWORD, DEMO_USERS, DeskServer

REALTIME = """async () => {
    const base = JSON.parse(document.getElementById("fw-boot").textContent).assets.base;
    return import(base + "js/realtime.js");
}"""


def an_employee(desk_server: DeskServer) -> str:
    """A new employee of a new company: a list filtered by it starts empty and only this test adds to it."""
    tag = secrets.token_hex(3)
    company = desk_server.insert({"doctype": "Company", "company_name": f"Realtime {tag} Ltd"})["name"]
    employee = desk_server.insert(
        {
            "doctype": "Employee",
            "employee_name": f"Rita Realtime {tag}",
            "employee_number": f"RT-{tag}",
            "company": company,
            "status": "Active",
        }
    )
    return str(employee["name"])


def a_violation(desk_server: DeskServer, employee: str, violation_type: str = "Late Scan") -> dict[str, Any]:
    doc = {
        "doctype": "Warehouse Violation",
        "employee": employee,
        "date": "2024-05-02",
        "violation_type": violation_type,
    }
    return desk_server.insert(doc, DEMO_USERS["warehouse"], DEMO_PASSWORD)


def rows(page: Page) -> Any:
    return page.get_by_role("table").locator("tbody").get_by_role("row")


def count(page: Page) -> Any:
    return page.get_by_role("status").filter(has_text=" of ")


def connected(page: Page) -> None:
    page.wait_for_function(f"({REALTIME})().then((r) => r.isConnected())", timeout=15_000)


def test_another_users_changes_appear_without_a_reload(
    page: Page, login_as: Callable[..., None], desk_server: DeskServer
) -> None:
    employee = an_employee(desk_server)
    login_as("reviewer")
    page.goto(f"/app/warehouse-violation?employee={employee}")
    expect(count(page)).to_have_text("0 of 0")
    connected(page)
    page.wait_for_timeout(300)  # the room is joined right after the connection
    page.evaluate("window.__not_reloaded = true")

    first = a_violation(desk_server, employee)  # an insert by the warehouse manager
    expect(rows(page)).to_have_count(1)
    expect(count(page)).to_have_text("1 of 1")
    row = rows(page).first
    expect(row.get_by_role("cell", name="2.00", exact=True)).to_be_visible()  # Late Scan: 2 points

    with desk_server.api(DEMO_USERS["warehouse"], DEMO_PASSWORD) as client:  # a save
        doc = client.get(f"/api/resource/Warehouse Violation/{first['name']}").json()["data"]
        doc["violation_type"] = "Forklift Speeding"
        r = client.put(f"/api/resource/Warehouse Violation/{first['name']}", json=doc)
        assert r.status_code == 200, r.text
    expect(row.get_by_role("cell", name="Forklift Speeding", exact=True)).to_be_visible()

    a_violation(desk_server, employee, "Blocked Aisle")
    expect(count(page)).to_have_text("2 of 2")
    with desk_server.api() as client:  # a delete
        r = client.delete(f"/api/resource/Warehouse Violation/{first['name']}")
        assert r.status_code == 202 or r.status_code == 200, r.text
    expect(count(page)).to_have_text("1 of 1")
    expect(rows(page).get_by_role("link", name=first["employee_name"])).to_have_count(1)
    assert page.evaluate("window.__not_reloaded") is True  # all of it without a page load


def test_a_lost_connection_comes_back_and_catches_up(
    page: Page, login_as: Callable[..., None], desk_server: DeskServer
) -> None:
    employee = an_employee(desk_server)
    login_as("reviewer")
    page.goto(f"/app/warehouse-violation?employee={employee}")
    expect(count(page)).to_have_text("0 of 0")
    connected(page)
    first_id = page.evaluate(f"({REALTIME})().then((r) => r.connection().id)")
    # the transport dies (as when the network or a proxy drops it); the next try waits 3 s
    page.evaluate(f"""({REALTIME})().then((r) => {{
        const manager = r.connection().io;
        manager.randomizationFactor(0);
        manager.reconnectionDelay(3000);
        manager.reconnectionDelayMax(3000);
        manager.engine.close();
    }})""")
    page.wait_for_function(f"({REALTIME})().then((r) => !r.isConnected())")
    a_violation(desk_server, employee)  # while disconnected: its list_update is lost
    page.wait_for_timeout(500)
    expect(count(page)).to_have_text("0 of 0")
    connected(page)  # back by itself
    assert page.evaluate(f"({REALTIME})().then((r) => r.connection().id)") != first_id
    expect(count(page)).to_have_text("1 of 1")  # caught up after the reconnect
    page.wait_for_timeout(300)
    a_violation(desk_server, employee, "Blocked Aisle")  # and the room was joined again
    expect(count(page)).to_have_text("2 of 2")
