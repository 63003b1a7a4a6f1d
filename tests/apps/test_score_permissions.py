"""Employee Score row permissions (`permission_query_conditions`, interface-spec "Authentication" 6):
lists, counts and single reads, as each role of contract §5."""

from __future__ import annotations

import httpx
from workforce_scoring.permissions import employee_score_conditions

from engine.context import unit_of_work
from engine.documents.factory import new_doc
from engine.site import Site
from tests.apps.conftest import Org, People, api_user
from tests.server.conftest import ApiUser

RESOURCE = "/api/resource/Employee Score"


async def seed(site: Site, org: Org) -> dict[str, str]:
    ctx = site.context()
    names = {}
    async with unit_of_work(ctx):
        for code, value in (("E-1001", 61), ("E-1002", 72), ("E-2001", 40)):
            doc = await new_doc(ctx, "Employee Score", employee=org.emp(code), period_type="Monthly",
                                period_value="2024-03", value=value, source="calculation").insert()
            names[code] = doc.name
    return names


async def listed(client: httpx.AsyncClient, user: ApiUser) -> set[str]:
    r = await client.get(RESOURCE, headers=user.token, params={"fields": '["name", "employee"]'})
    assert r.status_code == 200, r.text
    return {row["name"] for row in r.json()["data"]}


async def counted(client: httpx.AsyncClient, user: ApiUser) -> int:
    r = await client.post("/api/method/fw.client.get_count", json={"doctype": "Employee Score"}, headers=user.token)
    assert r.status_code == 200, r.text
    return int(r.json()["message"])


async def test_the_conditions_table(people: People, org: Org, ws: Site) -> None:
    ctx = ws.context()
    for user in ("Administrator", people.sysman.email, people.hr.email, people.manager.email):
        assert await employee_score_conditions(user, ctx) == "", user
    assert await employee_score_conditions(people.ada.email, ctx) == [["employee", "=", org.emp("E-1001")]]
    assert await employee_score_conditions(people.grace.email, ws.context(people.grace.email)) == [
        ["employee", "=", org.emp("E-1002")]]
    assert await employee_score_conditions(people.stranger.email, ctx) == [["name", "in", []]]
    assert await employee_score_conditions(people.warehouse.email, ctx) == [["name", "in", []]]


async def test_what_each_role_sees(client: httpx.AsyncClient, people: People, org: Org, ws: Site) -> None:
    names = await seed(ws, org)
    everything = set(names.values())
    for user in (people.sysman, people.hr, people.manager):
        assert await listed(client, user) == everything, user.email
        assert await counted(client, user) == 3
    assert await listed(client, people.ada) == {names["E-1001"]}
    assert await counted(client, people.ada) == 1
    assert await listed(client, people.grace) == {names["E-1002"]}
    assert await listed(client, people.stranger) == set()  # an Employee linked to no Employee record
    assert await counted(client, people.stranger) == 0
    # caller filters are AND-ed: they can never widen the restriction
    r = await client.get(RESOURCE, headers=people.ada.token,
                         params={"filters": f'[["employee", "=", "{org.emp("E-2001")}"]]'})
    assert r.json()["data"] == []
    # Warehouse Managers have no read right on Employee Score at all
    assert (await client.get(RESOURCE, headers=people.warehouse.token)).status_code == 403


async def test_single_reads_obey_the_same_rule(client: httpx.AsyncClient, people: People, org: Org,
                                               ws: Site) -> None:
    names = await seed(ws, org)
    assert (await client.get(f"{RESOURCE}/{names['E-1001']}", headers=people.ada.token)).status_code == 200
    for user in (people.ada, people.stranger):
        r = await client.get(f"{RESOURCE}/{names['E-2001']}", headers=user.token)
        assert r.status_code == 403, user.email
    assert (await client.get(f"{RESOURCE}/{names['E-2001']}", headers=people.manager.token)).status_code == 200


async def test_score_permissions_per_role(client: httpx.AsyncClient, people: People, org: Org, ws: Site) -> None:
    names = await seed(ws, org)
    body = {"employee": org.emp("E-1001"), "period_type": "Monthly", "period_value": "2024-04", "value": 50}
    for user in (people.manager, people.ada, people.warehouse):
        assert (await client.post(RESOURCE, json=body, headers=user.token)).status_code == 403, user.email
    r = await client.post(RESOURCE, json=body, headers=people.hr.token)
    assert r.status_code == 200, r.text
    created = r.json()["data"]
    assert created["level"] == "average" and created["employee_name"] == "Ada Lovelace"  # derived on save
    r = await client.put(f"{RESOURCE}/{created['name']}", json={"docstatus": 1}, headers=people.hr.token)
    assert r.status_code == 200 and r.json()["data"]["docstatus"] == 1
    r = await client.put(f"{RESOURCE}/{created['name']}", json={"docstatus": 2}, headers=people.hr.token)
    assert r.status_code == 200 and r.json()["data"]["docstatus"] == 2
    r = await client.delete(f"{RESOURCE}/{names['E-1001']}", headers=people.hr.token)
    assert r.status_code == 403  # HR Reviewers do not delete
    assert (await client.delete(f"{RESOURCE}/{names['E-1001']}", headers=people.sysman.token)).status_code == 202


async def test_a_user_with_both_kinds_of_role_sees_everything(client: httpx.AsyncClient, people: People, org: Org,
                                                              ws: Site) -> None:
    names = await seed(ws, org)
    both = await api_user(ws.context(), "both@example.com", ["Employee", "Department Manager"])
    assert await listed(client, both) == set(names.values())
