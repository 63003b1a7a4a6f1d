"""The boot payload (desk.md §2, engine/desk/boot.py): who the user is, their rights per doctype, the
sidebar by module (readable doctypes that are not child tables, runnable reports), the system's
formats, the Desk's strings in the user's language and the asset URLs; served in the shell as a JSON
data block that no value can break out of."""

from __future__ import annotations

from typing import Any

import httpx

from engine.context import Context, unit_of_work
from engine.desk.boot import build_boot, sysdefaults
from engine.documents.factory import get_doc, new_doc
from engine.migrate import _sync_reports
from engine.site import Site
from tests.apps.conftest import People
from tests.desk.conftest import cookie_login, desk_user
from tests.desk.test_routes import boot_of
from tests.support.users import user_context


def sidebar_items(boot: dict[str, Any]) -> dict[str, list[str]]:
    return {section["module"]: [item["name"] for item in section["items"]] for section in boot["sidebar"]}


async def boot_for(site: Site, user: str, lang: str = "en") -> dict[str, Any]:
    ctx = Context(site, user, lang=lang)
    return await build_boot(ctx, csrf_token="t", messages=[("Save", ""), ("Open", "verb"), ("Nothing to see", "")])


async def test_the_shell_carries_the_boot(browser_client: httpx.AsyncClient, ctx: Context) -> None:
    await desk_user(ctx, "boot@example.com", ["Test Reader"], first_name="Boot", last_name="User")
    await cookie_login(browser_client, "boot@example.com")
    r = await browser_client.get("/app")
    boot = boot_of(r.text)
    assert boot["user"] == "boot@example.com" and boot["full_name"] == "Boot User"
    assert "Test Reader" in boot["roles"] and "Desk User" in boot["roles"]
    assert boot["lang"] == "en" and boot["user_type"] == "System User"
    assert boot["max_file_size"] == ctx.site.settings.max_file_size > 0  # the browser refuses bigger uploads
    assert boot["assets"]["base"].startswith("/assets/desk/") and boot["realtime"] == {"path": "/socket.io"}
    # the CSRF token is the session's: an unsafe request carrying it passes
    token = boot["csrf_token"]
    assert isinstance(token, str) and len(token) >= 16
    r = await browser_client.post("/api/method/fw.client.get_count", json={"doctype": "Test Customer"},
                                  headers={"X-Frappe-CSRF-Token": token})
    assert r.status_code == 200, r.text
    r = await browser_client.post("/api/method/fw.client.get_count", json={"doctype": "Test Customer"},
                                  headers={"X-Frappe-CSRF-Token": "forged"})
    assert r.status_code == 400


async def test_rights_per_doctype(people: People, ws: Site) -> None:
    boot = await boot_for(ws, people.warehouse.email)
    assert boot["rights"]["Warehouse Violation"] == {"select": 1, "read": 1, "write": 1, "create": 1}
    assert boot["rights"]["Employee"] == {"select": 1, "read": 1}
    assert "Employee Score" not in boot["rights"]  # Warehouse Manager has no DocPerm row on it
    assert "Performance Level Threshold" not in boot["rights"]  # a child table
    reviewer = await boot_for(ws, people.hr.email)
    assert reviewer["rights"]["Warehouse Violation"] == {"select": 1, "read": 1, "write": 1, "submit": 1,
                                                           "cancel": 1, "report": 1, "print": 1}  # the Warning Letter
    admin = await boot_for(ws, "Administrator")
    assert admin["rights"]["Warehouse Violation"]["delete"] == 1 and admin["rights"]["Warehouse Violation"]["amend"]
    assert "submit" not in admin["rights"]["Employee"]  # not submittable


async def test_if_owner_rights_are_named(ctx: Context) -> None:
    from engine.meta.schema import DocPermSchema

    meta = ctx.meta("Test Note")
    original = list(meta.permissions)
    meta.permissions = [*original, DocPermSchema(role="Note Owner", read=True, write=True, if_owner=True, create=True)]
    try:
        await desk_user(ctx, "owner@example.com", ["Note Owner"])
        boot = await boot_for(ctx.site, "owner@example.com")
        assert boot["rights"]["Test Note"] == {"select": 1, "read": 1, "write": 1, "create": 1,
                                                "if_owner": ["select", "read", "write"]}
    finally:
        meta.permissions = original


async def test_the_sidebar_follows_the_role(people: People, ws: Site) -> None:
    employee = sidebar_items(await boot_for(ws, people.ada.email))
    assert employee["HR"] == ["Branch", "Company", "Employee"]
    assert employee["Workforce Scoring"] == ["Employee Score", "Warehouse Violation", "Warehouse Violation Type"]
    assert "Core" not in employee and "Workflow" not in employee  # read through the role All only: not listed
    assert all("Report" not in names for names in employee.values())  # the report needs HR roles

    reviewer = sidebar_items(await boot_for(ws, people.hr.email))
    assert reviewer["Workforce Scoring"] == ["Employee Score", "Scoring Settings", "Warehouse Violation",
                                             "Warehouse Violation Type", "Employee Score Report"]
    manager = await boot_for(ws, people.manager.email)
    section = next(s for s in manager["sidebar"] if s["module"] == "Workforce Scoring")
    report = next(i for i in section["items"] if i["type"] == "report")
    assert report == {"type": "report", "name": "Employee Score Report", "label": "Employee Score Report",
                      "route": "/app/query-report/Employee%20Score%20Report", "ref_doctype": "Employee Score"}
    violation = next(i for i in section["items"] if i["name"] == "Warehouse Violation")
    assert violation["route"] == "/app/warehouse-violation" and violation["issingle"] == 0
    modules = [s["module"] for s in (await boot_for(ws, "Administrator"))["sidebar"]]
    assert modules.index("HR") < modules.index("Workforce Scoring") < modules.index("Core")  # apps first, in order


