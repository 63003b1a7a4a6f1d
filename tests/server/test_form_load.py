"""The Desk's loaders over HTTP (`frappe.desk.form.load.getdoctype` / `getdoc`): payload in top-level
keys, caching by `modified`, who may call them; the DocType record in Frappe's shape through the
resource API; static assets; the OpenAPI document and a fuzz of the two functions."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from engine.assets import build
from engine.context import Context, unit_of_work
from engine.documents.factory import get_doc, new_doc
from engine.files.upload import upload_file
from engine.migrate import sync_doctype
from engine.site import Site
from server.app import create_app
from tests.conftest import make_settings
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import ok, refused
from tests.server.test_openapi import CHECKS, serve_on_this_loop
from tests.support.custom_fields import drop_custom_fields

LOAD = "/api/method/fw.desk.form.load"
REPO = Path(__file__).resolve().parents[2]
VIOLATION_JS = REPO / "apps" / "workforce_scoring" / "doctype" / "warehouse_violation" / "warehouse_violation.js"
USED = ("Test Order", "Test Order Item", "Test Customer", "Warehouse Violation")


@pytest.fixture
async def synced(ctx: Context) -> AsyncIterator[Context]:
    """The DocType records of the doctypes used here match their meta; no Custom Field is left behind."""
    for doctype in USED:
        await sync_doctype(ctx.site, doctype)
    yield ctx
    if await ctx.db.collection("custom_field").count_documents({}):
        await drop_custom_fields(ctx.site, USED)


@pytest.fixture
async def reader(synced: Context) -> ApiUser:
    return await make_user(synced, "reader@example.com", ["Test Reader"])


async def _customer(ctx: Context, name: str, **values: Any) -> str:
    async with unit_of_work(ctx):
        return str((await new_doc(ctx, "Test Customer", {"customer_name": name, **values}).insert()).name)


# -- getdoctype -----------------------------------------------------------------------------------

async def test_getdoctype_sends_the_bundle_in_top_level_keys(client: httpx.AsyncClient, reader: ApiUser,
                                                            synced: Context) -> None:
    body = ok(await client.get(f"{LOAD}.getdoctype", params={"doctype": "Test Order"}, headers=reader.token))
    assert "message" not in body  # the function returns None: the payload is in `docs`
    assert body["user_settings"] == "{}"
    docs = body["docs"]
    assert [d["name"] for d in docs] == ["Test Order", "Test Order Item"]
    assert docs[0]["doctype"] == "DocType" and docs[1]["istable"] == 1
    assert {f["fieldname"] for f in docs[0]["fields"]} >= {"customer", "items", "status"}
    assert docs[0]["permissions"][0]["doctype"] == "DocPerm"
    record = await synced.db.collection("doctype").find_one({"_id": "Test Order"})
    assert record is not None and docs[0]["modified"] == record["modified"]

    # the caller's cached copy is current: "use_cache", and no docs
    cached = ok(await client.post(f"{LOAD}.getdoctype", headers=reader.token,
                                  json={"doctype": "Test Order", "cached_timestamp": docs[0]["modified"]}))
    assert cached == {"message": "use_cache", "user_settings": "{}"}
    stale = ok(await client.post(f"{LOAD}.getdoctype", headers=reader.token,
                                 json={"doctype": "Test Order", "cached_timestamp": "2000-01-01 00:00:00"}))
    assert "message" not in stale and stale["docs"] == docs

    # Frappe's own path, as the Desk calls it
    frappe = ok(await client.get("/api/method/frappe.desk.form.load.getdoctype",
                                 params={"doctype": "Test Order"}, headers=reader.token))
    assert frappe["docs"] == docs


async def test_getdoctype_with_parent_loads_the_parents_bundle(client: httpx.AsyncClient, reader: ApiUser) -> None:
    body = ok(await client.get(f"{LOAD}.getdoctype", headers=reader.token,
                               params={"doctype": "Test Order Item", "with_parent": "1"}))
    assert body["parent_dt"] == "Test Order"
    assert [d["name"] for d in body["docs"]] == ["Test Order", "Test Order Item"]
    alone = ok(await client.get(f"{LOAD}.getdoctype", headers=reader.token, params={"doctype": "Test Order Item"}))
    assert "parent_dt" not in alone and [d["name"] for d in alone["docs"]] == ["Test Order Item"]


async def test_getdoctype_form_script_and_german_messages(client: httpx.AsyncClient, synced: Context) -> None:
    user = await make_user(synced, "lagerist@example.com", ["Warehouse Manager"])
    async with unit_of_work(synced):
        await synced.db.collection("user").update_one({"_id": user.email}, {"$set": {"language": "de"}})
    synced.site.forget_roles(user.email)
    body = ok(await client.get(f"{LOAD}.getdoctype", params={"doctype": "Warehouse Violation"}, headers=user.token))
    meta = body["docs"][0]
    assert meta["__js"] == VIOLATION_JS.read_text(encoding="utf-8")
    assert meta["__messages"]["Warehouse Violation"] == "Lagerverstoß"
    assert meta["__messages"]["Other Violations"] == "Weitere Verstöße"  # from the form script
    english = ok(await client.get(f"{LOAD}.getdoctype", params={"doctype": "Warehouse Violation"},
                                  headers={**user.token, "Accept-Language": "en"}))  # the user's language wins
    assert english["docs"][0]["__messages"] == meta["__messages"]


async def test_getdoctype_refuses_guest_and_unknown_doctypes(client: httpx.AsyncClient, reader: ApiUser) -> None:
    refused(await client.get(f"{LOAD}.getdoctype", params={"doctype": "Test Order"}), 403, "PermissionError")
    refused(await client.get(f"{LOAD}.getdoctype", params={"doctype": "No Such Doctype"}, headers=reader.token),
            404, "DoesNotExistError")
    refused(await client.get(f"{LOAD}.getdoctype", headers=reader.token), 417)  # doctype is required


# -- getdoc ---------------------------------------------------------------------------------------

async def test_getdoc_sends_the_document_and_docinfo(client: httpx.AsyncClient, reader: ApiUser,
                                                     synced: Context) -> None:
    name = await _customer(synced, "Acme")  # region left empty
    body = ok(await client.get(f"{LOAD}.getdoc", params={"doctype": "Test Customer", "name": name},
                               headers=reader.token))
    assert "message" not in body
    (doc,) = body["docs"]
    assert doc["name"] == name and doc["doctype"] == "Test Customer" and doc["customer_name"] == "Acme"
    assert "region" not in doc  # nulls are left out, as Frappe sends documents
    assert None not in doc.values()
    full = ok(await client.get("/api/method/fw.client.get", params={"doctype": "Test Customer", "name": name},
                               headers=reader.token))["message"]
    assert full["region"] is None and {k: v for k, v in full.items() if v is not None} == doc
    info = body["docinfo"]
    assert (info["doctype"], info["name"]) == ("Test Customer", name)
    assert info["permissions"]["read"] == 1 and info["permissions"]["write"] == 0
    assert info["permissions"]["submit"] == 0

    admin = await make_user(synced, "boss@example.com", ["System Manager"])
    rights = ok(await client.post("/api/method/frappe.desk.form.load.getdoc", headers=admin.token,
                                  json={"doctype": "Test Customer", "name": name}))["docinfo"]["permissions"]
    assert rights["write"] == rights["delete"] == 1 and rights["submit"] == 0  # not submittable


async def test_docinfo_attachments_versions_and_users(client: httpx.AsyncClient, reader: ApiUser,
                                                      admin: ApiUser, synced: Context) -> None:
    """Test Order tracks changes; `internal_cost` (a Custom Field at permlevel 1) is above the
    reader's levels, so its changes never reach the reader's timeline."""
    ctx = synced
    await _customer(ctx, "Acme")
    async with unit_of_work(ctx):
        await new_doc(ctx, "Custom Field", dt="Test Order", fieldname="internal_cost", fieldtype="Currency",
                      label="Internal Cost", permlevel=1).insert()
    async with unit_of_work(ctx):
        order = await new_doc(ctx, "Test Order", customer="Acme", posting_date="2024-05-01",
                              items=[{"item": "A", "qty": 1, "rate": 5}]).insert()
    async with unit_of_work(ctx):
        order = await get_doc(ctx, "Test Order", order.name)
        order.remarks, order.internal_cost = "rush", 12.5
        await order.save()
    async with unit_of_work(ctx):
        order = await get_doc(ctx, "Test Order", order.name)
        order.internal_cost = 99
        await order.save()
    async with unit_of_work(ctx):
        attached = await upload_file(ctx, content=b"receipt", file_name="receipt.txt", is_private=1,
                                     doctype="Test Order", docname=order.name)
    params = {"doctype": "Test Order", "name": order.name}

    info = ok(await client.get(f"{LOAD}.getdoc", params=params, headers=reader.token))["docinfo"]
    assert [(a["name"], a["file_name"], a["is_private"]) for a in info["attachments"]] == [
        (attached.name, "receipt.txt", 1)]
    versions = [json.loads(v["data"]) for v in info["versions"]]  # JSON text, as Frappe sends it
    assert versions == [  # newest first; the change to internal_cost alone is not shown at all
        {"changed": [["remarks", None, "rush"]], "added": [], "removed": [], "row_changed": []},
        {"created": True},
    ]
    assert info["user_info"]["Administrator"]["fullname"] == "Administrator"
    assert info["comments"] == [] and info["assignments"] == [] and info["tags"] == ""
    # the reader can open the private attachment because it may read the order
    served = await client.get(attached.file_url, headers=reader.token)
    assert served.status_code == 200 and served.content == b"receipt"

    # Administrator reads every permlevel: every change
    full = ok(await client.get(f"{LOAD}.getdoc", params=params, headers=admin.token))["docinfo"]
    changed = [json.loads(v["data"]).get("changed") for v in full["versions"]]
    assert changed == [[["internal_cost", 12.5, 99.0]], [["remarks", None, "rush"], ["internal_cost", 0.0, 12.5]],
                       None]

    # get_docinfo alone: the same docinfo, the same permission check
    alone = ok(await client.get(f"{LOAD}.get_docinfo", params=params, headers=reader.token))
    assert alone == {"docinfo": info}
    outsider = await make_user(ctx, "outsider@example.com", ["Test Nobody Else"])
    refused(await client.get(f"{LOAD}.get_docinfo", params=params, headers=outsider.token), 403, "PermissionError")


async def test_getdoc_checks_read_permission_and_row_conditions(client: httpx.AsyncClient, synced: Context) -> None:
    north = await _customer(synced, "Nordwind", region="North")
    south = await _customer(synced, "Suedwind", region="South")
    outsider = await make_user(synced, "outsider@example.com", ["Test Nobody Else"])
    refused(await client.get(f"{LOAD}.getdoc", params={"doctype": "Test Customer", "name": north},
                             headers=outsider.token), 403, "PermissionError")
    regional = await make_user(synced, "regional@example.com", ["Test Reader", "Test Regional"])
    assert ok(await client.get(f"{LOAD}.getdoc", params={"doctype": "Test Customer", "name": north},
                               headers=regional.token))["docs"][0]["name"] == north
    body = refused(await client.get(f"{LOAD}.getdoc", params={"doctype": "Test Customer", "name": south},
                                    headers=regional.token), 403, "PermissionError")
    assert "docs" not in body and "docinfo" not in body
    refused(await client.get(f"{LOAD}.getdoc", params={"doctype": "Test Customer", "name": "nope"},
                             headers=regional.token), 404, "DoesNotExistError")
    refused(await client.get(f"{LOAD}.getdoc", params={"doctype": "Test Customer", "name": north}), 403)  # Guest


# -- the DocType record through the resource API -------------------------------------------------

async def test_doctype_record_has_frappes_shape(client: httpx.AsyncClient, reader: ApiUser, synced: Context) -> None:
    await new_doc(synced, "Custom Field", dt="Test Customer", fieldname="nickname", fieldtype="Data",
                  label="Nickname", insert_after="customer_name").insert()
    data = ok(await client.get("/api/resource/DocType/Test Customer", headers=reader.token))["data"]  # role All reads
    assert "definition" not in data and data["name"] == "Test Customer" and data["doctype"] == "DocType"
    fields = data["fields"]
    assert [f["fieldname"] for f in fields][:2] == ["customer_name", "nickname"]
    nickname = fields[1]
    assert nickname["doctype"] == "DocField" and nickname["is_custom_field"] == 1 and nickname["label"] == "Nickname"
    assert (nickname["parent"], nickname["parentfield"], nickname["parenttype"], nickname["idx"]) == (
        "Test Customer", "fields", "DocType", 2)
    assert fields[0]["is_custom_field"] == 0 and fields[0]["reqd"] in (0, 1)
    perms = data["permissions"]
    assert perms[0]["doctype"] == "DocPerm" and perms[0]["role"] == "System Manager" and perms[0]["import"] == 1
    # the same rows the Desk bundle sends
    bundle = ok(await client.get(f"{LOAD}.getdoctype", params={"doctype": "Test Customer"}, headers=reader.token))
    assert bundle["docs"][0]["fields"] == fields and bundle["docs"][0]["modified"] == data["modified"]
    refused(await client.get("/api/resource/DocType/Test Customer"), 403)  # Guest


# -- static assets, OpenAPI -----------------------------------------------------------------------

async def test_built_assets_are_served(site: Site, tmp_path: Path) -> None:
    (tmp_path / "apps").symlink_to(REPO / "apps")
    (tmp_path / "apps.txt").write_text("hr\nworkforce_scoring\n")
    settings = make_settings(root_dir=tmp_path)
    manifest = build(settings)
    url = "/assets/workforce_scoring/doctype/warehouse_violation/warehouse_violation.js"
    assert manifest["doctype_js"]["Warehouse Violation"] == [url]
    app = create_app(settings, site=site)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
        r = await c.get(url)
        assert r.status_code == 200 and r.text == VIOLATION_JS.read_text(encoding="utf-8")
        assert "javascript" in r.headers["content-type"]
        assert (await c.get("/assets/workforce_scoring/nope.js")).status_code == 404


async def test_openapi_lists_the_loaders_and_a_fuzz_holds(site: Site, admin: ApiUser, synced: Context,
                                                          client: httpx.AsyncClient) -> None:
    document = (await client.get("/api/openapi.json")).json()
    getdoctype = document["paths"]["/api/method/fw.desk.form.load.getdoctype"]
    params = {p["name"] for p in getdoctype["get"]["parameters"]}
    assert params == {"doctype", "with_parent", "cached_timestamp"}
    ok_schema = getdoctype["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert "message" not in ok_schema.get("required", [])  # absent unless "use_cache"
    assert {"get", "post"} <= set(document["paths"]["/api/method/fw.desk.form.load.getdoc"])
    await _customer(synced, "Acme", region="North")
    schema = schemathesis.openapi.from_dict(document)
    async with serve_on_this_loop(site) as base_url:
        statuses, failures = await asyncio.to_thread(_fuzz, schema, base_url, admin.token)
    print(f"\nform loaders fuzz: statuses {dict(sorted(statuses.items()))}")
    assert not failures, "\n\n".join(failures)
    assert statuses[200] > 10 and statuses[404] > 0  # real doctypes and documents reached, and unknown ones


def _fuzz(schema: Any, base_url: str, headers: dict[str, str]) -> tuple[Counter[int], list[str]]:
    """Both loaders, GET and POST, data that fits the schema and data that does not; `doctype` and
    `name` steered to real ones half of the time. Every response: no 5xx, documented, conforming."""
    statuses: Counter[int] = Counter()
    failures: list[str] = []
    steer = st.sampled_from([None, ("Test Order", "x"), ("Test Customer", "Acme"), ("Warehouse Violation", "x")])
    with requests.Session() as session:
        for fn in ("getdoctype", "getdoc"):
            for method in ("GET", "POST"):
                for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                    operation = schema[f"/api/method/fw.desk.form.load.{fn}"][method]

                    @settings(max_examples=25, deadline=None, database=None, derandomize=True,
                              suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
                    @given(case=operation.as_strategy(generation_mode=mode), real=steer)
                    def run(case: Any, real: tuple[str, str] | None) -> None:
                        for args in (case.query, case.body):
                            if real and isinstance(args, dict):
                                args.update({k: v for k, v in zip(("doctype", "name"), real, strict=True)
                                             if k in args})
                        response = case.call(base_url=base_url, headers=headers, session=session, timeout=30)
                        statuses[response.status_code] += 1
                        case.validate_response(response, checks=CHECKS, headers=headers)

                    try:
                        run()
                    except Unsatisfiable:  # nothing to negate
                        continue
                    except (Exception, BaseExceptionGroup) as e:
                        failures.append(f"{method} {fn} [{mode.value}]:\n{e}")
    return statuses, failures
