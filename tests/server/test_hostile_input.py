"""Hostile clients: malformed, oversized and adversarial input, and attempts to widen permissions.

Every test asserts the safe behaviour. The first section holds the weaknesses a security review found
(each failed before its fix: permlevels of child rows, aliases as sort keys, rename rights, lockout
names, deep JSON, huge regexes, unreadable ranges, documents over MongoDB's limit); the second the
attack classes the server handled already.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from engine.context import Context, unit_of_work
from engine.documents.factory import get_doc, new_doc
from engine.migrate import sync_doctype
from engine.site import Site
from server.app import create_app
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import insert_notes, ok, refused
from tests.support.custom_fields import drop_custom_fields

NOTE = "/api/resource/Test Note"
ORDER = "/api/resource/Test Order"
M = "/api/method"
ORDER_DOCTYPES = ("Test Order", "Test Order Item", "Test Customer")


def _app_client(site: Site, ip: str = "127.0.0.1") -> httpx.AsyncClient:
    """A client that answers a crash with its 500 instead of raising it into the test."""
    app = create_app(site.settings, site=site)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, raise_app_exceptions=False, client=(ip, 40000)),
                             base_url="http://testserver")


@pytest.fixture
async def hc(site: Site) -> AsyncIterator[httpx.AsyncClient]:
    async with _app_client(site) as c:
        yield c


def no_crash(r: httpx.Response) -> httpx.Response:
    assert r.status_code < 500, f"client input answered {r.status_code}: {r.text[:1000]}"
    return r


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


async def _reader_and_notes(ctx: Context) -> tuple[ApiUser, list[str]]:
    """A Test Reader (permlevel 0 only) and three notes whose permlevel-1 `reviewer_note`s sort b < c < a."""
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    names = await insert_notes(ctx, {"title": "a", "reviewer_note": "zzz-hidden", "secret": "pw-a"},
                               {"title": "b", "reviewer_note": "aaa-hidden", "secret": "pw-b"},
                               {"title": "c", "reviewer_note": "mmm-hidden", "secret": "pw-c"})
    return reader, names


@pytest.fixture
async def child_levels(ctx: Context) -> AsyncIterator[Context]:
    """Test Order Item gets `unit_cost` and Test Order `internal_cost`, both Custom Fields at permlevel 1:
    above what Test Reader and System Manager (permlevel 0 rows only) may read or write."""
    for doctype in ORDER_DOCTYPES:
        await sync_doctype(ctx.site, doctype)
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
        await new_doc(ctx, "Custom Field", dt="Test Order Item", fieldname="unit_cost", fieldtype="Currency",
                      label="Unit Cost", permlevel=1).insert()
        await new_doc(ctx, "Custom Field", dt="Test Order", fieldname="internal_cost", fieldtype="Currency",
                      label="Internal Cost", permlevel=1).insert()
    yield ctx
    await drop_custom_fields(ctx.site, ORDER_DOCTYPES)


async def _order_with_hidden_child_value(ctx: Context) -> str:
    """An order whose row's `unit_cost` went 4242 → 5151 (Test Order tracks changes: a Version holds both)."""
    async with unit_of_work(ctx):
        order = await new_doc(ctx, "Test Order", customer="Acme", posting_date="2024-05-01",
                              items=[{"item": "A", "qty": 1, "rate": 5, "unit_cost": 4242}]).insert()
    async with unit_of_work(ctx):
        order = await get_doc(ctx, "Test Order", order.name)
        order.items[0].unit_cost = 5151
        await order.save()
    return str(order.name)


# =====================================================================================================
# Weaknesses the review found (fixed; each test failed before its fix)
# =====================================================================================================

async def test_order_by_an_alias_sorts_by_its_source_never_by_a_hidden_field(hc: httpx.AsyncClient,
                                                                              admin: ApiUser, ctx: Context) -> None:
    """`order_by` an output alias means that column (SQL's ORDER BY alias). It used to sort MongoDB by the
    stored field of that name: `name as reviewer_note` + `order_by=reviewer_note` ordered the rows by a
    permlevel-1 field the reader may not even filter on (and `name as secret` by a Password hash)."""
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    hidden = ["fff", "aaa", "eee", "bbb", "ddd", "ccc"]  # six rows: a chance match with name order is 1 in 720
    names = await insert_notes(ctx, *({"title": f"t{i}", "reviewer_note": h, "secret": f"pw-{h}"}
                                      for i, h in enumerate(hidden)))
    by_name = [f"t{names.index(n)}" for n in sorted(names)]
    params = {"fields": '["title", "name as reviewer_note"]', "order_by": "reviewer_note asc"}
    for path in (NOTE, "/api/v2/document/Test Note"):
        r = await hc.get(path, params=params, headers=reader.token)
        assert r.status_code == 200, (path, r.status_code, r.text[:500])
        assert [row["title"] for row in r.json()["data"]] == by_name, path
    r = await hc.post(f"{M}/fw.client.get_list", headers=reader.token, json={
        "doctype": "Test Note", "fields": ["title", "name as reviewer_note"], "order_by": "reviewer_note desc"})
    assert [row["title"] for row in r.json()["message"]] == by_name[::-1]
    # a Password field is never a sort key (order_by=secret is refused), under an alias neither
    r = await hc.get(NOTE, params={"fields": '["title", "name as secret"]', "order_by": "secret"},
                     headers=admin.token)
    assert [row["title"] for row in r.json()["data"]] == by_name
    refused(await hc.get(NOTE, params={"order_by": "secret"}, headers=admin.token), 417, "DataError")
    # an alias of a child column is no sort key for a plain list (the table field itself is not either)
    refused(await hc.get("/api/resource/Test Order", params={"fields": '["items.qty as q"]', "order_by": "q"},
                         headers=admin.token), 417, "DataError")


