"""Contract §2.4 (authentication: login, sessions, API keys, lockout, CSRF) and §2.5 (users)."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from http.cookies import SimpleCookie
from typing import Any

import httpx
import pytest

from engine import auth
from engine.constants import PASSWORD_KEY
from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.site import Site
from server.app import create_app
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import ok, refused

M = "/api/method"
WHO = f"{M}/fw.auth.get_logged_user"
ROLES = f"{M}/fwtest.http_methods.my_roles"
PASSWORD = "pass-1234"


def _client(site: Site, ip: str = "127.0.0.1", base_url: str = "http://testserver") -> httpx.AsyncClient:
    app = create_app(site.settings, site=site)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=(ip, 40000)), base_url=base_url)


@pytest.fixture
async def browser(site: Site) -> AsyncIterator[httpx.AsyncClient]:
    """A client that keeps cookies, like a browser."""
    async with _client(site) as c:
        yield c


def cookies_of(r: httpx.Response) -> dict[str, Any]:
    jar: dict[str, Any] = {}
    for header in r.headers.get_list("set-cookie"):
        parsed = SimpleCookie()
        parsed.load(header)
        for name, morsel in parsed.items():
            jar[name] = morsel
    return jar


async def login(c: httpx.AsyncClient, usr: str, pwd: str = PASSWORD, *, as_json: bool = False) -> httpx.Response:
    if as_json:
        return await c.post(f"{M}/login", json={"usr": usr, "pwd": pwd})
    return await c.post(f"{M}/login", data={"usr": usr, "pwd": pwd})


# -- login ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("as_json", [False, True])
async def test_login_form_and_json(site: Site, ctx: Context, as_json: bool) -> None:
    await make_user(ctx, "jane@example.com", [])
    async with _client(site) as c:
        r = await login(c, "jane@example.com", as_json=as_json)
        assert ok(r) == {"message": "Logged In", "home_page": "/app", "full_name": "jane"}
        jar = cookies_of(r)
        sid = jar["sid"]
        assert len(sid.value) >= 32
        assert sid["httponly"] is True
        assert sid["samesite"].lower() == "lax"
        assert not sid["secure"]
        assert sid["path"] == "/"
        assert jar["system_user"].value == "yes"
        assert jar["full_name"].value == "jane"
        assert jar["user_id"].value == "jane%40example.com"
        assert not jar["user_id"]["httponly"]
        # the cookie session authenticates later requests
        assert ok(await c.get(WHO)) == {"message": "jane@example.com"}


async def test_login_cookie_secure_under_https(site: Site, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", [])
    async with _client(site, base_url="https://testserver") as c:
        r = await login(c, "jane@example.com")
        ok(r)
        assert cookies_of(r)["sid"]["secure"] is True


async def test_login_by_email_case_insensitive(site: Site, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", [])
    async with _client(site) as c:
        ok(await login(c, "  Jane@Example.com "))
        assert ok(await c.get(WHO)) == {"message": "jane@example.com"}


async def test_website_user_gets_no_app(site: Site, ctx: Context) -> None:
    await make_user(ctx, "web@example.com", [])
    async with unit_of_work(ctx):
        await ctx.db.collection("user").update_one({"_id": "web@example.com"}, {"$set": {"user_type": "Website User"}})
    async with _client(site) as c:
        r = await login(c, "web@example.com")
        body = ok(r)
        assert body["message"] == "No App" and body["home_page"] != "/app"
        assert cookies_of(r)["system_user"].value == "no"


@pytest.mark.parametrize("usr, pwd", [("jane@example.com", "wrong"), ("ghost@example.com", PASSWORD),
                                      ("Guest", PASSWORD), ("jane@example.com", "x" * 600)])
async def test_wrong_credentials_are_401(site: Site, ctx: Context, usr: str, pwd: str) -> None:
    await make_user(ctx, "jane@example.com", [])
    async with _client(site) as c:
        r = await login(c, usr, pwd)
        body = refused(r, 401, "AuthenticationError")
        assert body["message"] == "Invalid login credentials"
        assert "sid" not in cookies_of(r) or not cookies_of(r)["sid"].value
        refused(await c.get(WHO), 403)


@pytest.mark.parametrize("data", [{}, {"usr": "jane@example.com"}, {"pwd": "x"}, {"usr": "", "pwd": ""}])
async def test_incomplete_login_is_401(client: httpx.AsyncClient, data: dict[str, str]) -> None:
    body = refused(await client.post(f"{M}/login", data=data), 401, "AuthenticationError")
    assert body["message"] == "Incomplete login details"


async def test_login_with_non_string_json_is_401(client: httpx.AsyncClient) -> None:
    for body in ({"usr": ["a"], "pwd": "x"}, {"usr": {"$ne": None}, "pwd": {"$ne": None}}, {"usr": 1, "pwd": 2}):
        refused(await client.post(f"{M}/login", json=body), 401, "AuthenticationError")


async def test_disabled_user_cannot_log_in(site: Site, ctx: Context) -> None:
    await make_user(ctx, "off@example.com", [])
    async with unit_of_work(ctx):
        await ctx.db.collection("user").update_one({"_id": "off@example.com"}, {"$set": {"enabled": 0}})
    async with _client(site) as c:
        refused(await login(c, "off@example.com"), 401, "AuthenticationError")


# -- lockout --------------------------------------------------------------------------------------

async def test_lockout_per_user(site: Site, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", [])
    for i in range(10):  # each failure from another address: only the user's counter reaches the limit
        async with _client(site, ip=f"10.0.0.{i}") as c:
            refused(await login(c, "jane@example.com", "bad"), 401)
    async with _client(site, ip="10.0.1.1") as c:
        body = refused(await login(c, "jane@example.com", "bad"), 429, "TooManyRequestsError")
        assert "seconds" in body["errors"][0]["message"]
        r = await login(c, "jane@example.com")  # the right password during the lockout is still refused
        refused(r, 429, "TooManyRequestsError")
        assert "sid" not in cookies_of(r)
    await make_user(ctx, "other@example.com", [])
    async with _client(site, ip="10.0.1.1") as c:  # other users are not affected
        ok(await login(c, "other@example.com"))


async def test_a_flood_of_unknown_names_locks_only_unknown_names_from_that_address(site: Site, ctx: Context) -> None:
    """Behind one NAT or proxy address, a client guessing names must not lock out the others: the
    address counts only names that do not exist, far more of them than an account's limit, and then
    refuses only failing credentials (the right password still logs in)."""
    await make_user(ctx, "jane@example.com", [])
    async with _client(site, ip="10.9.9.9") as attacker:
        for i in range(auth.ADDRESS_MAX_FAILURES):
            refused(await login(attacker, f"guess{i}@example.com", "bad"), 401)
        r = await login(attacker, "another-guess@example.com", "bad")
        refused(r, 429, "TooManyRequestsError")
        assert 0 < int(r.headers["retry-after"]) <= auth.LOCK_SECONDS + 1
        ok(await login(attacker, "jane@example.com"))  # a valid credential: never refused for its address
        # a wrong password from there answers as an unknown name does (no oracle of which names exist)
        refused(await login(attacker, "jane@example.com", "bad"), 429, "TooManyRequestsError")
    async with _client(site, ip="10.9.9.10") as elsewhere:
        refused(await login(elsewhere, "another-guess@example.com", "bad"), 401)
        ok(await login(elsewhere, "jane@example.com"))


async def test_wrong_passwords_of_real_accounts_do_not_lock_their_address(site: Site, ctx: Context) -> None:
    """Users behind one address mistyping their passwords lock their own accounts, never the address."""
    for n in range(3):
        await make_user(ctx, f"user{n}@example.com", [])
    async with _client(site, ip="10.9.8.1") as office:
        for n in range(3):
            for _ in range(auth.MAX_FAILURES):
                refused(await login(office, f"user{n}@example.com", "typo"), 401)
        refused(await login(office, "user0@example.com"), 429, "TooManyRequestsError")  # its own account
        await make_user(ctx, "colleague@example.com", [])
        ok(await login(office, "colleague@example.com"))
    assert await ctx.db.collection(auth.ATTEMPTS).count_documents({"_id": "ip:10.9.8.1"}) == 0


async def test_lockout_ends_after_the_cool_down(site: Site, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", [])
    async with _client(site, ip="10.5.5.5") as c:
        for _ in range(10):
            refused(await login(c, "jane@example.com", "bad"), 401)
        refused(await login(c, "jane@example.com"), 429)
        locked = await ctx.db.collection(auth.ATTEMPTS).find_one({"_id": "user:jane@example.com"})
        assert 0 < locked["locked_until"] - locked["last"] <= auth.LOCK_SECONDS + 1
        await ctx.db.collection(auth.ATTEMPTS).update_many({}, {"$inc": {"locked_until": -auth.LOCK_SECONDS - 1}})
        ok(await login(c, "jane@example.com"))


async def test_success_resets_the_user_counter(site: Site, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", [])
    for i in range(9):
        async with _client(site, ip=f"10.1.0.{i}") as c:
            refused(await login(c, "jane@example.com", "bad"), 401)
    async with _client(site, ip="10.1.1.1") as c:
        ok(await login(c, "jane@example.com"))
    for i in range(9):
        async with _client(site, ip=f"10.2.0.{i}") as c:
            refused(await login(c, "jane@example.com", "bad"), 401)


async def test_old_failures_are_forgotten(site: Site, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", [])
    for i in range(9):
        async with _client(site, ip=f"10.3.0.{i}") as c:
            refused(await login(c, "jane@example.com", "bad"), 401)
    await ctx.db.collection(auth.ATTEMPTS).update_many({}, {"$inc": {"last": -auth.FAILURE_WINDOW_SECONDS - 5}})
    for i in range(9):
        async with _client(site, ip=f"10.4.0.{i}") as c:
            refused(await login(c, "jane@example.com", "bad"), 401)


async def test_forged_api_secrets_lock_the_key_but_never_its_right_secret(site: Site, ctx: Context,
                                                                        admin: ApiUser) -> None:
    """Wrong secrets are counted per API key: past the limit they answer 429 from anywhere; the key's
    right secret (128 random bits, no guessing to stop) keeps working, also from the attacker's address."""
    async with _client(site, ip="10.7.7.7") as c:
        for _ in range(auth.MAX_FAILURES):
            refused(await c.get(WHO, headers={"Authorization": f"token {admin.key}:forged"}), 401)
        r = await c.get(WHO, headers={"Authorization": f"token {admin.key}:forged"})
        refused(r, 429, "TooManyRequestsError")
        assert 0 < int(r.headers["retry-after"]) <= auth.LOCK_SECONDS + 1
        assert ok(await c.get(WHO, headers=admin.token)) == {"message": "Administrator"}
    async with _client(site, ip="10.7.7.8") as c:
        refused(await c.get(WHO, headers={"Authorization": f"token {admin.key}:forged-too"}), 429)
        assert ok(await c.get(WHO, headers=admin.token)) == {"message": "Administrator"}


