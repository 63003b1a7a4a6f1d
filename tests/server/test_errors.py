"""Contract §2.3: statuses per exception, Frappe's v1 error body, and bad input that never gives a 500."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.site import Site
from server.app import create_app
from server.errors import status_for
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import ok, refused, server_messages

NOTE = "/api/resource/Test Note"
ORDER = "/api/resource/Test Order"
FX = "/api/method/fwtest.http_methods"


async def _app_client(site: Site, **overrides: Any) -> httpx.AsyncClient:
    app = create_app(site.settings.model_copy(update=overrides), site=site)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, raise_app_exceptions=False),
                             base_url="http://testserver")


async def _note(ctx: Context, **values: Any) -> str:
    async with unit_of_work(ctx):
        return str((await new_doc(ctx, "Test Note", {"title": "t", **values}).insert()).name)


def check_body(body: dict[str, Any], exc_type: str, *, field: str | None = None) -> dict[str, Any]:
    """Frappe's v1 keys plus the clean `errors` list; `exc` only in developer mode."""
    assert body["exc_type"] == exc_type
    assert body["exception"].startswith(f"engine.exceptions.{exc_type}: ")
    assert "exc" not in body
    messages = server_messages(body)
    assert messages, body
    last = messages[-1]
    assert last["indicator"] == "red"
    assert last["message"]
    assert body["exception"].endswith(last["message"])
    [error] = body["errors"][:1]
    assert set(error) >= {"type", "message", "field"}
    assert error["message"] in last["message"] or last["message"] in error["message"]
    if field is not None:
        assert error["field"] == field
    return error


# -- status per exception class -----------------------------------------------------------------

def test_the_exception_tree_lists_every_class_its_parent_and_status() -> None:
    """engine/exceptions.py's docstring draws the hierarchy: each class once, under its parent (by
    the drawing's indentation), with the status server/errors.py answers it with."""
    classes = {name: cls for name, cls in vars(exc).items()
               if inspect.isclass(cls) and issubclass(cls, exc.FwError)}
    drawn: dict[str, tuple[int, int]] = {}  # name -> (column of the name, status)
    parents: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    for line in (exc.__doc__ or "").splitlines():
        match = re.match(r"^(\s*(?:[│├└─ ]*\s)?)([A-Z]\w*Error)\s+(\d{3})\s", line)
        if match is None:
            continue
        column, name = len(match.group(1)), match.group(2)
        assert name not in drawn, f"{name} drawn twice"
        drawn[name] = (column, int(match.group(3)))
        while stack and stack[-1][0] >= column:
            stack.pop()
        if stack:
            parents[name] = stack[-1][1]
        stack.append((column, name))
    assert set(drawn) == set(classes)
    for name, cls in classes.items():
        assert drawn[name][1] == status_for(cls()), name
        if cls is not exc.FwError:
            assert parents[name] == cls.__mro__[1].__name__, name


async def test_mandatory_is_417_with_field(client: httpx.AsyncClient, admin: ApiUser) -> None:
    body = refused(await client.post(NOTE, json={"count": 1}, headers=admin.token), 417, "MandatoryError")
    error = check_body(body, "MandatoryError", field="title")
    assert error["type"] == "MandatoryError" and "Title" in error["message"]


async def test_mandatory_lists_every_missing_field(client: httpx.AsyncClient, admin: ApiUser) -> None:
    body = refused(await client.post(ORDER, json={}, headers=admin.token), 417, "MandatoryError")
    fields = {e["field"] for e in body["errors"]}
    assert fields == {"customer", "posting_date"}
    assert all(e["type"] == "MandatoryError" for e in body["errors"])


async def test_validation_family_is_417(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"title": "x", "customer": "Nobody"}, "LinkValidationError", "customer"),
        ({"title": "x", "priority": -1}, "NonNegativeError", "priority"),
        ({"title": "x", "status": "Weird"}, "ValidationError", "status"),
        ({"title": "x", "email": "not-an-email"}, "ValidationError", "email"),
        ({"title": "x", "count": "lots"}, "FieldTypeError", "count"),
        ({"title": "x", "at": "yesterday"}, "FieldTypeError", "at"),
        ({"title": ["a", "list"]}, "FieldTypeError", "title"),
    ]
    for doc, exc_type, field in cases:
        body = refused(await client.post(NOTE, json=doc, headers=admin.token), 417)
        assert body["errors"][0]["field"] == field, (doc, body)
        if exc_type != "ValidationError":
            assert body["exc_type"] == exc_type, (doc, body)
    assert await ctx.db.collection("test_note").count_documents({}) == 0


