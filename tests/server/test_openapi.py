"""`GET /api/openapi.json`: a valid OpenAPI 3.1 document, generated from the doctypes and the
whitelisted functions, that the server actually honours (fuzzed with schemathesis).

How the fuzz runs. The Site's MongoDB client (pymongo async) is bound to pytest-asyncio's session
event loop, so the app must serve on that loop. schemathesis' ASGI transport (`from_asgi`) runs the
app in its own portal thread and loop, where the database client fails; so instead the app (built
with `create_app(site.settings, site=site)`, lifespan off: the site is already migrated) is served
by a real `uvicorn.Server` started as a task on the test's own loop, on a free port. schemathesis
loads the document with `schemathesis.openapi.from_dict` and sends its generated requests with its
sync `requests` transport (`case.call(base_url=...)`) from a worker thread
(`await asyncio.to_thread(...)`), so the loop keeps serving. Each operation is driven by a plain
Hypothesis `@given` over `operation.as_strategy(...)`, in positive mode (data that fits the
schema) and negative mode (data that does not), every response checked for: no 5xx, a documented
status code and content type, and a body that conforms to the documented schema. All examples
share the emptied site of this one test. `FW_FUZZ_EXAMPLES` scales the examples per operation and
mode; `FW_FUZZ_RANDOM=1` explores with fresh random seeds instead of the derandomized default.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import requests
import schemathesis
import uvicorn
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from openapi_spec_validator import validate
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.site import Site
from server.app import create_app
from server.openapi import build_openapi, openapi_bytes, openapi_document
from tests.server.conftest import ApiUser

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
EXAMPLES = int(os.environ.get("FW_FUZZ_EXAMPLES", "60"))
# the v2 routes run the same engine calls as v1's (fuzzed at EXAMPLES): fewer examples there keep the run short
V2_EXAMPLES = max(EXAMPLES // 6, 5)
RANDOM = os.environ.get("FW_FUZZ_RANDOM") == "1"
DOCTYPES = ["Test Note", "Test Customer", "Test Order", "Test Category"]


async def test_document_is_valid_openapi_31(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/openapi.json")  # public: no credentials
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    doc = r.json()
    assert doc["openapi"].startswith("3.1")
    validate(doc)  # openapi-spec-validator picks the 3.1 validator from the version


async def test_lists_doctypes_and_methods(site: Site) -> None:
    doc = openapi_document(site)
    paths = doc["paths"]
    for doctype in ("Test Note", "Test Customer", "Test Order", "User"):
        assert set(paths[f"/api/resource/{doctype}"]) == {"get", "post"}
        assert {"get", "put", "delete"} <= set(paths[f"/api/resource/{doctype}/{{name}}"])
    assert "/api/resource/Test Order Item" not in paths  # child table
    assert "/api/resource/Test Settings" not in paths  # Single
    assert set(paths["/api/method/fw.client.get_list"]) == {"get", "post", "put", "delete"}
    assert set(paths["/api/method/fw.client.insert"]) == {"post", "put"}
    assert set(paths["/api/method/fw.client.delete"]) == {"post", "delete"}
    assert set(paths["/api/method/fw.core.doctype.user.user.generate_keys"]) == {"post"}
    for path in ("fw.client.get", "fw.client.get_count", "fw.client.get_value", "fw.client.set_value",
                 "fw.client.save", "fw.client.submit", "fw.client.cancel", "fw.client.rename_doc",
                 "fw.client.insert_many", "fw.auth.get_logged_user", "ping", "login", "logout"):
        assert f"/api/method/{path}" in paths
    get_list = {p["name"]: p for p in paths["/api/method/fw.client.get_list"]["get"]["parameters"]}
    assert "ctx" not in get_list
    assert get_list["doctype"]["required"] is True and get_list["fields"]["required"] is False
    keys = paths["/api/method/fw.core.doctype.user.user.generate_keys"]["post"]
    body = keys["requestBody"]["content"]["application/json"]["schema"]
    assert body["properties"]["user"] == {"type": "string"} and body["required"] == ["user"]
    count = paths["/api/method/fw.client.get_count"]["get"]["responses"]["200"]["content"]["application/json"]
    assert count["schema"]["properties"]["message"] == {"type": "integer"}
    assert paths["/api/method/ping"]["get"]["security"][0] == {}  # guest-callable
    listing = {p["name"]: p for p in paths["/api/resource/Test Note"]["get"]["parameters"]}
    assert set(listing) == {"fields", "filters", "or_filters", "order_by", "limit_start", "limit_page_length",
                            "limit", "group_by", "as_dict", "expand"}
    assert listing["limit_start"]["schema"]["anyOf"][0] == {"type": "integer", "minimum": 0}
    assert "202" in paths["/api/resource/Test Note/{name}"]["delete"]["responses"]
    responses = paths["/api/resource/Test Note"]["post"]["responses"]
    for code in ("400", "401", "403", "404", "409", "413", "417", "429", "503", "504"):
        name = responses[code]["$ref"].removeprefix("#/components/responses/")
        assert doc["components"]["responses"][name]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Error"}
    schemes = doc["components"]["securitySchemes"]
    assert schemes["token"] == {"type": "apiKey", "in": "header", "name": "Authorization",
                                "description": "`token <api_key>:<api_secret>`"}
    assert schemes["basic"]["scheme"] == "basic" and schemes["sid"]["in"] == "cookie"
    error = doc["components"]["schemas"]["Error"]
    assert {"exc_type", "exception", "_server_messages", "errors", "exc", "_error_message", "message"} <= set(
        error["properties"])


async def test_field_types(site: Site) -> None:
    schemas = openapi_document(site)["components"]["schemas"]
    note, new_note = schemas["Test_Note"], schemas["Test_Note.create"]
    props = note["properties"]
    assert props["count"] == {"type": "integer"}
    assert props["amount"] == {"type": "number"} and props["ratio"] == {"type": "number"}
    assert props["is_done"] == {"type": "integer", "enum": [0, 1]}
    assert props["due"] == {"type": "string", "format": "date"}
    assert props["status"]["enum"] == ["Open", "Closed", None]
    assert props["config"] == {"type": ["object", "array"]}
    assert props["docstatus"] == {"type": "integer", "enum": [0, 1, 2]}
    assert "secret" not in props and note["propertyNames"] == {"not": {"enum": ["secret"]}}
    assert "required" not in note  # responses omit nulls
    assert new_note["properties"]["secret"]["writeOnly"] is True
    assert new_note["required"] == ["title"] and new_note["additionalProperties"] is False
    # requests: what the engine's coercion takes (numbers as text, text as numbers, blank for none)
    assert new_note["properties"]["title"]["type"] == ["string", "number"]  # mandatory: not nullable
    assert new_note["properties"]["count"]["type"] == ["integer", "boolean", "string", "null"]
    assert new_note["properties"]["count"]["pattern"] == r"^\s*([+-]?[0-9]+(\.0+)?)?\s*$"
    assert new_note["properties"]["due"]["pattern"] == r"^\s*([0-9]{4}-[0-9]{2}-[0-9]{2})?\s*$"
    assert new_note["properties"]["status"]["enum"] == ["Open", "Closed", "", None]
    assert {"type": "null"} in new_note["properties"]["is_done"]["anyOf"]
    order = schemas["Test_Order"]["properties"]
    assert order["items"] == {"type": "array", "items": {"$ref": "#/components/schemas/Test_Order_Item"}}
    assert schemas["Test_Order.create"]["properties"]["items"]["items"] == {
        "$ref": "#/components/schemas/Test_Order_Item.row"}
    assert "customer_name" not in schemas["Test_Order.create"]["properties"]  # read-only
    assert schemas["Test_Order.update"]["properties"]["docstatus"]["anyOf"][0]["enum"] == [0, 1, 2, True, False, None]


async def test_cached_per_site_and_rebuilt_on_meta_change(site: Site, ctx: Context,
                                                          client: httpx.AsyncClient) -> None:
    first = (await client.get("/api/openapi.json")).content
    assert openapi_bytes(site) is openapi_bytes(site)  # cached
    assert openapi_bytes(site) == first
    async with unit_of_work(ctx):
        await new_doc(ctx, "Custom Field", dt="Test Customer", fieldname="tier", fieldtype="Int",
                      label="Tier").insert()
    r = await client.get("/api/openapi.json")
    assert r.content != first
    assert r.json()["components"]["schemas"]["Test_Customer"]["properties"]["tier"] == {
        "type": "integer", "title": "Tier"}
    assert build_openapi(site)["components"]["schemas"]["Test_Customer"]["properties"]["tier"]["type"] == "integer"


# -- fuzzing ---------------------------------------------------------------------------------------

class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:  # leave pytest's signal handlers alone
        yield


@contextlib.asynccontextmanager
async def serve_on_this_loop(site: Site) -> AsyncIterator[str]:
    """The app served by uvicorn as a task on the running (session) loop; yields its base URL."""
    app = create_app(site.settings, site=site)
    # proto IPPROTO_TCP, or asyncio does not set TCP_NODELAY on accepted sockets (then every keep-alive
    # response waits ~40 ms for a delayed ACK)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, lifespan="off", log_config=None, log_level="warning", access_log=False,
                            http="h11", ws="none")
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
        sock.close()


@dataclass
class FuzzReport:
    examples: int = 0
    by_operation: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    call_seconds: float = 0.0
    statuses: Counter[int] = field(default_factory=Counter)


def _pick_doctype(case: Any, doctype: str | None) -> Any:
    """Steer a `doctype` argument to a real doctype most of the time, so calls get past the lookup."""
    if doctype is None:
        return case
    if isinstance(case.query, dict) and "doctype" in case.query:
        case.query["doctype"] = doctype
    if isinstance(case.body, dict) and "doctype" in case.body:
        case.body["doctype"] = doctype
    return case


# (method, path, fixed path parameters[, examples: when not the run's default])
Plan = list[tuple[str, str, dict[str, Any]] | tuple[str, str, dict[str, Any], int]]


def fuzz(schema: Any, base_url: str, headers: dict[str, str], plan: Plan, examples: int) -> FuzzReport:
    """Run in a worker thread: each planned operation in both generation modes."""
    report = FuzzReport()
    with requests.Session() as session:
        for method, path, path_parameters, *own in plan:
            for mode in _modes(schema.raw_schema["paths"][path][method.lower()]):
                label = f"{method} {path} {path_parameters or ''} [{mode.value}]"
                strategy = st.tuples(
                    schema[path][method].as_strategy(generation_mode=mode, path_parameters=path_parameters or None),
                    st.sampled_from([*DOCTYPES, None]))
                try:
                    _run_operation(strategy, session, base_url, headers, own[0] if own else examples, report, label)
                except Unsatisfiable:  # nothing to negate
                    report.skipped.append(label)
                except (Exception, BaseExceptionGroup) as e:  # collect every failure, then fail with all
                    report.failures.append(f"{label}:\n{e}")
    return report


def _modes(operation: dict[str, Any]) -> list[GenerationMode]:
    """Negative mode only where something can be made invalid: not for a lone free-text path parameter."""
    if operation.get("requestBody") or any(p["in"] != "path" for p in operation.get("parameters", [])):
        return [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]
    return [GenerationMode.POSITIVE]


def _run_operation(strategy: Any, session: requests.Session, base_url: str, headers: dict[str, str],
                   examples: int, report: FuzzReport, label: str) -> None:
    @settings(max_examples=examples, deadline=None, database=None, derandomize=not RANDOM,
              suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate, Phase.shrink],
              report_multiple_bugs=False)
    @given(pair=strategy)
    def run(pair: tuple[Any, str | None]) -> None:
        case = _pick_doctype(*pair)
        t0 = time.monotonic()
        response = case.call(base_url=base_url, headers=headers, session=session, timeout=30)
        report.call_seconds += time.monotonic() - t0
        report.statuses[response.status_code] += 1
        report.examples += 1
        report.by_operation[label] = report.by_operation.get(label, 0) + 1
        case.validate_response(response, checks=CHECKS, headers=headers)

    run()


async def _seed(client: httpx.AsyncClient, admin: ApiUser) -> dict[str, str]:
    """A few real documents, so operations on `{name}` also reach existing ones."""
    names = {}
    for doctype, body in (("Test Customer", {"customer_name": "Acme", "region": "N"}),
                          ("Test Category", {"category_name": "General"}),
                          ("Test Note", {"title": "seed", "customer": "Acme", "config": {"a": [1]}, "count": 3}),
                          ("Test Order", {"customer": "Acme", "posting_date": "2024-01-31",
                                          "items": [{"item": "x", "qty": 2, "rate": 1.5}]})):
        r = await client.post(f"/api/resource/{doctype}", json=body, headers=admin.token)
        assert r.status_code == 200, r.text
        names[doctype] = r.json()["data"]["name"]
    return names


def _plan(names: dict[str, str]) -> Plan:
    plan: list[tuple[str, str, dict[str, Any]]] = []
    for doctype in ("Test Note", "Test Customer", "Test Order"):
        plan += [("GET", f"/api/resource/{doctype}", {}), ("POST", f"/api/resource/{doctype}", {})]
        item = f"/api/resource/{doctype}/{{name}}"
        plan += [("GET", item, {}), ("GET", item, {"name": names[doctype]}),
                 ("PUT", item, {"name": names[doctype]}), ("PUT", item, {})]
    plan += [("POST", "/api/resource/Test Order/{name}", {"name": names["Test Order"]})]
    for method, path in (("GET", "fw.client.get_list"), ("POST", "fw.client.get_list"), ("GET", "fw.client.get"),
                         ("GET", "fw.client.get_count"), ("GET", "fw.client.get_value"),
                         ("POST", "fw.client.set_value"), ("POST", "fw.client.insert"),
                         ("POST", "fw.client.insert_many"), ("POST", "fw.client.save"),
                         ("POST", "fw.client.submit"), ("POST", "fw.client.cancel"),
                         ("POST", "fw.client.rename_doc"), ("GET", "fw.client.has_permission"),
                         ("GET", "fw.auth.get_logged_user"), ("GET", "ping"), ("POST", "fw.client.delete"),
                         # the fixture app's functions with annotated arguments, **kwargs, a None result
                         ("GET", "fwtest.http_methods.add"), ("POST", "fwtest.http_methods.add"),
                         ("GET", "fwtest.http_methods.scale"), ("POST", "fwtest.http_methods.scale"),
                         ("POST", "fwtest.http_methods.echo"), ("GET", "fwtest.http_methods.pick"),
                         ("GET", "fwtest.http_methods.nothing"), ("POST", "fwtest.http_methods.refuse")):
        plan.append((method, f"/api/method/{path}", {}))
    v2 = _v2_plan(names)
    deletes = []
    for doctype in ("Test Note", "Test Customer"):  # deletes last: they empty what the others read
        deletes += [("DELETE", f"/api/resource/{doctype}/{{name}}", {}),
                    ("DELETE", f"/api/resource/{doctype}/{{name}}", {"name": names[doctype]})]
    return [*plan, *((*op, V2_EXAMPLES) for op in v2), *deletes]


def _v2_plan(names: dict[str, str]) -> list[tuple[str, str, dict[str, Any]]]:
    """The v2 routes: each shape once (paging, PATCH, copy, count, document and plain methods, errors)."""
    note, order = "/api/v2/document/Test Note", "/api/v2/document/Test Order"
    named_note, named_order = {"name": names["Test Note"]}, {"name": names["Test Order"]}
    plan: list[tuple[str, str, dict[str, Any]]] = [
        ("GET", note, {}), ("POST", note, {}), ("GET", "/api/v2/document/Test Customer", {}),
        ("GET", f"{order}/{{name}}", named_order), ("GET", f"{note}/{{name}}", {}),
        ("PATCH", f"{note}/{{name}}", named_note), ("PUT", "/api/v2/document/Test Customer/{name}",
                                                    {"name": names["Test Customer"]}),
        ("GET", f"{order}/{{name}}/copy", named_order), ("GET", f"{note}/{{name}}/copy", {}),
        ("GET", "/api/v2/doctype/Test Note/count", {}),
        ("GET", f"{note}/{{name}}/method/describe", named_note), ("POST", f"{note}/{{name}}/method/bump", named_note),
        ("POST", f"{order}/{{name}}/method/submit", named_order),
    ]
    for method, path in (("GET", "fw.client.get_list"), ("GET", "ping"), ("POST", "fwtest.http_methods.add"),
                         ("GET", "fwtest.http_methods.nothing"), ("POST", "fwtest.http_methods.refuse")):
        plan.append((method, f"/api/v2/method/{path}", {}))
    plan += [("DELETE", "/api/v2/document/Test Category/{name}", {}),
             ("DELETE", "/api/v2/document/Test Category/{name}", {"name": names["Test Category"]})]
    return plan


async def test_fuzz_with_schemathesis(site: Site, admin: ApiUser, client: httpx.AsyncClient) -> None:
    names = await _seed(client, admin)
    document = (await client.get("/api/openapi.json")).json()
    schema = schemathesis.openapi.from_dict(document)
    started = time.monotonic()
    async with serve_on_this_loop(site) as base_url:
        report = await asyncio.to_thread(fuzz, schema, base_url, admin.token, _plan(names), EXAMPLES)
    elapsed = time.monotonic() - started
    print(f"\nschemathesis {schemathesis.__version__}: {report.examples} requests over "
          f"{len(report.by_operation)} operation/mode runs in {elapsed:.1f}s ({report.call_seconds:.1f}s in calls); "
          f"statuses {dict(sorted(report.statuses.items()))}; skipped (nothing to negate): {len(report.skipped)}")
    assert not report.failures, "\n\n".join(report.failures)
    assert report.examples >= len(report.by_operation) > 40 and report.statuses[200] > 50

