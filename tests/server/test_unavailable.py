"""MongoDB or Redis out of reach over HTTP: 503 with `Retry-After`, never a 500.

MongoDB: `DatabaseUnavailableError` wherever the driver error arises (authentication, a read-only
route, a unit of work), in both API shapes. MongoDB's `failCommand` failpoint answers
`NotWritablePrimary`, as a member that lost its primary role does; a zero retry budget makes fw
give up at once instead of waiting for an election. Redis: `JobQueueUnavailableError` for job
status and enqueues that cannot wait for the commit. (tests/e2e/test_outage.py stops a real
mongod and a real redis-server.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pymongo
import pytest

from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.jobs import outbox, queue
from engine.mongod import embedded
from engine.query.listing import count, get_all
from engine.site import Site
from tests.server.conftest import ApiUser, make_user
from tests.support.redis_server import _free_port

NOT_WRITABLE_PRIMARY = 10107


@pytest.fixture
def primary_lost(mongod: embedded.EmbeddedMongo, site: Site) -> Iterator[Any]:
    """`primary_lost(["find"])`: those commands fail until the test ends; no retry budget."""
    admin = pymongo.MongoClient(mongod.url, directConnection=True).admin
    budget = site.db.retry_budget_ms
    site.db.retry_budget_ms = 0

    def fail(commands: list[str]) -> None:
        admin.command("configureFailPoint", "failCommand", mode="alwaysOn",
                      data={"failCommands": commands, "errorCode": NOT_WRITABLE_PRIMARY})

    try:
        yield fail
    finally:
        admin.command("configureFailPoint", "failCommand", mode="off")
        admin.client.close()
        site.db.retry_budget_ms = budget


def unavailable(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 503, r.text
    assert int(r.headers["Retry-After"]) > 0
    assert "Traceback" not in r.text
    return r.json()  # type: ignore[no-any-return]


async def test_reads_and_authentication_answer_503(client: httpx.AsyncClient, admin: ApiUser, ctx: Context,
                                                   primary_lost: Any) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Note", title="stored").insert()
    assert (await client.get("/api/resource/Test Note", headers=admin.token)).status_code == 200  # keys cached
    primary_lost(["find", "aggregate"])
    body = unavailable(await client.get("/api/resource/Test Note", headers=admin.token))  # a read-only route
    assert body["exc_type"] == "DatabaseUnavailableError"
    assert body["errors"][0]["message"] == "The database is not reachable right now; please retry in a few seconds"
    v2 = unavailable(await client.get("/api/v2/document/Test Note", headers=admin.token))
    assert v2["errors"][0]["type"] == "DatabaseUnavailableError"
    login = unavailable(await client.post("/api/method/login", data={"usr": "Administrator", "pwd": "admin"}))
    assert login["exc_type"] == "DatabaseUnavailableError"
    german = unavailable(await client.get("/api/resource/Test Note", headers={**admin.token,
                                                                            "Accept-Language": "de"}))
    assert german["errors"][0]["message"].startswith("Die Datenbank ist gerade nicht erreichbar")


async def test_an_unknown_api_key_during_the_outage_is_503_not_401(client: httpx.AsyncClient, ctx: Context,
                                                                   primary_lost: Any) -> None:
    """The key lookup itself fails (before any unit of work): still 503, the key is not judged."""
    primary_lost(["find"])
    body = unavailable(await client.get("/api/resource/Test Note", headers={"Authorization": "token abc:def"}))
    assert body["exc_type"] == "DatabaseUnavailableError"


async def test_writes_answer_503_and_store_nothing(client: httpx.AsyncClient, admin: ApiUser, ctx: Context,
                                                   primary_lost: Any) -> None:
    assert (await client.get("/api/resource/Test Note", headers=admin.token)).status_code == 200
    primary_lost(["insert", "update"])
    unavailable(await client.post("/api/resource/Test Note", json={"title": "not stored"}, headers=admin.token))
    unavailable(await client.post("/api/v2/document/Test Note", json={"title": "not stored"}, headers=admin.token))
    primary_lost([])
    assert await count(ctx, "Test Note") == 0


@pytest.fixture
def redis_away(site: Site) -> Iterator[None]:
    """Jobs go to a Redis that nobody answers for."""
    url = f"redis://127.0.0.1:{_free_port()}/0"
    site.settings = site.settings.model_copy(update={"redis_url": url})
    site._jobs_backend = queue.ArqBackend(site, url)  # type: ignore[attr-defined]
    yield
    site._jobs_backend = None  # type: ignore[attr-defined]
    site.settings = site.settings.model_copy(update={"redis_url": None})


async def test_job_status_and_enqueue_answer_503_while_redis_is_away(client: httpx.AsyncClient, admin: ApiUser,
                                                                     ctx: Context, redis_away: None) -> None:
    status = "/api/method/fw.utils.background_jobs.get_job_status"
    body = unavailable(await client.get(status, params={"job_id": "anything"}, headers=admin.token))
    assert body["exc_type"] == "JobQueueUnavailableError" and "Redis" in body["errors"][0]["message"]
    v2 = unavailable(await client.get("/api/v2/method/fw.utils.background_jobs.get_job_status",
                                      params={"job_id": "x"}, headers=admin.token))
    assert v2["errors"][0]["type"] == "JobQueueUnavailableError"
    enqueue = "/api/method/fwtest.api.enqueue_job"
    now = unavailable(await client.post(enqueue, json={"fn": "marker", "kwargs": {"key": "k"},
                                                       "write_first": "rolled back"}, headers=admin.token))
    assert now["exc_type"] == "JobQueueUnavailableError"
    later = await client.post(enqueue, json={"fn": "marker", "kwargs": {"key": "k"}, "after_commit": True,
                                             "write_first": "kept"}, headers=admin.token)
    assert later.status_code == 200, later.text  # the job waits in the outbox for Redis
    assert await get_all(ctx, "Test Note", pluck="title") == ["kept"]
    assert [row["job_id"] for row in await ctx.db.collection(outbox.COLLECTION).find({}).to_list(None)] == [
        later.json()["message"]]


async def test_the_callers_identification_waits_out_a_failover(client: httpx.AsyncClient, ctx: Context,
                                                               mongod: embedded.EmbeddedMongo) -> None:
    """The reads before a request's unit of work (here the API key's lookup, not cached yet) are read
    again within the retry budget, as the unit itself is: a request arriving during an election with
    its credentials' cache expired waits for the new primary instead of answering 503 (issue 29 item 6)."""
    user = await make_user(ctx, "elected@example.com", ["System Manager"])
    admin = pymongo.MongoClient(mongod.url, directConnection=True).admin
    # the driver reads once more by itself; the next two failures are fw's to wait out
    admin.command("configureFailPoint", "failCommand", mode={"times": 4},
                  data={"failCommands": ["find"], "errorCode": NOT_WRITABLE_PRIMARY})
    try:
        r = await client.get("/api/method/fw.auth.get_logged_user", headers=user.token)
    finally:
        admin.command("configureFailPoint", "failCommand", mode="off")
        admin.client.close()
    assert r.status_code == 200, r.text
    assert r.json()["message"] == user.email