async def test_child_fields_above_permlevel_are_never_returned(hc: httpx.AsyncClient, child_levels: Context) -> None:
    """`readable_dict` and `get_list` drop parent fields above the caller's permlevels but hand out child rows
    whole: a row's permlevel-1 `unit_cost` reaches a Test Reader through every read path (Frappe strips
    child fields by the parent's permlevels too)."""
    ctx = child_levels
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    name = await _order_with_hidden_child_value(ctx)
    h = reader.token
    responses = {
        "v1 get": await hc.get(f"{ORDER}/{name}", headers=h),
        "v2 get": await hc.get(f"/api/v2/document/Test Order/{name}", headers=h),
        "v2 copy": await hc.get(f"/api/v2/document/Test Order/{name}/copy", headers=h),
        "client.get": await hc.get(f"{M}/fw.client.get", params={"doctype": "Test Order", "name": name}, headers=h),
        "getdoc": await hc.get(f"{M}/fw.desk.form.load.getdoc", params={"doctype": "Test Order", "name": name},
                               headers=h),
        "list items": await hc.get(ORDER, params={"fields": '["name", "items"]'}, headers=h),
    }
    leaks = []
    for label, r in responses.items():
        assert r.status_code == 200, (label, r.status_code, r.text[:500])
        assert "internal_cost" not in r.text, label  # the parent's own permlevel-1 field is dropped
        if "5151" in r.text or "4242" in r.text or "unit_cost" in r.text:
            leaks.append(label)
    assert leaks == [], f"permlevel-1 child field returned by: {leaks}"


async def test_child_fields_above_permlevel_cannot_be_queried(hc: httpx.AsyncClient, child_levels: Context) -> None:
    """As a column (`items.unit_cost`), a child filter or a count, a hidden child field is an oracle."""
    ctx = child_levels
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    await _order_with_hidden_child_value(ctx)
    h = reader.token
    for params in ({"fields": '["name", "items.unit_cost"]'},
                   {"filters": '[["Test Order Item", "unit_cost", ">", 5000]]'},
                   {"or_filters": '[["Test Order Item", "unit_cost", "=", 5151]]'}):
        r = await hc.get(ORDER, params=params, headers=h)
        refused(r, 417, "DataError")
        assert "5151" not in r.text
    r = await hc.get(f"{M}/fw.client.get_count", headers=h, params={
        "doctype": "Test Order", "filters": '[["Test Order Item", "unit_cost", ">", 5000]]'})
    refused(r, 417, "DataError")


async def test_child_fields_above_permlevel_cannot_be_written(hc: httpx.AsyncClient, child_levels: Context) -> None:
    """`guard_field_writes` checks the parent's fields only: a System Manager (permlevel 0 on Test Order) is
    refused `internal_cost` but writes the same level's `unit_cost` in a row."""
    ctx = child_levels
    manager = await make_user(ctx, "sm@example.com", ["System Manager"])
    body = {"customer": "Acme", "posting_date": "2024-05-01", "items": [{"item": "A", "qty": 1}]}
    refused(await hc.post(ORDER, json={**body, "internal_cost": 5}, headers=manager.token), 403, "PermissionError")
    r = await hc.post(ORDER, json={**body, "items": [{"item": "A", "qty": 1, "unit_cost": 99}]},
                      headers=manager.token)
    refused(r, 403, "PermissionError")
    assert await ctx.db.collection("test_order").count_documents({"items.unit_cost": 99}) == 0


async def test_rows_sent_back_as_read_keep_their_hidden_values(hc: httpx.AsyncClient, child_levels: Context) -> None:
    """A PUT replaces the table with the rows the client could see: the row values it could not see
    (above its permlevels) keep their stored values; sending a different one is refused."""
    ctx = child_levels
    manager = await make_user(ctx, "sm@example.com", ["System Manager"])
    name = await _order_with_hidden_child_value(ctx)
    seen = ok(await hc.get(f"{ORDER}/{name}", headers=manager.token))["data"]
    assert "unit_cost" not in seen["items"][0]
    rows = [{**seen["items"][0], "qty": 7}, {"item": "B", "qty": 1, "rate": 2}]  # one edited, one new
    ok(await hc.put(f"{ORDER}/{name}", json={"items": rows}, headers=manager.token))
    record = await ctx.db.collection("test_order").find_one({"_id": name})
    assert [(r["item"], r["qty"], r.get("unit_cost")) for r in record["items"]] == [("A", 7, 5151), ("B", 1, 0)]
    for changed in ({**seen["items"][0], "unit_cost": 1}, {**seen["items"][0], "unit_cost": None}):
        refused(await hc.put(f"{ORDER}/{name}", json={"items": [changed]}, headers=manager.token), 403,
                "PermissionError")
    assert (await ctx.db.collection("test_order").find_one({"_id": name}))["items"][0]["unit_cost"] == 5151
    # dropping a row is a level-0 write of the table: allowed, hidden values go with the row
    ok(await hc.put(f"{ORDER}/{name}", json={"items": [rows[1]]}, headers=manager.token))


