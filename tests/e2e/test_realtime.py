"""Realtime with real processes: python-socketio clients against `fw serve` over TCP.

Two `fw serve` processes (A and B) share one database and a private redis-server, so an event
caused on one reaches the clients of the other. Covered: connecting with the `sid` cookie or an
`Authorization` header (and refusals), `msgprint(realtime=True)` (sent after commit, dropped on
rollback), `doc_update` / `list_update` after saves, `doc_subscribe` / `doctype_subscribe` only
with read permission, events published by a `fw worker`, and a server without Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pymongo
import pytest
import socketio

from engine import auth
from engine.mongod import embedded
from tests.e2e.conftest import FwServer, FwServerFactory, login
from tests.support.redis_server import RedisServer

OWNER, OWNER_PASSWORD = "rt-owner@example.com", "Rt-Owner-Pass-1"
QUIET = 1.0  # how long a client must stay silent to show an event did not come


@dataclass
class Realtime:
    factory: FwServerFactory
    a: FwServer
    b: FwServer
    redis: RedisServer
    env: dict[str, str]
    admin_sid: str
    owner_sid: str
    token: str  # "key:secret" of Administrator


def _sid(url: str, usr: str, pwd: str) -> str:
    with httpx.Client(base_url=url, timeout=15.0) as client:
        r = client.post("/api/method/login", data={"usr": usr, "pwd": pwd})
        assert r.status_code == 200, r.text
        return r.cookies["sid"]


@pytest.fixture(scope="module")
def rt(mongod: embedded.EmbeddedMongo, redis_server: RedisServer,
       tmp_path_factory: pytest.TempPathFactory) -> Iterator[Realtime]:
    factory = FwServerFactory(mongod.url, f"fw_e2e_rt_{secrets.token_hex(4)}", tmp_path_factory.mktemp("fw-rt"))
    env = {"FW_REDIS_URL": redis_server.url}
    try:
        a = factory.start(env=env)
        b = factory.start(env=env)
        with login(a.url) as admin:
            r = admin.post("/api/resource/Role", json={"role_name": "Test Owner"})
            assert r.status_code in (200, 409), r.text
            r = admin.post("/api/resource/User", json={"email": OWNER, "first_name": "Owner",
                                                       "new_password": OWNER_PASSWORD,
                                                       "roles": [{"role": "Test Owner"}]})
            assert r.status_code == 200, r.text
            r = admin.post("/api/method/fw.core.doctype.user.user.generate_keys", json={"user": "Administrator"})
            assert r.status_code == 200, r.text
            keys = r.json()["message"]
        yield Realtime(factory, a, b, redis_server, env, _sid(a.url, "Administrator", factory.env()[
            "FW_ADMIN_PASSWORD"]), _sid(a.url, OWNER, OWNER_PASSWORD), f"{keys['api_key']}:{keys['api_secret']}")
    finally:
        try:
            stopped = factory.stop_all()
        finally:
            factory.drop_database()
    assert all(code == 0 for _s, code in stopped), [(s.log()[-3000:], code) for s, code in stopped if code]


class Client:
    """A socket.io client that queues every event it receives."""

    def __init__(self) -> None:
        self.sio = socketio.AsyncClient(reconnection=False)
        self.events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

        @self.sio.on("*")
        async def any_event(event: str, data: Any = None) -> None:
            await self.events.put((event, data))

    async def expect(self, event: str, match: Any = None, timeout: float = 10.0) -> Any:
        """The next `event` whose message contains `match` (a dict subset, or a predicate)."""
        deadline = time.monotonic() + timeout
        seen = []
        while (left := deadline - time.monotonic()) > 0:
            try:
                name, data = await asyncio.wait_for(self.events.get(), left)
            except TimeoutError:
                break
            seen.append((name, data))
            if name != event:
                continue
            if match is None or (callable(match) and match(data)) or (
                    isinstance(match, dict) and isinstance(data, dict)
                    and all(data.get(k) == v for k, v in match.items())):
                return data
        raise AssertionError(f"no {event} matching {match!r} within {timeout}s; got {seen}")

    async def silent(self, event: str, seconds: float = QUIET) -> None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                name, data = await asyncio.wait_for(self.events.get(), left)
            except TimeoutError:
                return
            assert name != event, f"unexpected {event}: {data}"

    async def call(self, event: str, *args: Any) -> Any:
        return await self.sio.call(event, args if len(args) != 1 else args[0], timeout=10)


@contextlib.asynccontextmanager
async def connected(url: str, *, sid: str | None = None, token: str | None = None,
                    headers: dict[str, str] | None = None) -> AsyncIterator[Client]:
    client = Client()
    sent = dict(headers or {})
    if sid is not None:
        sent["Cookie"] = f"sid={sid}"
    if token is not None:
        sent["Authorization"] = f"token {token}"
    await client.sio.connect(url, headers=sent, transports=["websocket"], wait_timeout=10)
    try:
        yield client
    finally:
        await client.sio.disconnect()
        await client.sio.wait()


async def refused(url: str, **kwargs: Any) -> None:
    client = socketio.AsyncClient(reconnection=False)
    with pytest.raises(socketio.exceptions.ConnectionError):
        await client.connect(url, transports=["websocket"], wait_timeout=10, **kwargs)
    await client.disconnect()
    if client.eio.http is not None:
        await client.eio.http.close()


def api(url: str, sid: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=15.0, cookies={"sid": sid})


def new_note(client: httpx.Client, title: str) -> str:
    r = client.post("/api/resource/Test Note", json={"title": title})
    assert r.status_code == 200, r.text
    return str(r.json()["data"]["name"])


# -- connecting ---------------------------------------------------------------------------------------


async def test_sid_cookie_connects_and_gets_realtime_msgprint(rt: Realtime) -> None:
    async with connected(rt.a.url, sid=rt.admin_sid) as client:
        with api(rt.a.url, rt.admin_sid) as http:
            r = http.post("/api/method/fwtest.api.notify_me", json={"text": "hello over the socket"})
            assert r.status_code == 200, r.text
            assert "_server_messages" not in r.json()  # realtime: not in the response
        message = await client.expect("msgprint", {"message": "hello over the socket"})
        assert message == {"message": "hello over the socket"}


async def test_realtime_msgprint_is_dropped_when_the_request_rolls_back(rt: Realtime) -> None:
    async with connected(rt.a.url, sid=rt.admin_sid) as client:
        with api(rt.a.url, rt.admin_sid) as http:
            r = http.post("/api/method/fwtest.api.notify_me", json={"text": "never sent", "fail": True})
            assert r.status_code == 417, r.text
            r = http.post("/api/method/fwtest.api.notify_me", json={"text": "sent after"})
            assert r.status_code == 200, r.text
        # the first msgprint to arrive is the committed one: the rolled-back one was never emitted
        first = await client.expect("msgprint")
        assert first["message"] == "sent after"


async def test_authorization_header_connects(rt: Realtime) -> None:
    async with connected(rt.b.url, token=rt.token) as client:
        with api(rt.b.url, rt.admin_sid) as http:
            r = http.post("/api/method/fwtest.api.publish",
                          json={"event": "custom_event", "message": {"n": 1}, "user": "Administrator"})
            assert r.status_code == 200, r.text
        assert await client.expect("custom_event") == {"n": 1}


async def test_bad_or_missing_credentials_are_refused(rt: Realtime) -> None:
    await refused(rt.a.url)  # no cookie, no header: Guest
    await refused(rt.a.url, headers={"Cookie": "sid=not-a-session"})
    await refused(rt.a.url, headers={"Cookie": "sid=Guest"})
    await refused(rt.a.url, headers={"Authorization": "token nope:wrong"})
    await refused(rt.a.url, headers={"Authorization": f"token {rt.token.split(':')[0]}:bad-secret"})
    # a page on another site cannot use a visitor's cookie (the Origin must be this server)
    await refused(rt.a.url, headers={"Cookie": f"sid={rt.admin_sid}", "Origin": "http://evil.example"})
    async with connected(rt.a.url, sid=rt.admin_sid, headers={"Origin": rt.a.url}) as client:
        assert await client.call("ping") == "pong"


async def test_failed_api_keys_over_the_socket_count_towards_the_address_lockout(rt: Realtime) -> None:
    attempts = pymongo.MongoClient(rt.factory.mongo_url)[rt.factory.db_name][auth.ATTEMPTS]
    try:
        for _ in range(auth.ADDRESS_MAX_FAILURES):  # an unknown key counts against the address
            await refused(rt.a.url, headers={"Authorization": "token nope:wrong"})
        with httpx.Client(base_url=rt.b.url, timeout=15.0) as http:  # the other server, over plain HTTP
            r = http.get("/api/method/fw.auth.get_logged_user", headers={"Authorization": "token nope:wrong"})
        assert r.status_code == 429, r.text  # the address is locked out, not merely refused
    finally:
        attempts.delete_many({"_id": {"$regex": "^ip:"}})
        attempts.database.client.close()


# -- rooms and permissions ----------------------------------------------------------------------------


async def test_doc_subscribe_then_a_save_by_another_client_sends_doc_update(rt: Realtime) -> None:
    with api(rt.a.url, rt.owner_sid) as owner_http, api(rt.b.url, rt.admin_sid) as admin_http:
        mine = new_note(owner_http, "owned by the owner")
        theirs = new_note(admin_http, "owned by the admin")
        async with connected(rt.a.url, sid=rt.owner_sid) as owner:
            assert await owner.call("doc_subscribe", "Test Note", mine) is True
            assert await owner.call("doc_subscribe", "Test Note", theirs) is False  # if_owner: not readable
            assert await owner.call("doc_subscribe", "Test Note", "no-such-note") is False
            assert await owner.call("doc_subscribe", "No Such DocType", "x") is False
            r = admin_http.put(f"/api/resource/Test Note/{mine}", json={"body": "edited by the admin"})
            assert r.status_code == 200, r.text
            modified = r.json()["data"]["modified"]
            update = await owner.expect("doc_update", {"doctype": "Test Note", "name": mine})
            assert update["modified"] == modified
            r = admin_http.put(f"/api/resource/Test Note/{theirs}", json={"body": "also edited"})
            assert r.status_code == 200, r.text
            await owner.silent("doc_update")  # not subscribed to (and may not read) the other note
            await owner.call("doc_unsubscribe", "Test Note", mine)
            r = admin_http.put(f"/api/resource/Test Note/{mine}", json={"body": "edited again"})
            assert r.status_code == 200, r.text
            await owner.silent("doc_update")


async def test_doctype_subscribe_needs_read_permission(rt: Realtime) -> None:
    async with connected(rt.a.url, sid=rt.owner_sid) as owner, connected(rt.a.url, sid=rt.admin_sid) as admin:
        assert await owner.call("doctype_subscribe", "Test Customer") is False  # no read permission
        assert await owner.call("doctype_subscribe", "No Such DocType") is False
        assert await owner.call("doctype_subscribe", "Test Note") is True
        assert await admin.call("doctype_subscribe", "Test Customer") is True
        assert await admin.call("doctype_subscribe", "Test Note") is True
        with api(rt.b.url, rt.admin_sid) as http:
            r = http.post("/api/resource/Test Customer", json={"customer_name": f"Rt {secrets.token_hex(3)}"})
            assert r.status_code == 200, r.text
            name = r.json()["data"]["name"]
            note = new_note(http, "listed")
        listed = await admin.expect("list_update", {"doctype": "Test Customer", "name": name})
        assert listed["user"] == "Administrator"
        # the owner reads only its own notes: it hears that Test Note changed, not which note or by
        # whom, and nothing about Test Customer
        assert await owner.expect("list_update", {"doctype": "Test Note"}) == {"doctype": "Test Note"}
        assert (await admin.expect("list_update", {"doctype": "Test Note"}))["name"] == note
        await owner.silent("list_update")


async def test_every_socket_joins_its_user_room_and_system_users_join_all(rt: Realtime) -> None:
    async with connected(rt.a.url, sid=rt.owner_sid) as owner, connected(rt.b.url, sid=rt.admin_sid) as admin:
        with api(rt.a.url, rt.admin_sid) as http:
            for body in ({"event": "to_all", "message": "everyone", "room": "all"},
                         {"event": "to_owner", "message": "just you", "user": OWNER}):
                r = http.post("/api/method/fwtest.api.publish", json=body)
                assert r.status_code == 200, r.text
        assert await owner.expect("to_all") == "everyone"  # the owner is a System User
        assert await admin.expect("to_all") == "everyone"
        assert await owner.expect("to_owner") == "just you"
        await admin.silent("to_owner")


# -- several processes ----------------------------------------------------------------------------------


async def test_events_reach_clients_of_every_server_through_redis(rt: Realtime) -> None:
    with api(rt.a.url, rt.admin_sid) as http_a, api(rt.b.url, rt.admin_sid) as http_b:
        name = new_note(http_a, "watched from server A")
        async with connected(rt.a.url, sid=rt.admin_sid) as on_a, connected(rt.b.url, sid=rt.admin_sid) as on_b:
            assert await on_a.call("doc_subscribe", "Test Note", name) is True
            assert await on_b.call("doc_subscribe", "Test Note", name) is True
            r = http_b.put(f"/api/resource/Test Note/{name}", json={"body": "written through B"})
            assert r.status_code == 200, r.text
            await on_a.expect("doc_update", {"name": name})  # caused on B, delivered by A
            await on_b.expect("doc_update", {"name": name})
            r = http_a.post("/api/method/fwtest.api.notify_me", json={"text": "from A"})
            assert r.status_code == 200, r.text
            assert (await on_b.expect("msgprint"))["message"] == "from A"


async def test_a_worker_process_publishes_to_socket_clients(rt: Realtime) -> None:
    worker = rt.factory.spawn("worker", "--queue", "default", env=rt.env)
    worker.wait_for_log("fw worker listening on")
    async with connected(rt.b.url, sid=rt.admin_sid) as client:
        with api(rt.a.url, rt.admin_sid) as http:
            r = http.post("/api/method/fwtest.api.enqueue_job", json={"fn": "tell_user",
                                                                      "kwargs": {"text": "done in the worker"}})
            assert r.status_code == 200, r.text
        message = await client.expect("msgprint", {"message": "done in the worker"})
        assert message["title"] == "From a job"
    assert worker.stop() == 0


async def test_without_redis_a_server_publishes_to_its_own_clients(rt: Realtime) -> None:
    local = rt.factory.start()  # no FW_REDIS_URL: events stay in this process
    sid = _sid(local.url, OWNER, OWNER_PASSWORD)
    with api(local.url, sid) as http:
        name = new_note(http, "local")
        async with connected(local.url, sid=sid) as client:
            assert await client.call("doc_subscribe", "Test Note", name) is True
            r = http.put(f"/api/resource/Test Note/{name}", json={"body": "changed"})
            assert r.status_code == 200, r.text
            await client.expect("doc_update", {"doctype": "Test Note", "name": name})
            r = http.post("/api/method/fwtest.api.notify_me", json={"text": json.dumps({"local": True})})
            assert r.status_code == 200, r.text
            assert (await client.expect("msgprint"))["message"] == '{"local": true}'
    assert local.stop() == 0
