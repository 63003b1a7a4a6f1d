"""Frappe's v2 REST API under `/api/v2` (frappe-behaviour §1.6): documents, paging with
`has_next_page`, counts, copies, document and whitelisted methods, and the v2 envelopes."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from engine.apps import whitelisted
from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.site import Site
from server.app import create_app
from server.openapi import openapi_document
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import insert_notes, ok

V2 = "/api/v2"
NOTE = f"{V2}/document/Test Note"
ORDER = f"{V2}/document/Test Order"
CUSTOMER = f"{V2}/document/Test Customer"
NOTE_COUNT = f"{V2}/doctype/Test Note/count"
M = f"{V2}/method"
FX = f"{M}/fwtest.http_methods"


def v2_error(r: httpx.Response, status: int, exc_type: str | None = None, *,
             field: str | None = None) -> dict[str, Any]:
    """A refusal in the v2 shape: the status v1 would give, `errors` entries with type, message, title
    and indicator, none of v1's keys, and no traceback outside developer mode."""
    assert r.status_code < 500, f"client mistake answered {r.status_code}: {r.text[:2000]}"
    assert r.status_code == status, f"expected {status}, got {r.status_code}: {r.text[:2000]}"
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert set(body) <= {"errors", "messages"}, body
    assert body["errors"], body
    for entry in body["errors"]:
        assert {"type", "message", "title", "indicator"} <= set(entry) <= {
            "type", "message", "title", "indicator", "field", "exception"}, entry
        assert entry["message"] and entry["indicator"] == "red"
        assert "exception" not in entry
    first = body["errors"][0]
    if exc_type is not None:
        assert first["type"] == exc_type, body
    if field is not None:
        assert first.get("field") == field, body
    return body


async def _order(client: httpx.AsyncClient, admin: ApiUser, **extra: Any) -> dict[str, Any]:
    if (await client.get(f"{CUSTOMER}/Acme", headers=admin.token)).status_code == 404:
        ok(await client.post(CUSTOMER, json={"customer_name": "Acme", "region": "North"}, headers=admin.token))
    body = {"customer": "Acme", "posting_date": "2024-05-01",
            "items": [{"item": "A", "qty": 2, "rate": 5}, {"item": "B", "qty": 1, "rate": 3}], **extra}
    return ok(await client.post(ORDER, json=body, headers=admin.token))["data"]  # type: ignore[no-any-return]


async def _stored(ctx: Context, name: str) -> dict[str, Any] | None:
    return await ctx.db.collection("test_note").find_one({"_id": name})  # type: ignore[no-any-return]


# -- list ------------------------------------------------------------------------------------------------