async def test_rename_merge_needs_rights_on_the_target(hc: httpx.AsyncClient, ctx: Context) -> None:
    """`rename(merge=True)` checks write on the old document only. A Test Owner (if_owner) merges their note
    into Administrator's, which they can neither read nor write: their attachment lands on it."""
    owner = await make_user(ctx, "owner@example.com", ["Test Owner"])
    [target] = await insert_notes(ctx, {"title": "Administrator's"})
    refused(await hc.get(f"{NOTE}/{target}", headers=owner.token), 403, "PermissionError")
    mine = ok(await hc.post(NOTE, json={"title": "mine"}, headers=owner.token))["data"]["name"]
    ok(await hc.post(f"{M}/upload_file", headers=owner.token, files={"file": ("planted.txt", b"planted")},
                     data={"doctype": "Test Note", "docname": mine}))
    r = await hc.post(f"{M}/fw.client.rename_doc", headers=owner.token,
                      json={"doctype": "Test Note", "old_name": mine, "new_name": target, "merge": 1})
    refused(r, 403, "PermissionError")  # today: 200
    assert await ctx.db.collection("test_note").count_documents({"_id": mine}) == 1
    assert await ctx.db.collection("file").count_documents({"attached_to_name": target}) == 0


async def test_rename_merge_needs_the_delete_right(hc: httpx.AsyncClient, ctx: Context) -> None:
    """A merge deletes the old document (without its hooks): Test Reviewer may not delete a Test Review, but
    merges it away."""
    reviewer = await make_user(ctx, "rev@example.com", ["Test Reviewer"])
    a = ok(await hc.post("/api/resource/Test Review", json={"title": "A"}, headers=reviewer.token))["data"]["name"]
    b = ok(await hc.post("/api/resource/Test Review", json={"title": "B"}, headers=reviewer.token))["data"]["name"]
    refused(await hc.delete(f"/api/resource/Test Review/{a}", headers=reviewer.token), 403, "PermissionError")
    r = await hc.post(f"{M}/fw.client.rename_doc", headers=reviewer.token,
                      json={"doctype": "Test Review", "old_name": a, "new_name": b, "merge": 1})
    refused(r, 403, "PermissionError")  # today: 200, and A is gone
    assert await ctx.db.collection("test_review").count_documents({"_id": a}) == 1


async def test_a_user_cannot_rename_their_account_onto_another_identity(hc: httpx.AsyncClient, admin: ApiUser,
                                                                       ctx: Context) -> None:
    """A user may write their own User record, and rename_doc asks for nothing more: Mallory renames herself
    to a deleted user's name and, through her API key, owns that user's notes (Frappe needs write on the
    User doctype to rename, which plain users never have)."""
    gone = await make_user(ctx, "gone@example.com", ["Test Owner"])
    mallory = await make_user(ctx, "mallory@example.com", ["Test Owner"])
    ok(await hc.post(NOTE, json={"title": "gone's private note"}, headers=gone.token))
    ok(await hc.delete("/api/resource/User/gone@example.com", headers=admin.token), 202)
    r = await hc.post(f"{M}/fw.client.rename_doc", headers=mallory.token,
                      json={"doctype": "User", "old_name": "mallory@example.com", "new_name": "gone@example.com"})
    ctx.site.sessions.forget_all()  # as the 2-second API-key cache would after its expiry
    refused(r, 403, "PermissionError")  # today: 200
    rows = ok(await hc.get(NOTE, params={"fields": '["title"]'}, headers=mallory.token))["data"]
    assert rows == []


