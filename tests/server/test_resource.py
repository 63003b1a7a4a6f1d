"""Contract §2.1: the v1 resource API over HTTP (`/api/resource`, also `/api/v1/resource`)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.site import Site
from server.app import create_app
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import insert_notes, ok, refused
from tests.support.custom_fields import drop_custom_fields

NOTE = "/api/resource/Test Note"
ORDER = "/api/resource/Test Order"
CUSTOMER = "/api/resource/Test Customer"


async def _customer(client: httpx.AsyncClient, admin: ApiUser, name: str, **extra: Any) -> dict[str, Any]:
    r = await client.post(CUSTOMER, json={"customer_name": name, **extra}, headers=admin.token)
    return ok(r)["data"]  # type: ignore[no-any-return]


async def _order(client: httpx.AsyncClient, admin: ApiUser, customer: str = "Acme", **extra: Any) -> dict[str, Any]:
    body = {"customer": customer, "posting_date": "2024-05-01",
            "items": [{"item": "A", "qty": 2, "rate": 5}, {"item": "B", "qty": 1, "rate": 3}], **extra}
    return ok(await client.post(ORDER, json=body, headers=admin.token))["data"]  # type: ignore[no-any-return]


# -- list -------------------------------------------------------------------------------------

async def test_list_default_fields_is_name_only(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    names = await insert_notes(ctx, {"title": "a", "count": 1}, {"title": "b", "count": 2})
    body = ok(await client.get(NOTE, headers=admin.token))
    assert set(body) == {"data"}
    assert sorted(r["name"] for r in body["data"]) == sorted(names)
    assert all(set(row) == {"name"} for row in body["data"])


async def test_list_star_fields_and_nulls_omitted(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    [name] = await insert_notes(ctx, {"title": "star", "count": 3})
    rows = ok(await client.get(NOTE, params={"fields": '["*"]'}, headers=admin.token))["data"]
    assert len(rows) == 1
    row = rows[0]
    assert row["name"] == name and row["title"] == "star" and row["count"] == 3 and row["status"] == "Open"
    assert "owner" in row and "creation" in row and "modified" in row
    assert "body" not in row and "due" not in row  # null fields are left out of v1 responses
    assert "secret" not in row  # a Password field never leaves the server


async def test_list_filters_in_every_shape(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await insert_notes(ctx, {"title": "one", "count": 1, "status": "Open"},
                 {"title": "two", "count": 5, "status": "Closed"},
                 {"title": "three", "count": 9, "status": "Closed"})

    async def titles(**params: str) -> list[str]:
        rows = ok(await client.get(NOTE, params={"fields": '["title"]', **params}, headers=admin.token))["data"]
        return sorted(r["title"] for r in rows)

    assert await titles(filters='{"status": "Closed"}') == ["three", "two"]
    assert await titles(filters='{"count": [">", 4]}') == ["three", "two"]
    assert await titles(filters='[["count", "<", 6], ["status", "=", "Closed"]]') == ["two"]
    assert await titles(filters='[["Test Note", "count", ">=", 5]]') == ["three", "two"]
    assert await titles(filters='[["title", "in", ["one", "three"]]]') == ["one", "three"]
    assert await titles(filters='[["title", "like", "t%"]]') == ["three", "two"]
    assert await titles(filters='[["count", "between", [2, 9]]]') == ["three", "two"]
    assert await titles(filters='[["body", "is", "not set"]]') == ["one", "three", "two"]
    assert await titles(or_filters='[["count", "=", 1], ["count", "=", 9]]') == ["one", "three"]
    assert await titles(filters='{"status": "Closed"}', or_filters='[["count", "=", 1], ["count", "=", 9]]') \
        == ["three"]


async def test_list_child_table_filter(client: httpx.AsyncClient, admin: ApiUser) -> None:
    await _customer(client, admin, "Acme")
    first = await _order(client, admin)
    await _order(client, admin, items=[{"item": "C", "qty": 1, "rate": 1}])
    rows = ok(await client.get(ORDER, params={"filters": '[["Test Order Item", "item", "=", "B"]]'},
                               headers=admin.token))["data"]
    assert [r["name"] for r in rows] == [first["name"]]


async def test_list_order_by_and_paging(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await insert_notes(ctx, *({"title": f"n{i}", "count": i} for i in range(8)))

    async def counts(**params: str) -> list[int]:
        rows = ok(await client.get(NOTE, params={"fields": '["count"]', **params}, headers=admin.token))["data"]
        return [r["count"] for r in rows]

    assert await counts(order_by="count asc") == list(range(8))
    assert await counts(order_by="count desc", limit_page_length="3") == [7, 6, 5]
    assert await counts(order_by="count asc", limit_start="2", limit_page_length="3") == [2, 3, 4]
    assert await counts(order_by="count asc", limit_start="6", limit="5") == [6, 7]
    assert await counts(order_by="count asc", limit="2") == [0, 1]


async def test_list_default_page_is_20(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await insert_notes(ctx, *({"title": f"p{i}"} for i in range(25)))
    assert len(ok(await client.get(NOTE, headers=admin.token))["data"]) == 20
    assert len(ok(await client.get(NOTE, params={"limit_page_length": "30"}, headers=admin.token))["data"]) == 25


@pytest.fixture
async def capped(site: Site, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[httpx.AsyncClient]:
    monkeypatch.setattr(site.settings, "max_page_length", 5)  # FW_MAX_PAGE_LENGTH=5
    app = create_app(site.settings, site=site)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
        yield c


async def test_list_page_length_is_capped(capped: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await insert_notes(ctx, *({"title": f"c{i}"} for i in range(8)))
    for length in ("100", "0"):  # 0 means "up to the cap", never "everything"
        rows = ok(await capped.get(NOTE, params={"limit_page_length": length}, headers=admin.token))["data"]
        assert len(rows) == 5, length
    rows = ok(await capped.post("/api/method/fw.client.get_list",
                                json={"doctype": "Test Note", "limit_page_length": 0}, headers=admin.token))
    assert len(rows["message"]) == 5


async def test_list_group_by_count(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await insert_notes(ctx, {"title": "a", "status": "Open"}, {"title": "b", "status": "Closed"},
                 {"title": "c", "status": "Closed"})
    rows = ok(await client.get(NOTE, params={"fields": '["status", "count(name) as count"]', "group_by": "status",
                                             "order_by": "status asc"}, headers=admin.token))["data"]
    assert rows == [{"status": "Closed", "count": 2}, {"status": "Open", "count": 1}]


async def test_list_as_dict_0_gives_lists(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await insert_notes(ctx, {"title": "x", "count": 4})
    rows = ok(await client.get(NOTE, params={"fields": '["title", "count"]', "as_dict": "0"},
                               headers=admin.token))["data"]
    assert rows == [["x", 4]]


async def test_list_stable_default_order_pages_without_gaps(client: httpx.AsyncClient, admin: ApiUser,
                                                            ctx: Context) -> None:
    names = await insert_notes(ctx, *({"title": f"s{i}"} for i in range(45)))
    # force ties on the default sort key: every document in the same instant
    await ctx.db.collection("test_note").update_many({}, {"$set": {"creation": "2024-01-01 00:00:00.000000"}})
    seen: list[str] = []
    for start in range(0, 50, 10):
        rows = ok(await client.get(NOTE, params={"limit_start": str(start), "limit_page_length": "10"},
                                   headers=admin.token))["data"]
        seen += [r["name"] for r in rows]
    assert len(seen) == len(set(seen)) == 45
    assert set(seen) == set(names)
    # and real creation order (creation desc) comes first when the timestamps differ
    async with unit_of_work(ctx):
        newest = (await new_doc(ctx, "Test Note", title="newest").insert()).name
    first = ok(await client.get(NOTE, params={"limit_page_length": "1"}, headers=admin.token))["data"]
    assert first == [{"name": newest}]


async def test_list_doctype_sort_field_is_default(client: httpx.AsyncClient, admin: ApiUser) -> None:
    for name in ("Mango", "Apple", "Zebra"):  # Test Customer sorts by customer_name ASC
        await _customer(client, admin, name)
    rows = ok(await client.get(CUSTOMER, headers=admin.token))["data"]
    assert [r["name"] for r in rows] == ["Apple", "Mango", "Zebra"]


async def test_list_bad_parameters_are_417(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await insert_notes(ctx, {"title": "a"})
    for params in ({"limit_page_length": "ten"}, {"limit_start": "-1"}, {"fields": "not json"},
                   {"filters": "{broken"}, {"as_dict": "maybe"}, {"order_by": "title; drop"}):
        refused(await client.get(NOTE, params=params, headers=admin.token), 417)


async def test_list_permission(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    await insert_notes(ctx, {"title": "a"})
    nobody = await make_user(ctx, "nobody@example.com", [])
    refused(await client.get(NOTE, headers=nobody.token), 403, "PermissionError")
    refused(await client.get(NOTE), 403, "PermissionError")  # Guest
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    assert len(ok(await client.get(NOTE, headers=reader.token))["data"]) == 1


# -- create -----------------------------------------------------------------------------------

async def test_create_with_json_body(client: httpx.AsyncClient, admin: ApiUser) -> None:
    r = await client.post(NOTE, json={"title": "json", "count": 2, "body": None}, headers=admin.token)
    doc = ok(r)["data"]
    assert doc["doctype"] == "Test Note" and doc["title"] == "json" and doc["count"] == 2
    assert doc["owner"] == "Administrator" and doc["docstatus"] == 0
    assert "body" not in doc  # nulls left out
    stored = ok(await client.get(f"{NOTE}/{doc['name']}", headers=admin.token))["data"]
    assert stored["title"] == "json"


async def test_create_with_data_form_field(client: httpx.AsyncClient, admin: ApiUser) -> None:
    """frappe-client sends a form field `data=<json>`."""
    r = await client.post(NOTE, data={"data": json.dumps({"title": "form-data", "count": 7})}, headers=admin.token)
    doc = ok(r)["data"]
    assert doc["title"] == "form-data" and doc["count"] == 7


async def test_create_with_plain_form_fields(client: httpx.AsyncClient, admin: ApiUser) -> None:
    r = await client.post(NOTE, data={"title": "plain", "count": "3"}, headers=admin.token)
    doc = ok(r)["data"]
    assert doc["title"] == "plain" and doc["count"] == 3  # coerced by the field type


async def test_create_ignores_client_name_unless_prompt(client: httpx.AsyncClient, admin: ApiUser) -> None:
    doc = ok(await client.post(NOTE, json={"title": "t", "name": "my-name"}, headers=admin.token))["data"]
    assert doc["name"] != "my-name"
    refused(await client.get(f"{NOTE}/my-name", headers=admin.token), 404)
    doc = ok(await client.post(CUSTOMER, json={"customer_name": "Real", "name": "Fake"}, headers=admin.token))["data"]
    assert doc["name"] == "Real"
    doc = ok(await client.post("/api/resource/Test Prompt", json={"name": "chosen", "label": "x"},
                               headers=admin.token))["data"]
    assert doc["name"] == "chosen"


async def test_create_ignores_server_set_fields(client: httpx.AsyncClient, admin: ApiUser) -> None:
    body = {"title": "t", "owner": "evil@example.com", "creation": "2000-01-01 00:00:00", "modified_by": "x",
            "idx": {"a": 1}}
    doc = ok(await client.post(NOTE, json=body, headers=admin.token))["data"]
    assert doc["owner"] == "Administrator" and doc["modified_by"] == "Administrator" and doc["idx"] == 0
    assert not doc["creation"].startswith("2000")
    url = f"{NOTE}/{doc['name']}"
    changed = ok(await client.put(url, json={**body, "count": 1}, headers=admin.token))["data"]
    assert changed["owner"] == "Administrator" and changed["creation"] == doc["creation"] and changed["idx"] == 0
    assert changed["count"] == 1


async def test_create_needs_create_right(client: httpx.AsyncClient, ctx: Context) -> None:
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    refused(await client.post(NOTE, json={"title": "no"}, headers=reader.token), 403, "PermissionError")
    assert await ctx.db.collection("test_note").count_documents({}) == 0


async def test_create_duplicate_is_409(client: httpx.AsyncClient, admin: ApiUser) -> None:
    await _customer(client, admin, "Dup")
    body = refused(await client.post(CUSTOMER, json={"customer_name": "Dup"}, headers=admin.token), 409,
                   "DuplicateEntryError")
    assert "Dup" in body["errors"][0]["message"]


# -- read -------------------------------------------------------------------------------------

async def test_get_one_with_children(client: httpx.AsyncClient, admin: ApiUser) -> None:
    await _customer(client, admin, "Acme", region="North")
    order = await _order(client, admin)
    body = ok(await client.get(f"{ORDER}/{order['name']}", headers=admin.token))
    assert set(body) == {"data"}
    doc = body["data"]
    assert doc["name"] == order["name"] and doc["customer_name"] == "Acme" and doc["total"] == 13
    assert [row["item"] for row in doc["items"]] == ["A", "B"]
    assert all(row["parent"] == order["name"] and row["parenttype"] == "Test Order" for row in doc["items"])
    assert "remarks" not in doc  # null


async def test_get_missing_is_404(client: httpx.AsyncClient, admin: ApiUser) -> None:
    refused(await client.get(f"{NOTE}/nope", headers=admin.token), 404, "DoesNotExistError")
    refused(await client.get("/api/resource/No Such Doctype/x", headers=admin.token), 404, "DoesNotExistError")
    refused(await client.get("/api/resource/No Such Doctype", headers=admin.token), 404, "DoesNotExistError")


async def test_get_one_hides_fields_above_permlevel(client: httpx.AsyncClient, ctx: Context,
                                                   admin: ApiUser) -> None:
    [name] = await insert_notes(ctx, {"title": "secretive", "reviewer_note": "hidden"})
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    doc = ok(await client.get(f"{NOTE}/{name}", headers=reader.token))["data"]
    assert doc["title"] == "secretive" and "reviewer_note" not in doc
    doc = ok(await client.get(f"{NOTE}/{name}", headers=admin.token))["data"]
    assert doc["reviewer_note"] == "hidden"
    # `*` means every field the caller may read; naming a hidden one is refused
    [row] = ok(await client.get(NOTE, params={"fields": '["*"]'}, headers=reader.token))["data"]
    assert row["title"] == "secretive" and "reviewer_note" not in row
    [row] = ok(await client.get(NOTE, params={"fields": '["*"]'}, headers=admin.token))["data"]
    assert row["reviewer_note"] == "hidden"
    refused(await client.get(NOTE, params={"fields": '["reviewer_note"]'}, headers=reader.token), 417, "DataError")
    refused(await client.get(NOTE, params={"filters": '{"reviewer_note": "hidden"}'}, headers=reader.token), 417)


async def test_single_doctype(client: httpx.AsyncClient, admin: ApiUser) -> None:
    r = await client.put("/api/resource/Test Settings/Test Settings", json={"default_region": "West"},
                         headers=admin.token)
    assert ok(r)["data"]["default_region"] == "West"
    doc = ok(await client.get("/api/resource/Test Settings/Test Settings", headers=admin.token))["data"]
    assert doc["default_region"] == "West"


# -- update -----------------------------------------------------------------------------------

async def test_put_merges_top_level(client: httpx.AsyncClient, admin: ApiUser) -> None:
    doc = ok(await client.post(NOTE, json={"title": "t", "count": 1, "body": "keep"}, headers=admin.token))["data"]
    updated = ok(await client.put(f"{NOTE}/{doc['name']}", json={"count": 2}, headers=admin.token))["data"]
    assert updated["count"] == 2 and updated["body"] == "keep" and updated["title"] == "t"
    assert updated["modified"] > doc["modified"]


async def test_put_with_data_form_field(client: httpx.AsyncClient, admin: ApiUser) -> None:
    doc = ok(await client.post(NOTE, json={"title": "t"}, headers=admin.token))["data"]
    updated = ok(await client.put(f"{NOTE}/{doc['name']}", data={"data": json.dumps({"count": 9})},
                                  headers=admin.token))["data"]
    assert updated["count"] == 9


async def test_put_child_table_replaces_table(client: httpx.AsyncClient, admin: ApiUser) -> None:
    await _customer(client, admin, "Acme")
    order = await _order(client, admin)
    a_row, b_row = order["items"]
    new_items = [{"name": b_row["name"], "item": "B", "qty": 4, "rate": 3}, {"item": "C", "qty": 1, "rate": 10}]
    updated = ok(await client.put(f"{ORDER}/{order['name']}", json={"items": new_items}, headers=admin.token))["data"]
    assert [r["item"] for r in updated["items"]] == ["B", "C"]
    assert updated["items"][0]["name"] == b_row["name"]  # an existing row keeps its name
    assert updated["items"][1]["name"] not in (a_row["name"], b_row["name"])
    assert [r["idx"] for r in updated["items"]] == [1, 2]
    assert updated["total"] == 22
    stored = ok(await client.get(f"{ORDER}/{order['name']}", headers=admin.token))["data"]
    assert [r["name"] for r in stored["items"]] == [r["name"] for r in updated["items"]]
    # a PUT without the table leaves it alone
    ok(await client.put(f"{ORDER}/{order['name']}", json={"remarks": "x"}, headers=admin.token))
    stored = ok(await client.get(f"{ORDER}/{order['name']}", headers=admin.token))["data"]
    assert len(stored["items"]) == 2


async def test_put_docstatus_submits_and_cancels(client: httpx.AsyncClient, admin: ApiUser) -> None:
    await _customer(client, admin, "Acme")
    order = await _order(client, admin)
    url = f"{ORDER}/{order['name']}"
    submitted = ok(await client.put(url, json={"docstatus": 1}, headers=admin.token))["data"]
    assert submitted["docstatus"] == 1
    refused(await client.put(url, json={"total": 1}, headers=admin.token), 417, "UpdateAfterSubmitError")
    ok(await client.put(url, json={"remarks": "allowed on submit"}, headers=admin.token))
    cancelled = ok(await client.put(url, json={"docstatus": 2}, headers=admin.token))["data"]
    assert cancelled["docstatus"] == 2
    refused(await client.put(url, json={"docstatus": 0}, headers=admin.token), 417, "DocstatusTransitionError")


async def test_put_docstatus_needs_submit_right(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await _customer(client, admin, "Acme")
    order = await _order(client, admin)
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    refused(await client.put(f"{ORDER}/{order['name']}", json={"docstatus": 1}, headers=reader.token), 403)
    assert ok(await client.get(f"{ORDER}/{order['name']}", headers=admin.token))["data"]["docstatus"] == 0


async def test_put_stale_modified_is_417_and_writes_nothing(client: httpx.AsyncClient, admin: ApiUser) -> None:
    doc = ok(await client.post(NOTE, json={"title": "t", "count": 1}, headers=admin.token))["data"]
    url = f"{NOTE}/{doc['name']}"
    ok(await client.put(url, json={"count": 2, "modified": doc["modified"]}, headers=admin.token))
    body = refused(await client.put(url, json={"count": 3, "modified": doc["modified"]}, headers=admin.token), 417,
                   "TimestampMismatchError")
    assert body["errors"][0]["field"] == "modified"
    assert ok(await client.get(url, headers=admin.token))["data"]["count"] == 2


async def test_put_unknown_field_is_417(client: httpx.AsyncClient, admin: ApiUser) -> None:
    doc = ok(await client.post(NOTE, json={"title": "t"}, headers=admin.token))["data"]
    body = refused(await client.put(f"{NOTE}/{doc['name']}", json={"no_such_field": 1}, headers=admin.token), 417,
                   "DataError")
    assert body["errors"][0]["field"] == "no_such_field"


async def test_put_bad_value_type_names_field(client: httpx.AsyncClient, admin: ApiUser) -> None:
    doc = ok(await client.post(NOTE, json={"title": "t"}, headers=admin.token))["data"]
    body = refused(await client.put(f"{NOTE}/{doc['name']}", json={"count": "many"}, headers=admin.token), 417)
    assert body["errors"][0]["field"] == "count"
    body = refused(await client.post(NOTE, json={"title": "t", "due": "31/12/2024"}, headers=admin.token), 417)
    assert body["errors"][0]["field"] == "due"


async def test_put_needs_write_right(client: httpx.AsyncClient, ctx: Context) -> None:
    [name] = await insert_notes(ctx, {"title": "t", "count": 1})
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    refused(await client.put(f"{NOTE}/{name}", json={"count": 5}, headers=reader.token), 403, "PermissionError")
    assert (await ctx.db.collection("test_note").find_one({"_id": name}))["count"] == 1


async def test_put_missing_is_404(client: httpx.AsyncClient, admin: ApiUser) -> None:
    refused(await client.put(f"{NOTE}/missing", json={"count": 1}, headers=admin.token), 404, "DoesNotExistError")


# -- delete -----------------------------------------------------------------------------------

async def test_delete_is_202_ok(client: httpx.AsyncClient, admin: ApiUser) -> None:
    doc = ok(await client.post(NOTE, json={"title": "gone"}, headers=admin.token))["data"]
    r = await client.delete(f"{NOTE}/{doc['name']}", headers=admin.token)
    assert ok(r, 202) == {"data": "ok"}
    refused(await client.get(f"{NOTE}/{doc['name']}", headers=admin.token), 404)
    refused(await client.delete(f"{NOTE}/{doc['name']}", headers=admin.token), 404, "DoesNotExistError")


async def test_delete_submitted_and_linked_refused(client: httpx.AsyncClient, admin: ApiUser) -> None:
    await _customer(client, admin, "Acme")
    order = await _order(client, admin)
    refused(await client.delete(f"{CUSTOMER}/Acme", headers=admin.token), 417, "LinkExistsError")
    ok(await client.put(f"{ORDER}/{order['name']}", json={"docstatus": 1}, headers=admin.token))
    refused(await client.delete(f"{ORDER}/{order['name']}", headers=admin.token), 417, "DocstatusTransitionError")


async def test_delete_needs_delete_right(client: httpx.AsyncClient, ctx: Context) -> None:
    [name] = await insert_notes(ctx, {"title": "t"})
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    refused(await client.delete(f"{NOTE}/{name}", headers=reader.token), 403, "PermissionError")
    assert await ctx.db.collection("test_note").count_documents({"_id": name}) == 1


# -- run_method -------------------------------------------------------------------------------

async def test_run_method_submit_and_cancel(client: httpx.AsyncClient, admin: ApiUser) -> None:
    await _customer(client, admin, "Acme")
    order = await _order(client, admin)
    url = f"{ORDER}/{order['name']}"
    body = ok(await client.post(url, json={"run_method": "submit"}, headers=admin.token))
    assert set(body) == {"data"} and body["data"]["docstatus"] == 1 and body["data"]["name"] == order["name"]
    body = ok(await client.post(url, data={"run_method": "cancel"}, headers=admin.token))
    assert body["data"]["docstatus"] == 2
    doc = ok(await client.get(url, headers=admin.token))["data"]
    assert doc["docstatus"] == 2


@pytest.mark.parametrize("method", ["save", "delete", "insert", "as_dict", "_load", "__init__", "reload",
                                    "db_set", "nonexistent", ""])
async def test_run_method_not_whitelisted_is_403(client: httpx.AsyncClient, admin: ApiUser, ctx: Context,
                                                 method: str) -> None:
    [name] = await insert_notes(ctx, {"title": "t"})
    r = await client.post(f"{NOTE}/{name}", json={"run_method": method}, headers=admin.token)
    refused(r, 403, "PermissionError")
    assert await ctx.db.collection("test_note").count_documents({"_id": name}) == 1


async def test_run_method_ignores_ignore_permissions(client: httpx.AsyncClient, admin: ApiUser,
                                                     ctx: Context) -> None:
    await _customer(client, admin, "Acme")
    order = await _order(client, admin)
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    r = await client.post(f"{ORDER}/{order['name']}", json={"run_method": "submit", "ignore_permissions": 1},
                          headers=reader.token)
    refused(r, 403, "PermissionError")
    assert ok(await client.get(f"{ORDER}/{order['name']}", headers=admin.token))["data"]["docstatus"] == 0


# -- mounts and names -------------------------------------------------------------------------

async def test_v1_prefix_works_the_same(client: httpx.AsyncClient, admin: ApiUser) -> None:
    doc = ok(await client.post("/api/v1/resource/Test Note", json={"title": "v1"}, headers=admin.token))["data"]
    url = f"/api/v1/resource/Test Note/{doc['name']}"
    assert ok(await client.get(url, headers=admin.token))["data"]["title"] == "v1"
    assert ok(await client.put(url, json={"count": 4}, headers=admin.token))["data"]["count"] == 4
    rows = ok(await client.get("/api/v1/resource/Test Note", params={"fields": '["count"]'}, headers=admin.token))
    assert rows == {"data": [{"count": 4}]}
    assert ok(await client.delete(url, headers=admin.token), 202) == {"data": "ok"}


async def test_names_with_slashes(client: httpx.AsyncClient, admin: ApiUser) -> None:
    await _customer(client, admin, "A/B Trading", region="South")
    url = f"{CUSTOMER}/A/B Trading"
    assert ok(await client.get(url, headers=admin.token))["data"]["region"] == "South"
    encoded = f"{CUSTOMER}/A%2FB%20Trading"
    assert ok(await client.get(encoded, headers=admin.token))["data"]["name"] == "A/B Trading"
    assert ok(await client.put(url, json={"region": "East"}, headers=admin.token))["data"]["region"] == "East"
    assert ok(await client.delete(url, headers=admin.token), 202) == {"data": "ok"}


async def test_trailing_slash_and_url_encoded_doctype(client: httpx.AsyncClient, admin: ApiUser) -> None:
    await _customer(client, admin, "Enc")
    rows = ok(await client.get("/api/resource/Test%20Customer", headers=admin.token))["data"]
    assert rows == [{"name": "Enc"}]


async def test_run_method_of_an_app(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    [name] = await insert_notes(ctx, {"title": "m", "count": 1})
    url = f"{NOTE}/{name}"
    assert ok(await client.post(url, json={"run_method": "bump", "by": 2}, headers=admin.token)) == {"data": 3}
    assert ok(await client.post(url, data={"run_method": "bump", "by": "4"}, headers=admin.token)) == {"data": 7}
    assert (await ctx.db.collection("test_note").find_one({"_id": name}))["count"] == 7
    body = refused(await client.post(url, json={"run_method": "bump", "by": "lots"}, headers=admin.token), 417,
                   "ArgumentTypeError")
    assert body["errors"][0]["field"] == "by"
    # unknown arguments dropped; a returned dict keeps its nulls; GET runs a method that allows it (read right)
    r = await client.get(url, params={"run_method": "describe", "prefix": "> ", "junk": "1"}, headers=admin.token)
    assert ok(r) == {"data": {"title": "> m", "body": None}}
    refused(await client.get(url, params={"run_method": "bump"}, headers=admin.token), 403, "PermissionError")
    refused(await client.post(url, json={"run_method": "not_exposed"}, headers=admin.token), 403, "PermissionError")
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    assert ok(await client.get(url, params={"run_method": "describe"}, headers=reader.token))["data"]["title"] == "m"
    refused(await client.post(url, json={"run_method": "bump"}, headers=reader.token), 403, "PermissionError")
    refused(await client.post(url, json={"run_method": "describe"}, headers=reader.token), 403, "PermissionError")
    assert (await ctx.db.collection("test_note").find_one({"_id": name}))["count"] == 7
    refused(await client.post(f"{NOTE}/missing", json={"run_method": "bump"}, headers=admin.token), 404)


async def test_list_more_operators(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await insert_notes(ctx, {"title": "alpha", "count": 1}, {"title": "beta", "count": 2},
                       {"title": "gamma", "count": 3})

    async def titles(filters: str) -> list[str]:
        rows = ok(await client.get(NOTE, params={"fields": '["title"]', "filters": filters},
                                   headers=admin.token))["data"]
        return sorted(r["title"] for r in rows)

    assert await titles('[["count", "!=", 2]]') == ["alpha", "gamma"]
    assert await titles('[["count", "<=", 2]]') == ["alpha", "beta"]
    assert await titles('[["title", "not in", ["alpha"]]]') == ["beta", "gamma"]
    assert await titles('[["title", "not like", "%a"]]') == []
    assert await titles('[["title", "not like", "al%"]]') == ["beta", "gamma"]
    assert await titles('[["count", "is", "set"]]') == ["alpha", "beta", "gamma"]
    assert await titles('{"title": ["in", "alpha,gamma"]}') == ["alpha", "gamma"]


async def test_list_tree_operators(client: httpx.AsyncClient, admin: ApiUser) -> None:
    cat = "/api/resource/Test Category"
    ok(await client.post(cat, json={"category_name": "Root"}, headers=admin.token))
    ok(await client.post(cat, json={"category_name": "Mid", "parent_test_category": "Root"}, headers=admin.token))
    ok(await client.post(cat, json={"category_name": "Leaf", "parent_test_category": "Mid"}, headers=admin.token))
    ok(await client.post(cat, json={"category_name": "Other"}, headers=admin.token))

    async def names(filters: str) -> list[str]:
        return sorted(r["name"] for r in ok(await client.get(cat, params={"filters": filters},
                                                             headers=admin.token))["data"])

    assert await names('[["name", "descendants of", "Root"]]') == ["Leaf", "Mid"]
    assert await names('[["name", "ancestors of", "Leaf"]]') == ["Mid", "Root"]
    assert await names('[["name", "not descendants of", "Root"]]') == ["Other", "Root"]
    assert await names('[["name", "not ancestors of", "Leaf"]]') == ["Leaf", "Other"]


async def test_put_form_with_stale_modified_in_query(client: httpx.AsyncClient, admin: ApiUser) -> None:
    doc = ok(await client.post(NOTE, json={"title": "t", "count": 1}, headers=admin.token))["data"]
    url = f"{NOTE}/{doc['name']}"
    ok(await client.put(url, json={"count": 2}, headers=admin.token))
    r = await client.put(url, params={"modified": doc["modified"]}, data={"count": "3"}, headers=admin.token)
    refused(r, 417, "TimestampMismatchError")
    assert ok(await client.get(url, headers=admin.token))["data"]["count"] == 2


async def test_child_and_single_doctypes_are_refused_cleanly(client: httpx.AsyncClient, admin: ApiUser) -> None:
    item = "/api/resource/Test Order Item"
    refused(await client.get(item, headers=admin.token), 417, "DataError")
    refused(await client.get(f"{item}/x", headers=admin.token), 417, "DataError")
    refused(await client.post(item, json={"item": "x"}, headers=admin.token), 417, "DataError")
    refused(await client.get("/api/resource/Test Settings", headers=admin.token), 417, "DataError")


async def test_huge_offsets_are_417(client: httpx.AsyncClient, admin: ApiUser) -> None:
    for start in (str(2**63), str(10**30)):
        body = refused(await client.get(NOTE, params={"limit_start": start}, headers=admin.token), 417, "DataError")
        assert body["errors"][0]["field"] == "limit_start"
    rows = ok(await client.get(NOTE, params={"limit_page_length": str(10**30)}, headers=admin.token))["data"]
    assert rows == []


async def test_a_custom_field_added_by_another_process_is_served(site: Site, admin: ApiUser, ctx: Context) -> None:
    """Each request checks the meta version (at most once per FW_META_CHECK_INTERVAL): a web process
    serves a Custom Field that another process (here: another Site on the same database) added."""
    other = Site(site.settings.model_copy(update={"meta_check_interval": 0.0}), site.db, site.apps)
    await other.meta.refresh_if_stale()
    app = create_app(other.settings, site=other)
    params = {"fields": '["name", "shelf"]'}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as web:
        body = refused(await web.get("/api/resource/Test Note", params=params, headers=admin.token), 417)
        assert "shelf" in body["errors"][0]["message"]
        try:
            async with unit_of_work(ctx):
                await new_doc(ctx, "Custom Field", dt="Test Note", fieldname="shelf", fieldtype="Data",
                              label="Shelf").insert()
                await new_doc(ctx, "Test Note", title="t").insert()
            assert ok(await web.get("/api/resource/Test Note", params=params, headers=admin.token))["data"] == [
                {"name": (await ctx.db.collection("test_note").find_one({}))["_id"]}]
        finally:
            await drop_custom_fields(site, ["Test Note"])
    await other.close_services()
