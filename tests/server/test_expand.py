"""Link expansion over HTTP (engine.methods.expand): `expand` on v1/v2 lists and single reads,
`expand_links` on single reads. Expanded documents are exactly what the caller could read (row
conditions, `has_permission` hooks, permlevels); anything else stays a plain name."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from engine.context import Context, unit_of_work
from engine.documents import store
from engine.documents.factory import new_doc
from engine.migrate import sync_doctype
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import ok, refused
from tests.support.custom_fields import drop_custom_fields
from tests.support.reads import store_reads

NOTE = "/api/resource/Test Note"
NOTE_V2 = "/api/v2/document/Test Note"
USED = ("Test Customer", "Test Note")


@pytest.fixture
async def linked(ctx: Context) -> AsyncIterator[dict[str, str]]:
    """Customers in three regions and a note for each (plus one without a customer); names by key."""
    for doctype in USED:
        await sync_doctype(ctx.site, doctype)
    names: dict[str, str] = {}
    async with unit_of_work(ctx):
        for key, region in (("north", "North"), ("south", "South"), ("silent", "Silent")):
            customer = await new_doc(ctx, "Test Customer", customer_name=f"{key} ltd", region=region,
                                     credit_limit=100).insert()
            names[key] = customer.name
            note = await new_doc(ctx, "Test Note", title=f"note {key}", customer=customer.name).insert()
            names[f"note_{key}"] = note.name
        names["note_none"] = (await new_doc(ctx, "Test Note", title="note none").insert()).name
    yield names
    if await ctx.db.collection("custom_field").count_documents({}):
        await drop_custom_fields(ctx.site, USED)


def _by_title(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {row["title"]: row for row in rows}


async def test_list_expand_embeds_linked_documents_in_one_query_per_doctype(
        client: httpx.AsyncClient, admin: ApiUser, linked: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    finds = store_reads(monkeypatch)
    rows = ok(await client.get(NOTE, params={"fields": '["title"]', "expand": '["customer"]',
                                             "limit_page_length": 0}, headers=admin.token))["data"]
    notes = _by_title(rows)
    north = notes["note north"]["customer"]
    assert north["doctype"] == "Test Customer" and north["name"] == linked["north"]
    assert north["customer_name"] == "north ltd" and north["region"] == "North" and north["credit_limit"] == 100
    assert "customer" not in notes["note none"]  # null: left out, as v1 does
    assert finds == ["Test Note", "Test Customer"]  # never one query per row


async def test_expand_adds_the_link_column_and_accepts_a_comma_list(client: httpx.AsyncClient, admin: ApiUser,
                                                                    linked: dict[str, str]) -> None:
    rows = ok(await client.get(NOTE, params={"expand": "customer", "filters": json.dumps(
        {"name": linked["note_south"]})}, headers=admin.token))["data"]
    assert rows == [{"name": linked["note_south"], "customer": rows[0]["customer"]}]
    assert rows[0]["customer"]["customer_name"] == "south ltd"


async def test_what_the_caller_may_not_read_stays_a_name(client: httpx.AsyncClient, ctx: Context,
                                                         linked: dict[str, str]) -> None:
    """Test Regional readers see North customers only (a row condition); the fixture's has_permission
    hook denies "Silent" customers to everyone but Administrator."""
    regional = await make_user(ctx, "regional@example.com", ["Test Reader", "Test Regional"])
    rows = ok(await client.get(NOTE, params={"fields": '["title"]', "expand": '["customer"]',
                                             "limit_page_length": 0}, headers=regional.token))["data"]
    notes = _by_title(rows)
    assert notes["note north"]["customer"]["name"] == linked["north"]
    assert notes["note south"]["customer"] == linked["south"]
    assert notes["note silent"]["customer"] == linked["silent"]
    owner = await make_user(ctx, "owner@example.com", ["Test Owner"])  # reads its own notes, no customers
    async with unit_of_work(ctx.clone("owner@example.com")) as own:
        await new_doc(own, "Test Note", title="mine", customer=linked["north"]).insert()
    [mine] = ok(await client.get(NOTE, params={"fields": '["title"]', "expand": '["customer"]'},
                                 headers=owner.token))["data"]
    assert mine == {"title": "mine", "customer": linked["north"]}


async def test_expanded_documents_lose_fields_above_the_callers_permlevel(client: httpx.AsyncClient, ctx: Context,
                                                                          admin: ApiUser,
                                                                          linked: dict[str, str]) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Custom Field", dt="Test Customer", fieldname="margin", fieldtype="Float",
                      label="Margin", permlevel=1).insert()
    async with unit_of_work(ctx):
        await store.update(ctx, ctx.meta("Test Customer"), linked["north"], {"margin": 0.4})
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    params = {"expand": '["customer"]'}
    for_reader = ok(await client.get(f"{NOTE}/{linked['note_north']}", params=params, headers=reader.token))
    for_admin = ok(await client.get(f"{NOTE}/{linked['note_north']}", params=params, headers=admin.token))
    assert for_reader["data"]["customer"]["customer_name"] == "north ltd"
    assert "margin" not in for_reader["data"]["customer"]
    assert for_admin["data"]["customer"]["margin"] == 0.4


async def test_expand_links_covers_child_rows_and_dynamic_links(client: httpx.AsyncClient, ctx: Context,
                                                                admin: ApiUser, linked: dict[str, str]) -> None:
    """User.roles rows link to Role; a Dynamic Link names its doctype in another field, a Link to
    DocType that is expanded too (into the DocType record)."""
    await make_user(ctx, "clerk@example.com", ["Test Reader"])
    user = ok(await client.get("/api/resource/User/clerk@example.com", params={"expand_links": 1},
                               headers=admin.token))["data"]
    roles = {row["role"]["name"]: row["role"] for row in user["roles"]}
    assert roles["Test Reader"]["doctype"] == "Role" and roles["Test Reader"]["role_name"] == "Test Reader"

    async with unit_of_work(ctx):
        await new_doc(ctx, "Custom Field", dt="Test Note", fieldname="reference_doctype", fieldtype="Link",
                      options="DocType", label="Reference Type").insert()
        await new_doc(ctx, "Custom Field", dt="Test Note", fieldname="reference_name", fieldtype="Dynamic Link",
                      options="reference_doctype", label="Reference").insert()
    async with unit_of_work(ctx):
        ref = await new_doc(ctx, "Test Note", title="ref", reference_doctype="Test Customer",
                            reference_name=linked["south"]).insert()
    one = ok(await client.get(f"{NOTE}/{ref.name}", params={"expand_links": "1"}, headers=admin.token))["data"]
    assert one["reference_name"]["customer_name"] == "south ltd"
    assert one["reference_doctype"]["doctype"] == "DocType" and one["reference_doctype"]["name"] == "Test Customer"
    # a list asked for the Dynamic Link alone also gets the field naming its doctype
    [row] = ok(await client.get(NOTE, params={"expand": '["reference_name"]', "filters": json.dumps(
        {"name": ref.name})}, headers=admin.token))["data"]
    assert row["reference_doctype"] == "Test Customer" and row["reference_name"]["region"] == "South"


async def test_v2_expands_and_keeps_nulls(client: httpx.AsyncClient, admin: ApiUser, linked: dict[str, str]) -> None:
    body = ok(await client.get(NOTE_V2, params={"fields": '["title", "customer"]', "expand": '["customer"]',
                                                "filters": json.dumps({"name": linked["note_north"]})},
                               headers=admin.token))
    [row] = body["data"]
    assert row["customer"]["customer_name"] == "north ltd"
    assert "owner" in row["customer"] and body["has_next_page"] is False
    one = ok(await client.get(f"{NOTE_V2}/{linked['note_north']}", params={"expand": '["customer"]'},
                              headers=admin.token))["data"]
    assert one["customer"]["name"] == linked["north"] and one["category"] is None  # v2 keeps nulls


@pytest.mark.parametrize(("expand", "why"), [
    ('["title"]', "is not a Link field"),            # a Data field
    ('["nope"]', "is not a Link field"),             # unknown
    ("[1]", "must be a list of Link fields"),
    ('{"customer": 1}', "is not a Link field"),  # not a list: read as comma-separated names
])
async def test_bad_expand_is_a_data_error_naming_expand(client: httpx.AsyncClient, admin: ApiUser,
                                                        linked: dict[str, str], expand: str, why: str) -> None:
    for url in (NOTE, f"{NOTE}/{linked['note_north']}"):
        body = refused(await client.get(url, params={"expand": expand}, headers=admin.token), 417, "DataError")
        assert why in body["exception"]
        assert body["errors"][0]["field"] == "expand"


async def test_expand_needs_object_rows(client: httpx.AsyncClient, admin: ApiUser, linked: dict[str, str]) -> None:
    body = refused(await client.get(NOTE, params={"expand": '["customer"]', "as_dict": 0}, headers=admin.token),
                   417, "DataError")
    assert body["errors"][0]["field"] == "expand"
