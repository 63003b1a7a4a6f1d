"""`fw.desk.search.search_link` (desk.md §4's Link control; Frappe's `frappe.desk.search.search_link`):
name, title and search fields searched; start-of-field matches first; only rows the caller may read
(row conditions included, which the caller's filters can never widen); hostile text matches itself;
bad arguments are 417s naming the argument; custom queries; documented in the OpenAPI."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from tests.apps.conftest import Org, People
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import ok, refused

SEARCH = "/api/method/fw.desk.search.search_link"


async def search(client: httpx.AsyncClient, user: ApiUser, doctype: str, txt: str = "", **args: Any) -> httpx.Response:
    return await client.get(SEARCH, params={"doctype": doctype, "txt": txt, **args}, headers=user.token)


async def found(client: httpx.AsyncClient, user: ApiUser, doctype: str, txt: str = "", **args: Any) -> list[Any]:
    return ok(await search(client, user, doctype, txt, **args))["message"]  # type: ignore[no-any-return]


async def customers(ctx: Context, *rows: tuple[str, str]) -> None:
    async with unit_of_work(ctx):
        for name, region in rows:
            await new_doc(ctx, "Test Customer", customer_name=name, region=region).insert()


@pytest.fixture
async def regional(ctx: Context) -> ApiUser:
    """A reader whose row condition (fwtest.perms) shows only region North."""
    return await make_user(ctx, "regional@example.com", ["Test Reader", "Test Regional"])


async def test_name_title_and_search_fields(client: httpx.AsyncClient, people: People, org: Org) -> None:
    rows = await found(client, people.warehouse, "Employee", "Grace")
    assert rows == [{"value": org.emp("E-1002"), "label": "Grace Hopper", "description": "E-1002"}]
    rows = await found(client, people.warehouse, "Employee", "E-2001")  # a search field (employee_number)
    assert [r["label"] for r in rows] == ["Alan Turing"]
    rows = await found(client, people.warehouse, "Employee", org.emp("E-1001"))  # the name
    assert [r["value"] for r in rows] == [org.emp("E-1001")]
    rows = await found(client, people.warehouse, "Employee", "hopper")  # case-insensitive, anywhere
    assert [r["label"] for r in rows] == ["Grace Hopper"]


async def test_start_of_field_matches_come_first(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await customers(ctx, ("Zeta Ann", "North"), ("Anna First", "North"), ("Bob Annex", "North"),
                    ("Anne Second", "South"))
    rows = await found(client, admin, "Test Customer", "ann")
    # prefix matches (sorted by the doctype's sort, customer_name asc), then the others
    assert [r["value"] for r in rows] == ["Anna First", "Anne Second", "Bob Annex", "Zeta Ann"]
    assert all("label" not in r for r in rows)  # no title field: the value is the label


async def test_empty_text_and_page_length(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await customers(ctx, *[(f"Customer {i:02}", "North") for i in range(15)])
    rows = await found(client, admin, "Test Customer")
    assert [r["value"] for r in rows] == [f"Customer {i:02}" for i in range(10)]  # Frappe's default of 10
    assert len(await found(client, admin, "Test Customer", page_length=3)) == 3
    for bad in (0, 101, -1):
        body = refused(await search(client, admin, "Test Customer", page_length=bad), 417)
        assert body["errors"][0]["field"] == "page_length"


async def test_row_conditions_apply_and_filters_cannot_widen_them(client: httpx.AsyncClient, regional: ApiUser,
                                                                   admin: ApiUser, ctx: Context) -> None:
    await customers(ctx, ("Northern Lights", "North"), ("Northwind South", "South"), ("Polar North", "North"))
    assert [r["value"] for r in await found(client, admin, "Test Customer", "North")] == [
        "Northern Lights", "Northwind South", "Polar North"]
    rows = await found(client, regional, "Test Customer", "North")
    assert [r["value"] for r in rows] == ["Northern Lights", "Polar North"]  # South is outside the row condition
    assert await found(client, regional, "Test Customer", "Northwind") == []
    for filters in ('{"region": "South"}', '[["region", "in", ["North", "South"]]]', '{"name": "Northwind South"}'):
        rows = await found(client, regional, "Test Customer", "", filters=filters)
        assert "Northwind South" not in [r["value"] for r in rows], filters
    rows = await found(client, admin, "Test Customer", "", filters='{"region": "South"}')
    assert [r["value"] for r in rows] == ["Northwind South"]


async def test_an_employee_finds_only_their_own_scores(client: httpx.AsyncClient, people: People, org: Org,
                                                        ws: Any) -> None:
    ctx = ws.context("Administrator")
    async with unit_of_work(ctx):
        for code in ("E-1001", "E-1002"):
            await new_doc(ctx, "Employee Score", employee=org.emp(code), period_type="Monthly",
                          period_value="2024-01", value=50).insert()
    mine = await found(client, people.ada, "Employee Score", "Ada")
    assert len(mine) == 1 and mine[0]["label"] == "Ada Lovelace"
    assert await found(client, people.ada, "Employee Score", "Grace") == []
    assert len(await found(client, people.hr, "Employee Score")) == 2


async def test_who_may_search(client: httpx.AsyncClient, ctx: Context) -> None:
    nobody = await make_user(ctx, "nobody@example.com", [])
    refused(await search(client, nobody, "Test Customer", "a"), 403, "PermissionError")
    r = await client.get(SEARCH, params={"doctype": "Test Customer", "txt": "a"})
    refused(r, 403, "PermissionError")  # Guest


async def test_disabled_users_are_not_offered(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await make_user(ctx, "active@example.com", [])
    await make_user(ctx, "gone@example.com", [])
    async with unit_of_work(ctx):
        from engine.documents.factory import get_doc

        gone = await get_doc(ctx, "User", "gone@example.com")
        gone.enabled = 0
        await gone.save()
    values = [r["value"] for r in await found(client, admin, "User", "@example.com")]
    assert "active@example.com" in values and "gone@example.com" not in values


@pytest.mark.parametrize("txt", [".*", "a.b", "(", "[a-z]+", "^A", "a|b", "\\", "$where", "{\"$gt\": \"\"}", "*"])
async def test_hostile_text_matches_itself(client: httpx.AsyncClient, admin: ApiUser, ctx: Context, txt: str) -> None:
    await customers(ctx, ("a.b", "North"), ("axb", "North"), ("plain", "North"))
    values = [r["value"] for r in await found(client, admin, "Test Customer", txt)]
    expected = ["a.b"] if txt == "a.b" else []
    assert values == expected, (txt, values)


@pytest.mark.parametrize(("args", "status", "field"), [
    ({"doctype": "No Such Doctype"}, 404, None),
    ({"doctype": "Test Order Item"}, 417, "doctype"),  # a child table
    ({"doctype": "Test Settings"}, 417, "doctype"),  # a Single
    ({"doctype": "Test Customer", "txt": "x" * 141}, 417, "txt"),
    ({"doctype": "Test Customer", "searchfield": "no_such_field"}, 417, "searchfield"),
    ({"doctype": "Test Customer", "filters": "{not json"}, 417, "filters"),
    ({"doctype": "Test Customer", "filters": '[["no_such_field", "=", 1]]'}, 417, "no_such_field"),
    ({"doctype": "Test Customer", "query": "fwtest.api.not_there"}, 403, None),
])
async def test_bad_arguments(client: httpx.AsyncClient, admin: ApiUser, args: dict[str, Any], status: int,
                             field: str | None) -> None:
    r = await client.get(SEARCH, params={"txt": "", **args}, headers=admin.token)
    body = refused(r, status)
    if field is not None:
        assert body["errors"][0]["field"] == field, body


async def test_searchfield_adds_a_field(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await customers(ctx, ("Alpha", "Nordic"), ("Beta", "North"))
    assert await found(client, admin, "Test Customer", "Nordic") == []
    rows = await found(client, admin, "Test Customer", "Nordic", searchfield="region")
    assert rows == [{"value": "Alpha", "description": "Nordic"}]


async def test_a_custom_query(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await customers(ctx, ("North One", "North"), ("North Two", "South"))
    rows = await found(client, admin, "Test Customer", "North", query="fwtest.api.regional_customer_query",
                       filters='{"region": "South"}')
    assert rows == [{"value": "North Two", "description": "South"}]


async def test_post_works_like_get(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    await customers(ctx, ("Posted", "North"))
    r = await client.post(SEARCH, json={"doctype": "Test Customer", "txt": "post", "page_length": 5},
                          headers=admin.token)
    assert ok(r)["message"] == [{"value": "Posted"}]  # Test Customer has no title or search fields


async def test_documented_in_the_openapi(client: httpx.AsyncClient) -> None:
    spec = ok(await client.get("/api/openapi.json"))
    operation = spec["paths"]["/api/method/fw.desk.search.search_link"]["get"]
    params = {p["name"] for p in operation["parameters"]}
    assert {"doctype", "txt", "filters", "page_length", "searchfield", "reference_doctype"} <= params
    assert "permission" in operation["description"].lower() or "read" in operation["description"].lower()
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["properties"]["message"]["items"] == {"$ref": "#/components/schemas/py.LinkResult"}
    result = spec["components"]["schemas"]["py.LinkResult"]
    assert set(result["properties"]) == {"value", "label", "description"}
