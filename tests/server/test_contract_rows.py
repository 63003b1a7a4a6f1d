"""Contract §2 requirements no other test asserted (tests/CONTRACT_COVERAGE.md lists them all).

§2.1 strict `DataError` for unknown query fields, the default page cap (1000), cancel right for
`PUT {"docstatus": 2}`; §2.2 method paths never imported, the HTTP method limits of the built-in
functions, `get_list`'s Frappe parameters, the workflow functions over HTTP; §2.3 the default body
limit (25 MiB); §2.4 salted password hashes, keyed API-secret digests, frappe-client's legacy
`cmd=login`/`cmd=logout` and `cmd=frappe.client.*` calls (reference §15); §2.5 `Has Role` rows and
the User fields; §2.6 rooms of `publish_realtime` and Socket.IO connections (engine.io polling
in-process over ASGI).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine import auth
from engine.constants import PASSWORD_KEY
from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.meta.schema import DocPermSchema
from engine.realtime import publish_realtime
from engine.settings import Settings
from engine.site import Site
from server.app import create_app
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import insert_notes, ok, refused
from tests.support.realtime import Recorder

M = "/api/method"
NOTE = "/api/resource/Test Note"
ORDER = "/api/resource/Test Order"
WHO = f"{M}/fw.auth.get_logged_user"
PASSWORD = "pass-1234"


async def call(client: httpx.AsyncClient, path: str, who: ApiUser | None = None, **body: Any) -> httpx.Response:
    return await client.post(f"{M}/{path}", json=body, headers=who.token if who else None)


async def _order(ctx: Context, customer: str = "Acme") -> str:
    async with unit_of_work(ctx):
        if not await ctx.db.collection("test_customer").find_one({"_id": customer}):
            await new_doc(ctx, "Test Customer", customer_name=customer).insert()
        doc = await new_doc(ctx, "Test Order", customer=customer, posting_date="2024-05-01",
                            items=[{"item": "A", "qty": 2, "rate": 5}]).insert()
    return str(doc.name)


async def _docstatus(ctx: Context, name: str) -> int:
    return int((await ctx.db.collection("test_order").find_one({"_id": name}))["docstatus"])


# -- §2.1 resource API ------------------------------------------------------------------------------

def test_page_cap_setting_defaults_to_1000(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FW_MAX_PAGE_LENGTH", raising=False)
    assert Settings(_env_file=None).max_page_length == 1000  # type: ignore[call-arg]
    monkeypatch.setenv("FW_MAX_PAGE_LENGTH", "7")
    assert Settings(_env_file=None).max_page_length == 7  # type: ignore[call-arg]


async def test_default_page_cap_is_1000_and_0_means_up_to_the_cap(client: httpx.AsyncClient, admin: ApiUser,
                                                                  ctx: Context) -> None:
    """§2.1: page length capped at FW_MAX_PAGE_LENGTH (default 1000); `0` means "up to the cap"."""
    assert client._transport.app.state.settings.max_page_length == 1000  # type: ignore[attr-defined]
    [name] = await insert_notes(ctx, {"title": "template"})
    template = await ctx.db.collection("test_note").find_one({"_id": name})
    clones = [{**template, "_id": f"clone-{i:05d}", "title": f"clone {i}"} for i in range(1004)]
    await ctx.db.collection("test_note").insert_many(clones)
    for length in ("0", "5000", "1001"):
        rows = ok(await client.get(NOTE, params={"limit_page_length": length}, headers=admin.token))["data"]
        assert len(rows) == 1000, length
    rows = ok(await client.get(NOTE, params={"limit_page_length": "1000", "limit_start": "1000"},
                               headers=admin.token))["data"]
    assert len(rows) == 5  # the cap limits a page, not what can be reached
    rows = ok(await call(client, "fw.client.get_list", admin, doctype="Test Note", limit_page_length=0))["message"]
    assert len(rows) == 1000


@pytest.fixture
def submitter_role(site: Site, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Test Order grants the role `Test Submitter` read, write and submit, but not cancel."""
    meta = site.meta.get("Test Order")
    perm = DocPermSchema(role="Test Submitter", read=True, write=True, submit=True)
    monkeypatch.setattr(meta, "permissions", [*meta.permissions, perm])
    yield "Test Submitter"