async def test_a_flood_of_bad_tokens_stops_no_good_key_or_password_from_that_address(
        site: Site, ctx: Context, admin: ApiUser) -> None:
    """Issue 17: ten bad tokens from one address made every valid key and password from it answer 429.
    Now unknown keys are counted per address with a far higher limit, and only they are refused."""
    jane = await make_user(ctx, "jane@example.com", [])
    async with _client(site, ip="10.8.8.8") as c:
        for i in range(auth.ADDRESS_MAX_FAILURES):
            refused(await c.get(WHO, headers={"Authorization": f"token nosuchkey{i}:secret"}), 401)
            if i % 10 == 0:  # the good credentials work all along ...
                assert ok(await c.get(WHO, headers=admin.token)) == {"message": "Administrator"}
        r = await c.get(WHO, headers={"Authorization": "token nosuchkey:secret"})
        refused(r, 429, "TooManyRequestsError")  # ... the flood itself is refused now
        assert int(r.headers["retry-after"]) > 0
        basic = base64.b64encode(b"nosuchkey:secret").decode()
        refused(await c.get(WHO, headers={"Authorization": f"Basic {basic}"}), 429)
        assert ok(await c.get(WHO, headers=admin.token)) == {"message": "Administrator"}
        assert ok(await c.get(WHO, headers=jane.basic)) == {"message": "jane@example.com"}
        ok(await login(c, "jane@example.com"))
    async with _client(site, ip="10.8.8.9") as elsewhere:  # another address is not affected
        refused(await elsewhere.get(WHO, headers={"Authorization": "token nosuchkey:secret"}), 401)


