"""`receive_data` over HTTP: every per-record rule of interface-spec, bad input, concurrency."""

from __future__ import annotations

import asyncio
import json

import httpx
import pymongo

from engine.mongod import embedded
from engine.query.listing import get_all
from engine.site import Site
from tests.apps.conftest import Org, People, call
from tests.server.conftest import make_user

METHOD = "workforce_scoring.api.external.receive_data"


async def scores(site: Site) -> list[dict]:
    return await get_all(site.context(), "Employee Score", fields=["*"], order_by="date asc, employee asc")


async def test_records_are_stored_as_external_scores(client: httpx.AsyncClient, people: People, org: Org,
                                                     ws: Site) -> None:
    r = await call(client, people.sysman, METHOD, data=[
        {"employee_code": "E-1001", "date": "2024-03-01", "value": 61.5},
        {"employee_code": "E-2001", "date": "2024-03-01", "value": 48}])
    assert r.status_code == 200, r.text
    assert r.json()["message"] == {"status": "ok", "created": 2, "skipped": 0, "errors": []}
    stored = await scores(ws)
    assert [(s["employee"], s["date"], s["value"], s["source"]) for s in stored] == [
        (org.emp("E-1001"), "2024-03-01", 61.5, "external_system"),
        (org.emp("E-2001"), "2024-03-01", 48.0, "external_system")]
    first = stored[0]
    assert (first["employee_name"], first["company"], first["branch"]) == ("Ada Lovelace", "Acme Logistics",
                                                                           "North Hub")
    assert first["name"].startswith("ES-") and len(first["name"]) == len("ES-0000001")
    assert first["docstatus"] == 0 and first["owner"] == people.sysman.email


async def test_data_may_be_a_json_string_and_value_defaults_to_zero(client: httpx.AsyncClient, people: People,
                                                                   org: Org, ws: Site) -> None:
    payload = json.dumps([{"employee_code": "E-1002", "date": "2024-03-02"}])
    r = await call(client, people.hr, METHOD, data=payload)
    assert r.json()["message"] == {"status": "ok", "created": 1, "skipped": 0, "errors": []}
    assert [(s["employee"], s["value"]) for s in await scores(ws)] == [(org.emp("E-1002"), 0.0)]


async def test_form_encoded_json_string_is_accepted(client: httpx.AsyncClient, people: People, org: Org) -> None:
    r = await client.post(f"/api/method/{METHOD}", headers=people.hr.token,
                          data={"data": json.dumps([{"employee_code": "E-1001", "date": "2024-03-03", "value": 1}])})
    assert r.json()["message"]["created"] == 1


async def test_unknown_code_is_not_found(client: httpx.AsyncClient, people: People, org: Org, ws: Site) -> None:
    r = await call(client, people.hr, METHOD, data=[
        {"employee_code": "NOPE-1", "date": "2024-03-01", "value": 10},
        {"employee_code": "E-1001", "date": "2024-03-01", "value": 20},
        {"date": "2024-03-01", "value": 30}])
    assert r.json()["message"] == {"status": "partial", "created": 1, "skipped": 2, "errors": [
        {"code": "NOPE-1", "error": "Not found"}, {"code": None, "error": "Not found"}]}
    assert len(await scores(ws)) == 1
    assert await ws.db.collection("error_log").count_documents({}) == 0  # not an exception: nothing logged


async def test_numeric_codes_match_text_employee_numbers(client: httpx.AsyncClient, people: People, org: Org,
                                                        ws: Site) -> None:
    from engine.context import unit_of_work
    from tests.apps.conftest import make_employee

    ctx = ws.context()
    async with unit_of_work(ctx):
        await make_employee(ctx, org, "4711", "Numeric Code", "Acme Logistics", "North Hub")
    r = await call(client, people.hr, METHOD, data=[{"employee_code": 4711, "date": "2024-03-01", "value": 5}])
    assert r.json()["message"]["created"] == 1


