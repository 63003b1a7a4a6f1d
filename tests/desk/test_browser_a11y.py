"""Accessibility of the Desk in Chromium (desk.md §8, §7 "usable on a tablet"): landmarks and one h1,
every control named, a skip link and a natural tab order, a visible focus ring, the frame and lists
used by keyboard alone, dialogs that keep the focus inside and give it back, text contrast of at
least 4.5:1 (WCAG AA), and a phone-width screen: no sideways scrolling, the sidebar a drawer that
is out of the tab order while closed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

# Every focusable element in the page without an accessible name (a label, aria-label(ledby), text).
UNNAMED = """() => {
    const focusable = "a[href], button, input:not([type=hidden]), select, textarea, [tabindex]:not([tabindex='-1'])";
    const nameOf = (el) => {
        const by = el.getAttribute("aria-labelledby");
        if (by) return by.split(/\\s+/).map((id) => document.getElementById(id)?.textContent || "").join(" ").trim();
        if (el.getAttribute("aria-label")) return el.getAttribute("aria-label").trim();
        if (el.labels && el.labels.length) return [...el.labels].map((l) => l.textContent).join(" ").trim();
        if (["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName)) return (el.getAttribute("title") || "").trim();
        return (el.textContent || el.getAttribute("title") || "").trim();
    };
    return [...document.querySelectorAll(focusable)]
        .filter((el) => el.getClientRects().length && !nameOf(el))
        .map((el) => el.outerHTML.slice(0, 160));
}"""

# The contrast ratio of each visible text element's colour against the background it is drawn on.
CONTRAST = """(selectors) => {
    const rgb = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => {
        const c = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    };
    const background = (el) => {
        for (let node = el; node; node = node.parentElement) {
            const [r, g, b, a = 1] = rgb(getComputedStyle(node).backgroundColor);
            if (a > 0) return [r, g, b];
        }
        return [255, 255, 255];
    };
    const out = {};
    for (const selector of selectors) {
        const el = document.querySelector(selector);
        if (!el) { out[selector] = null; continue; }
        const [l1, l2] = [lum(rgb(getComputedStyle(el).color)), lum(background(el))].sort((a, b) => b - a);
        out[selector] = Math.round(((l1 + 0.05) / (l2 + 0.05)) * 100) / 100;
    }
    return out;
}"""

FOCUS_RING = """() => {
    const style = getComputedStyle(document.activeElement);
    return {tag: document.activeElement.tagName, style: style.outlineStyle, width: parseFloat(style.outlineWidth)};
}"""


def focused(page: Page) -> Any:
    return page.evaluate(
        "() => [document.activeElement.tagName, (document.activeElement.textContent || '').trim().slice(0, 40), "
        "document.activeElement.id]"
    )


def test_landmarks_names_and_one_heading(page: Page, login_as: Callable[..., None]) -> None:
    login_as("reviewer")
    for path in ("/app", "/app/warehouse-violation", "/app/employee?status=Active"):
        page.goto(path)
        expect(page.get_by_role("heading", level=1)).to_have_count(1)
        expect(page.get_by_role("banner")).to_have_count(1)
        expect(page.get_by_role("navigation", name="Modules")).to_be_visible()
        expect(page.get_by_role("main")).to_have_count(1)
        page.wait_for_load_state("networkidle")
        assert page.evaluate(UNNAMED) == [], path
    assert page.evaluate("document.documentElement.lang") == "en"


def test_skip_link_tab_order_and_visible_focus(page: Page, login_as: Callable[..., None]) -> None:
    login_as("manager")
    page.goto("/app/employee")
    expect(page.get_by_role("table").locator("tbody").get_by_role("row")).to_have_count(20)
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    expect(page.get_by_role("link", name="Skip to content")).to_be_in_viewport()  # shown when focused
    page.keyboard.press("Enter")
    expect(page.locator("#main")).to_be_focused()
    # from the page's start: the group-by sidebar's groups, the filters in their order, then the sort
    # control, then the table
    groups = page.get_by_role("complementary", name="Group by").get_by_role("button").all_inner_texts()
    order = []
    for _ in range(18 + len(groups)):  # (the filter builder's button and each row's checkbox are stops too)
        page.keyboard.press("Tab")
        order.append(focused(page))
        ring = page.evaluate(FOCUS_RING)
        assert ring["style"] != "none" and ring["width"] >= 2, (order[-1], ring)  # a visible focus ring
    ids = [element_id for _tag, _text, element_id in order]
    filters = [i for i, element_id in enumerate(ids) if element_id.startswith("filter-")]
    assert [text for _tag, text, _id in order[: len(groups)]] == groups, order  # the sidebar comes first
    assert filters and filters[0] == len(groups), order  # then the first filter
    assert ids.index("list-sort") > filters[-1], order  # then the sort control
    assert any(tag == "A" for tag, _text, _id in order[ids.index("list-sort") :]), order  # then the rows


def test_the_frame_by_keyboard_alone(page: Page, login_as: Callable[..., None]) -> None:
    login_as("reviewer")
    page.goto("/app")
    expect(page.get_by_role("heading", level=1, name="Home")).to_be_visible()
    menu_button = page.get_by_role("button", name="reviewer", exact=False).last
    menu_button.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("menu")).to_be_visible()
    expect(page.get_by_role("menuitem").first).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(page.get_by_role("menuitem", name="Log out")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.get_by_role("menu")).to_have_count(0)
    expect(menu_button).to_be_focused()
    link = page.get_by_role("navigation", name="Modules").get_by_role("link", name="Warehouse Violation", exact=True)
    link.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", level=1, name="Warehouse Violation")).to_be_visible()
    expect(link).to_have_attribute("aria-current", "page")
    expect(page.locator("#main")).to_be_focused()  # the focus moved on to the page


def test_a_dialog_keeps_the_focus_and_gives_it_back(page: Page, login_as: Callable[..., None]) -> None:
    login_as("reviewer")
    page.goto("/app/warehouse-violation")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    opener = page.get_by_role("button", name="Descending")
    opener.focus()
    page.evaluate("() => { frappe.confirm('Go on?', () => {}, () => {}); }")  # not awaited: it waits for an answer
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_have_attribute("aria-modal", "true")
    inside = "() => Boolean(document.activeElement.closest('[role=dialog]'))"
    page.wait_for_function(inside, timeout=5000)
    for _ in range(6):
        page.keyboard.press("Tab")
        assert page.evaluate(inside), focused(page)
    for _ in range(3):
        page.keyboard.press("Shift+Tab")
        assert page.evaluate(inside), focused(page)
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(opener).to_be_focused()


def test_text_contrast(page: Page, login_as: Callable[..., None]) -> None:
    login_as("reviewer")
    page.goto("/app/warehouse-violation")
    expect(page.get_by_role("table").locator("tbody").get_by_role("row")).to_have_count(20)
    page.evaluate("""() => {
        // one pill of every colour, as lists and forms draw them
        const host = document.createElement("div");
        host.id = "pill-sample";
        for (const colour of ["gray", "blue", "green", "orange", "red", "yellow", "purple", "cyan", "pink",
                              "light-blue", "darkgrey"]) {
            const pill = document.createElement("span");
            pill.className = "indicator-pill " + colour;
            pill.textContent = colour;
            host.append(pill);
        }
        document.querySelector(".page-body").append(host);
    }""")
    pills = [
        f"#pill-sample .indicator-pill.{c}"
        for c in (
            "gray",
            "blue",
            "green",
            "orange",
            "red",
            "yellow",
            "purple",
            "cyan",
            "pink",
            "light-blue",
            "darkgrey",
        )
    ]
    selectors = [
        "h1",
        ".list-title a",
        ".list-name",
        ".list-table thead th",
        ".list-table tbody td",
        ".col-modified",
        ".list-count",
        ".sort-label",
        ".standard-filter label",
        ".sidebar-heading",
        ".sidebar-link:not([aria-current])",
        ".sidebar-link[aria-current]",
        ".btn-primary, .btn-default",
        ".brand",
        *pills,
    ]
    ratios = page.evaluate(CONTRAST, selectors)
    low = {selector: ratio for selector, ratio in ratios.items() if ratio is None or ratio < 4.5}
    assert not low, ratios


def test_a_phone_width_screen(page: Page, login_as: Callable[..., None]) -> None:
    login_as("warehouse")
    page.set_viewport_size({"width": 375, "height": 740})
    no_sideways_scroll = "() => document.documentElement.scrollWidth <= window.innerWidth"
    page.goto("/app/warehouse-violation")
    expect(page.get_by_role("table").locator("tbody").get_by_role("row").first).to_be_visible()
    assert page.evaluate(no_sideways_scroll)  # the table scrolls inside its own box
    expect(page.get_by_role("button", name="Add Warehouse Violation")).to_be_in_viewport()
    # the closed drawer is not in the tab order: Tab from the toggle goes to the brand, not a sidebar link
    toggle = page.get_by_role("button", name="Menu")
    expect(toggle).to_be_visible()
    expect(page.get_by_role("navigation", name="Modules")).to_be_hidden()
    toggle.focus()
    page.keyboard.press("Tab")
    assert page.evaluate("() => !document.activeElement.closest('.sidebar')")
    toggle.click()
    nav = page.get_by_role("navigation", name="Modules")
    expect(nav).to_be_visible()
    page.keyboard.press("Escape")  # closes the drawer, the focus back on its toggle
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(toggle).to_be_focused()
    expect(nav).to_be_hidden()
    page.goto("/app/warehouse-violation/new")
    expect(page.get_by_role("combobox", name="Employee")).to_be_visible()
    assert page.evaluate(no_sideways_scroll)
    box = page.get_by_role("combobox", name="Employee").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375
    page.goto("/app")
    assert page.evaluate(no_sideways_scroll)