async def test_put_docstatus_2_needs_the_cancel_right(client: httpx.AsyncClient, admin: ApiUser, ctx: Context,
                                                      submitter_role: str) -> None:
    """§2.1: `PUT {"docstatus": 1}` submits and `{"docstatus": 2}` cancels, each with its own right."""
    name = await _order(ctx)
    submitter = await make_user(ctx, "submitter@example.com", [submitter_role, "Test Reader"])
    url = f"{ORDER}/{name}"
    assert ok(await client.put(url, json={"docstatus": 1}, headers=submitter.token))["data"]["docstatus"] == 1
    refused(await client.put(url, json={"docstatus": 2}, headers=submitter.token), 403, "PermissionError")
    assert await _docstatus(ctx, name) == 1
    refused(await client.post(url, json={"run_method": "cancel"}, headers=submitter.token), 403, "PermissionError")
    refused(await call(client, "fw.client.cancel", submitter, doctype="Test Order", name=name), 403,
            "PermissionError")
    assert await _docstatus(ctx, name) == 1
    assert ok(await client.put(url, json={"docstatus": 2}, headers=admin.token))["data"]["docstatus"] == 2


@pytest.mark.parametrize("kind", ["json", "data_field"])
async def test_modified_in_the_query_is_checked_whatever_the_body(client: httpx.AsyncClient, admin: ApiUser,
                                                                  kind: str) -> None:
    """§2.1: "a body or query that carries `modified` is checked against the stored one: a mismatch →
    TimestampMismatchError (417) and nothing is written" — also when the body is JSON or a `data` field
    (tests/server/test_resource.py only checks a query `modified` with plain form fields)."""
    doc = ok(await client.post(NOTE, json={"title": "t", "count": 1}, headers=admin.token))["data"]
    url = f"{NOTE}/{doc['name']}"
    ok(await client.put(url, json={"count": 2}, headers=admin.token))
    body: dict[str, Any] = {"json": {"count": 3}} if kind == "json" else {"data": {"data": json.dumps({"count": 3})}}
    r = await client.put(url, params={"modified": doc["modified"]}, headers=admin.token, **body)
    refused(r, 417, "TimestampMismatchError")
    assert ok(await client.get(url, headers=admin.token))["data"]["count"] == 2