async def test_stored_and_repeated_records_are_skipped_silently(client: httpx.AsyncClient, people: People,
                                                               org: Org, ws: Site) -> None:
    first = [{"employee_code": "E-1001", "date": "2024-03-01", "value": 50}]
    assert (await call(client, people.hr, METHOD, data=first)).json()["message"]["created"] == 1
    r = await call(client, people.hr, METHOD, data=[
        {"employee_code": "E-1001", "date": "2024-03-01", "value": 99},  # stored already
        {"employee_code": "E-1002", "date": "2024-03-01", "value": 40},
        {"employee_code": "E-1002", "date": "2024-03-01", "value": 41}])  # repeated in this delivery
    assert r.json()["message"] == {"status": "ok", "created": 1, "skipped": 2, "errors": []}
    stored = await scores(ws)
    assert sorted((s["employee"], s["value"]) for s in stored) == [(org.emp("E-1001"), 50.0),
                                                                   (org.emp("E-1002"), 40.0)]


async def test_exceptions_become_errors_are_logged_and_processing_continues(
        client: httpx.AsyncClient, people: People, org: Org, ws: Site) -> None:
    r = await call(client, people.hr, METHOD, data=[
        {"employee_code": "E-1001", "value": 10},  # no date
        {"employee_code": "E-1001", "date": "2024-02-30", "value": 10},  # no such day
        {"employee_code": "E-1002", "date": "2024-03-01", "value": "lots"},  # not a number
        "not a record",
        {"employee_code": "E-2001", "date": "2024-03-01", "value": 70}])
    body = r.json()["message"]
    assert r.status_code == 200
    assert (body["status"], body["created"], body["skipped"]) == ("partial", 1, 4)
    codes = [e["code"] for e in body["errors"]]
    assert codes == ["E-1001", "E-1001", "E-1002", None]
    texts = [e["error"] for e in body["errors"]]
    assert texts[0] == "Date is mandatory"
    assert "2024-02-30" in texts[1] and "date" in texts[1].lower()
    assert "lots" in texts[2] and "Value" in texts[2]
    assert "object" in texts[3]
    assert [(s["employee"], s["value"]) for s in await scores(ws)] == [(org.emp("E-2001"), 70.0)]
    logs = await ws.db.collection("error_log").find({}).to_list(None)
    assert len(logs) == 4 and {log["method"] for log in logs} == {"receive_data"}
    assert any("E-1002" in log["error"] and "lots" in log["error"] for log in logs)


async def test_guests_are_refused_and_sessions_work(client: httpx.AsyncClient, org: Org, ws: Site) -> None:
    data = [{"employee_code": "E-1001", "date": "2024-03-01", "value": 1}]
    r = await call(client, None, METHOD, data=data)
    assert r.status_code == 403
    assert await scores(ws) == []
    await make_user(ws.context(), "feeder@example.com", ["HR Reviewer"], password="feeder-pass-1")
    login = await client.post("/api/method/login", data={"usr": "feeder@example.com", "pwd": "feeder-pass-1"})
    assert login.status_code == 200
    r = await client.post(f"/api/method/{METHOD}", json={"data": data})
    assert r.json()["message"]["created"] == 1


async def test_get_is_not_allowed(client: httpx.AsyncClient, people: People, org: Org) -> None:
    r = await client.get(f"/api/method/{METHOD}", params={"data": "[]"}, headers=people.hr.token)
    assert r.status_code == 403


async def test_bad_data_is_a_clear_417_and_writes_nothing(client: httpx.AsyncClient, people: People, org: Org,
                                                         ws: Site) -> None:
    for data, words in (({"employee_code": "E-1001"}, "list"), ("not json", "JSON"), ('{"a": 1}', "list"),
                        (42, "list"), (None, "list")):
        r = await call(client, people.hr, METHOD, data=data)
        assert r.status_code == 417, (data, r.text)
        assert words in r.json()["errors"][0]["message"], r.json()
        assert r.json()["exc_type"] in ("DataError", "ValidationError")
    r = await call(client, people.hr, METHOD)
    assert r.status_code == 417 and "data" in r.json()["errors"][0]["message"]
    assert await scores(ws) == []


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