async def test_list_envelope_keeps_nulls(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    [name] = await insert_notes(ctx, {"title": "a", "count": 1})
    body = ok(await client.get(NOTE, headers=admin.token))
    assert body == {"data": [{"name": name}], "has_next_page": False}  # default fields: name only
    body = ok(await client.get(NOTE, params={"fields": '["title", "body", "count"]'}, headers=admin.token))
    assert body["data"] == [{"title": "a", "body": None, "count": 1}]  # v2 keeps nulls (as_dict)
    rows = ok(await client.get(NOTE, params={"fields": '["title", "count"]', "as_dict": "0"},
                               headers=admin.token))["data"]
    assert rows == [["a", 1]]


async def test_has_next_page_at_the_boundary(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await insert_notes(ctx, *({"title": f"n{i}", "count": i} for i in range(5)))

    async def page(**params: str) -> tuple[list[int], bool]:
        body = ok(await client.get(NOTE, params={"fields": '["count"]', "order_by": "count asc", **params},
                                   headers=admin.token))
        return [r["count"] for r in body["data"]], body["has_next_page"]

    assert await page(limit="5") == ([0, 1, 2, 3, 4], False)  # exactly `limit` rows: no next page
    assert await page(limit="4") == ([0, 1, 2, 3], True)  # limit+1 rows exist: one is held back
    assert await page(start="3", limit="2") == ([3, 4], False)
    assert await page(start="2", limit="2") == ([2, 3], True)
    assert await page(start="5", limit="2") == ([], False)
    assert await page(start="1") == ([1, 2, 3, 4], False)  # default limit 20


async def test_default_limit_is_20(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await insert_notes(ctx, *({"title": f"p{i}"} for i in range(20)))
    body = ok(await client.get(NOTE, headers=admin.token))
    assert len(body["data"]) == 20 and body["has_next_page"] is False
    await insert_notes(ctx, {"title": "p20"})
    body = ok(await client.get(NOTE, headers=admin.token))
    assert len(body["data"]) == 20 and body["has_next_page"] is True


async def test_start_pages_through_without_gaps(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    names = await insert_notes(ctx, *({"title": f"s{i}"} for i in range(23)))
    seen: list[str] = []
    start, more = 0, True
    while more:
        body = ok(await client.get(NOTE, params={"start": str(start), "limit": "10"}, headers=admin.token))
        seen += [r["name"] for r in body["data"]]
        more = body["has_next_page"]
        start += 10
    assert start == 30 and len(seen) == len(set(seen)) == 23 and set(seen) == set(names)


@pytest.fixture
async def capped(site: Site, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[httpx.AsyncClient]:
    monkeypatch.setattr(site.settings, "max_page_length", 5)  # FW_MAX_PAGE_LENGTH=5
    app = create_app(site.settings, site=site)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
        yield c


async def test_limit_is_capped_and_next_page_still_known(capped: httpx.AsyncClient, admin: ApiUser,
                                                         ctx: Context) -> None:
    await insert_notes(ctx, *({"title": f"c{i}"} for i in range(5)))
    for limit in ("5", "100", "0"):  # 0 means "up to the cap", as in v1
        body = ok(await capped.get(NOTE, params={"limit": limit}, headers=admin.token))
        assert len(body["data"]) == 5 and body["has_next_page"] is False, limit  # exactly a full page
    await insert_notes(ctx, {"title": "c5"})
    for limit in ("5", "100", "0"):  # the row past the cap is read to know there is a next page
        body = ok(await capped.get(NOTE, params={"limit": limit}, headers=admin.token))
        assert len(body["data"]) == 5 and body["has_next_page"] is True, limit
    body = ok(await capped.get(NOTE, params={"limit": "100", "start": "5"}, headers=admin.token))
    assert len(body["data"]) == 1 and body["has_next_page"] is False


async def test_list_filters_order_and_group_by(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await insert_notes(ctx, {"title": "one", "count": 1, "status": "Open"},
                 {"title": "two", "count": 5, "status": "Closed"},
                 {"title": "three", "count": 9, "status": "Closed"})

    async def titles(**params: str) -> list[str]:
        rows = ok(await client.get(NOTE, params={"fields": '["title"]', "order_by": "count asc", **params},
                                   headers=admin.token))["data"]
        return [r["title"] for r in rows]

    assert await titles(filters='{"status": "Closed"}') == ["two", "three"]
    assert await titles(filters='[["count", ">", 1]]', order_by="count desc") == ["three", "two"]
    assert await titles(or_filters='[["count", "=", 1], ["count", "=", 9]]') == ["one", "three"]
    rows = ok(await client.get(NOTE, params={"fields": '["status", "count(name) as n"]', "group_by": "status",
                                             "order_by": "status asc"}, headers=admin.token))
    assert rows == {"data": [{"status": "Closed", "n": 2}, {"status": "Open", "n": 1}], "has_next_page": False}


@pytest.mark.parametrize("params, field", [
    ({"start": "-1"}, "start"),
    ({"start": "x"}, "start"),
    ({"start": str(2**63)}, "start"),
    ({"limit": "ten"}, "limit"),
    ({"limit": "-5"}, "limit"),
    ({"fields": "not json"}, "fields"),
    ({"fields": '["no_such_field"]'}, "no_such_field"),
    ({"filters": '{"no_such_field": 1}'}, "no_such_field"),
    ({"filters": "{broken"}, "filters"),
    ({"as_dict": "maybe"}, "as_dict"),
    ({"order_by": "title; drop"}, None),
    ({"filters": '{"title": {"$ne": null}}'}, None),
    ({"filters": '[["title", "=", {"$gt": ""}]]'}, None),
    ({"or_filters": '[["count", "in", [{"$where": "1"}]]]'}, None),
])
async def test_list_bad_parameters_are_417(client: httpx.AsyncClient, admin: ApiUser, ctx: Context,
                                           params: dict[str, str], field: str | None) -> None:
    await insert_notes(ctx, {"title": "a"})
    body = v2_error(await client.get(NOTE, params=params, headers=admin.token), 417, field=field)
    assert body["errors"][0]["type"] in ("DataError", "ValidationError", "FieldTypeError")
    filters = {k: v for k, v in params.items() if k in ("filters", "or_filters")}
    if filters:  # the count reads the same filters
        v2_error(await client.get(NOTE_COUNT, params=filters, headers=admin.token), 417, field=field)


async def test_list_and_count_of_child_or_single_are_417(client: httpx.AsyncClient, admin: ApiUser) -> None:
    for doctype in ("Test Order Item", "Test Settings"):
        v2_error(await client.get(f"{V2}/document/{doctype}", headers=admin.token), 417, "DataError")
        v2_error(await client.get(f"{V2}/doctype/{doctype}/count", headers=admin.token), 417, "DataError")


# -- permissions: list and count agree ---------------------------------------------------------------------

async def test_restricted_user_sees_only_permitted_rows_and_count_agrees(client: httpx.AsyncClient,
                                                                        admin: ApiUser, ctx: Context) -> None:
    owner = await make_user(ctx, "owner@example.com", ["Test Owner"])  # if_owner: only their own notes
    mine = [ok(await client.post(NOTE, json={"title": f"mine{i}"}, headers=owner.token))["data"]["name"]
            for i in range(3)]
    others = await insert_notes(ctx, *({"title": f"admin{i}"} for i in range(4)))

    body = ok(await client.get(NOTE, params={"limit": "2"}, headers=owner.token))
    assert len(body["data"]) == 2 and body["has_next_page"] is True
    body = ok(await client.get(NOTE, params={"limit": "3"}, headers=owner.token))
    assert sorted(r["name"] for r in body["data"]) == sorted(mine) and body["has_next_page"] is False
    assert ok(await client.get(NOTE_COUNT, headers=owner.token)) == {"data": 3}
    assert ok(await client.get(NOTE_COUNT, params={"filters": '{"title": "mine1"}'}, headers=owner.token)) \
        == {"data": 1}
    assert ok(await client.get(NOTE_COUNT, params={"filters": '{"title": "admin1"}'}, headers=owner.token)) \
        == {"data": 0}
    assert ok(await client.get(NOTE_COUNT, headers=admin.token)) == {"data": 7}
    assert ok(await client.get(NOTE_COUNT, params={"or_filters": '[["title", "=", "mine0"], ["title", "=", "admin0"]]'},
                               headers=admin.token)) == {"data": 2}
    v2_error(await client.get(f"{NOTE}/{others[0]}", headers=owner.token), 403, "PermissionError")
    v2_error(await client.get(f"{NOTE}/{others[0]}/copy", headers=owner.token), 403, "PermissionError")

    # row conditions from a permission_query_conditions hook: a "Test Regional" user sees North only
    for name, region in (("N1", "North"), ("N2", "North"), ("S1", "South")):
        ok(await client.post(CUSTOMER, json={"customer_name": name, "region": region}, headers=admin.token))
    regional = await make_user(ctx, "regional@example.com", ["Test Reader", "Test Regional"])
    rows = ok(await client.get(CUSTOMER, params={"fields": '["name", "region"]'}, headers=regional.token))["data"]
    assert sorted(r["name"] for r in rows) == ["N1", "N2"]
    assert ok(await client.get(f"{V2}/doctype/Test Customer/count", headers=regional.token)) == {"data": 2}
    assert ok(await client.get(f"{V2}/doctype/Test Customer/count", headers=admin.token)) == {"data": 3}


async def test_no_right_or_no_credentials_is_403(client: httpx.AsyncClient, ctx: Context) -> None:
    [name] = await insert_notes(ctx, {"title": "t"})
    nobody = await make_user(ctx, "nobody@example.com", [])
    for headers in (nobody.token, {}):  # a user without a role on the doctype, and Guest
        v2_error(await client.get(NOTE, headers=headers), 403, "PermissionError")
        v2_error(await client.get(NOTE_COUNT, headers=headers), 403, "PermissionError")
        v2_error(await client.get(f"{NOTE}/{name}", headers=headers), 403, "PermissionError")
        v2_error(await client.get(f"{NOTE}/{name}/copy", headers=headers), 403, "PermissionError")
        v2_error(await client.post(NOTE, json={"title": "no"}, headers=headers), 403, "PermissionError")
        v2_error(await client.patch(f"{NOTE}/{name}", json={"count": 5}, headers=headers), 403, "PermissionError")
        v2_error(await client.delete(f"{NOTE}/{name}", headers=headers), 403, "PermissionError")
        v2_error(await client.post(f"{NOTE}/{name}/method/bump", headers=headers), 403, "PermissionError")
    v2_error(await client.get(f"{FX}.scale", params={"value": "2"}), 403, "PermissionError")  # not for Guest
    assert (await _stored(ctx, name) or {})["count"] == 0  # as inserted
    assert await ctx.db.collection("test_note").count_documents({}) == 1


# -- create, read, update, delete ------------------------------------------------------------------------

async def test_create_read_update_delete(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    body = ok(await client.post(NOTE, json={"title": "v2", "count": 2}, headers=admin.token))
    assert set(body) == {"data"}
    doc = body["data"]
    assert doc["doctype"] == "Test Note" and doc["title"] == "v2" and doc["count"] == 2
    assert doc["owner"] == "Administrator" and doc["docstatus"] == 0
    assert "body" in doc and doc["body"] is None  # nulls kept
    assert "secret" not in doc
    url = f"{NOTE}/{doc['name']}"
    read = ok(await client.get(url, headers=admin.token))
    assert read == {"data": doc}
    assert ok(await client.get(url, headers=admin.basic)) == read  # HTTP Basic with the API key works too

    patched = ok(await client.patch(url, json={"body": "text"}, headers=admin.token))["data"]
    assert patched["body"] == "text" and patched["count"] == 2 and patched["title"] == "v2"  # a merge
    put = ok(await client.put(url, json={"count": 3}, headers=admin.token))["data"]
    assert put["count"] == 3 and put["body"] == "text" and put["modified"] >= patched["modified"]
    form = ok(await client.put(url, data={"data": json.dumps({"count": 4})}, headers=admin.token))["data"]
    assert form["count"] == 4  # frappe-client's `data=<json>` form field works too

    assert ok(await client.delete(url, headers=admin.token), 202) == {"data": "ok"}
    v2_error(await client.get(url, headers=admin.token), 404, "DoesNotExistError")
    v2_error(await client.delete(url, headers=admin.token), 404, "DoesNotExistError")
    assert await _stored(ctx, doc["name"]) is None


async def test_child_tables_and_docstatus(client: httpx.AsyncClient, admin: ApiUser) -> None:
    order = await _order(client, admin)
    assert [r["item"] for r in order["items"]] == ["A", "B"] and order["total"] == 13
    assert order["remarks"] is None  # nulls kept, child rows too
    url = f"{ORDER}/{order['name']}"
    changed = ok(await client.patch(url, json={"items": [{"item": "C", "qty": 1, "rate": 10}]},
                                    headers=admin.token))["data"]
    assert [r["item"] for r in changed["items"]] == ["C"] and changed["total"] == 10  # a table given replaces it
    submitted = ok(await client.put(url, json={"docstatus": 1}, headers=admin.token))["data"]
    assert submitted["docstatus"] == 1
    v2_error(await client.patch(url, json={"total": 1}, headers=admin.token), 417, "UpdateAfterSubmitError")


async def test_read_hides_fields_above_permlevel(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    [name] = await insert_notes(ctx, {"title": "secretive", "reviewer_note": "hidden"})
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    doc = ok(await client.get(f"{NOTE}/{name}", headers=reader.token))["data"]
    assert doc["title"] == "secretive" and "reviewer_note" not in doc
    assert ok(await client.get(f"{NOTE}/{name}", headers=admin.token))["data"]["reviewer_note"] == "hidden"
    v2_error(await client.get(NOTE, params={"fields": '["reviewer_note"]'}, headers=reader.token), 417, "DataError",
             field="reviewer_note")


async def test_write_errors_name_the_field_and_write_nothing(client: httpx.AsyncClient, admin: ApiUser,
                                                            ctx: Context) -> None:
    body = v2_error(await client.post(NOTE, json={"count": 1}, headers=admin.token), 417, "MandatoryError",
                    field="title")
    assert body["errors"][0]["title"] == "Missing Fields"
    v2_error(await client.post(NOTE, json={"title": "t", "no_such_field": 1}, headers=admin.token), 417,
             "DataError", field="no_such_field")
    v2_error(await client.post(NOTE, json={"title": "t", "count": {"$gt": 1}}, headers=admin.token), 417,
             field="count")
    assert await ctx.db.collection("test_note").count_documents({}) == 0

    doc = ok(await client.post(NOTE, json={"title": "t", "count": 1}, headers=admin.token))["data"]
    url = f"{NOTE}/{doc['name']}"
    ok(await client.patch(url, json={"count": 2, "modified": doc["modified"]}, headers=admin.token))
    v2_error(await client.patch(url, json={"count": 3, "modified": doc["modified"]}, headers=admin.token), 417,
             "TimestampMismatchError", field="modified")
    v2_error(await client.put(url, json={"count": "many"}, headers=admin.token), 417, field="count")
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    v2_error(await client.put(url, json={"count": 9}, headers=reader.token), 403, "PermissionError")
    v2_error(await client.patch(f"{NOTE}/missing", json={"count": 1}, headers=admin.token), 404, "DoesNotExistError")
    assert (await _stored(ctx, doc["name"]) or {})["count"] == 2


async def test_msgprints_come_as_messages(client: httpx.AsyncClient, admin: ApiUser) -> None:
    body = ok(await client.post(NOTE, json={"title": "announce"}, headers=admin.token))
    assert body["messages"] == [{"message": "Announced", "indicator": "green", "title": "Note", "alert": 1}]
    assert "_server_messages" not in body
    url = f"{NOTE}/{body['data']['name']}"
    # a message printed before a failure stays in `messages`, the failure goes in `errors`
    failed = v2_error(await client.patch(url, json={"customer": "Nobody"}, headers=admin.token), 417,
                      "LinkValidationError", field="customer")
    assert failed["messages"] == [{"message": "Announced", "indicator": "green", "title": "Note", "alert": 1}]
    assert "messages" not in ok(await client.get(url, headers=admin.token))


async def test_names_with_slashes_and_encoded_doctype(client: httpx.AsyncClient, admin: ApiUser) -> None:
    ok(await client.post(CUSTOMER, json={"customer_name": "A/B Trading", "region": "South"}, headers=admin.token))
    assert ok(await client.get(f"{CUSTOMER}/A/B Trading", headers=admin.token))["data"]["region"] == "South"
    assert ok(await client.get(f"{V2}/document/Test%20Customer/A%2FB%20Trading",
                               headers=admin.token))["data"]["name"] == "A/B Trading"
    copied = ok(await client.get(f"{CUSTOMER}/A/B Trading/copy", headers=admin.token))["data"]
    assert copied["region"] == "South" and "name" not in copied
    assert ok(await client.delete(f"{CUSTOMER}/A/B Trading", headers=admin.token), 202) == {"data": "ok"}


# -- document methods --------------------------------------------------------------------------------------

async def test_document_method_returns_data_and_docs(client: httpx.AsyncClient, admin: ApiUser,
                                                     ctx: Context) -> None:
    [name] = await insert_notes(ctx, {"title": "m", "count": 1})
    url = f"{NOTE}/{name}/method"
    body = ok(await client.post(f"{url}/bump", json={"by": 2}, headers=admin.token))
    assert set(body) == {"data", "docs"} and body["data"] == 3
    [doc] = body["docs"]
    assert doc["name"] == name and doc["count"] == 3 and doc["body"] is None  # as it stands after the call
    assert (await _stored(ctx, name) or {})["count"] == 3
    body = ok(await client.get(f"{url}/describe", params={"prefix": "> ", "junk": "1"}, headers=admin.token))
    assert body["data"] == {"title": "> m", "body": None} and body["docs"][0]["count"] == 3
    v2_error(await client.post(f"{url}/bump", json={"by": "lots"}, headers=admin.token), 417, "ArgumentTypeError",
             field="by")
    v2_error(await client.get(f"{url}/bump", headers=admin.token), 403, "PermissionError")  # POST-only method
    for method in ("not_exposed", "save", "delete", "_load", "__init__", "db_set", "nope"):
        v2_error(await client.post(f"{url}/{method}", headers=admin.token), 403, "PermissionError")
    v2_error(await client.post(f"{NOTE}/missing/method/bump", headers=admin.token), 404, "DoesNotExistError")
    # GET needs read, POST needs write
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    assert ok(await client.get(f"{url}/describe", headers=reader.token))["data"]["title"] == "m"
    v2_error(await client.post(f"{url}/describe", headers=reader.token), 403, "PermissionError")
    v2_error(await client.post(f"{url}/bump", json={"by": 5, "ignore_permissions": 1}, headers=reader.token), 403)
    assert (await _stored(ctx, name) or {})["count"] == 3


async def test_submit_and_cancel_as_document_methods(client: httpx.AsyncClient, admin: ApiUser) -> None:
    order = await _order(client, admin)
    url = f"{ORDER}/{order['name']}/method"
    body = ok(await client.post(f"{url}/submit", headers=admin.token))
    assert body["data"]["docstatus"] == 1 and body["docs"][0]["docstatus"] == 1
    assert body["data"]["remarks"] is None  # a returned document keeps its nulls in v2
    assert ok(await client.post(f"{url}/cancel", headers=admin.token))["docs"][0]["docstatus"] == 2


# -- copy ----------------------------------------------------------------------------------------------------

async def test_copy_is_a_clean_new_document(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    async with unit_of_work(ctx):
        for dt, fieldname in (("Test Order", "ref_code"), ("Test Order Item", "batch")):
            await new_doc(ctx, "Custom Field", dt=dt, fieldname=fieldname, fieldtype="Data", label=fieldname,
                          no_copy=1).insert()
    order = await _order(client, admin, ref_code="R-1", remarks="keep me",
                         items=[{"item": "A", "qty": 2, "rate": 5, "batch": "B-7"}])
    url = f"{ORDER}/{order['name']}"
    ok(await client.post(f"{url}/method/submit", headers=admin.token))
    ok(await client.post(f"{url}/method/cancel", headers=admin.token))
    async with unit_of_work(ctx):  # the amendment (the REST path is in test_contract_gaps.py)
        amended = (await new_doc(ctx, "Test Order", customer="Acme", posting_date="2024-05-01", remarks="keep me",
                                 ref_code="R-2", items=[{"item": "A", "qty": 3, "rate": 5}],
                                 amended_from=order["name"]).insert()).as_dict()
    assert amended["amended_from"] == order["name"]

    body = ok(await client.get(f"{ORDER}/{amended['name']}/copy", headers=admin.token))
    assert set(body) == {"data"}
    copy = body["data"]
    for key in ("name", "owner", "creation", "modified", "modified_by", "docstatus", "amended_from", "ref_code"):
        assert key not in copy, key
    assert copy["doctype"] == "Test Order" and copy["customer"] == "Acme" and copy["remarks"] == "keep me"
    assert None not in copy.values()  # no nulls
    [row] = copy["items"]
    assert row["item"] == "A" and row["qty"] == 3
    for key in ("name", "parent", "parenttype", "parentfield", "owner", "creation", "modified"):
        assert key not in row, key
    copy = ok(await client.get(f"{url}/copy", headers=admin.token))["data"]
    assert "ref_code" not in copy and "batch" not in copy["items"][0]  # no_copy fields, child rows too
    # the copy posts back as a new draft
    new = ok(await client.post(ORDER, json=copy, headers=admin.token))["data"]
    assert new["name"] not in (order["name"], amended["name"]) and new["docstatus"] == 0
    assert new["total"] == 10 and new["amended_from"] is None
    v2_error(await client.get(f"{ORDER}/missing/copy", headers=admin.token), 404, "DoesNotExistError")
    v2_error(await client.post(f"{url}/copy", headers=admin.token), 405)


async def test_copy_leaves_out_fields_the_caller_cannot_read(client: httpx.AsyncClient, ctx: Context) -> None:
    [name] = await insert_notes(ctx, {"title": "secretive", "reviewer_note": "hidden", "code": "C1"})
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    copy = ok(await client.get(f"{NOTE}/{name}/copy", headers=reader.token))["data"]
    assert copy["title"] == "secretive" and copy["code"] == "C1" and "reviewer_note" not in copy
    assert "secret" not in copy


# -- the method API --------------------------------------------------------------------------------------------

async def test_method_result_goes_in_data(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    assert ok(await client.get(f"{M}/ping")) == {"data": "pong"}
    assert ok(await client.post(f"{M}/ping")) == {"data": "pong"}
    assert ok(await client.get(f"{FX}.add", params={"a": "2", "b": "3"})) == {"data": 5}
    assert ok(await client.post(f"{FX}.add", json={"a": -1})) == {"data": 0}  # falsy results are kept
    assert ok(await client.get(f"{FX}.nothing")) == {}  # None: no data key (as Frappe)
    assert ok(await client.post(f"{FX}.pick", json={"a": 1, "c": 3})) == {"data": {"a": 1, "b": None}}
    assert ok(await client.post(f"{FX}.takes_flags", json={"ignore_permissions": True, "flags": {"x": 1}})) \
        == {"data": {"ignore_permissions": False, "flags": None}}
    assert ok(await client.get(f"{M}/fwtest.http_methods.original")) == {"data": "replacement"}  # overrides
    body = ok(await client.get(f"{FX}.notify", headers=admin.token))
    assert body == {"data": "done", "messages": [{"message": "Saved it", "indicator": "green", "title": "T",
                                                  "alert": 1}]}
    await insert_notes(ctx, {"title": "a"}, {"title": "b"})
    rows = ok(await client.get(f"{M}/frappe.client.get_list", params={"doctype": "Test Note", "fields": '["title"]',
                                                                      "order_by": "title asc"}, headers=admin.token))
    assert rows == {"data": [{"title": "a"}, {"title": "b"}]}
    assert ok(await client.get(f"{M}/fw.client.get_count", params={"doctype": "Test Note"},
                               headers=admin.token)) == {"data": 2}


async def test_method_errors(client: httpx.AsyncClient, admin: ApiUser) -> None:
    body = v2_error(await client.get(f"{FX}.refuse", params={"reason": "because"}), 417, "ValidationError",
                    field="reason")
    assert body["errors"][0]["message"] == "Refused by the fixture: because"
    assert body["errors"][0]["title"] == "Validation Error"
    r = await client.get(f"{FX}.refuse", params={"reason": "X"}, headers={"Accept-Language": "de"})
    assert v2_error(r, 417)["errors"][0]["message"] == "Von der Testanwendung abgelehnt: X"
    v2_error(await client.get(f"{FX}.add", params={"a": "two"}), 417, "ArgumentTypeError", field="a")
    v2_error(await client.get(f"{FX}.add"), 417, "ArgumentTypeError", field="a")
    v2_error(await client.get(f"{FX}.post_only"), 403, "PermissionError")
    v2_error(await client.get(f"{M}/os.system", params={"command": "true"}), 403, "PermissionError")
    v2_error(await client.get(f"{FX}.scale", params={"value": "2"}), 403, "PermissionError")  # not for guests
    assert ok(await client.get(f"{FX}.scale", params={"value": "2"}, headers=admin.token)) == {
        "data": {"user": "Administrator", "result": 4.0}}
    v2_error(await client.get(f"{M}/a/b/c"), 404, "DoesNotExistError")


async def test_doctype_method_resolves_through_the_registry(client: httpx.AsyncClient, admin: ApiUser, ctx: Context,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # Frappe's `/method/User/generate_keys` is `frappe.core.doctype.user.user.generate_keys`
    bot = await make_user(ctx, "bot@example.com", ["Test Reader"])
    keys = ok(await client.post(f"{M}/User/generate_keys", json={"user": bot.email}, headers=admin.token))["data"]
    assert set(keys) == {"api_key", "api_secret"} and keys["api_key"] == bot.key
    rotated = {"Authorization": f"token {keys['api_key']}:{keys['api_secret']}"}
    assert ok(await client.get(f"{M}/fw.auth.get_logged_user", headers=rotated)) == {"data": bot.email}
    v2_error(await client.get(f"{M}/User/generate_keys", params={"user": bot.email}, headers=admin.token),
             403, "PermissionError")  # POST only
    v2_error(await client.post(f"{M}/User/generate_keys", json={"user": bot.email}, headers=rotated),
             403, "PermissionError")  # System Manager only

    # an app doctype: a function whitelisted in its controller module
    module = "fwtest.doctype.test_note.test_note"

    def shout(text: str) -> str:
        return text.upper()

    shout.__module__ = module
    monkeypatch.setitem(whitelisted._registry, f"{module}.shout",
                        whitelisted.Whitelisted(shout, f"{module}.shout", False, whitelisted.DEFAULT_METHODS))
    assert ok(await client.get(f"{M}/Test Note/shout", params={"text": "hi"}, headers=admin.token)) == {"data": "HI"}
    assert ok(await client.get(f"{M}/Test%20Note/shout", params={"text": "yo"}, headers=admin.token)) == {"data": "YO"}
    v2_error(await client.get(f"{M}/Test Note/shout", params={"text": "hi"}), 403, "PermissionError")  # Guest
    # only plain names of functions registered in that module: nothing is imported or walked
    for method in ("TestNote", "whitelist", "exc", "shout.__globals__", "bump", "os.system", "__init__"):
        v2_error(await client.get(f"{M}/Test Note/{method}", headers=admin.token), 403, "PermissionError")
    v2_error(await client.get(f"{M}/Test Customer/shout", headers=admin.token), 403, "PermissionError")
    v2_error(await client.get(f"{M}/No Such Doctype/shout", headers=admin.token), 404, "DoesNotExistError")


# -- sessions, CSRF ------------------------------------------------------------------------------------------

@pytest.fixture
async def browser(site: Site) -> AsyncIterator[httpx.AsyncClient]:
    """A client that keeps cookies, like a browser."""
    app = create_app(site.settings, site=site)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
        yield c


async def test_login_and_logout(browser: httpx.AsyncClient, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", ["Test Owner"])
    r = await browser.post(f"{M}/login", data={"usr": "jane@example.com", "pwd": "wrong"})
    v2_error(r, 401, "AuthenticationError")
    r = await browser.post(f"{M}/login", json={"usr": "jane@example.com", "pwd": "pass-1234"})
    assert ok(r)["message"] == "Logged In" and r.cookies.get("sid")  # as v1's login answers
    assert ok(await browser.get(f"{M}/fw.auth.get_logged_user")) == {"data": "jane@example.com"}
    ok(await browser.post(NOTE, json={"title": "by cookie"}))
    assert ok(await browser.post(f"{M}/logout")) == {}
    v2_error(await browser.get(f"{M}/fw.auth.get_logged_user"), 403, "PermissionError")
    v2_error(await browser.get(NOTE), 403, "PermissionError")


async def test_csrf_on_a_cookie_session(browser: httpx.AsyncClient, ctx: Context) -> None:
    user = await make_user(ctx, "jane@example.com", ["Test Owner"])
    ok(await browser.post(f"{M}/login", data={"usr": "jane@example.com", "pwd": "pass-1234"}))
    token = ok(await browser.get(f"{M}/fw.auth.get_csrf_token"))["data"]
    assert isinstance(token, str) and len(token) >= 16
    assert ok(await browser.get("/api/method/fw.auth.get_csrf_token"))["message"] == token  # the same session token
    v2_error(await browser.post(NOTE, json={"title": "x"}), 400, "CSRFTokenError")
    v2_error(await browser.post(NOTE, json={"title": "x"}, headers={"X-Frappe-CSRF-Token": "wrong"}), 400,
             "CSRFTokenError")
    assert await ctx.db.collection("test_note").count_documents({}) == 0
    name = ok(await browser.post(NOTE, json={"title": "x"}, headers={"X-Frappe-CSRF-Token": token}))["data"]["name"]
    ok(await browser.get(NOTE))  # safe methods are never checked
    for request in (browser.patch(f"{NOTE}/{name}", json={"count": 1}), browser.delete(f"{NOTE}/{name}"),
                    browser.post(f"{NOTE}/{name}/method/bump"), browser.post(f"{FX}.echo", json={"a": 1})):
        v2_error(await request, 400, "CSRFTokenError")
    assert (await _stored(ctx, name) or {})["count"] == 0
    r = await browser.post(f"{NOTE}/{name}/method/bump", headers={"X-Fw-CSRF-Token": token})
    assert ok(r)["data"] == 1
    r = await browser.post(NOTE, json={"title": "header auth"}, headers=user.token)  # exempt, cookie or not
    assert ok(r)["data"]["owner"] == "jane@example.com"
    v2_error(await browser.post(f"{M}/logout"), 400, "CSRFTokenError")


async def test_login_lockout_is_429(client: httpx.AsyncClient, ctx: Context) -> None:
    await make_user(ctx, "lock@example.com", [])
    for _ in range(10):
        v2_error(await client.post(f"{M}/login", data={"usr": "lock@example.com", "pwd": "bad"}), 401)
    r = await client.post(f"{M}/login", data={"usr": "lock@example.com", "pwd": "pass-1234"})
    v2_error(r, 429, "TooManyRequestsError")
    assert r.headers["retry-after"]


async def test_csrf_token_needs_a_session(client: httpx.AsyncClient, admin: ApiUser) -> None:
    v2_error(await client.get(f"{M}/fw.auth.get_csrf_token"), 403, "PermissionError")
    v2_error(await client.get(f"{M}/frappe.auth.get_csrf_token", headers=admin.token), 403, "PermissionError")


# -- errors in the v2 shape --------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [
    f"{V2}/nope",
    f"{V2}/document",
    f"{V2}/doctype/Test Note",
    f"{V2}/method/a/b/c",
    f"{V2}/document/No Such Doctype",
    f"{V2}/document/No Such Doctype/x",
    f"{V2}/doctype/No Such Doctype/count",
    f"{V2}/document/..%2F..%2Fetc",
    f"{V2}/document/%2e%2e",
    f"{V2}/document/$cmd",
    f"{V2}/document/$cmd/x",
    f"{V2}/document/system.users",
    f"{V2}/document/_fw_sessions",
    f"{V2}/document/_fw_state/secret_key",
    f"{V2}/document/test_note",
    f"{V2}/document/Test%20Note%00",
    f"{V2}/doctype/_fw_sessions/count",
])
async def test_unknown_routes_and_doctypes_are_404(client: httpx.AsyncClient, admin: ApiUser, path: str) -> None:
    body = v2_error(await client.get(path, headers=admin.token), 404, "DoesNotExistError")
    assert "secret" not in json.dumps(body).replace("secret_key", "")


@pytest.mark.parametrize("method, path, allowed", [
    ("PATCH", NOTE, {"GET", "POST"}),
    ("DELETE", NOTE, {"GET", "POST"}),
    ("POST", f"{NOTE}/x", {"GET", "PUT", "PATCH", "DELETE"}),
    ("PUT", NOTE_COUNT, {"GET"}),
    ("POST", f"{NOTE}/x/copy", {"GET"}),
])
async def test_wrong_http_method_is_405(client: httpx.AsyncClient, admin: ApiUser, method: str, path: str,
                                        allowed: set[str]) -> None:
    r = await client.request(method, path, headers=admin.token)
    v2_error(r, 405)
    assert allowed <= {m.strip() for m in r.headers["allow"].split(",")}


async def test_malformed_json_is_400(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    [name] = await insert_notes(ctx, {"title": "t"})
    headers = {**admin.token, "Content-Type": "application/json"}
    for method, path in (("POST", NOTE), ("PATCH", f"{NOTE}/{name}"), ("POST", f"{NOTE}/{name}/method/bump"),
                         ("POST", f"{FX}.echo")):
        v2_error(await client.request(method, path, content=b'{"title": ', headers=headers), 400, "BadRequestError")
        v2_error(await client.request(method, path, content=b'"scalar"', headers=headers), 400, "BadRequestError")
    assert (await _stored(ctx, name) or {})["count"] == 0
    assert await ctx.db.collection("test_note").count_documents({}) == 1


async def _app_client(site: Site, **overrides: Any) -> httpx.AsyncClient:
    app = create_app(site.settings.model_copy(update=overrides), site=site)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, raise_app_exceptions=False),
                             base_url="http://testserver")


async def test_body_over_limit_is_413(site: Site, admin: ApiUser, ctx: Context) -> None:
    async with await _app_client(site, max_body_bytes=100) as small:
        body = v2_error(await small.post(NOTE, json={"title": "x" * 500}, headers=admin.token), 413,
                        "RequestEntityTooLarge")
        assert "100" in body["errors"][0]["message"]

        async def stream() -> AsyncIterator[bytes]:  # no Content-Length: counted while it arrives
            yield b'{"title": "'
            for _ in range(20):
                yield b"y" * 20
            yield b'"}'

        r = await small.post(NOTE, content=stream(), headers={**admin.token, "Content-Type": "application/json"})
        v2_error(r, 413, "RequestEntityTooLarge")
        assert await ctx.db.collection("test_note").count_documents({}) == 0
        # v1 keeps its own shape on the same app
        r = await small.post("/api/resource/Test Note", json={"title": "x" * 500}, headers=admin.token)
        assert r.status_code == 413 and r.json()["exc_type"] == "RequestEntityTooLarge"


async def test_exception_only_in_developer_mode(site: Site, admin: ApiUser) -> None:
    async with await _app_client(site, developer_mode=True) as dev:
        r = await dev.post(NOTE, json={}, headers=admin.token)
        assert r.status_code == 417
        entry = r.json()["errors"][0]
        assert entry["type"] == "MandatoryError" and "Traceback" in entry["exception"]
        r = await dev.get(f"{FX}.crash")
        assert r.status_code == 500 and "boom" in r.json()["errors"][0]["exception"]
    async with await _app_client(site) as prod:
        v2_error(await prod.post(NOTE, json={}, headers=admin.token), 417, "MandatoryError")
        r = await prod.get(f"{FX}.crash")
        assert r.status_code == 500
        assert "boom" not in r.text and "internal detail" not in r.text and "Traceback" not in r.text
        assert r.json() == {"errors": [{"type": "InternalServerError", "message": "Internal server error",
                                        "title": "Error", "indicator": "red"}]}


# -- v1 is unchanged -----------------------------------------------------------------------------------------------

async def test_v1_routes_keep_their_shapes(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    [name] = await insert_notes(ctx, {"title": "v1"})
    for prefix in ("/api", "/api/v1"):
        assert ok(await client.get(f"{prefix}/resource/Test Note", headers=admin.token)) == {"data": [{"name": name}]}
        doc = ok(await client.get(f"{prefix}/resource/Test Note/{name}", headers=admin.token))["data"]
        assert "body" not in doc  # v1 leaves nulls out
        assert ok(await client.get(f"{prefix}/method/ping")) == {"message": "pong"}
        body = (await client.post(f"{prefix}/resource/Test Note", json={}, headers=admin.token)).json()
        assert body["exc_type"] == "MandatoryError" and "_server_messages" in body and "title" not in body["errors"][0]
        r = await client.patch(f"{prefix}/resource/Test Note", headers=admin.token)
        assert r.status_code == 405 and r.json()["exc_type"] == "PermissionError"
    r = await client.get("/api/nope", headers=admin.token)
    assert r.status_code == 404 and r.json()["exc_type"] == "DoesNotExistError"
    # `/api/resource/<dt>/<name>/copy` is no v2 route in v1: a document named so does not exist
    assert (await client.get(f"/api/resource/Test Note/{name}/copy", headers=admin.token)).status_code == 404


# -- OpenAPI -------------------------------------------------------------------------------------------------------

async def test_openapi_describes_v2(site: Site) -> None:
    doc = openapi_document(site)
    paths, schemas = doc["paths"], doc["components"]["schemas"]
    assert set(paths[NOTE]) == {"get", "post"}
    assert set(paths[f"{NOTE}/{{name}}"]) == {"parameters", "get", "put", "patch", "delete"}
    assert set(paths[f"{NOTE}/{{name}}/copy"]) == {"parameters", "get"}
    assert set(paths[f"{NOTE}/{{name}}/method/bump"]) == {"parameters", "post"}  # POST-only method
    assert set(paths[f"{NOTE}/{{name}}/method/describe"]) == {"parameters", "get", "post"}
    assert f"{ORDER}/{{name}}/method/submit" in paths and f"{NOTE}/{{name}}/method/submit" not in paths
    assert f"{NOTE}/{{name}}/method/not_exposed" not in paths
    assert f"{V2}/doctype/Test Note/count" in paths
    assert f"{V2}/document/Test Order Item" not in paths and f"{V2}/document/Test Settings" not in paths
    assert set(paths[f"{M}/User/generate_keys"]) == {"post"}
    assert set(paths[f"{M}/fw.client.insert"]) == {"post", "put"}
    assert {f"{M}/login", f"{M}/logout", f"{M}/ping", f"{M}/fw.auth.get_csrf_token"} <= set(paths)

    listing = paths[NOTE]["get"]
    assert {p["name"] for p in listing["parameters"]} == {"fields", "filters", "or_filters", "order_by", "group_by",
                                                         "start", "limit", "as_dict", "expand"}
    ok_schema = listing["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok_schema["required"] == ["data", "has_next_page"]
    assert ok_schema["properties"]["has_next_page"] == {"type": "boolean"}
    method = paths[f"{NOTE}/{{name}}/method/bump"]["post"]["responses"]["200"]["content"]["application/json"]
    assert method["schema"]["properties"]["data"] == {"type": "integer"}
    assert method["schema"]["properties"]["docs"]["items"] == {"$ref": "#/components/schemas/Test_Note.v2"}
    count = paths[f"{M}/fw.client.get_count"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert count["properties"]["data"] == {"type": "integer"} and "message" not in count["properties"]
    nothing = paths[f"{FX}.nothing"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert "required" not in nothing  # None: no data key

    # documents keep nulls in v2: every value nullable, child rows their own v2 shape
    note = schemas["Test_Note.v2"]["properties"]
    assert note["count"] == {"type": ["integer", "null"]}
    assert note["doctype"] == {"type": "string", "const": "Test Note"}
    assert note["status"]["enum"] == ["Open", "Closed", None]  # a Select was nullable already
    assert schemas["Test_Order.v2"]["properties"]["items"]["items"] == {
        "$ref": "#/components/schemas/Test_Order_Item.v2"}
    assert paths[f"{NOTE}/{{name}}/copy"]["get"]["responses"]["200"]["content"]["application/json"]["schema"][
        "properties"]["data"] == {"$ref": "#/components/schemas/Test_Note"}  # a copy leaves nulls out

    # errors: v2 operations refer to the v2 error body, v1 ones keep theirs
    assert listing["responses"]["417"] == {"$ref": "#/components/responses/ValidationFailed.v2"}
    assert doc["paths"]["/api/resource/Test Note"]["get"]["responses"]["417"] == {
        "$ref": "#/components/responses/ValidationFailed"}
    assert doc["components"]["responses"]["ValidationFailed.v2"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error.v2"}
    assert schemas["Error.v2"]["required"] == ["errors"]
    assert schemas["Error.v2"]["properties"]["errors"]["items"]["required"] == ["type", "message", "title", "indicator"]


# -- meta, uploads, top-level response keys ----------------------------------------------------------------

async def test_doctype_meta(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    body = ok(await client.get(f"{V2}/doctype/Test Note/meta", headers=admin.token))
    meta = body["data"]
    assert meta["name"] == "Test Note" and meta["doctype"] == "DocType"
    fields = {f["fieldname"]: f for f in meta["fields"]}
    assert fields["title"]["fieldtype"] == "Data" and fields["title"]["parent"] == "Test Note"
    assert any(p["role"] for p in meta["permissions"])
    # any logged-in user may read meta (Frappe: role "All"); a guest may not; an unknown doctype is a 404
    reader = await make_user(ctx, "meta-reader@example.com", [])
    assert ok(await client.get(f"{V2}/doctype/Test Note/meta", headers=reader.token))["data"]["name"] == "Test Note"
    v2_error(await client.get(f"{V2}/doctype/Test Note/meta"), 403, "PermissionError")
    v2_error(await client.get(f"{V2}/doctype/No Such Type/meta", headers=admin.token), 404, "DoesNotExistError")
    v2_error(await client.post(f"{V2}/doctype/Test Note/meta", headers=admin.token), 405)


async def test_upload_file_answers_in_data(client: httpx.AsyncClient, admin: ApiUser, ctx: Context,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"file": ("v2.txt", b"v2 upload", "text/plain")}
    doc = ok(await client.post(f"{M}/upload_file", files=files, headers=admin.token))["data"]
    assert doc["file_name"] == "v2.txt" and doc["file_url"] == "/files/v2.txt" and doc["file_size"] == 9
    served = await client.get(doc["file_url"])
    assert served.status_code == 200 and served.content == b"v2 upload"
    v2_error(await client.post(f"{M}/upload_file", files=files), 403, "PermissionError")  # a guest
    monkeypatch.setattr(ctx.site.settings, "max_file_size", 4)
    body = v2_error(await client.post(f"{M}/upload_file", files=files, headers=admin.token), 413,
                    "MaxFileSizeReachedError", field="file")
    assert "4" in body["errors"][0]["message"]
    assert await ctx.db.collection("file").count_documents({}) == 1


async def test_top_level_response_keys_reach_the_body(client: httpx.AsyncClient, admin: ApiUser) -> None:
    # getdoctype puts its payload in `docs` and `user_settings` (ctx.response), as Frappe's does
    body = ok(await client.get(f"{M}/frappe.desk.form.load.getdoctype", params={"doctype": "Test Note"},
                               headers=admin.token))
    assert "data" not in body and body["user_settings"] == "{}"
    assert [d["name"] for d in body["docs"]] == ["Test Note"]