async def test_standard_users_cannot_be_renamed(hc: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    """Deleting Administrator or Guest is refused, renaming them is not; a System Manager then renames itself
    to "Administrator" and gets Administrator's unlimited rights (permlevel-1 fields included)."""
    manager = await make_user(ctx, "sm@example.com", ["System Manager"])
    [note] = await insert_notes(ctx, {"title": "t", "reviewer_note": "level-one"})
    for user in ("Administrator", "Guest"):
        r = await hc.post(f"{M}/fw.client.rename_doc", headers=manager.token,
                          json={"doctype": "User", "old_name": user, "new_name": f"x-{user.lower()}@example.com"})
        assert 400 <= r.status_code < 500, (user, r.status_code, r.text[:300])  # today: 200
        assert await ctx.db.collection("user").count_documents({"_id": user}) == 1, user
    await hc.post(f"{M}/fw.client.rename_doc", headers=manager.token,
                  json={"doctype": "User", "old_name": "sm@example.com", "new_name": "Administrator"})
    ctx.site.sessions.forget_all()
    ctx.site.forget_roles()
    assert "level-one" not in (await hc.get(f"{NOTE}/{note}", headers=manager.token)).text


async def test_login_lockout_covers_the_email_alias(site: Site) -> None:
    """The per-user lock is keyed by the name typed, but Administrator also logs in as admin@example.com:
    after ten failures (from ten addresses) "Administrator" is locked, the alias still lets guesses in."""
    for i in range(10):
        async with _app_client(site, f"10.0.0.{i}") as c:
            refused(await c.post(f"{M}/login", data={"usr": "Administrator", "pwd": f"wrong-{i}"}), 401)
    async with _app_client(site, "10.0.1.1") as c:
        refused(await c.post(f"{M}/login", data={"usr": "Administrator", "pwd": "admin"}), 429)
    async with _app_client(site, "10.0.1.2") as c:
        r = await c.post(f"{M}/login", data={"usr": "admin@example.com", "pwd": "admin"})
        refused(r, 429, "TooManyRequestsError")  # today: 200 Logged In


@pytest.mark.parametrize("params", [
    {"filters": deep(5000)},
    {"or_filters": deep(5000)},
    {"fields": deep(5000)},
])
async def test_deeply_nested_query_json_is_417(hc: httpx.AsyncClient, admin: ApiUser, params: dict[str, str]) -> None:
    """`json.loads` of a query-string filter raises RecursionError (not ValueError): a 500."""
    r = no_crash(await hc.get(NOTE, params=params, headers=admin.token))
    refused(r, 417)


@pytest.mark.parametrize("filters", [
    '[["title", "in", ' + deep(990) + "]]",
    '[["title", "=", ' + deep(990) + "]]",
])
async def test_deeply_nested_filter_values_are_417(hc: httpx.AsyncClient, admin: ApiUser, filters: str) -> None:
    """orjson accepts nesting to 1024; `parse._refuse_operators` recurses once per level and overflows.
    (A JSON body is refused past 100 levels before any function runs, a 400: the filters reach the query
    layer as a form field's JSON text.)"""
    body = '{"doctype": "Test Note", "filters": ' + filters + "}"
    r = await hc.post(f"{M}/fw.client.get_list", content=body,
                      headers={**admin.token, "Content-Type": "application/json"})
    refused(no_crash(r), 400, "BadRequestError")
    r = await hc.post(f"{M}/fw.client.get_list", data={"doctype": "Test Note", "filters": filters},
                      headers=admin.token)
    refused(no_crash(r), 417)


async def test_deeply_nested_request_json_is_refused_not_500(hc: httpx.AsyncClient, admin: ApiUser) -> None:
    """A JSON body nested 300 deep parses, then a function that returns (part of) it cannot be encoded
    (orjson stops at 255 levels): a 500. The shipped `receive_data` does it by echoing a record's code,
    and crashes again on a `data` string nested deeper than Python's recursion limit."""
    h = {**admin.token, "Content-Type": "application/json"}
    no_crash(await hc.post(f"{M}/fwtest.http_methods.echo", content='{"a": ' + deep(300) + "}", headers=h))
    url = f"{M}/workforce_scoring.api.external.receive_data"
    record = '{"employee_code": ' + deep(300) + ', "date": "2024-01-01", "value": 1}'
    no_crash(await hc.post(url, content='{"data": [' + record + "]}", headers=h))
    no_crash(await hc.post(url, json={"data": deep(100_000)}, headers=admin.token))


async def test_an_overlong_like_pattern_is_417(hc: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    """MongoDB refuses the regex of a 40,000-character LIKE pattern ("regular expression is too large")."""
    await insert_notes(ctx, {"title": "x"})
    for pattern in ("a" * 40_000, "%a" * 20_000 + "%"):
        r = await hc.post(f"{M}/fw.client.get_list", headers=admin.token,
                          json={"doctype": "Test Note", "filters": [["title", "like", pattern]]})
        refused(no_crash(r), 417)


async def test_range_that_int_cannot_read_is_not_500(hc: httpx.AsyncClient, admin: ApiUser) -> None:
    """`byte_range` trusts `str.isdigit()`: it accepts "²" (one Latin-1 header byte) and 5,000 digits, both of
    which `int()` refuses with a ValueError: a 500 from a Range header."""
    url = ok(await hc.post(f"{M}/upload_file", headers=admin.token,
                           files={"file": ("digits.txt", b"0123456789")}))["message"]["file_url"]
    for value in (b"bytes=\xb2-", b"bytes=0-\xb9", b"bytes=-\xb3", b"bytes=" + b"9" * 5000 + b"-",
                  b"bytes=0-" + b"9" * 5000):
        r = no_crash(await hc.get(url, headers={"Range": value}))
        assert r.status_code in (200, 416), (value, r.status_code)


async def test_requests_beyond_mongodb_document_limit_are_not_500(hc: httpx.AsyncClient, admin: ApiUser,
                                                                  ctx: Context) -> None:
    """The body limit (25 MiB) is above MongoDB's 16 MiB document limit: a 20 MB `in` list or Text value
    passes validation and pymongo's DocumentTooLarge becomes a 500."""
    values = [f"{i:06d}" + "x" * 1000 for i in range(20_000)]
    r = await hc.post(f"{M}/fw.client.get_list", headers=admin.token,
                      json={"doctype": "Test Note", "filters": [["title", "in", values]]})
    assert no_crash(r).status_code in (413, 417)
    r = await hc.post(NOTE, json={"title": "big", "body": "y" * 20_000_000}, headers=admin.token)
    assert no_crash(r).status_code in (413, 417)
    assert await ctx.db.collection("test_note").count_documents({}) == 0


# =====================================================================================================
# Attack classes the server handles
# =====================================================================================================

@pytest.mark.parametrize("filters", [
    {"$where": "sleep(1000)"},
    {"title.$": "x"},
    {"title": {"$regex": ".*"}},
    [["title", "=", {"$ne": None}]],
    [["title", "in", ["a", {"$gt": ""}]]],
    [["Test Note", "title", "=", {"$ne": None}]],
    [["Test Order Item", "item", "=", "x"]],
    [["User", "email", "=", "x"]],
    [["title", "$ne", "x"]],
    [["title", None, "x"]],
    [[None, "=", "x"]],
    [["title\u0000", "=", "x"]],
    [["count", ">", 2**64]],
    [["count", "between", [1, 2**70]]],
    [["at", ">", "2024-02-30"]],
    [["title", "is", None]],
    [["title", "=", "x", "y", "z"]],
    {"title": ["=", "x", "y"]},
    5,
    "5",
])
async def test_operator_and_malformed_filters_are_417(hc: httpx.AsyncClient, admin: ApiUser, ctx: Context,
                                                      filters: Any) -> None:
    await insert_notes(ctx, {"title": "visible-title", "count": 3})
    for key in ("filters", "or_filters"):
        r = await hc.post(f"{M}/fw.client.get_list", headers=admin.token,
                          json={"doctype": "Test Note", "fields": ["title"], key: filters})
        refused(no_crash(r), 417)
        assert "visible-title" not in r.text


async def test_nan_and_infinity_in_query_json(hc: httpx.AsyncClient, admin: ApiUser) -> None:
    for text in ('[["count", ">", NaN]]', '[["count", "in", [1e400]]]', '[["ratio", "<", -Infinity]]'):
        refused(no_crash(await hc.get(NOTE, params={"filters": text}, headers=admin.token)), 417, "DataError")


async def test_hidden_fields_are_refused_in_every_query_shape(hc: httpx.AsyncClient, ctx: Context) -> None:
    reader, names = await _reader_and_notes(ctx)
    h = reader.token
    for params in ({"fields": '["reviewer_note as x"]'}, {"fields": '["max(reviewer_note)"]'},
                   {"fields": '["count(reviewer_note)"]'}, {"fields": '["*", "reviewer_note"]'},
                   {"fields": '["`tabTest Note`.reviewer_note"]'}, {"order_by": "`tabTest Note`.reviewer_note"},
                   {"group_by": "reviewer_note", "fields": '["count(name) as c"]'},
                   {"filters": '[["Test Note", "reviewer_note", "=", "zzz-hidden"]]'},
                   {"or_filters": '{"reviewer_note": ["like", "z%"]}'}):
        r = await hc.get(NOTE, params=params, headers=h)
        refused(r, 417, "DataError")
        assert "hidden" not in r.text
    hidden = {"reviewer_note": "zzz-hidden"}
    for path, args in (("fw.client.get_count", {"doctype": "Test Note", "filters": hidden}),
                       ("fw.client.get", {"doctype": "Test Note", "filters": hidden}),
                       ("fw.client.get_value", {"doctype": "Test Note", "fieldname": "reviewer_note",
                                                "filters": names[0]})):
        refused(await hc.post(f"{M}/{path}", json=args, headers=h), 417, "DataError")
    r = await hc.get("/api/v2/doctype/Test Note/count", params={"filters": json.dumps(hidden)}, headers=h)
    assert r.status_code == 417
    for r in (await hc.get(NOTE, params={"fields": '["*"]'}, headers=h),
              await hc.get(f"{NOTE}/{names[0]}", headers=h),
              await hc.get(f"/api/v2/document/Test Note/{names[0]}/copy", headers=h)):
        assert ok(r) and "hidden" not in r.text and "pw-a" not in r.text


async def test_row_conditions_cannot_be_widened(hc: httpx.AsyncClient, ctx: Context) -> None:
    """Test Regional reads North customers only; no filter shape, aggregate or count reaches South."""
    regional = await make_user(ctx, "regional@example.com", ["Test Reader", "Test Regional"])
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Nord", region="North").insert()
        await new_doc(ctx, "Test Customer", customer_name="Sued", region="South").insert()
    h = regional.token
    url = "/api/resource/Test Customer"
    for params in ({"or_filters": '[["region", "=", "South"], ["region", "=", "North"]]'},
                   {"filters": '[["region", "in", ["South", "North"]]]'},
                   {"fields": '["region", "count(name) as n"]', "group_by": "region"},
                   {"fields": '["count(*) as n", "max(name) as m", "min(name) as l"]'},
                   {"filters": '[["name", "like", "%"]]', "fields": '["*"]'}):
        r = await hc.get(url, params=params, headers=h)
        assert ok(r) and "Sued" not in r.text and "South" not in r.text, (params, r.text)
    assert ok(await hc.get(f"{M}/fw.client.get_count", params={"doctype": "Test Customer"}, headers=h)) == {
        "message": 1}
    assert ok(await hc.get("/api/v2/doctype/Test Customer/count", headers=h))["data"] == 1
    refused(await hc.get(f"{url}/Sued", headers=h), 403, "PermissionError")
    assert ok(await hc.get(f"{M}/fw.client.get_value", headers=h, params={
        "doctype": "Test Customer", "fieldname": "region", "filters": "Sued"})) == {"message": {}}


@pytest.mark.parametrize("method_name", [
    "__init__", "__class__", "save", "delete", "db_set", "reload", "insert", "as_dict", "update", "not_exposed",
    "_data", "_make_rows", "describe.__func__", "bump.__globals__", "../bump", "bump ",
])
async def test_run_method_reaches_only_whitelisted_methods(hc: httpx.AsyncClient, ctx: Context,
                                                           method_name: str) -> None:
    owner = await make_user(ctx, "owner@example.com", ["Test Owner"])
    mine = ok(await hc.post(NOTE, json={"title": "mine"}, headers=owner.token))["data"]["name"]
    r = await hc.post(f"{NOTE}/{mine}", json={"run_method": method_name, "title": "changed"}, headers=owner.token)
    refused(r, 403, "PermissionError")
    r = await hc.post(f"/api/v2/document/Test Note/{mine}/method/{method_name}", headers=owner.token)
    assert r.status_code in (403, 404, 405), (r.status_code, r.text[:300])  # httpx resolves "../" itself
    assert (await ctx.db.collection("test_note").find_one({"_id": mine}))["title"] == "mine"


async def test_run_method_rights_and_shapes(hc: httpx.AsyncClient, ctx: Context) -> None:
    owner = await make_user(ctx, "owner@example.com", ["Test Owner"])
    [theirs] = await insert_notes(ctx, {"title": "theirs"})
    mine = ok(await hc.post(NOTE, json={"title": "mine"}, headers=owner.token))["data"]["name"]
    refused(await hc.post(f"{NOTE}/{theirs}", json={"run_method": "bump"}, headers=owner.token), 403)
    refused(await hc.get(f"{NOTE}/{mine}", params={"run_method": "bump"}, headers=owner.token), 403)  # POST only
    for value in (["bump"], {"a": 1}, 5):
        refused(no_crash(await hc.post(f"{NOTE}/{mine}", json={"run_method": value}, headers=owner.token)), 403)
    r = await hc.post(f"{NOTE}/{mine}", json={"run_method": "bump", "by": 2, "self": "x", "ctx": "y",
                                              "ignore_permissions": True}, headers=owner.token)
    assert ok(r)["data"] == 2


@pytest.mark.parametrize("path", [
    "os.system", "__import__", "engine.methods.client.get_list", "fw.client..get_list", "fw.client.get_list%00",
    "FWTEST.http_methods.add", "frappe.frappe.client.get_list", "fwtest.http_methods.add.", "fwtest.http_methods",
    "fwtest.http_methods.TestNote", "engine.documents.document.Document.delete", "server.app.create_app",
])
async def test_method_paths_resolve_only_through_the_registry(hc: httpx.AsyncClient, admin: ApiUser,
                                                              path: str) -> None:
    refused(await hc.get(f"{M}/{path}", params={"a": "1", "doctype": "Test Note"}, headers=admin.token), 403,
            "PermissionError")


async def test_reserved_arguments_never_reach_functions(hc: httpx.AsyncClient) -> None:
    r = await hc.get(f"{M}/fwtest.http_methods.takes_flags", params={"ignore_permissions": "1", "flags": "x"})
    assert ok(r)["message"] == {"ignore_permissions": False, "flags": None}
    r = await hc.post(f"{M}/fwtest.http_methods.takes_flags", json={"ignore_permissions": True, "flags": {"a": 1}})
    assert ok(r)["message"] == {"ignore_permissions": False, "flags": None}
    r = await hc.post(f"{M}/fwtest.http_methods.echo", json={"ignore_permissions": 1, "flags": 1, "cmd": "x",
                                                             "sid": "y", "csrf_token": "z", "ctx": "w", "ok": 1})
    assert ok(r)["message"] == {"ok": 1}


async def test_writes_cannot_touch_standard_or_higher_level_fields(hc: httpx.AsyncClient, ctx: Context) -> None:
    owner = await make_user(ctx, "owner@example.com", ["Test Owner"])
    [theirs] = await insert_notes(ctx, {"title": "theirs"})
    mine = ok(await hc.post(NOTE, json={"title": "mine", "owner": "x@example.com", "name": "forced", "idx": 9,
                                        "creation": "2000-01-01", "doctype": "User"}, headers=owner.token))["data"]
    assert mine["owner"] == "owner@example.com" and mine["name"] != "forced" and mine["doctype"] == "Test Note"
    name = mine["name"]
    set_value = f"{M}/fw.client.set_value"
    refused(await hc.post(set_value, headers=owner.token, json={
        "doctype": "Test Note", "name": name, "fieldname": "reviewer_note", "value": "x"}), 403, "PermissionError")
    for fieldname in ({"owner": "reader@example.com"}, {"docstatus": 1}, {"name": theirs}, {"modified_by": "x"}):
        refused(await hc.post(set_value, headers=owner.token,
                              json={"doctype": "Test Note", "name": name, "fieldname": fieldname}), 417, "DataError")
    refused(await hc.post(set_value, headers=owner.token, json={
        "doctype": "Test Note", "name": theirs, "fieldname": "title", "value": "stolen"}), 403)
    ok(await hc.put(f"{NOTE}/{name}", json={"owner": "reader@example.com", "name": theirs, "title": "moved"},
                    headers=owner.token))
    stored = await ctx.db.collection("test_note").find_one({"_id": name})
    assert stored["owner"] == "owner@example.com" and stored["title"] == "moved"
    refused(await hc.post(f"{M}/fw.client.insert", headers=owner.token, json={
        "doc": {"doctype": "Test Note", "title": "x", "reviewer_note": "planted"}}), 403, "PermissionError")
    refused(await hc.post(f"{M}/fw.client.insert_many", headers=owner.token, json={"docs": [
        {"doctype": "Test Note", "title": "ok"}, {"doctype": "User", "email": "x@example.com", "first_name": "x"}]}),
        403, "PermissionError")
    assert await ctx.db.collection("test_note").count_documents({"title": "ok"}) == 0  # rolled back
    refused(await hc.put(f"{NOTE}/{theirs}", json={"title": "stolen"}, headers=owner.token), 403)


async def test_child_rows_cannot_reach_another_document(hc: httpx.AsyncClient, ctx: Context) -> None:
    manager = await make_user(ctx, "sm@example.com", ["System Manager"])
    h = manager.token
    ok(await hc.post("/api/resource/Test Customer", json={"customer_name": "Acme"}, headers=h))
    base = {"customer": "Acme", "posting_date": "2024-01-01"}
    a = ok(await hc.post(ORDER, json={**base, "items": [{"item": "A1", "qty": 1}]}, headers=h))["data"]
    b = ok(await hc.post(ORDER, json={**base, "items": [{"item": "B1", "qty": 1}]}, headers=h))["data"]
    row = {"name": a["items"][0]["name"], "item": "stolen", "parent": a["name"], "parenttype": "User",
           "parentfield": "roles", "doctype": "Has Role"}
    ok(await hc.put(f"{ORDER}/{b['name']}", json={"items": [row]}, headers=h))
    stored_a = await ctx.db.collection("test_order").find_one({"_id": a["name"]})
    stored_b = await ctx.db.collection("test_order").find_one({"_id": b["name"]})
    assert [r["item"] for r in stored_a["items"]] == ["A1"]
    assert [(r["parent"], r["parenttype"], r["parentfield"]) for r in stored_b["items"]] == [
        (b["name"], "Test Order", "items")]
    for bad in ({"item": "x", "$set": 1}, {"item": "x", "items": []}, {"item": {"$ne": None}}):
        refused(await hc.put(f"{ORDER}/{b['name']}", json={"items": [bad]}, headers=h), 417)


async def test_csrf_covers_every_unsafe_route(site: Site, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", ["Test Owner"])
    async with _app_client(site) as b:
        ok(await b.post(f"{M}/login", data={"usr": "jane@example.com", "pwd": "pass-1234"}))
        token = ok(await b.get(f"{M}/fw.auth.get_csrf_token"))["message"]
        doc = {"doctype": "Test Note", "title": "x"}
        for r in (await b.post("/api/v2/document/Test Note", json={"title": "x"}),
                  await b.patch("/api/v2/document/Test Note/x", json={"title": "x"}),
                  await b.post("/api/v2/method/fw.client.insert", json={"doc": doc}),
                  await b.post(f"{M}/upload_file", files={"file": ("a.txt", b"x")}),
                  await b.post("/api/v2/method/upload_file", files={"file": ("a.txt", b"x")}),
                  await b.post("/", data={"cmd": "fw.client.insert", "doc": json.dumps(doc)}),
                  await b.post("/", json={"cmd": "fw.client.insert", "doc": doc}),
                  await b.post(f"{NOTE}?csrf_token={token}", json={"title": "q"}),  # a JSON body is the only source
                  await b.post(f"{M}/fw.client.insert", json={"doc": doc, "csrf_token": [token]}),
                  await b.post(NOTE, json={"title": "x"}, headers={"Authorization": ""}),
                  await b.post(NOTE, json={"title": "x"}, headers={"X-HTTP-Method-Override": "GET"}),
                  await b.post(NOTE, json={"title": "x"}, headers={"X-Frappe-CSRF-Token": token.upper() + " "})):
            refused(r, 400, None)
        refused(await b.get(f"{M}/fw.client.insert", params={"doc": json.dumps(doc)}), 403)  # writes are POST only
        assert await ctx.db.collection("test_note").count_documents({}) == 0
        ok(await b.post(NOTE, json={"title": "ok"}, headers={"X-Frappe-CSRF-Token": token}))


@pytest.mark.parametrize("header, status", [
    (b"token", 400), (b"token :", 401), (b"Basic ***", 400), (b"Basic /w==", 400), (b"Basic YWJj", 400),
    (b"Bearer abc", 401), (b"Basic", 400), (b"token " + b"a" * 100_000 + b":b", 401), (b"token \xe9:\xe9", 401),
    (b"token .*:.*", 401), (b"token {\"$ne\": null}:x", 401), (b"   ", 401),
])
async def test_malformed_authorization_headers(hc: httpx.AsyncClient, header: bytes, status: int) -> None:
    refused(await hc.get(f"{M}/fw.auth.get_logged_user", headers={"Authorization": header}), status)


async def test_login_refuses_operators_and_keeps_sessions_fresh(site: Site, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", ["Test Owner"])
    async with _app_client(site) as c:
        for body in ({"usr": {"$ne": None}, "pwd": {"$ne": None}}, {"usr": ["jane@example.com"], "pwd": "x"},
                     {"usr": "jane@example.com", "pwd": {"$gt": ""}}, {"usr": "Guest", "pwd": "guest"},
                     {"usr": "jane@example.com", "pwd": "p" * 100_000}):
            refused(await c.post(f"{M}/login", json=body), 401, "AuthenticationError")
        r = await c.post(f"{M}/login", data={"usr": "jane@example.com", "pwd": "pass-1234"},
                         headers={"Cookie": "sid=attacker-chosen-session-id"})
        assert ok(r) and r.cookies["sid"] not in ("", "attacker-chosen-session-id")  # no session fixation


async def test_file_names_urls_and_private_files(hc: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    other = await make_user(ctx, "other@example.com", ["Test Owner"])
    private = ok(await hc.post(f"{M}/upload_file", headers=admin.token, files={"file": ("secret.txt", b"TOPSECRET")},
                               data={"is_private": "1"}))["message"]
    url = private["file_url"]
    assert url == "/private/files/secret.txt"
    for r in (await hc.get(url, headers=other.token), await hc.get("/private/files/secret%2etxt", headers=other.token),
              await hc.post(f"{M}/upload_file", headers=other.token, data={"file_url": url}),
              await hc.post("/api/v2/method/upload_file", headers=other.token, data={"file_url": url})):
        assert r.status_code == 403 and "TOPSECRET" not in r.text
    refused(await hc.get(url), 403)  # Guest
    for path in ("/files/secret.txt", "/files/..%2f..%2fetc%2fpasswd", "/files/%2e%2e/private/files/secret.txt",
                 "/assets/..%2f..%2fpyproject.toml", "/assets/%2e%2e/%2e%2e/pyproject.toml"):
        r = await hc.get(path, headers=other.token)
        assert r.status_code == 404 and "TOPSECRET" not in r.text and "[project]" not in r.text, path
    assert ok(await hc.get("/api/resource/File", params={"fields": '["*"]'}, headers=other.token))["data"] == []
    for raw, cleaned in (("../../etc/passwd", "passwd"), ("..\\..\\win.ini", "win.ini"), ("a\u202etxt.exe", "atxt.exe"),
                         ("x?y#z%2e.txt", "x_y_z_2e.txt")):
        doc = ok(await hc.post(f"{M}/upload_file", headers=admin.token, files={"file": (raw, b"x")}))["message"]
        assert doc["file_name"] == cleaned and doc["file_url"] == f"/files/{cleaned}", (raw, doc)
    refused(await hc.post(f"{M}/upload_file", headers=admin.token, files={"file": ("..", b"x")}), 417)
    for file_url in ("javascript:alert(1)", "file:///etc/passwd", "/files/../private/files/secret.txt",
                     "http://x/\r\nSet-Cookie: a=b", "//evil.example/x"):
        refused(await hc.post(f"{M}/upload_file", headers=admin.token, data={"file_url": file_url}), 417)
    refused(await hc.put(f"/api/resource/File/{private['name']}", json={"is_private": 0}, headers=admin.token), 417)
    refused(await hc.post(f"{M}/upload_file", headers=admin.token, files={"file": ("a.txt", b"x")},
                          data={"doctype": "../etc", "docname": "x"}), 404)


async def test_stored_files_never_render_as_active_content(hc: httpx.AsyncClient, admin: ApiUser) -> None:
    for name, body, inline in (("x.html", b"<script>alert(1)</script>", False),
                               ("x.svg", b"<svg onload=alert(1)>", False),
                               ("x.png", b"<html><script>alert(1)</script>", True), ("x", b"<script>", False)):
        url = ok(await hc.post(f"{M}/upload_file", headers=admin.token,
                               files={"file": (name, body, "text/html")}))["message"]["file_url"]
        r = await hc.get(url)
        assert r.status_code == 200 and r.content == body
        assert r.headers["x-content-type-options"] == "nosniff"
        assert "sandbox" in r.headers["content-security-policy"]
        assert r.headers["content-disposition"].startswith("inline" if inline else "attachment"), name
        assert r.headers["content-type"] != "text/html" or not inline


async def test_range_header_abuse(hc: httpx.AsyncClient, admin: ApiUser) -> None:
    url = ok(await hc.post(f"{M}/upload_file", headers=admin.token,
                           files={"file": ("digits.txt", b"0123456789")}))["message"]["file_url"]
    cases = [("bytes=-0", 416, b""), ("bytes=99999999999999999999999-", 416, b""),
             ("bytes=0-99999999999999999999999", 206, b"0123456789"), ("bytes=8-", 206, b"89"),
             ("bytes=-2", 206, b"89"), ("bytes=0-1,2-3", 200, b"0123456789"), ("bytes=5-2", 200, b"0123456789"),
             ("items=0-1", 200, b"0123456789"), ("bytes=a-b", 200, b"0123456789"), ("bytes=--1", 200, b"0123456789")]
    for value, status, content in cases:
        r = await hc.get(url, headers={"Range": value})
        assert r.status_code == status, (value[:40], r.status_code)
        if status != 416:
            assert r.content == content, value[:40]


async def test_numbers_and_encodings_in_document_bodies(hc: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    h = {**admin.token, "Content-Type": "application/json"}
    for body in ({"title": "x", "count": 2**64}, {"title": "x", "amount": "NaN"}, {"title": "x", "ratio": "Infinity"},
                 {"title": "x", "count": "1e5"}, {"title": "x", "due": "99999-01-01"}, {"title": "x", "is_done": 2},
                 {"title": ["a", "list"]}, {"title": "x", "config": '{"$where": 1}'}, {"title": "x", "_id": "forced"},
                 {"title": "x", "docstatus": 1}):
        refused(await hc.post(NOTE, json=body, headers=admin.token), 417)
    for raw in (b'{"title": "x", "ratio": NaN}', b'{"title": "x", "count": 1e999}', b'\xef\xbb\xbf{"title": "bom"}',
                b'{"title": "\\ud800"}', b'{"title": "\xff\xfe"}', b'{"title": ' + deep(2000).encode() + b"}",
                b"[" * 5000):
        refused(await hc.post(NOTE, content=raw, headers=h), 400, "BadRequestError")
    # a JSON field nests 64 levels at most (417); a body nests 100 (400: the 300 case never reaches the field)
    for depth, status, exc_type in ((99, 417, "FieldTypeError"), (300, 400, "BadRequestError")):
        r = await hc.post(NOTE, content=b'{"title": "x", "config": %s}' % deep(depth).encode(), headers=h)
        refused(r, status, exc_type)
    assert await ctx.db.collection("test_note").count_documents({}) == 0


async def test_list_paging_and_shape_parameters(hc: httpx.AsyncClient, admin: ApiUser) -> None:
    for args in ({"limit_page_length": "1e3"}, {"limit_page_length": -1}, {"limit_start": 2**70},
                 {"limit_page_length": [1]}, {"as_dict": "maybe"}, {"order_by": 5}, {"group_by": ["title"]},
                 {"fields": [5]}, {"fields": {"a": 1}}, {"fields": ["title as _id"]}, {"order_by": "title; drop"},
                 {"order_by": "$natural"}, {"group_by": "title desc"}):
        r = await hc.post(f"{M}/fw.client.get_list", json={"doctype": "Test Note", **args}, headers=admin.token)
        refused(no_crash(r), 417)
    for params in ({"start": "1" * 5000}, {"limit": "\u00b2"}, {"limit": "-1"}):
        refused(await hc.get("/api/v2/document/Test Note", params=params, headers=admin.token), 417)
