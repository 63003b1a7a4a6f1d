"""Frappe-style form scripts in Chromium (desk.md §5): a script registered with `frappe.ui.form.on` runs
in the Desk — its events fire in Frappe's order, its buttons (loose and grouped), indicator, dashboard
and intro appear, field properties change (`toggle_display`, `toggle_reqd`), `set_query` narrows a
Link's search, a change event chains `set_value`, a throw in `validate` stops the save,
`frappe.db`/`frappe.call` reach the server; `frappe.ui.Dialog` and `frappe.prompt` work by keyboard;
child-table events reach the child doctype's handlers; what a script shows (intro, headline, alerts,
messages) stays text. The reference app's Frappe-API script paints its pill (in the list's colour)
and offers its buttons on drafts only, along the workflow.

The test scripts are registered the way a script file does it (`frappe.ui.form.on` at load time),
from the page, before the form opens through `frappe.set_route` (the page keeps the registry)."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from tests.desk.browser import DEMO_PASSWORD, DEMO_USERS, DeskServer
from tests.desk.test_browser_list import api_rows

HOSTILE = '<img src=x onerror="window.__xss=1">Mallory'

EMPLOYEE_SCRIPT = """() => {
    window.__seen = [];
    const seen = (event) => window.__seen.push(event);
    frappe.ui.form.on("Employee", {
        setup: () => seen("setup"),
        onload: () => seen("onload"),
        refresh(frm) {
            seen("refresh");
            frm.set_intro(frm.doc.employee_name, "yellow");
            frm.dashboard.set_headline(frm.doc.employee_name + " (headline)");
            frm.page.set_indicator(__("Scripted"), "purple");
            frm.dashboard.add_indicator("Joined: " + (frm.doc.date_of_joining || "never"), "orange");
            frm.add_custom_button("Count Branches", async () => {
                const n = await frappe.db.count("Branch", {filters: {company: frm.doc.company}});
                const r = await frappe.call({method: "fw.client.get_value", type: "GET",
                    args: {doctype: "Company", filters: frm.doc.company, fieldname: "name"}});
                frappe.show_alert({message: `Branches of ${r.message.name}: ${n}`, indicator: "green"});
                frappe.show_alert(frm.doc.employee_name, 5);
            });
            const greet = () => frappe.msgprint({title: "Hello", message: frm.doc.employee_name});
            frm.add_custom_button("Greet", greet, "Tools");
            frm.set_query("branch", () => ({filters: {company: frm.doc.company}}));
            frm.toggle_display("user_id", false);
            frm.toggle_reqd("branch", true);
        },
        onload_post_render: () => seen("onload_post_render"),
        date_of_joining(frm) {
            seen("date_of_joining");
            return frm.set_value("employee_number", "EN-" + frm.doc.date_of_joining);
        },
        employee_number: () => seen("employee_number"),
        validate(frm) {
            seen("validate");
            if (frm.doc.employee_number === "BLOCK") frappe.throw(__("Blocked by the script"));
            if (frm.doc.employee_number === "SOFT") frappe.validated = false;
        },
        before_save: () => seen("before_save"),
        after_save: () => seen("after_save"),
    });
}"""


def seen(page: Page) -> list[str]:
    return page.evaluate("() => window.__seen")  # type: ignore[no-any-return]


def injected(page: Page) -> object:
    return page.evaluate("() => [window.__xss, document.querySelectorAll('main img, .layers img').length]")


def a_company_with_branches(desk_server: DeskServer) -> str:
    company = desk_server.insert({"doctype": "Company", "company_name": f"Script Co {secrets.token_hex(3)}"})["name"]
    for branch in ("North", "South"):
        desk_server.insert({"doctype": "Branch", "branch": f"{company} {branch}", "company": company})
    return company  # type: ignore[no-any-return]


def open_form(page: Page, doctype: str, name: str, script: str) -> None:
    page.goto("/app")
    expect(page.get_by_role("heading", level=1, name="Home")).to_be_visible()
    page.evaluate(script)
    page.evaluate("([doctype, name]) => frappe.set_route('Form', doctype, name)", [doctype, name])


def test_a_frappe_script_drives_the_form(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    company = a_company_with_branches(desk_server)
    employee = desk_server.insert({"doctype": "Employee", "employee_name": HOSTILE, "employee_number": "E-1",
                                   "company": company, "status": "Active"})
    login_as("Administrator")
    open_form(page, "Employee", employee["name"], EMPLOYEE_SCRIPT)
    expect(page.get_by_role("heading", level=1)).to_have_text(HOSTILE)
    page.wait_for_function("() => window.__seen.includes('onload_post_render')")
    assert seen(page) == ["setup", "onload", "refresh", "onload_post_render"]

    # what the script put on the page, as text
    expect(page.get_by_role("note")).to_have_text(HOSTILE)
    expect(page.locator(".dashboard-headline")).to_have_text(HOSTILE + " (headline)")
    expect(page.locator(".page-title .indicator-pill")).to_have_text("Scripted")
    expect(page.locator(".page-title .indicator-pill")).to_have_class(re.compile(r"\bpurple\b"))
    expect(page.get_by_role("list", name="Dashboard")).to_contain_text("Joined: never")
    page.get_by_role("button", name="Count Branches").click()  # frappe.db and frappe.call reach the server
    expect(page.get_by_role("status").filter(has_text="Branches of")).to_contain_text(f"Branches of {company}: 2")
    expect(page.get_by_role("status").filter(has_text="Mallory")).to_contain_text(HOSTILE)
    page.get_by_role("button", name="Tools").click()
    page.get_by_role("menuitem", name="Greet").click()
    message = page.get_by_role("dialog", name="Hello")
    expect(message).to_contain_text(HOSTILE)
    page.keyboard.press("Escape")
    expect(message).to_have_count(0)
    assert injected(page) == [None, 0]

    # field properties: hidden, mandatory
    expect(page.get_by_label("User ID")).to_have_count(0)
    branch = page.get_by_role("combobox", name="Branch")
    expect(branch).to_have_attribute("aria-required", "true")

    # set_query: the Branch search offers only the company's branches
    branch.click()
    options = page.get_by_role("listbox", name="Branch").get_by_role("option").filter(has_not_text="Create a new")
    expect(options).to_have_count(2)
    expect(options.first).to_contain_text(company)
    expect(options.last).to_contain_text(company)
    options.first.click()
    expect(branch).to_have_value(re.compile("^" + re.escape(company)))

    # a change event chains set_value, whose own event fires
    page.get_by_label("Date of Joining").fill("2024-05-02")
    page.get_by_label("Date of Joining").blur()
    expect(page.get_by_label("Employee Number")).to_have_value("EN-2024-05-02")
    assert seen(page)[-2:] == ["date_of_joining", "employee_number"]

    # validate throws: nothing saved, the form kept as typed
    page.get_by_label("Employee Number").fill("BLOCK")
    page.keyboard.press("Control+s")
    expect(page.get_by_role("dialog").filter(has_text="Blocked by the script")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_label("Employee Number")).to_have_value("BLOCK")
    assert "before_save" not in seen(page)
    page.get_by_label("Employee Number").fill("SOFT")  # frappe.validated = false stops it too
    page.keyboard.press("Control+s")
    page.wait_for_function("() => window.__seen.filter((e) => e === 'validate').length === 2")
    expect(page.locator(".page-title .indicator-pill")).to_have_text("Not Saved")
    assert "before_save" not in seen(page)
    page.get_by_label("Employee Number").fill("E-2")
    page.keyboard.press("Control+s")
    expect(page.get_by_role("status").filter(has_text="Saved")).to_be_visible()
    expect(page.get_by_role("list", name="Dashboard")).to_contain_text("Joined: 2024-05-02")  # refreshed
    assert seen(page)[-4:] == ["validate", "before_save", "after_save", "refresh"]
    with desk_server.api() as client:
        stored = client.get(f"/api/resource/Employee/{employee['name']}").json()["data"]
    assert (stored["employee_number"], stored["date_of_joining"]) == ("E-2", "2024-05-02")
    assert stored["branch"].startswith(company)


def test_frappe_namespace_reaches_the_server(page: Page, login_as: Callable[..., None],
                                             desk_server: DeskServer) -> None:
    company = a_company_with_branches(desk_server)
    employee = desk_server.insert({"doctype": "Employee", "employee_name": "Dora Db", "employee_number": "DB-1",
                                   "company": company, "status": "Active"})
    login_as("Administrator")
    page.goto("/app")
    expect(page.get_by_role("heading", level=1, name="Home")).to_be_visible()
    result = page.evaluate("""async ([name, company]) => {
        const value = await frappe.db.get_value("Employee", name, ["employee_name", "company"]);
        const branches = await frappe.db.get_list("Branch",
            {filters: {company}, fields: ["name"], order_by: "name asc"});
        const doc = await frappe.db.get_doc("Employee", name);
        const set = await frappe.db.set_value("Employee", name, "status", "Left");
        await frappe.model.with_doctype("Employee");
        await frappe.model.with_doctype("Warehouse Violation");
        return {
            value: value.message,
            branches: branches.map((b) => b.name),
            doc: doc.employee_number,
            exists: await frappe.db.exists("Employee", name),
            missing: await frappe.db.exists("Employee", "HR-EMP-NOPE"),
            count: await frappe.db.count("Branch", {filters: {company}}),
            set: set.message.status,
            xcall: await frappe.xcall("fw.client.get_value", {doctype: "Employee", filters: name, fieldname: "status"}),
            meta: frappe.get_meta("Employee").name,
            submittable: [frappe.model.is_submittable("Warehouse Violation"), frappe.model.is_submittable("Employee")],
            indicator: frappe.get_indicator({doctype: "Warehouse Violation", docstatus: 0, workflow_state: "Pending"},
                                            "Warehouse Violation"),
            days: frappe.datetime.add_days("2024-02-28", 1),
            month_end: frappe.datetime.month_end("2024-02-10"),
            formatted: frappe.format(1, {fieldtype: "Check"}),
            escaped: frappe.utils.escape_html("<b>"),
            flt: flt("2.675", 2),
            has_role: frappe.user.has_role("System Manager"),
        };
    }""", [employee["name"], company])
    assert result == {
        "value": {"employee_name": "Dora Db", "company": company},
        "branches": [f"{company} North", f"{company} South"], "doc": "DB-1", "exists": employee["name"],
        "missing": False, "count": 2, "set": "Left", "xcall": {"status": "Left"}, "meta": "Employee",
        "submittable": [True, False], "indicator": ["Pending", "orange", "workflow_state,=,Pending"],
        "days": "2024-02-29", "month_end": "2024-02-29", "formatted": "Yes", "escaped": "&lt;b&gt;", "flt": 2.68,
        "has_role": True,
    }
    # a refused call rejects, and the server's message is shown
    failed = page.evaluate("""() => frappe.db.set_value("Employee", "HR-EMP-NOPE", "status", "Left")
        .then(() => "resolved", (e) => e.status)""")
    assert failed == 404
    expect(page.get_by_role("dialog").filter(has_text="HR-EMP-NOPE")).to_be_visible()


def test_a_dialog_works_by_keyboard(page: Page, login_as: Callable[..., None], desk_server: DeskServer) -> None:
    company = a_company_with_branches(desk_server)
    login_as("Administrator")
    page.goto("/app")
    expect(page.get_by_role("heading", level=1, name="Home")).to_be_visible()
    page.evaluate("""(company) => {
        window.__values = null;
        const d = new frappe.ui.Dialog({
            title: "Log a Note",
            fields: [
                {fieldname: "note", label: "Note", fieldtype: "Data", reqd: 1},
                {fieldname: "kind", label: "Kind", fieldtype: "Select", options: "Minor\\nMajor", default: "Minor"},
                {fieldname: "count", label: "Count", fieldtype: "Int"},
                {fieldname: "branch", label: "Branch", fieldtype: "Link", options: "Branch",
                 get_query: () => ({filters: {company}}),
                 onchange: () => { window.__branch = d.get_value("branch"); }},
            ],
            primary_action_label: "Record",
            primary_action(values) { window.__values = values; d.hide(); },
        });
        d.show();
    }""", company)
    dialog = page.get_by_role("dialog", name="Log a Note")
    expect(dialog).to_be_visible()
    note = dialog.get_by_label("Note")
    expect(note).to_be_focused()
    page.keyboard.press("Enter")  # the mandatory Note is empty: marked, the dialog stays
    expect(note).to_have_accessible_description("Note is mandatory")
    assert page.evaluate("() => window.__values") is None
    page.keyboard.type('<b onmouseover="x">Forklift</b>')
    page.keyboard.press("Tab")
    expect(dialog.get_by_label("Kind")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.type("3")
    page.keyboard.press("Tab")  # the Link searches with the field's get_query: only the company's branches
    branch = dialog.get_by_role("combobox", name="Branch")
    expect(branch).to_be_focused()
    options = dialog.get_by_role("listbox", name="Branch").get_by_role("option").filter(has_not_text="Create a new")
    expect(options).to_have_count(2)
    page.keyboard.press("Enter")  # takes the first suggestion
    expect(branch).to_have_attribute("aria-expanded", "false")
    expect(branch).to_have_value(re.compile("^" + re.escape(company)))
    page.keyboard.press("Enter")  # runs the primary action
    expect(dialog).to_have_count(0)
    values = page.evaluate("() => window.__values")
    assert values == {"note": '<b onmouseover="x">Forklift</b>', "kind": "Minor", "count": 3,
                      "branch": values["branch"]}
    assert values["branch"].startswith(company)
    assert page.evaluate("() => window.__branch") == values["branch"]  # its onchange ran

    # frappe.prompt: one mandatory field, the callback gets {value}
    page.evaluate("() => frappe.prompt('Reason', (values) => { window.__prompted = values; }, 'Why?', 'Go')")
    prompt = page.get_by_role("dialog", name="Why?")
    expect(prompt.get_by_label("Reason")).to_be_focused()
    page.keyboard.type("late scan")
    page.keyboard.press("Enter")
    expect(prompt).to_have_count(0)
    assert page.evaluate("() => window.__prompted") == {"value": "late scan"}

    # frappe.confirm: Escape is No
    page.evaluate("() => { window.__answer = frappe.confirm('Sure?', () => 'yes', () => 'no'); }")
    expect(page.get_by_role("dialog", name="Confirm")).to_be_visible()
    page.keyboard.press("Escape")
    assert page.evaluate("() => window.__answer") is False


def a_draft(desk_server: DeskServer) -> dict[str, Any]:
    employee = api_rows(desk_server, "Employee", filters=[["status", "=", "Active"]], fields=["name"], limit=1)[0]
    return desk_server.insert({"doctype": "Warehouse Violation", "employee": employee["name"], "date": "2024-06-03",
                               "violation_type": "Late Scan"}, DEMO_USERS["warehouse"], DEMO_PASSWORD)


def apply_workflow(desk_server: DeskServer, name: str, action: str, user: str) -> None:
    with desk_server.api(DEMO_USERS[user], DEMO_PASSWORD) as client:
        r = client.post("/api/method/fw.model.workflow.apply_workflow",
                        json={"doc": {"doctype": "Warehouse Violation", "name": name}, "action": action})
        assert r.status_code == 200, r.text[:500]


def test_the_reference_script_along_the_workflow(page: Page, login_as: Callable[..., None],
                                                 desk_server: DeskServer) -> None:
    """The reference app's Frappe-API script: the pill in the list's colour of each state, the penalty
    indicator, and its buttons on saved drafts only (Draft and Pending are drafts, Confirmed is not)."""
    draft = a_draft(desk_server)
    pill = page.locator(".page-title .indicator-pill")
    login_as("reviewer")
    page.goto(f"/app/warehouse-violation/{draft['name']}")
    expect(pill).to_have_text("Draft")
    expect(page.get_by_role("list", name="Dashboard")).to_contain_text("Penalty Points:")
    expect(page.get_by_role("button", name="Employee Scores")).to_be_visible()  # a saved draft
    apply_workflow(desk_server, draft["name"], "Submit for Review", "warehouse")
    page.reload()
    expect(pill).to_have_text("Pending")
    expect(pill).to_have_class(re.compile(r"\borange\b"))
    expect(page.get_by_role("button", name="Other Violations")).to_be_visible()
    apply_workflow(desk_server, draft["name"], "Confirm", "reviewer")
    page.reload()
    expect(pill).to_have_text("Confirmed")
    expect(pill).to_have_class(re.compile(r"\bgreen\b"))
    expect(page.get_by_role("button", name="Employee Scores")).to_have_count(0)  # submitted: no buttons
    # the list shows the state in the same colour
    page.goto(f"/app/warehouse-violation?employee={draft['employee']}&workflow_state=Confirmed")
    listed = page.get_by_role("table").locator("tbody .indicator-pill").filter(has_text="Confirmed").first
    expect(listed).to_have_class(re.compile(r"\bgreen\b"))


def test_child_table_events(page: Page, login_as: Callable[..., None]) -> None:
    """`<table>_add`, `<table>_remove` and a child field's event reach the child doctype's handlers
    with `frm, cdt, cdn` (the frm's child-table interface, which the grid uses too)."""
    login_as("Administrator")
    page.goto("/app")
    expect(page.get_by_role("heading", level=1, name="Home")).to_be_visible()
    page.evaluate("""() => {
        window.__child = [];
        frappe.ui.form.on("Performance Level Threshold", {
            thresholds_add(frm, cdt, cdn) {
                window.__child.push(["add", cdt, frm.doctype, locals[cdt][cdn].parentfield]);
                return frappe.model.set_value(cdt, cdn, "min_pph", 12.5);
            },
            min_pph: (frm, cdt, cdn) => window.__child.push(["min_pph", locals[cdt][cdn].min_pph]),
            thresholds_remove: (frm, cdt, cdn) => window.__child.push(["remove", frm.doc.thresholds.length]),
        });
        return frappe.set_route("Form", "Scoring Settings");
    }""")
    expect(page.get_by_role("heading", level=1)).to_have_text("Scoring Settings")
    page.wait_for_function("() => window.cur_frm && cur_frm.doctype === 'Scoring Settings'")
    before = page.evaluate("() => cur_frm.doc.thresholds.length")
    result = page.evaluate("""async () => {
        const row = await cur_frm.add_row("thresholds", {level: "good"});
        const added = [row.idx, row.min_pph, cur_frm.is_dirty(), locals[row.doctype][row.name] === row];
        await cur_frm.remove_row("thresholds", row);
        return {added, events: window.__child};
    }""")
    assert result == {"added": [before + 1, 12.5, True, True],
                      "events": [["add", "Performance Level Threshold", "Scoring Settings", "thresholds"],
                                 ["min_pph", 12.5], ["remove", before]]}


def test_submit_events_and_the_forms_menus(page: Page, login_as: Callable[..., None],
                                           desk_server: DeskServer) -> None:
    """`frm.savesubmit()` asks, then the view's Submit fires `validate`, `before_submit` and
    `on_submit` once each; a script's menu and action items join the form's own Menu and Actions."""
    employee = api_rows(desk_server, "Employee", filters=[["status", "=", "Active"]], fields=["name"], limit=1)[0]
    day = f"2031-0{secrets.randbelow(9) + 1}-1{secrets.randbelow(9)}"
    score = desk_server.insert({"doctype": "Employee Score", "employee": employee["name"], "period_type": "Daily",
                                "period_value": day, "date": day, "value": 42})
    login_as("Administrator")
    open_form(page, "Employee Score", score["name"], """() => {
        window.__seen = [];
        frappe.ui.form.on("Employee Score", {
            refresh(frm) {
                window.__seen.push("refresh " + frm.doc.docstatus);
                frm.page.add_menu_item("Export Notes", () => frappe.show_alert("exported"));
                if (frm.doc.docstatus === 0) frm.page.set_primary_action("Submit Now", () => frm.savesubmit());
            },
            validate: () => window.__seen.push("validate"),
            before_submit: () => window.__seen.push("before_submit"),
            on_submit: (frm) => window.__seen.push("on_submit " + frm.doc.docstatus),
        });
    }""")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    page.wait_for_function("() => window.__seen.includes('refresh 0')")
    expect(page.get_by_role("button", name="Menu")).to_have_count(1)
    page.get_by_role("button", name="Menu").click()
    page.get_by_role("menuitem", name="Export Notes").click()
    expect(page.get_by_role("status").filter(has_text="exported")).to_be_visible()

    page.get_by_role("button", name="Submit Now").click()
    confirm = page.get_by_role("dialog", name="Submit")
    expect(confirm).to_contain_text(f"Permanently Submit {score['name']}?")
    confirm.get_by_role("button", name="Yes").click()
    page.wait_for_function("() => window.__seen.includes('refresh 1')")
    assert seen(page) == ["refresh 0", "validate", "before_submit", "on_submit 1", "refresh 1"]
    expect(page.get_by_role("button", name="Submit Now")).to_have_count(0)
    with desk_server.api() as client:
        stored = client.get(f"/api/resource/Employee Score/{score['name']}").json()["data"]
    assert stored["docstatus"] == 1