async def test_a_lock_is_not_renewed_by_requests_refused_during_it(site: Site, ctx: Context) -> None:
    async with _client(site, ip="10.8.7.1") as c:
        for i in range(auth.ADDRESS_MAX_FAILURES):
            refused(await c.get(WHO, headers={"Authorization": f"token nosuchkey{i}:secret"}), 401)
        locked = await ctx.db.collection(auth.ATTEMPTS).find_one({"_id": "ip:10.8.7.1"})
        for _ in range(5):
            refused(await c.get(WHO, headers={"Authorization": "token nosuchkey:secret"}), 429)
        assert await ctx.db.collection(auth.ATTEMPTS).find_one({"_id": "ip:10.8.7.1"}) == locked
        await ctx.db.collection(auth.ATTEMPTS).update_many({}, {"$inc": {"locked_until": -auth.LOCK_SECONDS - 1}})
        refused(await c.get(WHO, headers={"Authorization": "token nosuchkey:secret"}), 401)


# -- client address behind a proxy (FW_FORWARDED_ALLOW_IPS) -----------------------------------------

def _proxied_client(site: Site, peer: str, allow: str) -> httpx.AsyncClient:
    settings = site.settings.model_copy(update={"forwarded_allow_ips": allow})
    app = create_app(settings, site=site)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=(peer, 40000)),
                             base_url="http://testserver")


async def _address_failures(ctx: Context, ip: str) -> int:
    row = await ctx.db.collection(auth.ATTEMPTS).find_one({"_id": f"ip:{ip}"})
    return row["count"] if row else 0


@pytest.mark.parametrize("allow", ["10.0.5.1", "10.0.5.0/24, 192.0.2.7", "*"])
async def test_a_trusted_proxy_forwards_the_client_address(site: Site, ctx: Context, allow: str) -> None:
    forwarded = {"Authorization": "token nosuchkey:secret", "X-Forwarded-For": "203.0.113.5"}
    async with _proxied_client(site, "10.0.5.1", allow) as c:
        refused(await c.get(WHO, headers=forwarded), 401)
    assert await _address_failures(ctx, "203.0.113.5") == 1
    assert await _address_failures(ctx, "10.0.5.1") == 0


@pytest.mark.parametrize("allow", ["", "10.0.6.0/24"])
async def test_forwarded_headers_from_anyone_else_are_ignored(site: Site, ctx: Context, allow: str) -> None:
    """Without FW_FORWARDED_ALLOW_IPS (or from an address it does not name) a client cannot pick the
    address its failures count against, nor make the server believe it came over https."""
    forwarded = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}
    async with _proxied_client(site, "10.0.5.1", allow) as c:
        refused(await c.get(WHO, headers={**forwarded, "Authorization": "token nosuchkey:secret"}), 401)
        r = await c.post(f"{M}/login", data={"usr": "Administrator", "pwd": "admin"}, headers=forwarded)
        ok(r)
        assert not cookies_of(r)["sid"]["secure"]
    assert await _address_failures(ctx, "203.0.113.9") == 0
    assert await _address_failures(ctx, "10.0.5.1") == 1


