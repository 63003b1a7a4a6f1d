"""A German user in Chromium (desk.md §7): the Desk's own strings, the apps' labels, options and
workflow states, buttons and messages in German; dates and numbers in the system's formats (here the
German ones, dd.mm.yyyy and #.###,##), the modified age in the user's language."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.desk.browser import DeskServer

GERMAN_FORMATS = {"date_format": "dd.mm.yyyy", "number_format": "#.###,##"}


def german_user(desk_server: DeskServer, email: str, role: str) -> str:
    with desk_server.api() as client:
        if client.get(f"/api/resource/User/{email}").status_code == 200:
            return email
    desk_server.insert(
        {
            "doctype": "User",
            "email": email,
            "first_name": "Greta",
            "language": "de",
            "new_password": "german-pass-1",
            "roles": [{"role": role}],
        }
    )
    return email


def set_system_settings(desk_server: DeskServer, values: dict[str, Any]) -> None:
    with desk_server.api() as client:
        r = client.post(
            "/api/method/fw.client.set_value",
            json={"doctype": "System Settings", "name": "System Settings", "fieldname": values},
        )
        assert r.status_code == 200, r.text


@pytest.fixture
def german_formats(desk_server: DeskServer) -> Iterator[None]:
    """The system's date and number formats set to the German ones for one test (and put back)."""
    with desk_server.api() as client:
        r = client.get("/api/resource/System Settings/System Settings")
        assert r.status_code == 200, r.text
        before = r.json()["data"]
    set_system_settings(desk_server, GERMAN_FORMATS)
    try:
        yield
    finally:
        set_system_settings(
            desk_server,
            {
                "date_format": before.get("date_format") or "dd-mm-yyyy",
                "number_format": before.get("number_format") or "#,###.##",
            },
        )


def test_a_german_reviewer_reads_the_list_in_german(
    page: Page, login_as: Callable[..., None], desk_server: DeskServer, german_formats: None
) -> None:
    login_as(german_user(desk_server, "greta.reviewer@demo.example.com", "HR Reviewer"), "german-pass-1")
    page.goto("/app/warehouse-violation?workflow_state=Pending")
    expect(page.get_by_role("heading", level=1, name="Lagerverstoß")).to_be_visible()
    assert page.title() == "Lagerverstoß | fw"
    table = page.get_by_role("table", name="Lagerverstoß")
    headers = [h.strip() for h in table.get_by_role("columnheader").all_inner_texts()]
    assert headers == [
        "",  # the rows' checkboxes
        "Mitarbeitername",
        "Status",
        "Mitarbeiter",
        "Datum",
        "Verstoßtyp",
        "Strafpunkte",
        "Zuletzt geändert",
    ]
    row = table.locator("tbody").get_by_role("row").first
    expect(row.locator("td.list-indicator")).to_have_text("Ausstehend")  # a workflow state
    cells = row.get_by_role("cell").all_inner_texts()[1:]  # after the row's checkbox
    assert re.fullmatch(r"\d{2}\.\d{2}\.\d{4}", cells[2]), cells  # Datum in dd.mm.yyyy
    assert re.fullmatch(r"\d+,\d{2}", cells[4]), cells  # Strafpunkte with a decimal comma
    assert re.fullmatch(r"gerade eben|vor \d+ (Minuten?|Stunden?|Tag(en)?)", cells[5]), cells
    expect(page.get_by_role("status").filter(has_text=" von ")).to_have_text(re.compile(r"^\d+ von \d+$"))
    chip = page.get_by_role("list", name="Aktive Filter").get_by_role("listitem")
    expect(chip).to_have_text(re.compile(r"^Workflow-Status = Ausstehend|^\S.* = Ausstehend"))
    expect(page.get_by_role("button", name="Filter zurücksetzen")).to_be_visible()
    expect(page.get_by_label("Sortieren nach")).to_be_visible()
    expect(page.get_by_role("group", name="Zeilen pro Seite")).to_be_visible()
    expect(page.get_by_role("navigation", name="Module")).to_be_visible()
    expect(page.get_by_role("link", name="Zum Inhalt springen")).to_be_attached()
    page.goto("/app/warehouse-violation/NO-SUCH-NAME-1")
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("Nicht gefunden"))


def test_a_german_warehouse_manager_gets_german_buttons_and_messages(
    page: Page, login_as: Callable[..., None], desk_server: DeskServer
) -> None:
    login_as(german_user(desk_server, "greta.warehouse@demo.example.com", "Warehouse Manager"), "german-pass-1")
    page.goto("/app/warehouse-violation")
    page.get_by_role("button", name="Lagerverstoß hinzufügen").click()
    page.wait_for_url("**/app/warehouse-violation/new")
    expect(page.get_by_role("combobox", name="Mitarbeiter")).to_be_visible()  # the apps' labels
    expect(page.get_by_label("Verstoßtyp")).to_be_visible()
    expect(page.locator(".page-title .indicator-pill")).to_have_text("Nicht gespeichert")
    page.get_by_role("button", name="Speichern").click()
    expect(page.get_by_role("alert").filter(has_text="Fehlende Felder")).to_contain_text(
        "Fehlende Felder: Mitarbeiter, Verstoßtyp"
    )