async def test_unique_is_417(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await _note(ctx, code="C1")
    body = refused(await client.post(NOTE, json={"title": "x", "code": "C1"}, headers=admin.token), 417,
                   "UniqueValidationError")
    check_body(body, "UniqueValidationError", field="code")


async def test_set_only_once_is_417(client: httpx.AsyncClient, admin: ApiUser) -> None:
    await client.post("/api/resource/Test Customer", json={"customer_name": "Acme"}, headers=admin.token)
    order = ok(await client.post(ORDER, json={"customer": "Acme", "posting_date": "2024-01-01"},
                                 headers=admin.token))["data"]
    body = refused(await client.put(f"{ORDER}/{order['name']}", json={"posting_date": "2024-02-02"},
                                    headers=admin.token), 417, "CannotChangeConstantError")
    check_body(body, "CannotChangeConstantError", field="posting_date")


async def test_not_found_is_404(client: httpx.AsyncClient, admin: ApiUser) -> None:
    body = refused(await client.get(f"{NOTE}/missing", headers=admin.token), 404, "DoesNotExistError")
    check_body(body, "DoesNotExistError")
    for url in ("/api/resource/Nope", "/api/resource/Nope/x", "/api/nothing-here", "/api/v9/resource/Test Note"):
        refused(await client.get(url, headers=admin.token), 404, "DoesNotExistError")
    r = await client.post("/api/method/fw.client.get_list", json={"doctype": "Nope"}, headers=admin.token)
    refused(r, 404, "DoesNotExistError")


async def test_permission_is_403(client: httpx.AsyncClient, ctx: Context) -> None:
    name = await _note(ctx)
    nobody = await make_user(ctx, "nobody@example.com", [])
    body = refused(await client.get(f"{NOTE}/{name}", headers=nobody.token), 403, "PermissionError")
    check_body(body, "PermissionError")
    assert body["_error_message"] == body["errors"][0]["message"]


async def test_authentication_is_401(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/method/ping", headers={"Authorization": "token nokey:nosecret"})
    body = refused(r, 401, "AuthenticationError")
    check_body(body, "AuthenticationError")


async def test_duplicate_is_409(client: httpx.AsyncClient, admin: ApiUser) -> None:
    await client.post("/api/resource/Test Customer", json={"customer_name": "Dup"}, headers=admin.token)
    r = await client.post("/api/resource/Test Customer", json={"customer_name": "Dup"}, headers=admin.token)
    check_body(refused(r, 409, "DuplicateEntryError"), "DuplicateEntryError")


@pytest.mark.parametrize("raw", [b'{"title": ', b"{'title': 'x'}", b"\xff\xfe", b'{"title": "x"} trailing', b"nul\x00"])
async def test_malformed_json_body_is_400(client: httpx.AsyncClient, admin: ApiUser, ctx: Context,
                                          raw: bytes) -> None:
    headers = {**admin.token, "Content-Type": "application/json"}
    refused(await client.post(NOTE, content=raw, headers=headers), 400, "BadRequestError")
    refused(await client.post("/api/method/fw.client.insert", content=raw, headers=headers), 400, "BadRequestError")
    assert await ctx.db.collection("test_note").count_documents({}) == 0


async def test_malformed_data_form_field_is_400(client: httpx.AsyncClient, admin: ApiUser) -> None:
    refused(await client.post(NOTE, data={"data": "{not json"}, headers=admin.token), 400, "BadRequestError")
    refused(await client.post(NOTE, data={"data": "[1, 2]"}, headers=admin.token), 417, "DataError")


@pytest.mark.parametrize("header", ["token", "token abc", "token :", "Basic !!!notbase64", "Basic " + "YWJj",
                                    "Bearer", "token a:b:c" + "x" * 300, "Basic", "\u00e9t\u00e9 x"])
async def test_malformed_authorization_header(client: httpx.AsyncClient, header: str) -> None:
    r = await client.get("/api/method/ping", headers={"Authorization": header.encode("utf-8")})
    assert r.status_code in (400, 401), r.text
    body = refused(r, r.status_code)
    assert body["exc_type"] in ("CSRFTokenError", "AuthenticationError", "BadRequestError")


async def test_authorization_header_without_colon_is_400(client: httpx.AsyncClient) -> None:
    refused(await client.get("/api/method/ping", headers={"Authorization": "token abc"}), 400)
    refused(await client.get("/api/method/ping", headers={"Authorization": "Basic !!!"}), 400)


@pytest.fixture
async def small(site: Site) -> AsyncIterator[httpx.AsyncClient]:
    async with await _app_client(site, max_body_bytes=100) as c:
        yield c


async def test_body_over_limit_is_413(small: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    big = {"title": "x" * 500}
    r = await small.post(NOTE, json=big, headers=admin.token)
    body = refused(r, 413)
    assert body["exc_type"] == "RequestEntityTooLarge"
    assert "100" in server_messages(body)[-1]["message"]

    async def stream() -> AsyncIterator[bytes]:  # no Content-Length: counted while it arrives
        yield b'{"title": "'
        for _ in range(20):
            yield b"y" * 20
        yield b'"}'

    r = await small.post(NOTE, content=stream(), headers={**admin.token, "Content-Type": "application/json"})
    refused(r, 413)
    assert await ctx.db.collection("test_note").count_documents({}) == 0
    assert ok(await small.post(NOTE, json={"title": "small"}, headers=admin.token))["data"]["title"] == "small"


async def test_login_lockout_is_429(client: httpx.AsyncClient, ctx: Context) -> None:
    await make_user(ctx, "lock@example.com", [])
    for _ in range(10):
        refused(await client.post("/api/method/login", data={"usr": "lock@example.com", "pwd": "bad"}), 401)
    r = await client.post("/api/method/login", data={"usr": "lock@example.com", "pwd": "bad"})
    body = refused(r, 429, "TooManyRequestsError")
    assert r.headers["retry-after"]
    check_body(body, "TooManyRequestsError")


# -- body shape ---------------------------------------------------------------------------------------

async def test_server_messages_is_twice_encoded(client: httpx.AsyncClient, admin: ApiUser) -> None:
    r = await client.post(NOTE, json={}, headers=admin.token)
    raw = r.json()["_server_messages"]
    assert isinstance(raw, str) and isinstance(json.loads(raw), list)
    inner = json.loads(raw)[0]
    assert isinstance(inner, str)
    assert json.loads(inner)["message"] == "Title is mandatory"
    assert json.loads(inner)["indicator"] == "red"


async def test_exc_only_in_developer_mode(site: Site, admin: ApiUser) -> None:
    async with await _app_client(site, developer_mode=True) as dev:
        body = refused(await dev.post(NOTE, json={}, headers=admin.token), 417, "MandatoryError")
        traceback = json.loads(body["exc"])
        assert isinstance(traceback, list) and "Traceback" in traceback[0]
    async with await _app_client(site, developer_mode=False) as prod:
        body = refused(await prod.post(NOTE, json={}, headers=admin.token), 417, "MandatoryError")
        assert "exc" not in body


async def test_server_bug_is_500_without_details(site: Site) -> None:
    async with await _app_client(site) as prod:
        r = await prod.get(f"{FX}.crash")
        assert r.status_code == 500
        assert "boom" not in r.text and "internal detail" not in r.text and "Traceback" not in r.text
        assert r.json()["exc_type"] == "InternalServerError"
    async with await _app_client(site, developer_mode=True) as dev:
        r = await dev.get(f"{FX}.crash")
        assert r.status_code == 500 and "boom" in r.json()["exc"]


async def test_hook_msgprint_reaches_resource_responses(client: httpx.AsyncClient, admin: ApiUser) -> None:
    r = await client.post(NOTE, json={"title": "announce"}, headers=admin.token)
    body = ok(r)
    assert body["data"]["title"] == "announce"
    assert server_messages(body) == [{"message": "Announced", "indicator": "green", "title": "Note", "alert": 1}]
    r = await client.put(f"{NOTE}/{body['data']['name']}", json={"count": 1}, headers=admin.token)
    assert len(server_messages(ok(r))) == 1
    # and a message printed before a failure is kept in front of the error's own message
    r = await client.put(f"{NOTE}/{body['data']['name']}", json={"customer": "Nobody"}, headers=admin.token)
    messages = server_messages(refused(r, 417, "LinkValidationError"))
    assert messages[0]["message"] == "Announced" and messages[-1]["indicator"] == "red"
    ok_body = ok(await client.get(f"{NOTE}/{body['data']['name']}", headers=admin.token))
    assert "_server_messages" not in ok_body and ok_body["data"]["count"] == 1


async def test_msgprints_before_an_error_are_kept(client: httpx.AsyncClient) -> None:
    body = refused(await client.get(f"{FX}.refuse", params={"reason": "because"}), 417, "ValidationError")
    error = check_body(body, "ValidationError", field="reason")
    assert error["message"] == "Refused by the fixture: because"


# -- queries: unknown fields and operator injection ----------------------------------------------------

@pytest.mark.parametrize("params", [
    {"fields": '["no_such_field"]'},
    {"fields": '["title", "password"]'},
    {"fields": '["_password_hash"]'},
    {"fields": '["$title"]'},
    {"fields": '["title.x"]'},
    {"fields": '["count(no_such) as c"]'},
    {"filters": '{"no_such_field": 1}'},
    {"filters": '[["no_such_field", "=", 1]]'},
    {"filters": '[["Test Order Item", "item", "=", "x"]]'},
    {"filters": '[["title", "regex", "x"]]'},
    {"filters": '{"$where": "sleep(100)"}'},
    {"filters": '{"_id": "x"}'},
    {"or_filters": '[["nope", "=", 1]]'},
    {"order_by": "no_such_field desc"},
    {"order_by": "$natural"},
    {"order_by": "title sideways"},
    {"group_by": "no_such_field"},
])
async def test_unknown_fields_in_queries_are_417(client: httpx.AsyncClient, admin: ApiUser, ctx: Context,
                                                 params: dict[str, str]) -> None:
    await _note(ctx, title="visible")
    body = refused(await client.get(NOTE, params=params, headers=admin.token), 417)
    assert body["exc_type"] == "DataError", body  # exactly that class (contract §2.1)
    assert "visible" not in json.dumps(body)
    if "no_such_field" in json.dumps(params):
        assert "no_such_field" in body["errors"][0]["message"]
    r = await client.get("/api/method/fw.client.get_list", params={"doctype": "Test Note", **params},
                         headers=admin.token)
    refused(r, 417, "DataError")


@pytest.mark.parametrize("filters", [
    {"title": {"$ne": None}},
    {"title": ["=", {"$ne": None}]},
    [["title", "=", {"$ne": None}]],
    [["title", "in", [{"$gt": ""}]]],
    [["title", "like", {"$regex": ".*"}]],
    [["count", ">", {"$gt": -1}]],
    {"title": ["not in", {"$exists": True}]},
])
async def test_operator_values_are_rejected(client: httpx.AsyncClient, admin: ApiUser, ctx: Context,
                                            filters: Any) -> None:
    await _note(ctx, title="secret-title", count=3)
    for path, params in ((NOTE, {"filters": json.dumps(filters), "fields": '["title"]'}),
                         ("/api/method/fw.client.get_list", {"doctype": "Test Note", "filters": json.dumps(filters),
                                                             "fields": '["title"]'}),
                         ("/api/method/fw.client.get_count", {"doctype": "Test Note",
                                                              "filters": json.dumps(filters)})):
        r = await client.get(path, params=params, headers=admin.token)
        body = refused(r, 417)
        assert "secret-title" not in r.text
        assert body["exc_type"] in ("DataError", "ValidationError"), body
    r = await client.post("/api/method/fw.client.get_value", headers=admin.token,
                          json={"doctype": "Test Note", "fieldname": "title", "filters": filters})
    refused(r, 417)
    assert "secret-title" not in r.text


@pytest.mark.parametrize("doc", [
    {"title": "x", "$set": {"owner": "evil"}},
    {"title": "x", "a.b": 1},
    {"title": "x", "count.$": 1},
    {"title": {"$gt": ""}},
    {"title": "x", "count": {"$inc": 1}},
    {"title": "x", "_id": "forced"},
    {"title": "x", "docstatus": {"$ne": 0}},
])
async def test_operator_and_dotted_keys_in_documents_are_417(client: httpx.AsyncClient, admin: ApiUser,
                                                             ctx: Context, doc: dict[str, Any]) -> None:
    refused(await client.post(NOTE, json=doc, headers=admin.token), 417)
    assert await ctx.db.collection("test_note").count_documents({}) == 0
    name = await _note(ctx, title="before")
    refused(await client.put(f"{NOTE}/{name}", json=doc, headers=admin.token), 417)
    stored = await ctx.db.collection("test_note").find_one({"_id": name})
    assert stored["title"] == "before" and stored["owner"] == "Administrator" and "$set" not in stored


async def test_operator_keys_in_child_rows_are_417(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await client.post("/api/resource/Test Customer", json={"customer_name": "Acme"}, headers=admin.token)
    for row in ({"item": "A", "$inc": {"qty": 1}}, {"item": "A", "qty.x": 1}, {"item": {"$ne": None}}):
        r = await client.post(ORDER, json={"customer": "Acme", "posting_date": "2024-01-01", "items": [row]},
                              headers=admin.token)
        refused(r, 417)
    for items in ("not a list", [1, 2], [["item", "A"]]):
        r = await client.post(ORDER, json={"customer": "Acme", "posting_date": "2024-01-01", "items": items},
                              headers=admin.token)
        refused(r, 417)
    assert await ctx.db.collection("test_order").count_documents({}) == 0


async def test_json_field_with_operator_keys_never_500(client: httpx.AsyncClient, admin: ApiUser) -> None:
    for config in ({"$where": "1"}, {"a.b": 2}, {"ok": [{"$set": 1}]}):
        r = await client.post(NOTE, json={"title": "x", "config": config}, headers=admin.token)
        body = refused(r, 417, "FieldTypeError")
        assert body["errors"][0]["field"] == "config"
    doc = ok(await client.post(NOTE, json={"title": "x", "config": {"a": {"b": [1, "$x"]}}}, headers=admin.token))
    assert doc["data"]["config"] == {"a": {"b": [1, "$x"]}}  # `$` in values is plain data


@pytest.mark.parametrize("path", [
    "/api/resource/..%2F..%2Fetc",
    "/api/resource/%2e%2e",
    "/api/resource/%2e%2e/user",
    "/api/resource/$cmd",
    "/api/resource/$cmd/x",
    "/api/resource/system.users",
    "/api/resource/_fw_sessions",
    "/api/resource/_fw_state/secret_key",
    "/api/resource/user",
    "/api/resource/Test%20Note%00",
    "/api/resource/test_note",
])
async def test_path_tricks_in_doctype_are_404(client: httpx.AsyncClient, admin: ApiUser, path: str) -> None:
    r = await client.get(path, headers=admin.token)
    body = refused(r, 404, "DoesNotExistError")
    assert "secret" not in json.dumps(body).replace("secret_key", "")
    refused(await client.post(path, json={"x": 1}, headers=admin.token), 404)


async def test_name_tricks_are_404_or_417(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await _note(ctx)
    for name in ("..", "../..", "$ne", "{\"$ne\": null}", "%00", "a" * 300):
        r = await client.get(f"{NOTE}/{name}", headers=admin.token)
        assert r.status_code in (404, 417), (name, r.status_code, r.text)
        refused(r, r.status_code)


@pytest.mark.parametrize("method, path", [
    ("PATCH", NOTE), ("DELETE", NOTE), ("PUT", NOTE), ("PATCH", f"{NOTE}/x"),
])  # (OPTIONS answers an empty 200 with Allow, as Frappe does: tests/server/test_limits.py)
async def test_wrong_http_method_is_405_json(client: httpx.AsyncClient, admin: ApiUser, method: str,
                                             path: str) -> None:
    r = await client.request(method, path, headers=admin.token)
    body = refused(r, 405)
    assert body["exc_type"] and body["_server_messages"]
    allowed = {m.strip() for m in r.headers["allow"].split(",")}
    expected = {"GET", "POST"} if path == NOTE else {"GET", "PUT", "DELETE", "POST"}
    assert expected <= allowed, allowed


# -- translations ------------------------------------------------------------------------------------

async def test_accept_language_parent_catalog(client: httpx.AsyncClient) -> None:
    r = await client.get(f"{FX}.refuse", params={"reason": "X"}, headers={"Accept-Language": "de-AT,de;q=0.9"})
    body = refused(r, 417, "ValidationError")
    assert body["errors"][0]["message"] == "Von der Testanwendung abgelehnt: X"
    assert server_messages(body)[-1]["message"] == "Von der Testanwendung abgelehnt: X"
    r = await client.get(f"{FX}.refuse", params={"reason": "X"}, headers={"Accept-Language": "fr-FR, en;q=0.5"})
    assert refused(r, 417)["errors"][0]["message"] == "Refused by the fixture: X"
    r = await client.get(f"{FX}.refuse", params={"reason": "X"})
    assert refused(r, 417)["errors"][0]["message"] == "Refused by the fixture: X"


async def test_engine_messages_translated(client: httpx.AsyncClient, admin: ApiUser) -> None:
    # contract §2.5: the framework's own de catalog (engine/translations/de.csv) translates both the
    # message and the field label ("Title" is a label of the core doctypes too)
    r = await client.post(NOTE, json={"count": 1}, headers={**admin.token, "Accept-Language": "de"})
    body = refused(r, 417, "MandatoryError")
    assert body["errors"][0]["message"] == "Titel ist ein Pflichtfeld"
    assert body["exc_type"] == "MandatoryError"


async def test_msgprint_translated(client: httpx.AsyncClient, admin: ApiUser) -> None:
    body = ok(await client.post(f"{FX}.notify", headers={**admin.token, "Accept-Language": "de-DE"}))
    assert server_messages(body)[0]["message"] == "Gespeichert"


async def test_user_language_wins_over_header(client: httpx.AsyncClient, ctx: Context) -> None:
    user = await make_user(ctx, "de@example.com", [])
    async with unit_of_work(ctx):
        await ctx.db.collection("user").update_one({"_id": "de@example.com"}, {"$set": {"language": "de"}})
    ctx.site.forget_roles("de@example.com")
    r = await client.get(f"{FX}.refuse", params={"reason": "Y"}, headers={**user.token, "Accept-Language": "en-US"})
    assert refused(r, 417)["errors"][0]["message"] == "Von der Testanwendung abgelehnt: Y"
    en_user = await make_user(ctx, "en@example.com", [])
    async with unit_of_work(ctx):
        await ctx.db.collection("user").update_one({"_id": "en@example.com"}, {"$set": {"language": "en"}})
    ctx.site.forget_roles("en@example.com")
    r = await client.get(f"{FX}.refuse", params={"reason": "Y"}, headers={**en_user.token, "Accept-Language": "de"})
    assert refused(r, 417)["errors"][0]["message"] == "Refused by the fixture: Y"


async def test_json_field_list_values_round_trip(site: Site, admin: ApiUser) -> None:
    async with await _app_client(site) as c:
        r = await c.post(NOTE, json={"title": "x", "config": [{"a": None, "b": 1}, []]}, headers=admin.token)
        assert r.status_code == 200, r.text
        doc = ok(await c.get(f"{NOTE}/{r.json()['data']['name']}", headers=admin.token))["data"]
        assert doc["config"] == [{"a": None, "b": 1}, []]


# -- request bodies beyond a limit: a clear client error, nothing written --------------------------

def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


async def test_json_body_nested_beyond_the_limit_is_400(client: httpx.AsyncClient, admin: ApiUser,
                                                        ctx: Context) -> None:
    """A JSON body may nest MAX_JSON_BODY_DEPTH levels (the outermost object counts): deeper, whatever the
    route, is a 400 naming the limit (a function echoing a 300-level body made orjson's encoder fail: 500)."""
    from server.params import MAX_JSON_BODY_DEPTH as LIMIT

    h = {**admin.token, "Content-Type": "application/json"}
    echoed = ok(await client.post(f"{FX}.echo", content='{"a": ' + _nested(LIMIT - 1) + "}", headers=h))
    assert echoed["message"]["a"] == json.loads(_nested(LIMIT - 1))
    assert ok(await client.post(f"{FX}.echo", content=_nested(LIMIT), headers=h))["message"] == {
        "data": json.loads(_nested(LIMIT))}  # a list body is `data`
    # an object nested as deep as a list (and a deep item after shallow ones) counts the same
    too_deep = ['{"a": ' + _nested(LIMIT) + "}", _nested(LIMIT + 1),
                '{"a": ' + '{"b": ' * LIMIT + "1" + "}" * LIMIT + "}",
                '{"a": [1, "[[[[", [[]], ' + _nested(LIMIT - 1) + "]}", '{"a": ' + _nested(300) + "}",
                '{"a": ' + _nested(5000) + "}"]  # (orjson's own limit is 1024 levels)
    for body in too_deep:
        for path in (f"{FX}.echo", NOTE, "/api/v2/document/Test Note", "/api/method/fw.client.insert"):
            r = await client.post(path, content=body, headers=h)
            assert r.status_code == 400, (path, body[:40], r.text[:300])
            if not path.startswith("/api/v2/"):
                error = check_body(refused(r, 400, "BadRequestError"), "BadRequestError")
                assert str(LIMIT) in error["message"] and "nested" in error["message"]
    assert await ctx.db.collection("test_note").count_documents({}) == 0
    # a JSON field holds its own 64 levels within a document: well inside the body's limit
    config = json.loads(_nested(64))
    name = ok(await client.post(NOTE, json={"title": "deep", "config": config}, headers=admin.token))["data"]["name"]
    assert ok(await client.get(f"{NOTE}/{name}", headers=admin.token))["data"]["config"] == config


async def test_documents_and_queries_over_the_mongodb_limit_are_413(client: httpx.AsyncClient, admin: ApiUser,
                                                                    ctx: Context) -> None:
    """MongoDB stores and takes at most 16 MB per document or command, below the 25 MiB body limit: pymongo's
    DocumentTooLarge is DocumentTooLargeError (413), and whatever the request began to write is rolled back."""
    name = await _note(ctx, title="small", body="unchanged")
    values = [f"{i:06d}" + "x" * 1000 for i in range(20_000)]  # about 20 MB of `in` values
    queries = [
        ("get_list in", "/api/method/fw.client.get_list",
         {"doctype": "Test Note", "filters": [["title", "in", values]]}),
        ("get_list grouped", "/api/method/fw.client.get_list",
         {"doctype": "Test Note", "fields": ["title", "count(name) as n"], "group_by": "title",
          "filters": [["title", "in", values]]}),
        ("get_count not in", "/api/method/fw.client.get_count",
         {"doctype": "Test Note", "filters": [["title", "not in", values]]}),
        ("get_value or", "/api/method/fw.client.get_value",
         {"doctype": "Test Note", "fieldname": "title", "filters": {"body": ["in", values]}}),
    ]
    for label, path, body in queries:
        r = await client.post(path, json=body, headers=admin.token)
        error = check_body(refused(r, 413, "DocumentTooLargeError"), "DocumentTooLargeError")
        assert "16 MB" in error["message"], (label, error)
    big = "y" * 20_000_000
    for r in (await client.post(NOTE, json={"title": "big", "body": big}, headers=admin.token),
              await client.post("/api/method/fw.client.insert_many", headers=admin.token, json={"docs": [
                  {"doctype": "Test Note", "title": "first, small"},
                  {"doctype": "Test Note", "title": "b", "body": big}]}),
              await client.put(f"{NOTE}/{name}", json={"body": big}, headers=admin.token)):
        error = check_body(refused(r, 413, "DocumentTooLargeError"), "DocumentTooLargeError")
        assert error["message"].startswith("Test Note: ")
    r = await client.post("/api/v2/document/Test Note", json={"title": "big", "body": big}, headers=admin.token)
    assert r.status_code == 413 and r.json()["errors"][0]["type"] == "DocumentTooLargeError"
    rows = await ctx.db.collection("test_note").find({}, {"title": 1, "body": 1}).to_list(None)
    assert [(row["title"], row["body"]) for row in rows] == [("small", "unchanged")]