async def test_v1_mount_runs_document_methods(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    """§2.1: `/api/v1/resource` is the same API, `run_method` included."""
    name = await _order(ctx)
    url = f"/api/v1/resource/Test Order/{name}"
    body = ok(await client.post(url, json={"run_method": "submit"}, headers=admin.token))
    assert set(body) == {"data"} and body["data"]["docstatus"] == 1
    assert await _docstatus(ctx, name) == 1
    refused(await client.post(url, json={"run_method": "save"}, headers=admin.token), 403, "PermissionError")


# -- §2.2 method API --------------------------------------------------------------------------------

async def test_method_paths_are_never_imported(client: httpx.AsyncClient, admin: ApiUser, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """§2.2: a path resolves by a registry lookup, never by importing a caller-supplied module."""
    module = f"fw_gap_probe_{uuid.uuid4().hex[:10]}"
    marker = tmp_path / "imported"
    (tmp_path / f"{module}.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('yes')\n\ndef run():\n    return 'ran'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for path in (f"{module}.run", f"frappe.{module}.run", module):
        refused(await client.post(f"{M}/{path}", headers=admin.token), 403, "PermissionError")
        refused(await client.get("/", params={"cmd": f"{module}.run"}, headers=admin.token), 403, "PermissionError")
    assert module not in sys.modules
    assert not marker.exists()


async def test_builtins_refuse_get_where_frappe_does(client: httpx.AsyncClient, admin: ApiUser,
                                                     ctx: Context) -> None:
    """§2.2: an HTTP method outside the function's `methods` → 403, and the function does not run."""
    name = await _order(ctx)
    [note] = await insert_notes(ctx, {"title": "keep", "count": 1})
    stored = ok(await call(client, "fw.client.get", admin, doctype="Test Order", name=name))["message"]
    note_doc = ok(await call(client, "fw.client.get", admin, doctype="Test Note", name=note))["message"]
    cases: list[tuple[str, dict[str, Any]]] = [
        ("fw.client.insert", {"doc": json.dumps({"doctype": "Test Note", "title": "x"})}),
        ("fw.client.insert_many", {"docs": json.dumps([{"doctype": "Test Note", "title": "x"}])}),
        ("fw.client.save", {"doc": json.dumps({**note_doc, "count": 9})}),
        ("fw.client.set_value", {"doctype": "Test Note", "name": note, "fieldname": "count", "value": "9"}),
        ("fw.client.submit", {"doc": json.dumps(stored)}),
        ("fw.client.cancel", {"doctype": "Test Order", "name": name}),
        ("fw.client.delete", {"doctype": "Test Note", "name": note}),
        ("fw.client.rename_doc", {"doctype": "Test Customer", "old_name": "Acme", "new_name": "Renamed"}),
        ("fw.model.workflow.apply_workflow", {"doc": json.dumps({"doctype": "Test Order", "name": name}),
                                              "action": "Approve"}),
        ("fw.core.doctype.user.user.generate_keys", {"user": "Administrator"}),
    ]
    for path, params in cases:
        for prefix in ("fw.", "frappe."):
            target = prefix + path[len("fw."):]
            refused(await client.get(f"{M}/{target}", params=params, headers=admin.token), 403, "PermissionError")
    assert await ctx.db.collection("test_note").count_documents({}) == 1
    assert (await ctx.db.collection("test_note").find_one({"_id": note}))["count"] == 1
    assert await _docstatus(ctx, name) == 0
    assert await ctx.db.collection("test_customer").count_documents({"_id": "Acme"}) == 1
    assert ok(await client.get(WHO, headers=admin.token)) == {"message": "Administrator"}  # keys not rotated


async def test_builtins_accept_put_where_frappe_does(client: httpx.AsyncClient, admin: ApiUser,
                                                     ctx: Context) -> None:
    """§2.2: insert, insert_many, save, set_value, submit, cancel and rename_doc take POST and PUT."""
    doc = ok(await client.put(f"{M}/fw.client.insert", json={"doc": {"doctype": "Test Note", "title": "put"}},
                              headers=admin.token))["message"]
    assert doc["title"] == "put"
    names = ok(await client.put(f"{M}/fw.client.insert_many", headers=admin.token,
                                json={"docs": [{"doctype": "Test Note", "title": "p1"}]}))["message"]
    assert len(names) == 1
    saved = ok(await client.put(f"{M}/fw.client.save", json={"doc": {**doc, "count": 4}}, headers=admin.token))
    assert saved["message"]["count"] == 4
    r = await client.put(f"{M}/fw.client.set_value", headers=admin.token,
                         json={"doctype": "Test Note", "name": doc["name"], "fieldname": "count", "value": 5})
    assert ok(r)["message"]["count"] == 5
    name = await _order(ctx)
    stored = ok(await call(client, "fw.client.get", admin, doctype="Test Order", name=name))["message"]
    assert ok(await client.put(f"{M}/fw.client.submit", json={"doc": stored}, headers=admin.token))[
        "message"]["docstatus"] == 1
    assert ok(await client.put(f"{M}/fw.client.cancel", json={"doctype": "Test Order", "name": name},
                               headers=admin.token))["message"]["docstatus"] == 2
    r = await client.put(f"{M}/fw.client.rename_doc", headers=admin.token,
                         json={"doctype": "Test Customer", "old_name": "Acme", "new_name": "Acme Two"})
    assert ok(r) == {"message": "Acme Two"}
    assert await ctx.db.collection("test_note").count_documents({}) == 2


async def test_read_builtins_take_get_and_post(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    """§2.2: the reading built-ins answer GET as well as POST, with Frappe's parameter names."""
    [note] = await insert_notes(ctx, {"title": "r", "count": 3})
    calls: list[tuple[str, dict[str, Any], Any]] = [
        ("fw.client.get", {"doctype": "Test Note", "name": note}, None),
        ("fw.client.get_list", {"doctype": "Test Note", "fields": '["count"]'}, [{"count": 3}]),
        ("fw.client.get_count", {"doctype": "Test Note"}, 1),
        ("fw.client.get_value", {"doctype": "Test Note", "fieldname": "count", "filters": note}, {"count": 3}),
        ("fw.auth.get_logged_user", {}, "Administrator"),
    ]
    for path, params, expected in calls:
        got = ok(await client.get(f"{M}/{path}", params=params, headers=admin.token))["message"]
        posted = ok(await client.post(f"{M}/{path}", data=params, headers=admin.token))["message"]
        if expected is None:
            assert got["name"] == posted["name"] == note
        else:
            assert got == posted == expected, path


async def test_get_list_takes_frappes_parameters(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    """§2.2: `fw.client.get_list` with Frappe's names: default page 20, `or_filters`, `group_by`, `as_dict`."""
    await insert_notes(ctx, *({"title": f"g{i}", "count": i % 3, "status": "Closed" if i % 2 else "Open"}
                              for i in range(25)))
    path = "fw.client.get_list"
    assert len(ok(await call(client, path, admin, doctype="Test Note"))["message"]) == 20
    rows = ok(await call(client, path, admin, doctype="Test Note", fields=["title"], order_by="title asc",
                         or_filters=[["title", "=", "g1"], ["title", "=", "g2"]]))["message"]
    assert rows == [{"title": "g1"}, {"title": "g2"}]
    rows = ok(await call(client, path, admin, doctype="Test Note", fields=["status", "count(name) as n"],
                         group_by="status", order_by="status asc"))["message"]
    assert rows == [{"status": "Closed", "n": 12}, {"status": "Open", "n": 13}]
    rows = ok(await call(client, path, admin, doctype="Test Note", fields=["title", "count"],
                         filters={"title": "g4"}, as_dict=0))["message"]
    assert rows == [["g4", 1]]


async def test_insert_many_takes_exactly_200(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    """§2.2: `fw.client.insert_many` (max 200): 200 documents are one accepted request."""
    docs = [{"doctype": "Test Note", "title": f"m{i}"} for i in range(200)]
    names = ok(await call(client, "fw.client.insert_many", admin, docs=docs))["message"]
    assert len(names) == len(set(names)) == 200
    assert await ctx.db.collection("test_note").count_documents({}) == 200


@pytest.fixture
async def order_workflow(ctx: Context) -> None:
    async with unit_of_work(ctx):
        for role in ("Test Reader", "Test Clerk"):
            if not await ctx.db.collection("role").find_one({"_id": role}):
                await new_doc(ctx, "Role", role_name=role).insert()
        await new_doc(ctx, "Workflow", workflow_name="Gap Approval", document_type="Test Order", is_active=1,
                      states=[{"state": "Draft", "doc_status": "0"}, {"state": "Approved", "doc_status": "1"}],
                      transitions=[{"state": "Draft", "action": "Approve", "next_state": "Approved",
                                    "allowed": "Test Clerk"}]).insert()


async def test_workflow_functions_over_http(client: httpx.AsyncClient, ctx: Context, order_workflow: None) -> None:
    """§2.2: `fw.model.workflow.get_transitions(doc)` (GET or POST) and `apply_workflow(doc, action)` (POST)."""
    name = await _order(ctx)
    clerk = await make_user(ctx, "clerk@example.com", ["Test Clerk", "Test Reader"])
    ref = {"doctype": "Test Order", "name": name}
    r = await client.get(f"{M}/fw.model.workflow.get_transitions", params={"doc": json.dumps(ref)},
                         headers=clerk.token)
    assert [t["action"] for t in ok(r)["message"]] == ["Approve"]
    r = await client.post(f"{M}/frappe.model.workflow.get_transitions", json={"doc": ref}, headers=clerk.token)
    assert [t["next_state"] for t in ok(r)["message"]] == ["Approved"]
    refused(await client.get(f"{M}/fw.model.workflow.apply_workflow",
                             params={"doc": json.dumps(ref), "action": "Approve"}, headers=clerk.token), 403)
    assert await _docstatus(ctx, name) == 0
    refused(await client.post(f"{M}/fw.model.workflow.apply_workflow", json={"doc": ref, "action": "Nope"},
                              headers=clerk.token), 417, "WorkflowTransitionError")
    r = await client.post(f"{M}/fw.model.workflow.apply_workflow", data={"doc": json.dumps(ref), "action": "Approve"},
                          headers=clerk.token)
    doc = ok(r)["message"]
    assert (doc["workflow_state"], doc["docstatus"]) == ("Approved", 1)
    assert await _docstatus(ctx, name) == 1


# -- §2.3 errors ------------------------------------------------------------------------------------

def test_body_limit_setting_defaults_to_25_mib(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FW_MAX_BODY_BYTES", raising=False)
    assert Settings(_env_file=None).max_body_bytes == 25 * 1024 * 1024  # type: ignore[call-arg]
    monkeypatch.setenv("FW_MAX_BODY_BYTES", "1234")
    assert Settings(_env_file=None).max_body_bytes == 1234  # type: ignore[call-arg]


async def test_default_body_limit_is_25_mib(client: httpx.AsyncClient) -> None:
    """§2.3: a body over FW_MAX_BODY_BYTES (default 25 MiB) → 413; one of exactly 25 MiB is let through."""
    limit = 25 * 1024 * 1024
    headers = {"Content-Type": "application/json"}
    shell = b'{"padding": ""}'
    exact = shell[:-2] + b"x" * (limit - len(shell)) + shell[-2:]
    assert len(exact) == limit
    r = await client.post(f"{M}/ping", content=exact, headers=headers)
    assert r.status_code == 200, r.text[:500]
    assert r.json() == {"message": "pong"}
    over = shell[:-2] + b"x" * (limit + 1 - len(shell)) + shell[-2:]
    refused(await client.post(f"{M}/ping", content=over, headers=headers), 413, "RequestEntityTooLarge")


# -- §2.4 authentication ------------------------------------------------------------------------------

async def test_passwords_are_slow_salted_hashes(client: httpx.AsyncClient, ctx: Context) -> None:
    await make_user(ctx, "a@example.com", [], password="Same-Pass-1")
    await make_user(ctx, "b@example.com", [], password="Same-Pass-1")
    a = (await ctx.db.collection("user").find_one({"_id": "a@example.com"}))[PASSWORD_KEY]
    b = (await ctx.db.collection("user").find_one({"_id": "b@example.com"}))[PASSWORD_KEY]
    assert a.startswith(("$argon2", "$scrypt")) and b.startswith(("$argon2", "$scrypt"))
    assert a != b  # salted: one password, two different hashes
    for usr in ("a@example.com", "b@example.com"):
        assert ok(await client.post(f"{M}/login", data={"usr": usr, "pwd": "Same-Pass-1"}))["message"] == "Logged In"


async def test_api_secrets_are_keyed_sha256_digests(client: httpx.AsyncClient, ctx: Context, site: Site) -> None:
    user = await make_user(ctx, "api@example.com", [])
    record = await ctx.db.collection("user").find_one({"_id": "api@example.com"})
    stored = [v for k, v in record.items() if isinstance(v, str) and len(v) == 64 and k != PASSWORD_KEY]
    key = await auth.site_secret(site)
    keyed = hmac.new(key, user.secret.encode(), hashlib.sha256).hexdigest()
    assert keyed in stored
    assert hashlib.sha256(user.secret.encode()).hexdigest() not in json.dumps(record, default=str)
    assert user.secret not in json.dumps(record, default=str)
    assert len(user.secret) >= 32  # random and long
    assert ok(await client.get(WHO, headers=user.token)) == {"message": "api@example.com"}


async def test_frappe_client_legacy_login_and_logout(site: Site, ctx: Context) -> None:
    """Reference §15 / contract §0: frappe-client logs in with `POST /` `cmd=login` and out with `GET /?cmd=logout`."""
    await make_user(ctx, "jane@example.com", [])
    app = create_app(site.settings, site=site)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
        r = await c.post("/", data={"cmd": "login", "usr": "jane@example.com", "pwd": PASSWORD})
        assert ok(r)["message"] == "Logged In"
        sid = r.cookies["sid"]
        assert ok(await c.get(WHO)) == {"message": "jane@example.com"}
        refused(await c.post("/", data={"cmd": "login", "usr": "jane@example.com", "pwd": "bad"}), 401,
                "AuthenticationError")
        ok(await c.get("/", params={"cmd": "logout"}))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
        refused(await c.get(WHO, headers={"Cookie": f"sid={sid}"}), 403, "PermissionError")


async def test_frappe_client_cmd_calls(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    """Reference §15: frappe-client sends delete, rename, get_value, set_value, insert_many as `cmd=frappe.client.*`
    to `/`, authenticated with `Authorization: Basic`."""
    auth_header = admin.basic
    names = ok(await client.post("/", headers=auth_header, data={
        "cmd": "frappe.client.insert_many",
        "docs": json.dumps([{"doctype": "Test Note", "title": "c1"}, {"doctype": "Test Note", "title": "c2"}])}))
    first, second = names["message"]
    r = await client.post("/", headers=auth_header, data={"cmd": "frappe.client.set_value", "doctype": "Test Note",
                                                          "name": first, "fieldname": "count", "value": "6"})
    assert ok(r)["message"]["count"] == 6
    r = await client.get("/", headers=auth_header, params={"cmd": "frappe.client.get_value", "doctype": "Test Note",
                                                           "fieldname": "count", "filters": first})
    assert ok(r) == {"message": {"count": 6}}
    assert ok(await client.post("/", headers=auth_header, data={"cmd": "frappe.client.delete",
                                                                "doctype": "Test Note", "name": second})) == {}
    assert await ctx.db.collection("test_note").count_documents({}) == 1
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Old Name").insert()
    r = await client.post("/", headers=auth_header, data={"cmd": "frappe.client.rename_doc", "doctype": "Test Customer",
                                                          "old_name": "Old Name", "new_name": "New Name"})
    assert ok(r) == {"message": "New Name"}


async def test_js_sdk_login_body_and_headers(site: Site, ctx: Context) -> None:
    """Reference §15: frappe-js-sdk logs in with JSON `{usr, pwd, otp, tmp_id, device}` and sends
    `X-Frappe-Site-Name` and `Accept: application/json`."""
    await make_user(ctx, "jane@example.com", [])
    app = create_app(site.settings, site=site)
    headers = {"Accept": "application/json", "X-Frappe-Site-Name": "localhost"}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver",
                                 headers=headers) as c:
        r = await c.post(f"{M}/login", json={"usr": "jane@example.com", "pwd": PASSWORD, "device": "desktop"})
        assert ok(r) == {"message": "Logged In", "home_page": "/app", "full_name": "jane"}
        assert ok(await c.get(f"{M}/frappe.auth.get_logged_user")) == {"message": "jane@example.com"}
        assert ok(await c.post(f"{M}/logout")) == {}
        refused(await c.get(f"{M}/frappe.auth.get_logged_user"), 403)


# -- §2.5 users ---------------------------------------------------------------------------------------

async def test_user_document_fields_and_has_role_rows(client: httpx.AsyncClient, admin: ApiUser,
                                                      ctx: Context) -> None:
    """§2.5: User is named by its email; `roles` is a Table of `Has Role` (`role`); `api_key` is readable."""
    manager = await make_user(ctx, "sm@example.com", ["System Manager"])
    ok(await client.post("/api/resource/Role", json={"role_name": "Test Reader"}, headers=manager.token))
    body = {"email": "ann@example.com", "first_name": "Ann", "last_name": "Lee", "language": "de",
            "user_type": "System User", "roles": [{"role": "Test Reader"}], "new_password": "Ann-Pass-77"}
    doc = ok(await client.post("/api/resource/User", json=body, headers=manager.token))["data"]
    assert doc["name"] == doc["email"] == "ann@example.com"
    assert (doc["first_name"], doc["last_name"], doc["full_name"]) == ("Ann", "Lee", "Ann Lee")
    assert (doc["enabled"], doc["user_type"], doc["language"]) == (1, "System User", "de")
    [row] = doc["roles"]
    assert row["role"] == "Test Reader" and row["doctype"] == "Has Role" and row["parenttype"] == "User"
    assert ctx.meta("User").get_field("roles").options == "Has Role"
    keys = ok(await call(client, "fw.core.doctype.user.user.generate_keys", admin, user="ann@example.com"))["message"]
    stored = ok(await client.get("/api/resource/User/ann@example.com", headers=admin.token))["data"]
    assert stored["api_key"] == keys["api_key"]
    assert keys["api_secret"] not in json.dumps(stored) and "Ann-Pass-77" not in json.dumps(stored)


async def test_administrator_and_guest_always_exist(client: httpx.AsyncClient, admin: ApiUser) -> None:
    for name in ("Administrator", "Guest"):
        doc = ok(await client.get(f"/api/resource/User/{name}", headers=admin.token))["data"]
        assert doc["name"] == name
    rows = ok(await client.get("/api/resource/User", params={"filters": '[["name", "in", ["Administrator", "Guest"]]]'},
                               headers=admin.token))["data"]
    assert sorted(r["name"] for r in rows) == ["Administrator", "Guest"]


# -- §2.6 realtime ------------------------------------------------------------------------------------

async def test_publish_realtime_rooms(ctx: Context, site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """§2.6: `publish_realtime(event, message, room, user, doctype, docname)` → rooms `user:<user>`,
    `doc:<doctype>/<name>`, `doctype:<doctype>`, `all`."""
    recorder = Recorder()
    monkeypatch.setattr(site, "realtime", recorder, raising=False)
    await publish_realtime(ctx, "e1", {"n": 1}, room="custom-room")
    await publish_realtime(ctx, "e2", {"n": 2}, user="bob@example.com")
    await publish_realtime(ctx, "e3", {"n": 3}, doctype="Test Note", docname="N-1")
    await publish_realtime(ctx, "e4", {"n": 4}, doctype="Test Note")
    await publish_realtime(ctx, "e5", {"n": 5})
    assert recorder.sent == [("e1", {"n": 1}, "custom-room"), ("e2", {"n": 2}, "user:bob@example.com"),
                             ("e3", {"n": 3}, "doc:Test Note/N-1"), ("e4", {"n": 4}, "doctype:Test Note"),
                             ("e5", {"n": 5}, "all")]


class Polling:
    """A Socket.IO client over engine.io long-polling, in-process through the ASGI transport."""

    def __init__(self, client: httpx.AsyncClient, headers: dict[str, str] | None = None) -> None:
        self.client = client
        self.headers = headers or {}
        self.eio_sid = ""
        self.sio_sid = ""

    def _params(self) -> dict[str, str]:
        return {"EIO": "4", "transport": "polling", "sid": self.eio_sid}

    async def poll(self) -> list[str]:
        r = await self.client.get("/socket.io/", params=self._params(), headers=self.headers)
        assert r.status_code == 200, r.text
        return r.text.split("\x1e")

    async def connect(self) -> list[str]:
        """The namespace packets answering the connect: `40{"sid": ...}` or `44{...}` (refused)."""
        r = await self.client.get("/socket.io/", params={"EIO": "4", "transport": "polling"}, headers=self.headers)
        assert r.status_code == 200 and r.text.startswith("0{"), r.text
        self.eio_sid = json.loads(r.text[1:])["sid"]
        r = await self.client.post("/socket.io/", params=self._params(), content=b"40",
                                   headers={**self.headers, "Content-Type": "text/plain;charset=UTF-8"})
        assert r.status_code == 200 and r.text.lower() == "ok", r.text
        packets = await self.poll()
        if packets[0].startswith("40"):
            self.sio_sid = json.loads(packets[0][2:])["sid"]
        return packets

    async def close(self) -> None:
        if self.eio_sid:
            await self.client.post("/socket.io/", params=self._params(), content=b"1",
                                   headers={**self.headers, "Content-Type": "text/plain;charset=UTF-8"})


@pytest.fixture
async def rt_app(site: Site) -> AsyncIterator[tuple[httpx.AsyncClient, Any]]:
    app = create_app(site.settings, site=site)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
        yield c, app.state.sio


async def _sid_cookie(client: httpx.AsyncClient, usr: str, pwd: str = PASSWORD) -> str:
    r = await client.post(f"{M}/login", data={"usr": usr, "pwd": pwd})
    ok(r)
    client.cookies.clear()
    return str(r.cookies["sid"])


async def test_socket_rooms_by_credentials(rt_app: tuple[httpx.AsyncClient, Any], ctx: Context) -> None:
    """§2.6: Socket.IO at /socket.io, authenticated by the `sid` cookie or an `Authorization` header;
    every socket joins `user:<user>`; only system users join `all`; Guests are refused."""
    c, sio = rt_app
    system = await make_user(ctx, "desk@example.com", [])
    web = await make_user(ctx, "web@example.com", [])
    async with unit_of_work(ctx):
        await ctx.db.collection("user").update_one({"_id": "web@example.com"}, {"$set": {"user_type": "Website User"}})
    ctx.site.forget_roles("web@example.com")
    sid = await _sid_cookie(c, "desk@example.com")
    sockets = []
    try:
        by_cookie = Polling(c, {"Cookie": f"sid={sid}"})
        sockets.append(by_cookie)
        assert (await by_cookie.connect())[0].startswith("40"), "sid cookie must connect"
        assert {"user:desk@example.com", "all"} <= set(sio.rooms(by_cookie.sio_sid))
        by_header = Polling(c, system.token)
        sockets.append(by_header)
        assert (await by_header.connect())[0].startswith("40"), "Authorization header must connect"
        assert {"user:desk@example.com", "all"} <= set(sio.rooms(by_header.sio_sid))
        website = Polling(c, web.basic)
        sockets.append(website)
        assert (await website.connect())[0].startswith("40")
        rooms = set(sio.rooms(website.sio_sid))
        assert "user:web@example.com" in rooms and "all" not in rooms
        for headers in ({}, {"Cookie": "sid=not-a-session"}, {"Authorization": "token nope:wrong"}):
            guest = Polling(c, headers)
            packets = await guest.connect()
            assert packets[0].startswith("44"), (headers, packets)
            assert not guest.sio_sid
    finally:
        for s in sockets:
            await s.close()


async def test_socket_receives_published_events(rt_app: tuple[httpx.AsyncClient, Any], ctx: Context,
                                                admin: ApiUser) -> None:
    """§2.6: a message published to `user:<user>` reaches that user's socket (without Redis: this process)."""
    c, _sio = rt_app
    await make_user(ctx, "desk@example.com", [])
    sock = Polling(c, {"Cookie": f"sid={await _sid_cookie(c, 'desk@example.com')}"})
    try:
        assert (await sock.connect())[0].startswith("40")
        r = await c.post(f"{M}/fwtest.api.publish", headers=admin.token,
                         json={"event": "gap_event", "message": {"n": 7}, "user": "desk@example.com"})
        ok(r)
        packets = await sock.poll()
        assert any(p.startswith("42") and json.loads(p[2:]) == ["gap_event", {"n": 7}] for p in packets), packets
        r = await c.post(f"{M}/fwtest.api.publish", headers=admin.token,
                         json={"event": "to_all", "message": "everyone", "room": "all"})
        ok(r)
        packets = await sock.poll()
        assert any(p.startswith("42") and json.loads(p[2:]) == ["to_all", "everyone"] for p in packets), packets
    finally:
        await sock.close()