async def test_a_disabled_report_leaves_the_sidebar(people: People, ws: Site) -> None:
    ctx = ws.context("Administrator")
    await _sync_reports(ws)  # the Report records `fw migrate` writes
    assert "Employee Score Report" in sidebar_items(await boot_for(ws, people.hr.email))["Workforce Scoring"]
    async with unit_of_work(ctx):
        report = await get_doc(ctx, "Report", "Employee Score Report")
        report.disabled = 1
        await report.save()
    assert "Employee Score Report" not in sidebar_items(await boot_for(ws, people.hr.email))["Workforce Scoring"]


async def test_a_user_without_roles_gets_an_empty_sidebar(ctx: Context) -> None:
    await desk_user(ctx, "nobody@example.com", [])
    boot = await boot_for(ctx.site, "nobody@example.com")
    assert boot["sidebar"] == []
    # what every user reads through the automatic role All (for Link fields) is reachable, not listed
    assert boot["rights"]["Role"] == {"select": 1, "read": 1} and "Test Customer" not in boot["rights"]
    assert "Test Customer" in boot["doctypes"]  # the router still knows the doctype exists (→ "Not permitted")
    assert "Test Order Item" not in boot["doctypes"]  # child tables are never routes


async def test_the_desk_strings_in_the_users_language(people: People, ws: Site) -> None:
    boot = await boot_for(ws, people.hr.email, lang="de")
    assert boot["lang"] == "de"
    assert boot["messages"]["Save"] == "Speichern"
    assert "Nothing to see" not in boot["messages"]  # only what has a translation
    section = next(s for s in boot["sidebar"] if s["module"] == "Workforce Scoring")
    assert any(i["label"] != i["name"] for i in section["items"])  # doctype labels translated by the app
    assert (await boot_for(ws, people.hr.email))["messages"] == {}  # English: nothing to translate


async def test_system_defaults(ctx: Context) -> None:
    defaults = await sysdefaults(ctx)
    assert defaults["date_format"] == "dd-mm-yyyy" and defaults["number_format"] == "#,###.##"
    assert defaults["float_precision"] == 3 and defaults["currency_precision"] == 2
    assert defaults["time_format"] == "HH:mm:ss" and defaults["language"] == "en"
    assert isinstance(defaults["time_zone"], str) and defaults["time_zone"]
    async with unit_of_work(ctx):
        settings = await get_doc(ctx, "System Settings", "System Settings")
        settings.update({"date_format": "yyyy-mm-dd", "currency_precision": 0, "time_zone": "Europe/Berlin"})
        await settings.save()
    defaults = await sysdefaults(ctx)
    assert (defaults["date_format"], defaults["currency_precision"], defaults["time_zone"]) == (
        "yyyy-mm-dd", 0, "Europe/Berlin")


async def test_is_default_user_permissions_are_the_users_link_defaults(ctx: Context) -> None:
    for name in ("Acme", "Beta"):
        await new_doc(ctx, "Test Customer", customer_name=name).insert()
    user = await user_context(ctx, "d@example.com", "System Manager")
    assert (await build_boot(user, csrf_token=None, messages=()))["user_defaults"] == {}
    await new_doc(ctx, "User Permission", user=user.user, allow="Test Customer", for_value="Acme").insert()
    await new_doc(ctx, "User Permission", user=user.user, allow="Test Customer", for_value="Beta",
                  is_default=1).insert()
    assert (await build_boot(user, csrf_token=None, messages=()))["user_defaults"] == {"Test Customer": "Beta"}


async def test_hostile_values_cannot_leave_the_data_block(browser_client: httpx.AsyncClient, ctx: Context) -> None:
    hostile = "</script><script>alert(1)</script><!--"
    await desk_user(ctx, "hostile@example.com", ["Test Reader"], first_name=hostile)
    await cookie_login(browser_client, "hostile@example.com")
    r = await browser_client.get("/app")
    assert r.text.count("</script>") == 2  # the data block's and the module's own
    assert "<script>alert(1)" not in r.text and "<!--" not in r.text
    assert boot_of(r.text)["full_name"].startswith(hostile)


async def test_meta_stamps_let_the_browser_trust_its_cache(people: People, ws: Site) -> None:
    from engine.migrate import sync_doctype

    for doctype in ("Warehouse Violation", "Performance Level Threshold"):
        await sync_doctype(ws, doctype)
    boot = await boot_for(ws, people.hr.email)
    stored = await ws.db.collection("doctype").find_one({"_id": "Warehouse Violation"}, {"modified": 1})
    assert boot["meta_modified"]["Warehouse Violation"] == stored["modified"]
    assert "Performance Level Threshold" in boot["meta_modified"]  # child tables too (they come in bundles)
    assert boot["meta_version"] == ws.meta.version
    before = boot["meta_version"]
    await ws.meta.bump()  # a Custom Field or workflow change elsewhere
    assert (await boot_for(ws, people.hr.email))["meta_version"] == before + 1
