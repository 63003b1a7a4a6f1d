"""The list's power tools in Chromium (desk.md §3, issue 14 item 3): the filter builder (field,
operator, value; every kind of value input; kept in the URL; remove one, clear all), the user's last
filters and sort remembered by the server and restored (URL filters win), the group-by sidebar's
counts filtering the list, bulk workflow actions and bulk delete with a result per row (some rows
refused, the others done), a large selection run as a job with its progress bar, and the awesome bar."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlparse

from playwright.sync_api import Page, expect

from tests.desk.browser import DEMO_PASSWORD, DEMO_USERS, DeskServer

SAVE_SETTINGS = "fw.model.utils.user_settings.save"


def api_count(desk_server: DeskServer, doctype: str, filters: Any = None) -> int:
    with desk_server.api() as client:
        params = {"filters": json.dumps(filters)} if filters else {}
        r = client.get(f"/api/v2/doctype/{doctype}/count", params=params)
        assert r.status_code == 200, r.text
        return int(r.json()["data"])


def first_name(desk_server: DeskServer, doctype: str) -> str:
    with desk_server.api() as client:
        return str(client.get(f"/api/resource/{doctype}", params={"limit_page_length": 1}).json()["data"][0]["name"])


def count_status(page: Page) -> Any:
    return page.get_by_role("status").filter(has_text=" of ")


def body_rows(page: Page) -> Any:
    return page.get_by_role("table", name="Warehouse Violation").locator("tbody").get_by_role("row")


def expect_url_filters(page: Page, check: Callable[[list[tuple[str, str]]], bool]) -> None:
    """The filters in the page's URL pass `check` within 10 s. The list writes them into the URL when it
    has loaded its rows, which may be after the count a test waited for (a filter that leaves the count
    as it was: the count shows the old rows' until then)."""
    deadline = time.monotonic() + 10
    while not check(filters := parse_qsl(urlparse(page.url).query)):
        assert time.monotonic() < deadline, filters
        page.wait_for_timeout(50)


def add_filter(page: Page, field: str, op: str, *values: str) -> None:
    page.get_by_role("button", name="Add filter").click()
    row = page.get_by_role("group", name="New filter")
    row.get_by_label("Field", exact=True).select_option(label=field)
    row.get_by_label("Operator", exact=True).select_option(op)
    if len(values) == 2:
        row.get_by_label("From", exact=True).fill(values[0])
        row.get_by_label("To", exact=True).fill(values[1])
    elif values:
        value = row.get_by_label("Value", exact=True)
        if value.evaluate("el => el.tagName") == "SELECT":
            value.select_option(values[0])
        else:
            value.fill(values[0])
    else:
        expect(row.get_by_label("Value", exact=True)).to_have_count(0)  # is set / is not set take no value
    row.get_by_role("button", name="Apply filter").click()
    expect(row).to_have_count(0)


def violations(desk_server: DeskServer, day: str, count: int) -> list[str]:
    """`count` Draft violations of `day` made by the demo warehouse manager."""
    employee = first_name(desk_server, "Employee")
    kind = first_name(desk_server, "Warehouse Violation Type")
    return [desk_server.insert({"doctype": "Warehouse Violation", "employee": employee, "date": day,
                                "violation_type": kind}, usr=DEMO_USERS["warehouse"], pwd=DEMO_PASSWORD)["name"]
            for _ in range(count)]


def apply_action(desk_server: DeskServer, user: str, names: list[str], action: str) -> None:
    with desk_server.api(DEMO_USERS[user], DEMO_PASSWORD) as client:
        r = client.post("/api/method/fw.model.workflow.bulk_workflow_approval",
                        json={"doctype": "Warehouse Violation", "docnames": names, "action": action})
        assert r.status_code == 200 and r.json()["message"]["failed"] == 0, r.text


def states(desk_server: DeskServer, names: list[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    with desk_server.api() as client:
        for name in names:
            r = client.get(f"/api/resource/Warehouse Violation/{name}")
            out[name] = r.json()["data"]["workflow_state"] if r.status_code == 200 else None
    return out


def test_filter_builder_operators_values_and_url(page: Page, login_as: Callable[..., None],
                                                 desk_server: DeskServer) -> None:
    login_as("reviewer")
    page.goto("/app/warehouse-violation")
    expect(body_rows(page)).to_have_count(20)
    add_filter(page, "Penalty Points", ">=", "3")
    heavy = api_count(desk_server, "Warehouse Violation", [["penalty_points", ">=", 3]])
    expect(count_status(page)).to_have_text(re.compile(rf" of {heavy}$"))
    expect_url_filters(page, lambda f: f == [("penalty_points", '[">=",3]')])
    # a date range: two date inputs
    add_filter(page, "Date", "between", "2020-01-01", "2099-12-31")
    chips = page.get_by_role("list", name="Active filters").get_by_role("listitem")
    expect(chips).to_have_count(2)
    expect(count_status(page)).to_have_text(re.compile(rf" of {heavy}$"))
    expect_url_filters(page, lambda f: ("date", '["between",["2020-01-01","2099-12-31"]]') in f)
    expect(chips.nth(1)).to_contain_text("Date between")
    # remove one filter: the other stays
    page.get_by_role("button", name=re.compile(r"^Remove filter Penalty Points")).click()
    expect(chips).to_have_count(1)
    everyone = api_count(desk_server, "Warehouse Violation")
    expect(count_status(page)).to_have_text(f"20 of {everyone}")
    expect_url_filters(page, lambda f: [k for k, _ in f] == ["date"])
    # is set / is not set: no value
    add_filter(page, "Description", "is not set")
    bare = api_count(desk_server, "Warehouse Violation", [["description", "is", "not set"]])
    expect(count_status(page)).to_have_text(re.compile(rf" of {bare}$"))
    expect(chips.nth(1)).to_have_text("Description is not set×")
    # a Select-like choice and a list of values (`in`); a hostile value is only data
    add_filter(page, "Workflow State", "in", "Pending, Confirmed")
    both = api_count(desk_server, "Warehouse Violation", [["description", "is", "not set"],
                                                          ["workflow_state", "in", ["Pending", "Confirmed"]]])
    expect(count_status(page)).to_have_text(re.compile(rf" of {both}$"))
    assert {t.strip() for t in page.locator("td.list-indicator").all_inner_texts()} <= {"Pending", "Confirmed"}
    # a Link's value: its documents are suggested as the user types (search_link)
    page.get_by_role("button", name="Add filter").click()
    row = page.get_by_role("group", name="New filter")
    row.get_by_label("Field", exact=True).select_option(label="Violation Type")
    row.get_by_label("Operator", exact=True).select_option("=")
    row.get_by_label("Value", exact=True).fill("Blocked A")  # (another test adds "Blocked Exit …" types)
    expect(row.locator("datalist option")).to_have_count(1)
    expect(row.locator("datalist option")).to_have_js_property("value", "Blocked Aisle")
    row.get_by_label("Value", exact=True).fill("Blocked Aisle")
    row.get_by_role("button", name="Apply filter").click()
    blocked = api_count(desk_server, "Warehouse Violation", [["description", "is", "not set"],
                                                             ["workflow_state", "in", ["Pending", "Confirmed"]],
                                                             ["violation_type", "=", "Blocked Aisle"]])
    expect(count_status(page)).to_have_text(re.compile(rf" of {blocked}$"))
    page.get_by_role("button", name="Remove filter Violation Type = Blocked Aisle").click()
    expect(count_status(page)).to_have_text(re.compile(rf" of {both}$"))
    add_filter(page, "Employee Name", "like", "<img src=x onerror=alert(1)>")
    expect(page.get_by_text("No Warehouse Violation matches these filters")).to_be_visible()
    expect(chips.nth(3)).to_contain_text("<img src=x onerror=alert(1)>")
    # the URL keeps them: a reload shows the same list (the list may have been empty before this
    # filter already, so wait for the URL rather than for the empty list)
    expect_url_filters(page, lambda f: [k for k, _ in f] == ["date", "description", "workflow_state", "employee_name"])
    page.reload()
    expect(chips).to_have_count(4)
    page.get_by_role("button", name="Clear filters").click()
    expect(count_status(page)).to_have_text(f"20 of {everyone}")
    expect_url_filters(page, lambda f: f == [])


def test_the_last_filters_and_sort_are_remembered(page: Page, login_as: Callable[..., None],
                                                  desk_server: DeskServer) -> None:
    login_as("manager")
    page.goto("/app/employee")
    expect(count_status(page)).to_have_text(re.compile(r"^20 of "))
    # no workflow and no right to delete: nothing to do in bulk, so no checkboxes
    expect(page.get_by_role("checkbox")).to_have_count(0)
    page.get_by_label("Status", exact=True).select_option("Left")
    with page.expect_response(lambda r: SAVE_SETTINGS in r.url) as saved:
        page.get_by_label("Sort by").select_option(label="Employee Name")
    assert saved.value.ok
    with desk_server.api(DEMO_USERS["manager"], DEMO_PASSWORD) as client:
        stored = json.loads(client.get(f"/api/method/{SAVE_SETTINGS.replace('save', 'get')}",
                                       params={"doctype": "Employee"}).json()["message"])
    assert stored["List"]["filters"] == [["Employee", "status", "=", "Left"]]
    assert (stored["List"]["sort_by"], stored["List"]["sort_order"]) == ("employee_name", "desc")
    # another browser (nothing stored locally): the list opens as it was left
    page.context.clear_cookies()
    page.evaluate("localStorage.clear()")
    login_as("manager")
    page.goto("/app")
    page.get_by_role("navigation", name="Modules").get_by_role("link", name="Employee", exact=True).click()
    left = api_count(desk_server, "Employee", [["status", "=", "Left"]])
    expect(count_status(page)).to_have_text(f"{left} of {left}")
    expect_url_filters(page, lambda f: f == [("status", "Left")])
    expect(page.get_by_label("Sort by")).to_have_value("employee_name")
    expect(page.get_by_label("Status", exact=True)).to_have_value("Left")
    # filters in the URL win over the remembered ones
    company = first_name(desk_server, "Company")
    page.goto(f"/app/employee?company={company}")
    expect(page.get_by_label("Status", exact=True)).to_have_value("")
    in_company = api_count(desk_server, "Employee", [["company", "=", company]])
    expect(count_status(page)).to_have_text(re.compile(rf" of {in_company}$"))


def test_group_by_counts_filter_the_list(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    login_as("reviewer")
    page.goto("/app/warehouse-violation")
    sidebar = page.get_by_role("complementary", name="Group by")
    sidebar.get_by_role("button", name="Workflow State").click()
    counts = sidebar.get_by_role("list", name="Counts by Workflow State")
    pending = api_count(desk_server, "Warehouse Violation", [["workflow_state", "=", "Pending"]])
    assert pending > 0
    value = counts.get_by_role("button", name=re.compile(r"^Pending"))
    expect(value).to_have_text(f"Pending{pending}")
    value.click()
    expect(count_status(page)).to_have_text(re.compile(rf" of {pending}$"))
    expect_url_filters(page, lambda f: f == [("workflow_state", "Pending")])
    assert {t.strip() for t in page.locator("td.list-indicator").all_inner_texts()} == {"Pending"}
    # the counts follow the list's filters: now only Pending is left
    expect(counts.get_by_role("button")).to_have_count(1)
    sidebar.get_by_role("button", name="Created By").click()
    by_owner = sidebar.get_by_role("list", name="Counts by Created By").get_by_role("button")
    expect(by_owner.first).to_be_visible()
    total = sum(int(re.search(r"(\d+)$", t.strip()).group(1)) for t in by_owner.all_inner_texts())  # type: ignore[union-attr]
    assert total == pending


def test_bulk_workflow_action_some_rows_refused(page: Page, login_as: Callable[..., None],
                                                desk_server: DeskServer) -> None:
    day = "2021-03-09"
    names = violations(desk_server, day, 3)
    apply_action(desk_server, "warehouse", names, "Submit for Review")
    apply_action(desk_server, "reviewer", names[:1], "Confirm")  # no Confirm from Confirmed
    login_as("reviewer")
    page.goto(f"/app/warehouse-violation?date={day}")
    expect(body_rows(page)).to_have_count(3)
    page.get_by_role("checkbox", name="Select all").check()
    bar = page.get_by_role("group", name="Selected documents")
    expect(bar).to_contain_text("3 selected")
    bar.get_by_role("button", name="Actions").click()
    offered = page.get_by_role("menu", name="Actions").get_by_role("menuitem")
    expect(offered).to_have_text(["Confirm", "Reject"])  # the reviewer's actions of Pending; no Delete right
    offered.filter(has_text="Confirm").click()
    dialog = page.get_by_role("dialog", name="Confirm: results")
    expect(dialog.get_by_text("2 succeeded, 1 refused")).to_be_visible()
    refused = dialog.get_by_role("row").filter(has=page.get_by_role("rowheader", name=re.compile(re.escape(names[0]))))
    expect(refused.get_by_role("cell").nth(0)).to_have_text("Refused")
    expect(refused.get_by_role("cell").nth(1)).not_to_be_empty()  # the server's message
    for name in names[1:]:
        row = dialog.get_by_role("row").filter(has=page.get_by_role("rowheader", name=re.compile(re.escape(name))))
        expect(row.get_by_role("cell").nth(0)).to_have_text("Succeeded")
    dialog.get_by_role("button", name="Close").last.click()
    assert states(desk_server, names) == dict.fromkeys(names, "Confirmed")
    expect(page.locator("td.list-indicator")).to_have_text(["Confirmed"] * 3)
    expect(bar).to_have_count(0)  # the selection is done with


def test_bulk_delete_asks_first_and_reports_each_row(page: Page, login_as: Callable[..., None],
                                                     desk_server: DeskServer) -> None:
    day = "2021-04-13"
    names = violations(desk_server, day, 3)
    apply_action(desk_server, "warehouse", names[:1], "Submit for Review")
    apply_action(desk_server, "reviewer", names[:1], "Confirm")  # submitted: not deleted
    login_as("Administrator")
    page.goto(f"/app/warehouse-violation?date={day}")
    expect(body_rows(page)).to_have_count(3)
    for checkbox in page.get_by_role("table", name="Warehouse Violation").get_by_role("checkbox").all()[1:]:
        checkbox.check()
    expect(page.get_by_role("checkbox", name="Select all")).to_be_checked()
    bar = page.get_by_role("group", name="Selected documents")
    bar.get_by_role("button", name="Actions").click()
    page.get_by_role("menuitem", name="Delete").click()
    ask = page.get_by_role("dialog", name="Delete", exact=True)
    expect(ask).to_contain_text("Delete 3 documents? This cannot be undone.")
    ask.get_by_role("button", name="No").click()
    assert set(states(desk_server, names).values()) == {"Confirmed", "Draft"}  # nothing deleted
    bar.get_by_role("button", name="Actions").click()
    page.get_by_role("menuitem", name="Delete").click()
    page.get_by_role("dialog", name="Delete", exact=True).get_by_role("button", name="Yes").click()
    dialog = page.get_by_role("dialog", name="Delete: results")
    expect(dialog.get_by_text("2 succeeded, 1 refused")).to_be_visible()
    expect(dialog.get_by_role("row").filter(has_text=names[0])).to_contain_text("Refused")
    assert states(desk_server, names) == {names[0]: "Confirmed", names[1]: None, names[2]: None}
    dialog.get_by_role("button", name="Close").last.click()
    expect(body_rows(page)).to_have_count(1)


def test_a_large_selection_runs_as_a_job_with_progress(page: Page, login_as: Callable[..., None],
                                                       desk_server: DeskServer) -> None:
    day = "2021-05-17"
    names = violations(desk_server, day, 24)  # more than the 20 a request does at once
    login_as("warehouse")
    with page.expect_websocket() as socket:
        page.goto(f"/app/warehouse-violation?date={day}")
    socket.value.wait_for_event("framereceived")  # connected: the user's room is joined
    page.get_by_role("group", name="Rows per page").get_by_role("button", name="100").click()
    expect(body_rows(page)).to_have_count(24)
    page.get_by_role("checkbox", name="Select all").check()
    page.get_by_role("group", name="Selected documents").get_by_role("button", name="Actions").click()
    page.get_by_role("menuitem", name="Submit for Review").click()
    bar = page.get_by_role("progressbar", name="Submit for Review: Warehouse Violation")
    expect(bar).to_be_visible(timeout=30_000)
    dialog = page.get_by_role("dialog", name="Submit for Review: results")
    expect(dialog.get_by_text("24 succeeded, 0 refused")).to_be_visible(timeout=60_000)
    expect(bar).to_have_attribute("aria-valuetext", "24 of 24")
    expect(dialog.get_by_role("cell", name="Succeeded")).to_have_count(24)
    assert set(states(desk_server, names).values()) == {"Pending"}


def test_awesome_bar_jumps_by_keyboard(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    login_as("reviewer")
    page.goto("/app")
    bar = page.get_by_role("combobox", name="Search or type a command")
    bar.fill("warehouse vio")
    options = page.get_by_role("listbox", name="Search results").get_by_role("option")
    expect(options.first).to_have_text("Warehouse Violation List")
    bar.press("ArrowDown")
    expect(bar).to_have_attribute("aria-activedescendant", re.compile(r"."))
    expect(options.first).to_have_attribute("aria-selected", "true")
    bar.press("Enter")
    expect(page).to_have_url(re.compile(r"/app/warehouse-violation$"))
    expect(page.get_by_role("heading", level=1, name="Warehouse Violation")).to_be_visible()
    # a report
    bar.fill("score report")
    expect(options.filter(has_text="Employee Score Report")).to_have_count(1)
    options.filter(has_text="Employee Score Report").click()
    # (the report then writes its filters' values into the URL: matched or not, the page is the report's)
    expect(page).to_have_url(re.compile(r"/app/query-report/Employee%20Score%20Report(\?|$)"))
    expect(page.get_by_role("heading", level=1, name="Employee Score Report")).to_be_visible()
    # a document by its number (search_link), with the keyboard
    query = {"fields": json.dumps(["name", "employee_name"]),
             "filters": json.dumps([["employee_number", "=", "D-1007"]])}
    with desk_server.api() as client:
        employee = client.get("/api/resource/Employee", params=query).json()["data"][0]
    bar.fill("D-1007")
    found = options.filter(has_text=employee["name"])
    expect(found).to_have_count(1)
    expect(found).to_contain_text(employee["employee_name"])
    for _ in range(options.count()):
        if found.get_attribute("aria-selected") == "true":
            break
        bar.press("ArrowDown")
    bar.press("Enter")
    expect(page).to_have_url(re.compile(rf"/app/employee/{employee['name']}$"))
    # Escape closes the list, then clears the text
    bar.fill("employee")
    expect(bar).to_have_attribute("aria-expanded", "true")
    bar.press("Escape")
    expect(bar).to_have_attribute("aria-expanded", "false")
    bar.press("Escape")
    expect(bar).to_have_value("")


def test_new_document_from_the_awesome_bar(page: Page, login_as: Callable[..., None]) -> None:
    login_as("warehouse")
    page.goto("/app")
    bar = page.get_by_role("combobox", name="Search or type a command")
    bar.fill("new warehouse vio")
    options = page.get_by_role("listbox", name="Search results").get_by_role("option")
    expect(options).to_have_text(["New Warehouse Violation"])
    bar.press("Enter")
    expect(page).to_have_url(re.compile(r"/app/warehouse-violation/new$"))
    login_as("reviewer")  # who may not create is not offered it
    page.goto("/app")
    bar.fill("new warehouse vio")
    expect(bar).to_have_attribute("aria-expanded", "false")


def headers(page: Page) -> list[str]:
    table = page.get_by_role("table", name="Warehouse Violation")
    return [h.strip() for h in table.get_by_role("columnheader").all_inner_texts()]


def test_chosen_columns_are_shown_and_remembered(page: Page, login_as: Callable[..., None],
                                                 desk_server: DeskServer) -> None:
    login_as("reviewer")
    page.goto("/app/warehouse-violation")
    expect(body_rows(page)).to_have_count(20)
    default = headers(page)
    assert default == ["", "Employee Name", "Status", "Employee", "Date", "Violation Type", "Penalty Points",
                       "Last Updated"]
    page.get_by_role("button", name="Columns").click()
    panel = page.get_by_role("group", name=re.compile(r"^Columns shown"))
    panel.get_by_role("checkbox", name="Company").check()
    expect(page.get_by_role("columnheader", name="Company")).to_be_visible()
    with page.expect_response(lambda r: SAVE_SETTINGS in r.url) as saved:
        panel.get_by_role("checkbox", name="Penalty Points").uncheck()
    assert saved.value.ok
    expect(page.get_by_role("columnheader", name="Penalty Points")).to_have_count(0)
    chosen = ["", "Employee Name", "Status", "Employee", "Date", "Violation Type", "Company", "Last Updated"]
    assert headers(page) == chosen
    company = page.locator("tbody tr").first.locator("td").nth(6)  # the checkbox, status, 4 columns, then Company
    expect(company).to_have_text(re.compile(r"\S"))
    # at most six columns: with six shown, the others cannot be checked
    panel.get_by_role("checkbox", name="Branch").check()
    panel.get_by_role("checkbox", name="Period").check()
    expect(panel.get_by_role("checkbox", name="Description")).to_be_disabled()
    panel.get_by_role("checkbox", name="Period").uncheck()
    panel.get_by_role("checkbox", name="Branch").uncheck()
    expect(panel.get_by_role("checkbox", name="Description")).to_be_enabled()
    page.keyboard.press("Escape")
    expect(panel).to_have_count(0)
    # remembered on the server: another browser shows the same columns
    page.wait_for_timeout(600)  # the last change's save
    page.evaluate("localStorage.clear()")
    page.reload()
    expect(body_rows(page)).to_have_count(20)
    assert headers(page) == chosen
    page.get_by_role("button", name="Columns").click()
    page.get_by_role("button", name="Reset columns").click()
    expect(page.get_by_role("columnheader", name="Penalty Points")).to_be_visible()
    assert headers(page) == default


def test_the_builder_looks_like_the_filters_and_dates_stay_on_one_line(page: Page,
                                                                      login_as: Callable[..., None]) -> None:
    page.set_viewport_size({"width": 1024, "height": 800})  # a narrow desktop: the columns must share it
    login_as("warehouse")
    page.goto("/app/warehouse-violation")
    expect(body_rows(page).first).to_be_visible()
    page.get_by_role("button", name="Add filter").click()
    row = page.get_by_role("group", name="New filter")
    standard = page.locator(".standard-filter input").first.bounding_box()
    for control in (row.get_by_label("Field", exact=True), row.get_by_label("Operator", exact=True)):
        box = control.bounding_box()
        assert standard and box and abs(box["height"] - standard["height"]) <= 1, (box, standard)
    date_cell = body_rows(page).first.locator("td.col-date")
    expect(date_cell).to_have_css("white-space", "nowrap")
    line = float(date_cell.evaluate("td => parseFloat(getComputedStyle(td).lineHeight)"))
    text_height = float(date_cell.evaluate("td => { const r = document.createRange(); r.selectNodeContents(td);"
                                           " return r.getBoundingClientRect().height; }"))
    assert text_height < 1.5 * line  # one line, not "20-11-" over "2026"
