"""`fw serve` as a real process: migrate on startup, cookie login, the resource API over TCP,
sessions that outlive the process, several workers, the body limit, and a clean SIGTERM."""

from __future__ import annotations

import json
import re
import signal
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pymongo
import pytest

from tests.e2e.conftest import ADMIN_PASSWORD, MAX_BODY_BYTES, FwServer, FwServerFactory, login

CUSTOMER = "/api/resource/Test Customer"


@pytest.fixture
def admin(shared_server: FwServer) -> Iterator[httpx.Client]:
    with login(shared_server.url) as client:
        yield client


def _ppid(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("PPid:"):
            return int(line.split()[1])
    raise AssertionError(f"no PPid for {pid}")


def test_serve_migrated_on_startup(shared_server: FwServer) -> None:
    client: pymongo.MongoClient[dict[str, object]] = pymongo.MongoClient(shared_server.mongo_url)
    try:
        db = client[shared_server.db_name]
        names = {d["_id"] for d in db["doctype"].find({}, {"_id": 1})}
        assert {"Test Customer", "Test Order", "User", "Role"} <= names, sorted(names)
        # the unique field became a real unique index
        indexes = db["test_customer"].index_information()
        assert any(ix.get("unique") and ix["key"] == [("customer_name", 1)] for ix in indexes.values()), indexes
    finally:
        client.close()
    with login(shared_server.url) as c:
        # the fixture app's after_migrate hook ran inside `fw serve`'s startup migrate
        r = c.get("/api/resource/Role/Migrated Role")
        assert r.status_code == 200, r.text
        assert r.json()["data"]["name"] == "Migrated Role"
        r = c.get(CUSTOMER)
        assert r.status_code == 200, r.text
        assert isinstance(r.json()["data"], list)


def test_login_with_form_fields_sets_sid_cookie(shared_server: FwServer) -> None:
    with httpx.Client(base_url=shared_server.url, timeout=15.0) as c:
        r = c.get("/api/method/frappe.auth.get_logged_user")
        assert r.status_code == 403, r.text  # Guest may not call it
        r = c.post("/api/method/login", data={"usr": "Administrator", "pwd": "wrong password"})
        assert r.status_code == 401, r.text
        assert r.json()["exc_type"] == "AuthenticationError"
        assert "sid" not in r.cookies

        r = c.post("/api/method/login", data={"usr": "Administrator", "pwd": ADMIN_PASSWORD})
        assert r.status_code == 200, r.text
        assert r.json()["message"] == "Logged In"
        assert r.json()["full_name"] == "Administrator"
        sid_header = next(h for h in r.headers.get_list("set-cookie") if h.startswith("sid="))
        assert "HttpOnly" in sid_header and "samesite=lax" in sid_header.lower()
        sid = r.cookies["sid"]
        assert len(sid) >= 32
        assert r.cookies["system_user"] == "yes"

        r = c.get("/api/method/frappe.auth.get_logged_user")
        assert r.status_code == 200, r.text
        assert r.json() == {"message": "Administrator"}

        r = c.post("/api/method/logout")
        assert r.status_code == 200
    with httpx.Client(base_url=shared_server.url, cookies={"sid": sid}) as c:
        r = c.get("/api/method/fw.auth.get_logged_user")
        assert r.status_code == 403, "a logged-out sid must no longer authenticate"


def test_resource_crud(admin: httpx.Client) -> None:
    r = admin.post(CUSTOMER, json={"customer_name": "E2E Crud A", "region": "North", "credit_limit": 100})
    assert r.status_code == 200, r.text
    created = r.json()["data"]
    assert created["name"] == "E2E Crud A"
    assert created["doctype"] == "Test Customer"
    assert created["owner"] == "Administrator"
    # frappe-client style: the document as a form field `data=<json>`
    r = admin.post(CUSTOMER, data={"data": json.dumps({"customer_name": "E2E Crud B", "region": "South"})})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["region"] == "South"

    r = admin.get(CUSTOMER, params={"fields": '["name", "region", "credit_limit"]',
                                    "filters": '[["customer_name", "like", "E2E Crud%"]]',
                                    "order_by": "customer_name desc", "limit_page_length": 10})
    assert r.status_code == 200, r.text
    assert r.json() == {"data": [{"name": "E2E Crud B", "region": "South", "credit_limit": 0.0},
                                 {"name": "E2E Crud A", "region": "North", "credit_limit": 100.0}]}
    r = admin.get(CUSTOMER, params={"filters": '{"region": "North"}', "limit": 1})
    assert [row["name"] for row in r.json()["data"]] == ["E2E Crud A"]

    r = admin.get(f"{CUSTOMER}/E2E Crud A")
    assert r.status_code == 200, r.text
    assert r.json()["data"]["credit_limit"] == 100.0

    r = admin.put(f"{CUSTOMER}/E2E Crud A", json={"region": "West", "credit_limit": 250})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["region"] == "West"
    assert r.json()["data"]["modified"] > created["modified"]
    assert admin.get(f"{CUSTOMER}/E2E Crud A").json()["data"]["credit_limit"] == 250.0

    for name in ("E2E Crud A", "E2E Crud B"):
        r = admin.delete(f"{CUSTOMER}/{name}")
        assert r.status_code == 202, r.text
        assert r.json() == {"data": "ok"}
    r = admin.get(f"{CUSTOMER}/E2E Crud A")
    assert r.status_code == 404
    assert r.json()["exc_type"] == "DoesNotExistError"


def test_access_log_lines_are_fws_not_uvicorns(shared_server: FwServer) -> None:
    r = httpx.get(f"{shared_server.url}/api/method/ping", headers={"X-Request-Id": "e2e-access-log-1"}, timeout=15)
    assert r.status_code == 200
    deadline = time.monotonic() + 10
    pattern = r"Z GET /api/method/ping 200 [\d.]+ms rid=e2e-access-log-1 user=Guest client=127\.0\.0\.1$"
    while not re.search(pattern, shared_server.log(), re.MULTILINE):  # FW_ACCESS_LOG's default, text
        assert time.monotonic() < deadline, shared_server.log()[-3000:]
        time.sleep(0.05)
    assert '"GET /api/method/ping HTTP/1.1" 200' not in shared_server.log()  # uvicorn's access log is off


def test_body_over_limit_gets_413(shared_server: FwServer) -> None:
    with httpx.Client(base_url=shared_server.url, timeout=30.0) as c:
        under = json.dumps({"padding": "x" * (MAX_BODY_BYTES // 2)})
        r = c.post("/api/method/ping", content=under, headers={"Content-Type": "application/json"})
        assert r.status_code == 200, r.text

        over = json.dumps({"customer_name": "Too Big", "region": "x" * (MAX_BODY_BYTES + 1024)})
        r = c.post(CUSTOMER, content=over, headers={"Content-Type": "application/json"})
        assert r.status_code == 413, r.text
        assert r.json()["exc_type"] == "RequestEntityTooLarge"

        def chunks() -> Iterator[bytes]:  # no Content-Length: the limit applies while streaming
            for _ in range(8):
                yield b"y" * (MAX_BODY_BYTES // 4)

        r = c.post("/api/method/ping", content=chunks(), headers={"Content-Type": "application/json"})
        assert r.status_code == 413, r.text
        # the server is still fine afterwards
        assert c.get("/api/method/ping").json() == {"message": "pong"}


def test_session_survives_restart(fw_servers: FwServerFactory) -> None:
    first = fw_servers.start()
    with login(first.url) as c:
        sid = c.cookies["sid"]
        r = c.post(CUSTOMER, json={"customer_name": "Before Restart", "region": "East"})
        assert r.status_code == 200, r.text
    assert first.stop() == 0, first.log()[-3000:]

    second = fw_servers.start()
    assert second.pid != first.pid
    with httpx.Client(base_url=second.url, cookies={"sid": sid}, timeout=15.0) as c:
        r = c.get("/api/method/frappe.auth.get_logged_user")
        assert r.status_code == 200, r.text
        assert r.json() == {"message": "Administrator"}
        assert c.get(f"{CUSTOMER}/Before Restart").json()["data"]["region"] == "East"
        r = c.post(CUSTOMER, json={"customer_name": "After Restart"})  # an unsafe method on the old cookie
        assert r.status_code == 200, r.text
        assert r.json()["data"]["owner"] == "Administrator"


def test_two_workers_both_answer(fw_servers: FwServerFactory) -> None:
    server = fw_servers.start(workers=2)
    with login(server.url) as admin:
        sid = admin.cookies["sid"]

    def call(path: str) -> httpx.Response:
        # a fresh connection per request, so the kernel hands them to either worker
        with httpx.Client(base_url=server.url, cookies={"sid": sid}, timeout=15.0) as c:
            return c.get(path)

    with ThreadPoolExecutor(max_workers=10) as pool:
        responses = list(pool.map(call, ["/api/method/frappe.auth.get_logged_user"] * 20))
        assert [r.status_code for r in responses] == [200] * 20, [r.text for r in responses if r.status_code != 200]
        assert {r.json()["message"] for r in responses} == {"Administrator"}

        pids: set[int] = set()
        for _ in range(15):
            batch = list(pool.map(call, ["/api/method/fwtest.api.server_pid"] * 20))
            assert [r.status_code for r in batch] == [200] * 20
            pids |= {r.json()["message"] for r in batch}
            if len(pids) >= 2:
                break
    assert len(pids) == 2, f"expected both workers to answer, saw pids {pids}"
    assert server.pid not in pids
    assert all(_ppid(pid) == server.pid for pid in pids)

    started = time.monotonic()
    assert server.stop() == 0, server.log()[-3000:]
    assert time.monotonic() - started < 10


def test_sigterm_shuts_down_cleanly(fw_servers: FwServerFactory) -> None:
    server = fw_servers.start()
    with login(server.url) as c:  # an open keep-alive connection must not hold the shutdown up
        assert c.get("/api/method/ping").status_code == 200
        started = time.monotonic()
        code = server.stop(signal.SIGTERM)
        elapsed = time.monotonic() - started
    log = server.log()
    assert code == 0, f"exit code {code} after SIGTERM:\n{log[-3000:]}"
    assert elapsed < 5, f"SIGTERM took {elapsed:.1f}s"
    assert "Application shutdown complete" in log
    assert "Traceback" not in log
