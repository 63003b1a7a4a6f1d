"""Contract §2.2: the method API (`/api/method/<dotted.path>`) and the built-in functions."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.site import Site
from server.app import create_app
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import ok, refused, server_messages

M = "/api/method"
FX = f"{M}/fwtest.http_methods"


async def call(client: httpx.AsyncClient, path: str, who: ApiUser | None = None, **body: Any) -> httpx.Response:
    return await client.post(f"{M}/{path}", json=body, headers=who.token if who else None)


async def _note(ctx: Context, **values: Any) -> str:
    async with unit_of_work(ctx):
        return str((await new_doc(ctx, "Test Note", {"title": "t", **values}).insert()).name)


async def _customer(ctx: Context, name: str, **values: Any) -> str:
    async with unit_of_work(ctx):
        return str((await new_doc(ctx, "Test Customer", {"customer_name": name, **values}).insert()).name)


# -- envelope, HTTP methods, arguments ----------------------------------------------------------

async def test_ping_get_and_post(client: httpx.AsyncClient) -> None:
    assert ok(await client.get(f"{M}/ping")) == {"message": "pong"}
    assert ok(await client.post(f"{M}/ping")) == {"message": "pong"}
    assert ok(await client.get("/api/v1/method/ping")) == {"message": "pong"}


async def test_none_result_has_no_message_key(client: httpx.AsyncClient) -> None:
    assert ok(await client.get(f"{FX}.nothing")) == {}


async def test_falsy_results_keep_message(client: httpx.AsyncClient) -> None:
    assert ok(await client.get(f"{FX}.add", params={"a": "-1", "b": "1"})) == {"message": 0}
    assert ok(await client.get(f"{FX}.pick")) == {"message": {"a": None, "b": None}}  # nulls kept in dicts


async def test_arguments_from_json_body(client: httpx.AsyncClient) -> None:
    assert ok(await client.post(f"{FX}.add", json={"a": 2, "b": 3})) == {"message": 5}
    body = ok(await client.post(f"{FX}.echo", json={"x": [1, 2], "y": {"k": "v"}}))
    assert body == {"message": {"x": [1, 2], "y": {"k": "v"}}}


async def test_arguments_from_query_and_form_form_wins(client: httpx.AsyncClient) -> None:
    r = await client.post(f"{FX}.echo", params={"x": "query", "q": "only-query"}, data={"x": "form"})
    assert ok(r) == {"message": {"x": "form", "q": "only-query"}}
    assert ok(await client.get(f"{FX}.echo", params={"x": "1"})) == {"message": {"x": "1"}}


async def test_json_body_ignores_query_string(client: httpx.AsyncClient) -> None:
    r = await client.post(f"{FX}.echo", params={"x": "query", "q": "ignored"}, json={"x": "json"})
    assert ok(r) == {"message": {"x": "json"}}


async def test_json_list_body_becomes_data(client: httpx.AsyncClient) -> None:
    r = await client.post(f"{FX}.echo", content=b'[1, 2]', headers={"Content-Type": "application/json"})
    assert ok(r) == {"message": {"data": [1, 2]}}


async def test_json_scalar_body_is_400(client: httpx.AsyncClient) -> None:
    refused(await client.post(f"{FX}.echo", content=b'"x"', headers={"Content-Type": "application/json"}), 400)


async def test_unknown_arguments_are_dropped(client: httpx.AsyncClient) -> None:
    assert ok(await client.post(f"{FX}.pick", json={"a": 1, "c": 3})) == {"message": {"a": 1, "b": None}}
    assert ok(await client.post(f"{FX}.add", json={"a": 1, "zzz": 3})) == {"message": 2}


async def test_ignore_permissions_and_flags_never_accepted(client: httpx.AsyncClient) -> None:
    r = await client.post(f"{FX}.takes_flags", json={"ignore_permissions": True, "flags": {"x": 1}})
    assert ok(r) == {"message": {"ignore_permissions": False, "flags": None}}
    r = await client.post(f"{FX}.echo", json={"ignore_permissions": 1, "flags": {"x": 1}, "keep": 1})
    assert ok(r) == {"message": {"keep": 1}}
    r = await client.post(f"{FX}.echo", data={"ignore_permissions": "1", "flags": "{}", "keep": "1"})
    assert ok(r) == {"message": {"keep": "1"}}


async def test_ignore_permissions_in_client_insert_is_not_honoured(client: httpx.AsyncClient,
                                                                   ctx: Context) -> None:
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    r = await call(client, "fw.client.insert", reader, doc={"doctype": "Test Note", "title": "x"},
                   ignore_permissions=True)
    refused(r, 403, "PermissionError")
    r = await call(client, "fw.client.insert", reader,
                   doc={"doctype": "Test Note", "title": "x", "flags": {"ignore_permissions": True}})
    refused(r, 403, "PermissionError")
    assert await ctx.db.collection("test_note").count_documents({}) == 0


# -- argument types -------------------------------------------------------------------------------

async def test_annotated_arguments_are_coerced(client: httpx.AsyncClient) -> None:
    assert ok(await client.get(f"{FX}.add", params={"a": "2"})) == {"message": 3}
    assert ok(await client.post(f"{FX}.add", data={"a": "2", "b": "5"})) == {"message": 7}


@pytest.mark.parametrize("value", ["two", "1.5", "", [1], {"x": 1}])
async def test_bad_argument_type_is_417_naming_the_argument(client: httpx.AsyncClient, value: Any) -> None:
    body = refused(await client.post(f"{FX}.add", json={"a": value}), 417, "ArgumentTypeError")
    assert body["errors"][0]["field"] == "a"
    assert "a" in body["errors"][0]["message"]


async def test_missing_required_argument_is_417(client: httpx.AsyncClient, admin: ApiUser) -> None:
    body = refused(await client.post(f"{FX}.add", json={"b": 1}), 417)
    assert body["errors"][0]["field"] == "a"
    body = refused(await call(client, "fw.client.get", admin), 417)
    assert body["errors"][0]["field"] == "doctype"


async def test_non_guest_annotated_function(client: httpx.AsyncClient, ctx: Context) -> None:
    user = await make_user(ctx, "u@example.com", [])
    r = await client.get(f"{FX}.scale", params={"value": "1.5", "factor": "3"}, headers=user.token)
    assert ok(r) == {"message": {"user": "u@example.com", "result": 4.5}}
    body = refused(await client.get(f"{FX}.scale", params={"value": "big"}, headers=user.token), 417,
                   "ArgumentTypeError")
    assert body["errors"][0]["field"] == "value"


# -- who may call what ------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["fwtest.http_methods.not_there", "os.system", "engine.auth.login",
                                  "engine.methods.client.update", "fwtest.http_methods", "fw.client", "fw..client.get",
                                  "fwtest.hooks.app_name", "builtins.eval", "x" * 500])
async def test_not_whitelisted_is_403(client: httpx.AsyncClient, admin: ApiUser, path: str) -> None:
    refused(await client.post(f"{M}/{path}", headers=admin.token), 403, "PermissionError")


async def test_guest_calling_non_guest_is_403(client: httpx.AsyncClient) -> None:
    refused(await client.get(f"{FX}.scale", params={"value": "1"}), 403, "PermissionError")
    refused(await client.get(f"{M}/fw.client.get_list", params={"doctype": "Test Note"}), 403, "PermissionError")
    refused(await client.get(f"{M}/fw.auth.get_logged_user"), 403, "PermissionError")


async def test_http_method_outside_methods_is_403(client: httpx.AsyncClient, admin: ApiUser,
                                                  ctx: Context) -> None:
    doc = json.dumps({"doctype": "Test Note", "title": "via get"})
    refused(await client.get(f"{M}/fw.client.insert", params={"doc": doc}, headers=admin.token), 403,
            "PermissionError")
    assert await ctx.db.collection("test_note").count_documents({}) == 0
    refused(await client.get(f"{FX}.post_only"), 403, "PermissionError")
    assert ok(await client.post(f"{FX}.post_only")) == {"message": "posted"}
    refused(await client.patch(f"{FX}.add", json={"a": 1}), 403, "PermissionError")  # PATCH not in the default


async def test_frappe_alias(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    name = await _note(ctx, title="aliased")
    r = await client.get(f"{M}/frappe.client.get", params={"doctype": "Test Note", "name": name},
                         headers=admin.token)
    assert ok(r)["message"]["title"] == "aliased"
    assert ok(await client.get(f"{M}/frappe.auth.get_logged_user", headers=admin.token)) == \
        {"message": "Administrator"}


async def test_frappe_alias_can_be_turned_off(client: httpx.AsyncClient, admin: ApiUser, ctx: Context,
                                              site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(site.settings, "frappe_aliases", False)  # FW_FRAPPE_ALIASES=false
    name = await _note(ctx)
    r = await client.get(f"{M}/frappe.client.get", params={"doctype": "Test Note", "name": name},
                         headers=admin.token)
    refused(r, 403, "PermissionError")
    r = await client.get(f"{M}/fw.client.get", params={"doctype": "Test Note", "name": name}, headers=admin.token)
    assert ok(r)["message"]["name"] == name


async def test_frappe_alias_off_in_app_settings(site: Site, admin: ApiUser) -> None:
    app = create_app(site.settings.model_copy(update={"frappe_aliases": False}), site=site)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
        refused(await c.get(f"{M}/frappe.auth.get_logged_user", headers=admin.token), 403, "PermissionError")
        assert ok(await c.get(f"{M}/fw.auth.get_logged_user", headers=admin.token)) == {"message": "Administrator"}


async def test_override_whitelisted_methods(client: httpx.AsyncClient) -> None:
    assert ok(await client.get(f"{FX}.original")) == {"message": "replacement"}
    assert ok(await client.get(f"{FX}.replacement")) == {"message": "replacement"}


async def test_legacy_cmd_root(client: httpx.AsyncClient) -> None:
    assert ok(await client.post("/", data={"cmd": "ping"})) == {"message": "pong"}
    assert ok(await client.get("/", params={"cmd": "fwtest.http_methods.add", "a": "4"})) == {"message": 5}
    refused(await client.post("/", data={"cmd": "os.system"}), 403, "PermissionError")


async def test_msgprint_reaches_server_messages(client: httpx.AsyncClient, admin: ApiUser) -> None:
    body = ok(await client.post(f"{FX}.notify", headers=admin.token))
    assert body["message"] == "done"
    [msg] = server_messages(body)
    assert msg == {"message": "Saved it", "indicator": "green", "title": "T", "alert": 1}


# -- fw.client.* ----------------------------------------------------------------------------------

async def test_client_get_keeps_nulls(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    name = await _note(ctx, title="g")
    doc = ok(await call(client, "fw.client.get", admin, doctype="Test Note", name=name))["message"]
    assert doc["title"] == "g" and doc["name"] == name and doc["doctype"] == "Test Note"
    assert "body" in doc and doc["body"] is None  # unlike the v1 resource GET
    assert "secret" not in doc
    by_filters = ok(await call(client, "fw.client.get", admin, doctype="Test Note", filters={"title": "g"}))
    assert by_filters["message"]["name"] == name
    refused(await call(client, "fw.client.get", admin, doctype="Test Note", name="missing"), 404)


async def test_client_get_single(client: httpx.AsyncClient, admin: ApiUser) -> None:
    doc = ok(await call(client, "fw.client.get", admin, doctype="Test Settings"))["message"]
    assert doc["name"] == "Test Settings" and doc["doctype"] == "Test Settings"


async def test_client_get_checks_read(client: httpx.AsyncClient, ctx: Context) -> None:
    name = await _note(ctx)
    nobody = await make_user(ctx, "nobody@example.com", [])
    refused(await call(client, "fw.client.get", nobody, doctype="Test Note", name=name), 403, "PermissionError")


async def test_client_get_list(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    for i in range(3):
        await _note(ctx, title=f"l{i}", count=i)
    r = await client.get(f"{M}/fw.client.get_list", headers=admin.token,
                         params={"doctype": "Test Note", "fields": '["title", "count"]',
                                 "filters": '{"count": [">", 0]}', "order_by": "count desc"})
    assert ok(r) == {"message": [{"title": "l2", "count": 2}, {"title": "l1", "count": 1}]}
    r = await call(client, "fw.client.get_list", admin, doctype="Test Note", fields=["count"],
                   filters=[["count", "<", 2]], order_by="count asc", limit_page_length=1, limit_start=1)
    assert ok(r) == {"message": [{"count": 1}]}


async def test_client_get_count_is_permission_aware(client: httpx.AsyncClient, admin: ApiUser,
                                                    ctx: Context) -> None:
    owner = await make_user(ctx, "owner@example.com", ["Test Owner"])
    for i in range(3):
        await _note(ctx, title=f"admin{i}")
    mine = ok(await call(client, "fw.client.insert", owner, doc={"doctype": "Test Note", "title": "mine"}))
    assert mine["message"]["owner"] == "owner@example.com"
    assert ok(await call(client, "fw.client.get_count", admin, doctype="Test Note")) == {"message": 4}
    assert ok(await call(client, "fw.client.get_count", owner, doctype="Test Note")) == {"message": 1}
    r = await client.get(f"{M}/fw.client.get_count", params={"doctype": "Test Note", "filters": '{"title": "mine"}'},
                         headers=admin.token)
    assert ok(r) == {"message": 1}
    # permission_query_conditions apply too
    for name, region in (("N1", "North"), ("S1", "South"), ("N2", "North")):
        await _customer(ctx, name, region=region)
    regional = await make_user(ctx, "regional@example.com", ["Test Reader", "Test Regional"])
    assert ok(await call(client, "fw.client.get_count", regional, doctype="Test Customer")) == {"message": 2}
    assert ok(await call(client, "fw.client.get_count", admin, doctype="Test Customer")) == {"message": 3}
    nobody = await make_user(ctx, "nobody@example.com", [])
    refused(await call(client, "fw.client.get_count", nobody, doctype="Test Note"), 403, "PermissionError")


async def test_client_get_value(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    name = await _note(ctx, title="v", count=5)
    r = await client.get(f"{M}/fw.client.get_value", headers=admin.token,
                         params={"doctype": "Test Note", "fieldname": "count", "filters": name})
    assert ok(r) == {"message": {"count": 5}}
    r = await call(client, "fw.client.get_value", admin, doctype="Test Note", fieldname=["title", "count"],
                   filters={"title": "v"})
    assert ok(r) == {"message": {"title": "v", "count": 5}}
    r = await call(client, "fw.client.get_value", admin, doctype="Test Note", fieldname="count",
                   filters={"title": "v"}, as_dict=0)
    assert ok(r) == {"message": 5}
    r = await call(client, "fw.client.get_value", admin, doctype="Test Note", fieldname="count",
                   filters={"title": "none"})
    assert ok(r) == {"message": {}}
    refused(await call(client, "fw.client.get_value", admin, doctype="Test Note", fieldname="nope",
                       filters=name), 417, "DataError")


async def test_client_set_value(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    name = await _note(ctx, title="s", count=1)
    r = await call(client, "fw.client.set_value", admin, doctype="Test Note", name=name, fieldname="count", value=7)
    doc = ok(r)["message"]
    assert doc["count"] == 7 and "body" in doc  # as_dict(): nulls kept
    r = await call(client, "fw.client.set_value", admin, doctype="Test Note", name=name,
                   fieldname=json.dumps({"count": 8, "title": "s2"}))
    assert ok(r)["message"]["count"] == 8
    for field in ("owner", "modified", "docstatus", "name", "doctype"):
        body = refused(await call(client, "fw.client.set_value", admin, doctype="Test Note", name=name,
                                  fieldname=field, value="x"), 417)
        assert body["errors"][0]["field"] == field
    refused(await client.get(f"{M}/fw.client.set_value", headers=admin.token,
                             params={"doctype": "Test Note", "name": name, "fieldname": "count", "value": "1"}),
            403)
    stored = await ctx.db.collection("test_note").find_one({"_id": name})
    assert stored["count"] == 8 and stored["title"] == "s2" and stored["owner"] == "Administrator"
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    refused(await call(client, "fw.client.set_value", reader, doctype="Test Note", name=name, fieldname="count",
                       value=1), 403, "PermissionError")


async def test_client_insert(client: httpx.AsyncClient, admin: ApiUser) -> None:
    r = await call(client, "fw.client.insert", admin, doc={"doctype": "Test Note", "title": "ins"})
    doc = ok(r)["message"]
    assert doc["title"] == "ins" and doc["doctype"] == "Test Note" and doc["body"] is None
    r = await client.post(f"{M}/fw.client.insert", headers=admin.token,
                          data={"doc": json.dumps({"doctype": "Test Note", "title": "form"})})
    assert ok(r)["message"]["title"] == "form"
    refused(await call(client, "fw.client.insert", admin, doc={"title": "no doctype"}), 417)
    refused(await call(client, "fw.client.insert", admin, doc="not json"), 417)
    refused(await call(client, "fw.client.insert", admin, doc={"doctype": "Nope", "title": "x"}), 404)


async def test_client_insert_many(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    docs = [{"doctype": "Test Note", "title": f"m{i}"} for i in range(3)]
    names = ok(await call(client, "fw.client.insert_many", admin, docs=docs))["message"]
    assert len(names) == 3 and await ctx.db.collection("test_note").count_documents({}) == 3
    too_many = [{"doctype": "Test Note", "title": f"x{i}"} for i in range(201)]
    body = refused(await call(client, "fw.client.insert_many", admin, docs=json.dumps(too_many)), 417)
    assert "200" in body["errors"][0]["message"]
    assert await ctx.db.collection("test_note").count_documents({}) == 3
    # all or nothing: a bad document rolls the earlier ones back
    mixed = [{"doctype": "Test Note", "title": "ok"}, {"doctype": "Test Note"}]
    refused(await call(client, "fw.client.insert_many", admin, docs=mixed), 417, "MandatoryError")
    assert await ctx.db.collection("test_note").count_documents({}) == 3


async def test_client_save_needs_modified(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    name = await _note(ctx, title="sv", count=1)
    current = ok(await call(client, "fw.client.get", admin, doctype="Test Note", name=name))["message"]
    body = refused(await call(client, "fw.client.save", admin, doc={"doctype": "Test Note", "name": name,
                                                                    "count": 2}), 417, "TimestampMismatchError")
    assert body["errors"][0]["field"] == "modified"
    saved = ok(await call(client, "fw.client.save", admin, doc={**current, "count": 3}))["message"]
    assert saved["count"] == 3
    refused(await call(client, "fw.client.save", admin, doc={**current, "count": 4}), 417, "TimestampMismatchError")
    assert (await ctx.db.collection("test_note").find_one({"_id": name}))["count"] == 3


async def test_client_submit_and_cancel(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await _customer(ctx, "Acme")
    doc = ok(await call(client, "fw.client.insert", admin, doc={
        "doctype": "Test Order", "customer": "Acme", "posting_date": "2024-01-02", "items": [{"item": "A"}]}))
    order = doc["message"]
    submitted = ok(await call(client, "fw.client.submit", admin, doc=order))["message"]
    assert submitted["docstatus"] == 1
    refused(await call(client, "fw.client.submit", admin, doc=submitted), 417, "DocstatusTransitionError")
    cancelled = ok(await call(client, "fw.client.cancel", admin, doctype="Test Order", name=order["name"]))
    assert cancelled["message"]["docstatus"] == 2
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    other = ok(await call(client, "fw.client.insert", admin, doc={
        "doctype": "Test Order", "customer": "Acme", "posting_date": "2024-01-02"}))["message"]
    refused(await call(client, "fw.client.submit", reader, doc=other), 403, "PermissionError")
    ok(await call(client, "fw.client.submit", admin, doc=other))
    refused(await call(client, "fw.client.cancel", reader, doctype="Test Order", name=other["name"]), 403,
            "PermissionError")


async def test_client_delete_returns_empty_body(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    name = await _note(ctx)
    assert ok(await call(client, "fw.client.delete", admin, doctype="Test Note", name=name)) == {}
    assert await ctx.db.collection("test_note").count_documents({}) == 0
    name = await _note(ctx)
    r = await client.delete(f"{M}/fw.client.delete", params={"doctype": "Test Note", "name": name},
                            headers=admin.token)
    assert ok(r) == {}
    refused(await client.get(f"{M}/fw.client.delete", params={"doctype": "Test Note", "name": "x"},
                             headers=admin.token), 403)
    refused(await call(client, "fw.client.delete", admin, doctype="Test Note", name="gone"), 404)


async def test_client_delete_needs_right(client: httpx.AsyncClient, ctx: Context) -> None:
    name = await _note(ctx)
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    refused(await call(client, "fw.client.delete", reader, doctype="Test Note", name=name), 403, "PermissionError")
    assert await ctx.db.collection("test_note").count_documents({}) == 1


async def test_client_rename_doc_repoints_links(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await _customer(ctx, "Old Co", region="North")
    note = await _note(ctx, customer="Old Co")
    order = ok(await call(client, "fw.client.insert", admin, doc={
        "doctype": "Test Order", "customer": "Old Co", "posting_date": "2024-01-02"}))["message"]
    r = await call(client, "fw.client.rename_doc", admin, doctype="Test Customer", old_name="Old Co",
                   new_name="New Co")
    assert ok(r) == {"message": "New Co"}
    refused(await client.get("/api/resource/Test Customer/Old Co", headers=admin.token), 404)
    assert ok(await client.get("/api/resource/Test Customer/New Co", headers=admin.token))["data"]["region"] == "North"
    assert (await ctx.db.collection("test_note").find_one({"_id": note}))["customer"] == "New Co"
    assert (await ctx.db.collection("test_order").find_one({"_id": order["name"]}))["customer"] == "New Co"
    refused(await client.get(f"{M}/fw.client.rename_doc", headers=admin.token, params={
        "doctype": "Test Customer", "old_name": "New Co", "new_name": "X"}), 403)


async def test_client_rename_doc_needs_rights(client: httpx.AsyncClient, ctx: Context) -> None:
    await _customer(ctx, "Keep")
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    r = await call(client, "fw.client.rename_doc", reader, doctype="Test Customer", old_name="Keep",
                   new_name="Taken")
    refused(r, 403, "PermissionError")
    assert await ctx.db.collection("test_customer").count_documents({"_id": "Keep"}) == 1


async def test_get_logged_user(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    assert ok(await client.get(f"{M}/fw.auth.get_logged_user", headers=admin.token)) == {"message": "Administrator"}
    user = await make_user(ctx, "u@example.com", [])
    assert ok(await client.get(f"{M}/fw.auth.get_logged_user", headers=user.basic)) == {"message": "u@example.com"}
    refused(await client.get(f"{M}/fw.auth.get_logged_user"), 403, "PermissionError")


async def test_generate_keys(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    user = await make_user(ctx, "u@example.com", [])
    path = "fw.core.doctype.user.user.generate_keys"
    first = ok(await call(client, path, admin, user="u@example.com"))["message"]
    assert set(first) == {"api_key", "api_secret"} and first["api_key"] == user.key
    fresh = {"Authorization": f"token {first['api_key']}:{first['api_secret']}"}
    assert ok(await client.get(f"{M}/fw.auth.get_logged_user", headers=fresh)) == {"message": "u@example.com"}
    refused(await client.get(f"{M}/fw.auth.get_logged_user", headers=user.token), 401, "AuthenticationError")
    second = ok(await call(client, path, admin, user="u@example.com"))["message"]
    assert second["api_key"] == first["api_key"] and second["api_secret"] != first["api_secret"]
    refused(await client.get(f"{M}/fw.auth.get_logged_user", headers=fresh), 401, "AuthenticationError")
    newest = {"Authorization": f"token {second['api_key']}:{second['api_secret']}"}
    assert ok(await client.get(f"{M}/fw.auth.get_logged_user", headers=newest)) == {"message": "u@example.com"}
    # System Manager only, POST only
    plain = ApiUser("u@example.com", second["api_key"], second["api_secret"])
    refused(await call(client, path, plain, user="u@example.com"), 403, "PermissionError")
    refused(await call(client, path, plain, user="Administrator"), 403, "PermissionError")
    refused(await client.get(f"{M}/{path}", params={"user": "u@example.com"}, headers=admin.token), 403)
    refused(await call(client, path, admin, user="nobody@example.com"), 404)
    refused(await call(client, path, admin, user="Guest"), 417)
    manager = await make_user(ctx, "sm@example.com", ["System Manager"])
    assert ok(await call(client, path, manager, user="u@example.com"))["message"]["api_key"] == user.key
