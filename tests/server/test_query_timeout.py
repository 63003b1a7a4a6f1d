"""FW_QUERY_TIMEOUT_MS: a request's list, count and report queries run under MongoDB's maxTimeMS;
one that runs past it is stopped and answered 504 `QueryTimeoutError` (Frappe answers a bare 500).

MongoDB's `maxTimeAlwaysTimeOut` failpoint (the test mongod runs with test commands) makes every
operation that carries a time limit fail at once, so these tests also show which queries carry one.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator

import httpx
import pymongo
import pytest

from engine.context import Context
from engine.mongod import embedded
from engine.query import listing
from engine.site import Site
from server.app import create_app
from tests.server.conftest import ApiUser
from tests.server.helpers import insert_notes, ok

NOTE = "/api/resource/Test Note"
REPORT_RUN = "/api/method/fw.desk.query_report.run"


@pytest.fixture
def queries_time_out(mongod: embedded.EmbeddedMongo) -> Iterator[None]:
    admin = pymongo.MongoClient(mongod.url, directConnection=True).admin
    admin.command("configureFailPoint", "maxTimeAlwaysTimeOut", mode="alwaysOn")
    try:
        yield
    finally:
        admin.command("configureFailPoint", "maxTimeAlwaysTimeOut", mode="off")
        admin.client.close()


def timed_out(r: httpx.Response) -> dict[str, object]:
    assert r.status_code == 504, r.text
    body = r.json()
    assert body["exc_type"] == "QueryTimeoutError", body
    assert "ran too long" in body["exception"]
    assert "Traceback" not in r.text
    return body  # type: ignore[no-any-return]


async def test_list_count_and_report_queries_of_a_request_are_time_limited(
        client: httpx.AsyncClient, admin: ApiUser, ctx: Context, queries_time_out: None) -> None:
    [name] = await insert_notes(ctx, {"title": "slow", "count": 1})
    timed_out(await client.get(NOTE, params={"filters": json.dumps([["title", "like", "%lo%"]])},
                               headers=admin.token))
    timed_out(await client.get("/api/method/fw.client.get_count", params={"doctype": "Test Note"},
                               headers=admin.token))
    timed_out(await client.post(REPORT_RUN, json={"report_name": "Test Note Summary"}, headers=admin.token))
    # reading one document by name is an indexed point read: never limited, never stopped
    assert ok(await client.get(f"{NOTE}/{name}", headers=admin.token))["data"]["title"] == "slow"


async def test_a_v2_timeout_has_the_v2_error_shape(client: httpx.AsyncClient, admin: ApiUser,
                                                   queries_time_out: None) -> None:
    for path in ("/api/v2/document/Test Note", "/api/v2/doctype/Test Note/count"):
        r = await client.get(path, headers=admin.token)
        assert r.status_code == 504, r.text
        [error] = r.json()["errors"]
        assert error["type"] == "QueryTimeoutError"
        assert error["title"] == "Query Timeout"


@pytest.fixture
async def unlimited_client(site: Site) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(site.settings.model_copy(update={"query_timeout_ms": 0}), site=site)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
        yield c


async def test_zero_turns_the_limit_off(unlimited_client: httpx.AsyncClient, admin: ApiUser, ctx: Context,
                                        queries_time_out: None) -> None:
    await insert_notes(ctx, {"title": "fine", "count": 1})
    rows = ok(await unlimited_client.get(NOTE, params={"fields": '["title"]'}, headers=admin.token))["data"]
    assert rows == [{"title": "fine"}]


async def test_jobs_and_commands_run_unlimited(ctx: Context, queries_time_out: None) -> None:
    await insert_notes(ctx, {"title": "batch", "count": 1})
    assert ctx.query_timeout_ms is None
    assert await listing.get_list(ctx, "Test Note", fields=["title"]) == [{"title": "batch"}]
    assert await listing.count(ctx, "Test Note") == 1