async def test_a_trusted_proxy_forwards_https(site: Site, ctx: Context) -> None:
    async with _proxied_client(site, "10.0.5.1", "10.0.5.1") as c:
        r = await c.post(f"{M}/login", data={"usr": "Administrator", "pwd": "admin"},
                         headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.5"})
        ok(r)
        assert cookies_of(r)["sid"]["secure"]


@pytest.mark.parametrize("value", ["10.0.0.300", "proxy.example.com", "10.0.0.1, nonsense"])
def test_forwarded_allow_ips_must_be_addresses(value: str) -> None:
    from pydantic import ValidationError

    from engine.settings import Settings

    with pytest.raises(ValidationError, match="not an IP address or network"):
        Settings(forwarded_allow_ips=value)


# -- sessions ---------------------------------------------------------------------------------------

async def test_logout_ends_the_session(site: Site, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", [])
    async with _client(site) as c:
        sid = cookies_of(ok_response := await login(c, "jane@example.com"))["sid"].value
        ok(ok_response)
        r = await c.post(f"{M}/logout")
        assert ok(r) == {}
        expired = cookies_of(r)
        assert {"sid", "system_user", "full_name", "user_id"} <= set(expired)
        assert all(expired[k]["max-age"] == "0" or expired[k]["expires"] for k in ("sid", "user_id"))
    async with _client(site) as c:  # the old sid is worth nothing now
        refused(await c.get(WHO, headers={"Cookie": f"sid={sid}"}), 403, "PermissionError")
        assert ok(await c.get(ROLES, headers={"Cookie": f"sid={sid}"})) == {"message": ["Guest"]}


async def test_logout_by_get_and_as_guest(site: Site, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", [])
    async with _client(site) as c:
        ok(await login(c, "jane@example.com"))
        assert ok(await c.get(f"{M}/logout")) == {}
        refused(await c.get(WHO), 403)
        assert ok(await c.get(f"{M}/logout")) == {}  # already a Guest: still fine


async def test_unknown_sid_is_guest(client: httpx.AsyncClient) -> None:
    for sid in ("0" * 56, "Guest", "x" * 500, "", "; drop"):
        r = await client.get(ROLES, headers={"Cookie": f"sid={sid}"})
        assert ok(r) == {"message": ["Guest"]}


async def test_sid_query_parameter(site: Site, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", [])
    async with _client(site) as c:
        sid = cookies_of(await login(c, "jane@example.com"))["sid"].value
    async with _client(site) as fresh:
        assert ok(await fresh.get(WHO, params={"sid": sid})) == {"message": "jane@example.com"}


async def test_session_survives_restart(site: Site, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", [])
    async with _client(site) as c:
        sid = cookies_of(await login(c, "jane@example.com"))["sid"].value
    restarted = Site(site.settings, site.db, site.apps)  # a new process: empty caches, same database
    await restarted.meta.reload()
    app = create_app(restarted.settings, site=restarted)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
        assert ok(await c.get(WHO, headers={"Cookie": f"sid={sid}"})) == {"message": "jane@example.com"}
    stored = await ctx.db.collection(auth.SESSIONS).find_one({})
    assert stored is not None and sid not in json.dumps(stored, default=str)  # only a digest is kept


async def test_disabling_a_user_ends_their_sessions(site: Site, ctx: Context, admin: ApiUser) -> None:
    await make_user(ctx, "jane@example.com", [])
    async with _client(site) as c:
        sid = cookies_of(await login(c, "jane@example.com"))["sid"].value
        ok(await c.put("/api/resource/User/jane@example.com", json={"enabled": 0}, headers=admin.token))
    async with _client(site) as c:
        refused(await c.get(WHO, headers={"Cookie": f"sid={sid}"}), 403)


async def test_deleted_users_session_is_guest(site: Site, ctx: Context, admin: ApiUser) -> None:
    await make_user(ctx, "jane@example.com", [])
    async with _client(site) as c:
        sid = cookies_of(await login(c, "jane@example.com"))["sid"].value
        assert ok(await c.get(WHO)) == {"message": "jane@example.com"}
        ok(await c.delete("/api/resource/User/jane@example.com", headers=admin.token), 202)
    ctx.site.forget_roles("jane@example.com")
    async with _client(site) as c:
        refused(await c.get(WHO, headers={"Cookie": f"sid={sid}"}), 403)
        assert ok(await c.get(ROLES, headers={"Cookie": f"sid={sid}"})) == {"message": ["Guest"]}


# -- API keys ----------------------------------------------------------------------------------------

async def test_token_and_basic(client: httpx.AsyncClient, ctx: Context) -> None:
    user = await make_user(ctx, "api@example.com", ["Test Reader"])
    assert ok(await client.get(WHO, headers=user.token)) == {"message": "api@example.com"}
    assert ok(await client.get(WHO, headers=user.basic)) == {"message": "api@example.com"}
    lower = {"Authorization": user.token["Authorization"].replace("token", "Token", 1)}
    assert ok(await client.get(WHO, headers=lower)) == {"message": "api@example.com"}
    # header authentication creates no session
    r = await client.get(WHO, headers=user.token)
    assert "sid" not in cookies_of(r)
    assert ok(await client.get(ROLES)) == {"message": ["Guest"]}


async def test_forged_or_unknown_keys_are_401(client: httpx.AsyncClient, ctx: Context) -> None:
    user = await make_user(ctx, "api@example.com", [])
    for header in (f"token {user.key}:{'0' * len(user.secret)}", f"token {user.key}:{user.secret}x",
                   f"token unknownkey:{user.secret}", f"token {user.key.upper()}:{user.secret}",
                   "Basic " + base64.b64encode(f"{user.key}:wrong".encode()).decode(),
                   "Basic " + base64.b64encode(f"api@example.com:{PASSWORD}".encode()).decode()):
        body = refused(await client.get(WHO, headers={"Authorization": header}), 401, "AuthenticationError")
        assert user.secret not in json.dumps(body)


async def test_disabled_users_key_is_401(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    user = await make_user(ctx, "api@example.com", [])
    ok(await client.put("/api/resource/User/api@example.com", json={"enabled": 0}, headers=admin.token))
    refused(await client.get(WHO, headers=user.token), 401, "AuthenticationError")


async def test_secrets_are_stored_as_digests(ctx: Context) -> None:
    user = await make_user(ctx, "api@example.com", [])
    record = await ctx.db.collection("user").find_one({"_id": "api@example.com"})
    text = json.dumps(record, default=str)
    assert user.secret not in text and PASSWORD not in text
    assert record[PASSWORD_KEY].startswith("$argon2")


# -- roles: Guest, All, Administrator -------------------------------------------------------------------

async def test_automatic_roles(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    assert ok(await client.get(ROLES)) == {"message": ["Guest"]}
    plain = await make_user(ctx, "plain@example.com", [])
    roles = ok(await client.get(ROLES, headers=plain.token))["message"]
    assert {"All", "Guest"} <= set(roles) and "System Manager" not in roles and "Administrator" not in roles
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    assert {"All", "Guest", "Test Reader"} <= set(ok(await client.get(ROLES, headers=reader.token))["message"])
    admin_roles = set(ok(await client.get(ROLES, headers=admin.token))["message"])
    assert {"Administrator", "System Manager", "All", "Guest", "Test Reader"} <= admin_roles


async def test_administrator_has_every_right(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    for doctype in ("Test Payment", "User", "Role", "Test Note"):
        ok(await client.get(f"/api/resource/{doctype}", headers=admin.token))
    refused(await client.get("/api/resource/Test Payment", headers=reader.token), 403)
    refused(await client.get("/api/resource/User", headers=reader.token), 403)
    ok(await client.get("/api/resource/Role", headers=reader.token))  # Role grants read to All


async def test_guest_reaches_only_guest_functions(client: httpx.AsyncClient) -> None:
    assert ok(await client.get(f"{M}/fwtest.http_methods.add", params={"a": "1"})) == {"message": 2}
    refused(await client.get("/api/resource/Test Note"), 403, "PermissionError")
    refused(await client.post("/api/resource/Test Note", json={"title": "x"}), 403, "PermissionError")
    refused(await client.post(f"{M}/fw.core.doctype.user.user.generate_keys", json={"user": "Administrator"}), 403)


# -- CSRF -------------------------------------------------------------------------------------------

async def test_csrf(browser: httpx.AsyncClient, ctx: Context) -> None:
    user = await make_user(ctx, "jane@example.com", ["Test Owner"])
    ok(await login(browser, "jane@example.com"))
    note = {"title": "csrf"}
    # a session that never asked for a token is an API client: no CSRF check (as in Frappe)
    ok(await browser.post("/api/resource/Test Note", json=note))
    token = ok(await browser.get(f"{M}/fw.auth.get_csrf_token"))["message"]
    assert isinstance(token, str) and len(token) >= 16
    assert ok(await browser.get(f"{M}/fw.auth.get_csrf_token"))["message"] == token  # stable per session
    body = refused(await browser.post("/api/resource/Test Note", json=note), 400, "CSRFTokenError")
    assert body["errors"][0]["message"]
    refused(await browser.post("/api/resource/Test Note", json=note, headers={"X-Frappe-CSRF-Token": "wrong"}), 400)
    refused(await browser.post(f"{M}/logout"), 400, "CSRFTokenError")
    assert await ctx.db.collection("test_note").count_documents({}) == 1
    ok(await browser.post("/api/resource/Test Note", json=note, headers={"X-Frappe-CSRF-Token": token}))
    ok(await browser.post("/api/resource/Test Note", json=note, headers={"X-Fw-CSRF-Token": token}))
    ok(await browser.post("/api/resource/Test Note", data={"title": "form", "csrf_token": token}))
    ok(await browser.get("/api/resource/Test Note"))  # safe methods are never checked
    name = ok(await browser.get("/api/resource/Test Note"))["data"][0]["name"]
    refused(await browser.put(f"/api/resource/Test Note/{name}", json={"count": 1}), 400, "CSRFTokenError")
    refused(await browser.delete(f"/api/resource/Test Note/{name}"), 400, "CSRFTokenError")
    ok(await browser.delete(f"/api/resource/Test Note/{name}", headers={"X-Frappe-CSRF-Token": token}), 202)
    # header authentication is exempt, even with the session cookie present
    r = await browser.post("/api/resource/Test Note", json=note, headers=user.token)
    assert ok(r)["data"]["owner"] == "jane@example.com"
    assert await ctx.db.collection("test_note").count_documents({}) == 4
    ok(await browser.post(f"{M}/logout", headers={"X-Frappe-CSRF-Token": token}))


async def test_csrf_token_needs_a_session(client: httpx.AsyncClient, admin: ApiUser) -> None:
    refused(await client.get(f"{M}/fw.auth.get_csrf_token"), 403, "PermissionError")
    refused(await client.get(f"{M}/frappe.auth.get_csrf_token", headers=admin.token), 403, "PermissionError")


async def test_other_sessions_keep_their_own_token(site: Site, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", ["Test Owner"])
    async with _client(site) as a, _client(site) as b:
        ok(await login(a, "jane@example.com"))
        ok(await login(b, "jane@example.com"))
        token_a = ok(await a.get(f"{M}/fw.auth.get_csrf_token"))["message"]
        token_b = ok(await b.get(f"{M}/fw.auth.get_csrf_token"))["message"]
        assert token_a != token_b
        refused(await a.post("/api/resource/Test Note", json={"title": "x"}, headers={"X-Frappe-CSRF-Token": token_b}),
                400, "CSRFTokenError")


# -- users ----------------------------------------------------------------------------------------------

class Recorder:
    """Collects every response text so the test can check no secret ever left the server."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.texts: list[str] = []
        self.successes: list[str] = []

    async def __call__(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        r = await self.client.request(method, url, **kwargs)
        self.texts.append(r.text)
        if r.status_code == 200:
            self.successes.append(r.text)
        return r


async def test_system_manager_creates_users_with_password(client: httpx.AsyncClient, admin: ApiUser,
                                                          ctx: Context) -> None:
    rec = Recorder(client)
    manager = await make_user(ctx, "sm@example.com", ["System Manager"])
    ok(await rec("POST", "/api/resource/Role", json={"role_name": "Test Reader"}, headers=manager.token))
    body = {"email": "new@example.com", "first_name": "New", "last_name": "Person", "new_password": "Fresh-Pass-99",
            "roles": [{"role": "Test Reader"}]}
    doc = ok(await rec("POST", "/api/resource/User", json=body, headers=manager.token))["data"]
    assert doc["name"] == "new@example.com" and doc["full_name"] == "New Person"
    assert [r["role"] for r in doc["roles"]] == ["Test Reader"]
    assert "new_password" not in doc
    async with _client(ctx.site) as c:
        ok(await login(c, "new@example.com", "Fresh-Pass-99"))
        assert {"Test Reader"} <= set(ok(await c.get(ROLES))["message"])
    await rec("GET", "/api/resource/User/new@example.com", headers=manager.token)
    await rec("GET", "/api/resource/User", params={"fields": '["*"]'}, headers=admin.token)
    await rec("POST", f"{M}/fw.client.get", json={"doctype": "User", "name": "new@example.com"}, headers=admin.token)
    await rec("GET", "/api/resource/User", params={"fields": '["*"]', "as_dict": "0"}, headers=admin.token)
    refused(await rec("GET", "/api/resource/User", params={"fields": '["_password_hash"]'}, headers=admin.token), 417)
    refused(await rec("GET", "/api/resource/User", params={"fields": '["new_password"]'}, headers=admin.token), 417)
    refused(await rec("GET", "/api/resource/User", params={"filters": '{"_password_hash": ["is", "set"]}'},
                      headers=admin.token), 417)
    refused(await rec("GET", "/api/resource/User", params={"filters": '{"_api_secret_digest": ["is", "set"]}'},
                      headers=admin.token), 417)
    for text in rec.texts:
        for secret in ("Fresh-Pass-99", "$argon2", manager.secret, admin.secret):
            assert secret not in text, (secret, text[:500])
    assert len(rec.successes) == 6
    for text in rec.successes:  # the private fields themselves never appear in an answer
        assert PASSWORD_KEY not in text and "_api_secret_digest" not in text and "new_password" not in text


async def test_password_is_never_returned_from_password_fields(client: httpx.AsyncClient, admin: ApiUser,
                                                               ctx: Context) -> None:
    r = await client.post("/api/resource/Test Note", json={"title": "pw", "secret": "hunter2"}, headers=admin.token)
    name = ok(r)["data"]["name"]
    assert "hunter2" not in r.text
    for response in (await client.get(f"/api/resource/Test Note/{name}", headers=admin.token),
                     await client.get("/api/resource/Test Note", params={"fields": '["*"]'}, headers=admin.token),
                     await client.post(f"{M}/fw.client.get", json={"doctype": "Test Note", "name": name},
                                       headers=admin.token)):
        ok(response)
        assert "hunter2" not in response.text and "$argon2" not in response.text
    # nor can a query name the field: not as a column, an aggregate, a filter or a sort key
    for params in ({"fields": '["secret"]'}, {"fields": '["title", "max(secret) as m"]'}, {"fields": "title,secret"},
                   {"fields": '["`tabTest Note`.secret"]'}, {"filters": '{"secret": ["like", "$argon2%"]}'},
                   {"or_filters": '[["secret", "is", "set"]]'}, {"order_by": "secret desc"},
                   {"fields": '["secret as s"]'}, {"group_by": "secret", "fields": '["count(name) as c"]'}):
        r = await client.get("/api/resource/Test Note", params=params, headers=admin.token)
        refused(r, 417, "DataError")
        assert "$argon2" not in r.text
    for path, args in (("fw.client.get_value", {"doctype": "Test Note", "fieldname": "secret", "filters": name}),
                       ("fw.client.get_value", {"doctype": "Test Note", "fieldname": ["title", "secret"]}),
                       ("fw.client.get_count", {"doctype": "Test Note", "filters": {"secret": ["is", "set"]}}),
                       ("fw.client.get_list", {"doctype": "Test Note", "fields": ["secret"]})):
        r = await client.post(f"{M}/{path}", json=args, headers=admin.token)
        refused(r, 417, "DataError")
        assert "$argon2" not in r.text


async def test_only_system_manager_creates_users(client: httpx.AsyncClient, ctx: Context) -> None:
    plain = await make_user(ctx, "plain@example.com", ["Test Reader", "Test Owner"])
    body = {"email": "x@example.com", "first_name": "X", "roles": [{"role": "System Manager"}]}
    refused(await client.post("/api/resource/User", json=body, headers=plain.token), 403, "PermissionError")
    refused(await client.post(f"{M}/fw.client.insert", json={"doc": {"doctype": "User", **body}},
                              headers=plain.token), 403, "PermissionError")
    refused(await client.post("/api/resource/User", json=body), 403, "PermissionError")
    assert await ctx.db.collection("user").count_documents({"_id": "x@example.com"}) == 0


async def test_user_reads_own_document_only(client: httpx.AsyncClient, ctx: Context) -> None:
    jane = await make_user(ctx, "jane@example.com", ["Test Reader"])
    await make_user(ctx, "john@example.com", [])
    doc = ok(await client.get("/api/resource/User/jane@example.com", headers=jane.token))["data"]
    assert doc["email"] == "jane@example.com" and [r["role"] for r in doc["roles"]] == ["Test Reader"]
    assert "new_password" not in doc and PASSWORD_KEY not in doc
    got = ok(await client.post(f"{M}/fw.client.get", json={"doctype": "User", "name": "jane@example.com"},
                               headers=jane.token))["message"]
    assert got["name"] == "jane@example.com"
    refused(await client.get("/api/resource/User/john@example.com", headers=jane.token), 403, "PermissionError")
    refused(await client.get("/api/resource/User/Administrator", headers=jane.token), 403, "PermissionError")
    refused(await client.get("/api/resource/User", headers=jane.token), 403, "PermissionError")
    refused(await client.get("/api/resource/User/jane@example.com"), 403, "PermissionError")  # Guest
    refused(await client.delete("/api/resource/User/jane@example.com", headers=jane.token), 403, "PermissionError")


async def test_user_edits_own_profile_and_password(site: Site, client: httpx.AsyncClient, ctx: Context) -> None:
    jane = await make_user(ctx, "jane@example.com", [])
    url = "/api/resource/User/jane@example.com"
    r = await client.put(url, json={"first_name": "Janet", "language": "de", "new_password": "Brand-New-77"},
                         headers=jane.token)
    doc = ok(r)["data"]
    assert doc["first_name"] == "Janet" and doc["full_name"] == "Janet" and doc["language"] == "de"
    assert "Brand-New-77" not in r.text and "new_password" not in doc
    async with _client(site) as c:
        refused(await login(c, "jane@example.com", PASSWORD), 401)
        ok(await login(c, "jane@example.com", "Brand-New-77"))


@pytest.mark.parametrize("change", [{"roles": [{"role": "System Manager"}]}, {"roles": []}, {"enabled": 0},
                                    {"user_type": "Website User"}, {"email": "other@example.com"}])
async def test_user_cannot_widen_own_access(client: httpx.AsyncClient, ctx: Context, change: dict[str, Any]) -> None:
    jane = await make_user(ctx, "jane@example.com", ["Test Reader"])
    body = refused(await client.put("/api/resource/User/jane@example.com", json=change, headers=jane.token), 403,
                   "PermissionError")
    assert body["errors"][0]["field"] == next(iter(change))
    record = await ctx.db.collection("user").find_one({"_id": "jane@example.com"})
    assert [r["role"] for r in record["roles"]] == ["Test Reader"]
    assert record["enabled"] == 1 and record["user_type"] == "System User" and record["email"] == "jane@example.com"
    roles = ok(await client.get(ROLES, headers=jane.token))["message"]
    assert "System Manager" not in roles


async def test_api_key_is_read_only(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    jane = await make_user(ctx, "jane@example.com", [])
    ok(await client.put("/api/resource/User/jane@example.com", json={"api_key": "mine"}, headers=admin.token))
    record = await ctx.db.collection("user").find_one({"_id": "jane@example.com"})
    assert record["api_key"] == jane.key
    assert ok(await client.get(WHO, headers=jane.token)) == {"message": "jane@example.com"}


async def test_user_cannot_change_another_user(client: httpx.AsyncClient, ctx: Context) -> None:
    jane = await make_user(ctx, "jane@example.com", ["Test Reader"])
    await make_user(ctx, "john@example.com", [])
    for change in ({"roles": [{"role": "Test Reader"}]}, {"first_name": "Hacked"}, {"new_password": "owned-123"}):
        refused(await client.put("/api/resource/User/john@example.com", json=change, headers=jane.token), 403,
                "PermissionError")
    record = await ctx.db.collection("user").find_one({"_id": "john@example.com"})
    assert record["first_name"] == "john" and record["roles"] == []
    r = await client.post(f"{M}/fw.client.set_value", headers=jane.token,
                          json={"doctype": "User", "name": "john@example.com", "fieldname": "first_name", "value": "X"})
    refused(r, 403, "PermissionError")


async def test_system_manager_changes_roles(client: httpx.AsyncClient, ctx: Context) -> None:
    manager = await make_user(ctx, "sm@example.com", ["System Manager", "Test Reader"])
    jane = await make_user(ctx, "jane@example.com", [])
    refused(await client.get("/api/resource/Test Note", headers=jane.token), 403)
    ok(await client.put("/api/resource/User/jane@example.com", json={"roles": [{"role": "Test Reader"}]},
                        headers=manager.token))
    ctx.site.forget_roles("jane@example.com")
    ok(await client.get("/api/resource/Test Note", headers=jane.token))


async def test_standard_users_cannot_be_deleted_or_disabled(client: httpx.AsyncClient, admin: ApiUser,
                                                           ctx: Context) -> None:
    for name in ("Administrator", "Guest"):
        refused(await client.delete(f"/api/resource/User/{name}", headers=admin.token), 403, "PermissionError")
    refused(await client.put("/api/resource/User/Administrator", json={"enabled": 0}, headers=admin.token), 417)
    assert await ctx.db.collection("user").count_documents({"_id": {"$in": ["Administrator", "Guest"]}}) == 2


async def test_code_may_create_users_when_it_says_so(ctx: Context) -> None:
    """A sign-up flow (code, running as Guest) may bypass the System Manager rule explicitly."""
    guest = ctx.site.context("Guest")
    async with unit_of_work(guest):
        doc = new_doc(guest, "User", email="signup@example.com", first_name="S")
        doc.flags["ignore_permissions"] = True
        await doc.insert(ignore_permissions=True)
    assert await ctx.db.collection("user").count_documents({"_id": "signup@example.com"}) == 1


# -- lockout per account, renaming users ----------------------------------------------------------

async def test_lockout_counts_every_name_of_an_account(site: Site, ctx: Context) -> None:
    """Administrator logs in by name or by email: both count against (and are locked by) one counter."""
    for i in range(10):
        async with _client(site, ip=f"10.6.0.{i}") as c:
            refused(await login(c, "Administrator" if i % 2 else "admin@example.com", "bad"), 401)
    assert await ctx.db.collection(auth.ATTEMPTS).count_documents({"_id": "user:administrator"}) == 1
    for i, usr in enumerate(("Administrator", "admin@example.com", "ADMIN@example.com")):
        async with _client(site, ip=f"10.6.1.{i}") as c:
            refused(await login(c, usr, "admin"), 429, "TooManyRequestsError")


async def test_unknown_names_are_locked_out_too(site: Site, ctx: Context) -> None:
    for i in range(10):
        async with _client(site, ip=f"10.6.2.{i}") as c:
            refused(await login(c, "Ghost@example.com", "bad"), 401)
    async with _client(site, ip="10.6.3.1") as c:
        refused(await login(c, "ghost@example.com", "bad"), 429, "TooManyRequestsError")


async def test_a_locked_account_never_reaches_the_password_check(site: Site, ctx: Context,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    await make_user(ctx, "jane@example.com", [])
    for i in range(10):
        async with _client(site, ip=f"10.6.4.{i}") as c:
            refused(await login(c, "jane@example.com", "bad"), 401)
    checked: list[str] = []
    monkeypatch.setattr(auth.passwords, "verify_password", lambda stored, pwd: checked.append(pwd) or True)
    async with _client(site, ip="10.6.5.1") as c:
        refused(await login(c, "jane@example.com"), 429, "TooManyRequestsError")
    assert checked == []


async def test_success_by_one_name_resets_the_account_counter(site: Site, ctx: Context) -> None:
    for i in range(9):
        async with _client(site, ip=f"10.6.6.{i}") as c:
            refused(await login(c, "admin@example.com", "bad"), 401)
    async with _client(site, ip="10.6.7.1") as c:
        ok(await login(c, "Administrator", "admin"))
    for i in range(9):
        async with _client(site, ip=f"10.6.8.{i}") as c:
            refused(await login(c, "admin@example.com", "bad"), 401)


async def test_renaming_users(client: httpx.AsyncClient, ctx: Context) -> None:
    """Renaming a User needs write on the User doctype (a System Manager's), never the own-record rule; the
    new name is a valid email, and Administrator and Guest keep their names."""
    rename = f"{M}/fw.client.rename_doc"
    manager = await make_user(ctx, "sm@example.com", ["System Manager"])
    jane = await make_user(ctx, "jane@example.com", ["Test Reader"])
    body = refused(await client.post(rename, headers=jane.token, json={
        "doctype": "User", "old_name": "jane@example.com", "new_name": "jane2@example.com"}), 403, "PermissionError")
    assert "write" in body["errors"][0]["message"]
    for old, new in (("Administrator", "root@example.com"), ("Guest", "visitor@example.com"),
                     ("jane@example.com", "Administrator"), ("jane@example.com", "not-an-email")):
        refused(await client.post(rename, headers=manager.token, json={
            "doctype": "User", "old_name": old, "new_name": new, "merge": 1}), 417)
    assert await ctx.db.collection("user").count_documents(
        {"_id": {"$in": ["Administrator", "Guest", "jane@example.com"]}}) == 3
    r = await client.post(rename, headers=manager.token, json={
        "doctype": "User", "old_name": "jane@example.com", "new_name": "janet@example.com"})
    assert ok(r) == {"message": "janet@example.com"}
    record = await ctx.db.collection("user").find_one({"_id": "janet@example.com"})
    assert record["email"] == "janet@example.com"
    async with _client(ctx.site) as c:
        ok(await login(c, "janet@example.com"))


async def test_sessions_follow_a_renamed_user_and_end_with_a_deleted_one(client: httpx.AsyncClient, ctx: Context,
                                                                         admin: ApiUser) -> None:
    """Sessions are kept under the user's name: a rename moves them along, a deletion ends them, so a user
    created later under the old name never inherits anyone's session."""
    await make_user(ctx, "jane@example.com", ["Test Reader"])
    async with _client(ctx.site) as jane:
        ok(await login(jane, "jane@example.com"))
        ok(await client.post(f"{M}/fw.client.rename_doc", headers=admin.token, json={
            "doctype": "User", "old_name": "jane@example.com", "new_name": "janet@example.com"}))
        assert ok(await jane.get(WHO))["message"] == "janet@example.com"  # still logged in, as the new name
        await make_user(ctx, "jane@example.com", ["System Manager"])  # someone new takes the old name
        assert ok(await jane.get(WHO))["message"] == "janet@example.com"
        assert await ctx.db.collection("user").count_documents({"_id": "janet@example.com"}) == 1
        ok(await client.delete("/api/resource/User/janet@example.com", headers=admin.token), 202)
        refused(await jane.get(WHO), 403, "PermissionError")  # a Guest now
        assert await ctx.db.collection(auth.SESSIONS).count_documents({"user": "janet@example.com"}) == 0
        await make_user(ctx, "janet@example.com", ["System Manager"])  # and someone new takes that name
        refused(await jane.get(WHO), 403, "PermissionError")


async def test_oversized_credentials_are_refused_before_any_lookup(site: Site, ctx: Context) -> None:
    async with _client(site) as c:
        for usr, pwd in (("u" * 321, PASSWORD), ("jane@example.com", "p" * 513), ("u" * 17_000_000, PASSWORD)):
            body = refused(await login(c, usr, pwd, as_json=True), 401, "AuthenticationError")
            assert body["message"] == "Invalid login credentials"
    assert await ctx.db.collection(auth.ATTEMPTS).count_documents({}) == 0  # nothing was looked up or counted
