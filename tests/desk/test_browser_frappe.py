"""The page's globals in Chromium (desk.md §5, §7): the `frappe` namespace form scripts use (the
skeleton the form-scripts work completes), fw's aliases, and the realtime connection."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect


def test_the_frappe_namespace(page: Page, login_as: Callable[..., None]) -> None:
    login_as("reviewer")
    page.goto("/app")
    expect(page.get_by_role("heading", level=1, name="Home")).to_be_visible()
    result = page.evaluate("""async () => ({
        user: frappe.session.user,
        boot_user: frappe.boot.user,
        roles: frappe.user_roles.includes("HR Reviewer"),
        has_role: frappe.user.has_role("HR Reviewer") && !frappe.user.has_role("System Manager"),
        logged: await frappe.xcall("frappe.auth.get_logged_user"),
        call: (await frappe.call({method: "fw.auth.get_logged_user", type: "GET"})).message,
        translate: __("{0} of {1}", [1, 2]),
        form_on: typeof frappe.ui.form.on,
        frm_class: typeof frappe.ui.form.Form,
        fw_form: typeof fw.ui.form,
        fw_open_list: typeof fw.ui.open_list,
        locals: typeof locals.DocType,
        provide: (frappe.provide("my_app.utils").x = 1, my_app.utils.x),
        route: frappe.get_route(),
    })""")
    assert result == {"user": "reviewer@demo.example.com", "boot_user": "reviewer@demo.example.com", "roles": True,
                      "has_role": True, "logged": "reviewer@demo.example.com", "call": "reviewer@demo.example.com",
                      "translate": "1 of 2", "form_on": "function", "frm_class": "function", "fw_form": "function",
                      "fw_open_list": "function", "locals": "object", "provide": 1, "route": [""]}
    page.evaluate("""() => { frappe.route_options = {status: "Left"}; return frappe.set_route("List", "Employee"); }""")
    page.wait_for_url("**/app/employee?status=Left")
    expect(page.get_by_label("Status", exact=True)).to_have_value("Left")


def test_realtime_connects_with_the_session(page: Page, login_as: Callable[..., None]) -> None:
    login_as("employee")
    page.goto("/app")
    expect(page.get_by_role("heading", level=1, name="Home")).to_be_visible()
    page.wait_for_function("""async () => {
        const base = JSON.parse(document.getElementById("fw-boot").textContent).assets.base;
        const realtime = await import(base + "js/realtime.js");
        return realtime.isConnected();
    }""", timeout=15_000)