async def test_nested_values_where_a_code_is_expected_are_record_errors(client: httpx.AsyncClient, people: People,
                                                                       org: Org, ws: Site) -> None:
    """A list or object as employee_code is an exception of its record (rule 4): an error entry with a
    short text and a null code (echoing a code nested 300 deep made the response unencodable: a 500 after
    the Error Logs were committed), skipped, logged; the other records go on."""
    deep = json.loads(_nested(300))
    payload = json.dumps([{"employee_code": deep, "date": "2024-03-01", "value": 1},
                          {"employee_code": {"code": "E-1001"}, "date": "2024-03-01", "value": 2},
                          {"employee_code": ["E-1001"], "date": "2024-03-01", "value": 3},
                          {"employee_code": "E-1001", "date": "2024-03-01", "value": 4}])
    r = await call(client, people.hr, METHOD, data=payload)  # a JSON string: the body itself is shallow
    assert r.status_code == 200, r.text[:500]
    assert r.json()["message"] == {"status": "partial", "created": 1, "skipped": 3, "errors": [
        {"code": None, "error": "employee_code must be text or a number, not list"},
        {"code": None, "error": "employee_code must be text or a number, not dict"},
        {"code": None, "error": "employee_code must be text or a number, not list"}]}
    assert [(s["employee"], s["value"]) for s in await scores(ws)] == [(org.emp("E-1001"), 4.0)]
    logs = await ws.db.collection("error_log").find({}).to_list(None)
    assert len(logs) == 3 and {log["method"] for log in logs} == {"receive_data"}
    assert all(len(log["error"]) < 5000 for log in logs)  # the record shown bounded: `[[[[...]]]]`
    # in a JSON body, a record nested past the body's limit never reaches the function
    record = '{"employee_code": ' + _nested(300) + ', "date": "2024-03-02", "value": 1}'
    r = await client.post(f"/api/method/{METHOD}", content='{"data": [' + record + "]}",
                          headers={**people.hr.token, "Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["exc_type"] == "BadRequestError"
    # within it, the same record error
    r = await call(client, people.hr, METHOD, data=[{"employee_code": json.loads(_nested(50)), "date": "2024-03-02"}])
    assert r.json()["message"]["errors"] == [
        {"code": None, "error": "employee_code must be text or a number, not list"}]
    r = await client.post(f"/api/method/{METHOD}", json={"data": [{"employee_code": {}, "date": "2024-03-02"}]},
                          headers={**people.hr.token, "Accept-Language": "de-DE"})
    assert r.json()["message"]["errors"] == [
        {"code": None, "error": "employee_code muss ein Text oder eine Zahl sein, nicht dict"}]


async def test_nested_or_huge_dates_and_values_are_short_record_errors(client: httpx.AsyncClient, people: People,
                                                                      org: Org, ws: Site) -> None:
    payload = json.dumps([{"employee_code": "E-1001", "date": json.loads(_nested(400)), "value": 1},
                          {"employee_code": "E-1002", "date": "2024-03-01", "value": json.loads(_nested(400))},
                          {"employee_code": "E-2001", "date": "2024-03-01", "value": "lots" * 100_000},
                          {"employee_code": "E-2002", "date": "2024-03-0" + "1" * 100_000, "value": 1}])
    r = await call(client, people.hr, METHOD, data=payload)
    assert r.status_code == 200, r.text[:500]
    body = r.json()["message"]
    assert (body["status"], body["created"], body["skipped"]) == ("partial", 0, 4)
    assert [e["code"] for e in body["errors"]] == ["E-1001", "E-1002", "E-2001", "E-2002"]
    assert all(isinstance(e["error"], str) and 0 < len(e["error"]) <= 300 for e in body["errors"]), body
    assert await scores(ws) == []
    assert await ws.db.collection("error_log").count_documents({}) == 4


async def test_data_nested_deeper_than_python_parses_is_bad_data(client: httpx.AsyncClient, people: People,
                                                                 org: Org, ws: Site) -> None:
    """`data` as a JSON string nested 100,000 deep: json.loads raises RecursionError (a 500); now the
    malformed-data 417 of any other unreadable string, and nothing is written or logged."""
    for data in (_nested(100_000), '[{"employee_code": ' + _nested(100_000) + "}]"):
        r = await call(client, people.hr, METHOD, data=data)
        assert r.status_code == 417, r.text[:500]
        assert r.json()["exc_type"] == "DataError"
        message = r.json()["errors"][0]["message"]
        assert message.startswith("data is not valid JSON: ") and len(message) < 400
    assert await scores(ws) == []
    assert await ws.db.collection("error_log").count_documents({}) == 0


async def test_an_empty_delivery_is_ok(client: httpx.AsyncClient, people: People, org: Org) -> None:
    r = await call(client, people.hr, METHOD, data=[])
    assert r.json()["message"] == {"status": "ok", "created": 0, "skipped": 0, "errors": []}


async def test_concurrent_duplicate_deliveries_store_each_record_once(client: httpx.AsyncClient, people: People,
                                                                     org: Org, ws: Site) -> None:
    codes = ["E-1001", "E-1002", "E-2001", "E-2002"]
    data = [{"employee_code": code, "date": f"2024-03-{day:02d}", "value": day} for code in codes
            for day in range(1, 29)]
    results = await asyncio.gather(*(call(client, user, METHOD, data=data)
                                     for user in (people.hr, people.sysman, people.hr)))
    bodies = [r.json()["message"] for r in results]
    assert all(b["errors"] == [] and b["status"] == "ok" for b in bodies), bodies
    assert sum(b["created"] for b in bodies) == len(data)
    assert sum(b["skipped"] for b in bodies) == 2 * len(data)
    stored = await scores(ws)
    assert len(stored) == len(data)
    assert len({(s["employee"], s["date"]) for s in stored}) == len(data)


async def test_the_unique_index_holds_without_the_application_check(ws: Site, org: Org) -> None:
    """Even a direct insert cannot store a second external record for one (employee, date)."""
    from engine import exceptions as exc
    from engine.context import unit_of_work
    from engine.documents.factory import new_doc

    ctx = ws.context()
    row = {"employee": org.emp("E-1001"), "date": "2024-03-01", "value": 1, "source": "external_system"}
    async with unit_of_work(ctx):
        await new_doc(ctx, "Employee Score", row).insert()
    try:
        async with unit_of_work(ctx):
            await new_doc(ctx, "Employee Score", row).insert()
    except exc.UniqueValidationError:
        pass
    else:
        raise AssertionError("a second external record for the same day was stored")
    async with unit_of_work(ctx):  # other sources are not constrained by it
        await new_doc(ctx, "Employee Score", {**row, "source": None, "period_type": "Daily"}).insert()


async def test_a_delivery_whose_request_fails_stores_none_of_its_records(
        client: httpx.AsyncClient, people: People, org: Org, ws: Site, mongod: embedded.EmbeddedMongo) -> None:
    """The batch is written in the request's transaction: the connection lost at the commit (MongoDB's
    failCommand failpoint, before the server commits) leaves nothing stored, and the client is told
    to send it again (503, Retry-After). Before, the batch was committed on its own, before the
    request ended."""
    data = [{"employee_code": code, "date": f"2024-03-{day:02d}", "value": day}
            for code in ("E-1001", "E-1002") for day in range(1, 11)] + [{"employee_code": "E-1001", "value": 1}]
    admin = pymongo.MongoClient(mongod.url, directConnection=True).admin
    budget = ws.db.retry_budget_ms
    ws.db.retry_budget_ms = 0  # the commit is not sent again: its outcome stays unknown
    admin.command("configureFailPoint", "failCommand", mode={"times": 100},
                  data={"failCommands": ["commitTransaction"], "closeConnection": True})
    try:
        r = await call(client, people.hr, METHOD, data=data)
    finally:
        admin.command("configureFailPoint", "failCommand", mode="off")
        admin.client.close()
        ws.db.retry_budget_ms = budget
    assert r.status_code == 503, r.text
    assert r.json()["exc_type"] == "DatabaseUnavailableError" and r.headers["Retry-After"]
    assert await scores(ws) == []
    assert await ws.db.collection("error_log").count_documents({}) == 0  # the record errors are logged on commit
    again = await call(client, people.hr, METHOD, data=data)
    assert again.status_code == 200, again.text
    assert again.json()["message"]["created"] == 20
    assert len(await scores(ws)) == 20
    assert await ws.db.collection("error_log").count_documents({}) == 1
