"""Workflow meta with the doctype's meta (getdoctype): Frappe's `__workflow_docs` and fw's compact
`__workflow` (states in order with their Workflow State colour and `allow_edit` role, transitions),
states and actions among the translated strings, and a changed state colour reaching the Desk. Also
the form and list scripts served as script URLs (the Desk's CSP runs no script text)."""

from __future__ import annotations

from typing import Any

import httpx

from engine.context import unit_of_work
from engine.documents.factory import get_doc
from engine.documents.workflow import STYLE_COLOURS, style_colour
from engine.site import Site
from tests.apps.conftest import People, api_user
from tests.server.conftest import ApiUser
from tests.server.helpers import ok, refused

GETDOCTYPE = "/api/method/fw.desk.form.load.getdoctype"
SCRIPT = "/assets/desk/form-script/Warehouse%20Violation.js"


async def bundle(client: httpx.AsyncClient, user: ApiUser, doctype: str) -> list[dict[str, Any]]:
    return ok(await client.get(GETDOCTYPE, params={"doctype": doctype}, headers=user.token))["docs"]  # type: ignore[no-any-return]


def test_one_colour_per_style() -> None:
    assert [style_colour(s) for s in ("Success", "Warning", "Danger", "Info", "Primary", "Inverse", None, "Odd")] == [
        "green", "orange", "red", "blue", "blue", "darkgrey", "gray", "gray"]
    assert set(STYLE_COLOURS) == {"Primary", "Info", "Success", "Warning", "Danger", "Inverse"}


async def test_the_workflow_comes_with_the_meta(client: httpx.AsyncClient, people: People) -> None:
    meta = (await bundle(client, people.warehouse, "Warehouse Violation"))[0]
    workflow = meta["__workflow"]
    assert workflow["name"] == "Warehouse Violation Workflow" and workflow["field"] == "workflow_state"
    states = {s["state"]: (s["doc_status"], s["allow_edit"], s["color"]) for s in workflow["states"]}
    assert states == {"Draft": (0, "Warehouse Manager", "gray"), "Pending": (0, "HR Reviewer", "orange"),
                      "Confirmed": (1, "HR Reviewer", "green"), "Appealed": (1, "HR Reviewer", "blue"),
                      "Waived": (2, "HR Reviewer", "red")}
    assert [s["state"] for s in workflow["states"]] == ["Draft", "Pending", "Confirmed", "Appealed", "Waived"]
    assert {(t["state"], t["action"], t["next_state"], t["allowed"]) for t in workflow["transitions"]} >= {
        ("Draft", "Submit for Review", "Pending", "Warehouse Manager"),
        ("Pending", "Confirm", "Confirmed", "HR Reviewer"), ("Confirmed", "Appeal", "Appealed", "Employee")}
    docs = meta["__workflow_docs"]
    assert docs[0]["doctype"] == "Workflow" and docs[0]["name"] == "Warehouse Violation Workflow"
    assert {d["name"]: d.get("style") for d in docs[1:]} == {"Draft": None, "Pending": "Warning",
                                                            "Confirmed": "Success", "Appealed": "Info",
                                                            "Waived": "Danger"}
    assert all(d["doctype"] == "Workflow State" for d in docs[1:])


async def test_no_workflow_no_keys(client: httpx.AsyncClient, people: People) -> None:
    meta = (await bundle(client, people.warehouse, "Employee"))[0]
    assert "__workflow" not in meta and "__workflow_docs" not in meta


async def test_states_and_actions_are_translated(client: httpx.AsyncClient, ws: Site) -> None:
    german = await api_user(ws.context("Administrator"), "de@example.com", ["HR Reviewer"], language="de")
    messages = (await bundle(client, german, "Warehouse Violation"))[0]["__messages"]
    assert messages["Pending"] == "Ausstehend"
    assert "Submit for Review" in messages and "Confirm" in messages


async def test_a_changed_state_colour_reaches_the_desk(client: httpx.AsyncClient, people: People, ws: Site) -> None:
    ctx = ws.context("Administrator")
    async with unit_of_work(ctx):
        state = await get_doc(ctx, "Workflow State", "Pending")
        state.style = "Danger"
        await state.save()
    meta = (await bundle(client, people.warehouse, "Warehouse Violation"))[0]
    pending = next(s for s in meta["__workflow"]["states"] if s["state"] == "Pending")
    assert (pending["style"], pending["color"]) == ("Danger", "red")


async def test_the_form_script_is_a_script_url(client: httpx.AsyncClient, people: People) -> None:
    meta = (await bundle(client, people.warehouse, "Warehouse Violation"))[0]
    url = meta["__js_url"]
    assert url.startswith(SCRIPT + "?v=")
    assert "__list_js_url" not in meta  # the app ships no list script
    r = await client.get(url, headers=people.warehouse.token)
    assert r.status_code == 200 and r.text == meta["__js"]
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["cache-control"] == "private, max-age=31536000, immutable"
    r = await client.get(SCRIPT, params={"v": "stale"}, headers=people.warehouse.token)
    assert r.status_code == 200 and r.headers["cache-control"] == "no-cache"  # an old version is not cached
    etag = r.headers["etag"]
    r = await client.get(url, headers={**people.warehouse.token, "If-None-Match": etag})
    assert r.status_code == 304


async def test_who_gets_a_script(client: httpx.AsyncClient, people: People) -> None:
    refused(await client.get(SCRIPT), 403)  # Guest
    refused(await client.get("/assets/desk/form-script/No%20Such.js", headers=people.warehouse.token), 404)
    refused(await client.get("/assets/desk/form-script/Employee.js", headers=people.warehouse.token), 404)
    refused(await client.get("/assets/desk/list-script/Warehouse%20Violation.js", headers=people.warehouse.token), 404)
