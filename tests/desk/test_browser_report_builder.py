"""The report view in Chromium (business.md §5, §6): the list's Menu → "Report View"; "Pick Columns";
"Group By" a field with "Sum of Penalty Points" (the table matches fw.desk.reportview.get, with a totals
row); "Save As" a Report shared with a role, reopened at /app/<doctype>/view/report/<name> by its
owner and by a user of that role, and listed in the report view's and the list's sidebars."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from urllib.parse import quote

from playwright.sync_api import Page, expect

from tests.desk.browser import DEMO_PASSWORD, DEMO_USERS, DeskServer


def grouped(desk_server: DeskServer) -> dict[str, object]:
    with desk_server.api(DEMO_USERS["reviewer"], DEMO_PASSWORD) as client:
        r = client.get("/api/method/fw.desk.reportview.get", params={
            "doctype": "Warehouse Violation", "group_by": "branch", "aggregate_function": "sum",
            "aggregate_on_field": "penalty_points", "page_length": 500})
        assert r.status_code == 200, r.text
        return r.json()["message"]  # type: ignore[no-any-return]


def test_report_view_columns_group_by_save_and_reopen(page: Page, login_as: Callable[..., None],
                                                       desk_server: DeskServer) -> None:
    login_as("reviewer")  # HR Reviewer: read and report on Warehouse Violation
    page.goto("/app/warehouse-violation")
    page.get_by_role("button", name="Menu").click()
    page.get_by_role("menu", name="Menu").get_by_role("menuitem", name="Report View").click()
    page.wait_for_url("**/app/warehouse-violation/view/report")
    expect(page.get_by_role("heading", name="Warehouse Violation Report")).to_be_visible()
    table = page.get_by_role("table")
    expect(table.get_by_role("columnheader").first).to_have_text("ID")

    page.get_by_role("button", name="Pick Columns").click()
    dialog = page.get_by_role("dialog", name="Pick Columns")
    dialog.get_by_label("Branch", exact=True).check()
    dialog.get_by_role("button", name="Apply").click()
    expect(table.get_by_role("columnheader", name="Branch")).to_be_visible()

    page.get_by_label("Group By").select_option("branch")
    page.get_by_label("Aggregate").select_option(label="Sum of Penalty Points")
    expect(table.get_by_role("columnheader")).to_have_text(["Branch", "Count", "Sum of Penalty Points"])
    expected = grouped(desk_server)
    values = expected["values"]  # type: ignore[index]
    expect(table.locator("tbody tr")).to_have_count(len(values))
    first = table.locator("tbody tr").first.get_by_role("cell")
    # (violations of other tests' employees may have no branch: that group's cell is empty)
    expect(first.nth(0)).to_have_text("" if values[0][0] is None else str(values[0][0]))
    expect(first.nth(1)).to_have_text(str(values[0][1]))
    total = table.locator("tfoot tr").get_by_role("cell")
    expect(total.nth(0)).to_have_text("Total")
    expect(total.nth(1)).to_have_text(f"{sum(v[1] for v in values):,}")

    name = f"Points by branch {secrets.token_hex(3)}"
    page.get_by_role("button", name="Save As").click()
    save = page.get_by_role("dialog", name="Save As")
    save.get_by_label("Report Name").fill(name)
    save.get_by_label("Department Manager").check()
    save.get_by_role("button", name="Save").click()
    page.wait_for_url(f"**/app/warehouse-violation/view/report/{quote(name)}")
    expect(page.get_by_role("heading", name=name)).to_be_visible()
    expect(page.get_by_role("navigation", name="Saved Reports").get_by_role("link", name=name)).to_be_visible()
    page.reload()
    expect(page.get_by_label("Group By")).to_have_value("branch")
    expect(table.get_by_role("columnheader")).to_have_text(["Branch", "Count", "Sum of Penalty Points"])

    page.goto("/app/warehouse-violation")  # the list's sidebar lists it too, once opened
    saved = page.get_by_role("navigation", name="Saved Reports")
    saved.get_by_role("button", name="Saved Reports").click()
    saved.get_by_role("link", name=name).click()
    page.wait_for_url(f"**/app/warehouse-violation/view/report/{quote(name)}")
    expect(page.get_by_role("heading", name=name)).to_be_visible()

    page.goto("about:blank")  # the reviewer's Desk is left first: its requests would meet the cleared session and
    page.context.clear_cookies()  # send the page to /login in the middle of the next navigation
    login_as("manager")  # Department Manager: the report is shared with the role
    page.goto(f"/app/warehouse-violation/view/report/{quote(name)}")
    expect(page.get_by_role("heading", name=name)).to_be_visible()
    expect(page.get_by_label("Aggregate")).to_have_value("sum:penalty_points")
    expect(page.get_by_role("table").locator("tbody tr").first).to_be_visible()
