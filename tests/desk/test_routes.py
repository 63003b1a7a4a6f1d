"""The Desk's routes over HTTP (desk.md §1, §2): `/`, `/login`, `/app/...`, Guest redirects with a
same-site `redirect-to`, the login form without JavaScript, the no-access page, the security
headers, and Frappe's legacy `cmd=` calls on `/`."""

from __future__ import annotations

import json
import re
from urllib.parse import unquote

import httpx
import pytest

from engine.context import Context
from server.desk.pages import CSP, safe_target
from tests.desk.conftest import PASSWORD, cookie_login, desk_user

BOOT_BLOCK = re.compile(r'<script type="application/json" id="fw-boot">(.*?)</script>', re.S)


def boot_of(html: str) -> dict[str, object]:
    found = BOOT_BLOCK.search(html)
    assert found, html[:500]
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def assert_page_headers(r: httpx.Response) -> None:
    assert r.headers["content-security-policy"] == CSP
    csp = {d.split(" ", 1)[0]: d.split(" ", 1)[1] for d in CSP.split("; ")}
    assert csp["script-src"] == "'self'"  # no 'unsafe-inline', no 'unsafe-eval', no nonce
    assert csp["frame-ancestors"] == "'self'"
    assert csp["object-src"] == "'none'"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "SAMEORIGIN"
    assert "no-store" in r.headers["cache-control"]  # the shell carries the CSRF token
    assert r.headers["content-type"].startswith("text/html")


def executable_scripts(html: str) -> list[str]:
    """The <script> tags a browser would run (a JSON data block is not one)."""
    return [tag for tag in re.findall(r"<script\b[^>]*>", html) if 'type="application/json"' not in tag]


@pytest.mark.parametrize(("value", "expected"), [
    (None, "/app"), ("", "/app"), ("/app/warehouse-violation?employee=HR-EMP-00001", None),
    ("/app/employee/HR%2FEMP", None), ("//evil.example/app", "/app"), ("https://evil.example/app", "/app"),
    ("http:/evil.example", "/app"), ("/\\evil.example", "/app"), ("\\\\evil.example", "/app"),
    ("javascript:alert(1)", "/app"), ("app", "/app"), ("/app\n/x", "/app"), ("/app\x00", "/app"),
    ("/" + "a" * 3000, "/app"),
])
def test_redirect_targets_stay_on_the_site(value: str | None, expected: str | None) -> None:
    assert safe_target(value) == (value if expected is None else expected)


async def test_root_sends_a_guest_to_login_and_a_user_to_the_desk(browser_client: httpx.AsyncClient,
                                                                   ctx: Context) -> None:
    r = await browser_client.get("/")
    assert (r.status_code, r.headers["location"]) == (302, "/login")
    await desk_user(ctx, "root@example.com", ["Test Reader"])
    await cookie_login(browser_client, "root@example.com")
    r = await browser_client.get("/")
    assert (r.status_code, r.headers["location"]) == (302, "/app")


async def test_root_keeps_frappes_legacy_cmd_calls(browser_client: httpx.AsyncClient, ctx: Context) -> None:
    r = await browser_client.get("/", params={"cmd": "ping"})
    assert r.status_code == 200 and r.json() == {"message": "pong"}
    await desk_user(ctx, "legacy@example.com", ["Test Reader"])
    r = await browser_client.post("/", data={"cmd": "login", "usr": "legacy@example.com", "pwd": PASSWORD})
    assert r.status_code == 200 and r.json()["message"] == "Logged In"
    r = await browser_client.get("/", params={"cmd": "frappe.auth.get_logged_user"})
    assert r.json() == {"message": "legacy@example.com"}
    r = await browser_client.post("/", data={"usr": "x"})  # a POST without cmd is still the legacy endpoint
    assert (r.status_code, r.text) == (200, "fw")


@pytest.mark.parametrize("path", ["/app", "/app/warehouse-violation", "/app/warehouse-violation/new",
                                  "/app/employee/HR-EMP-00001", "/app/query-report/Employee Score Report",
                                  "/app/no-such-doctype/x/y"])
async def test_a_guest_is_sent_to_login_and_back(browser_client: httpx.AsyncClient, path: str) -> None:
    r = await browser_client.get(path)
    assert r.status_code == 302
    location = r.headers["location"]
    assert location.startswith("/login?redirect-to=")
    assert unquote(location.split("=", 1)[1]) == httpx.URL(path).raw_path.decode()


async def test_the_redirect_keeps_the_query_string(browser_client: httpx.AsyncClient) -> None:
    r = await browser_client.get("/app/warehouse-violation?employee=HR-EMP-00001&status=Pending")
    target = unquote(r.headers["location"].split("redirect-to=", 1)[1])
    assert target == "/app/warehouse-violation?employee=HR-EMP-00001&status=Pending"


async def test_every_app_path_answers_the_shell(browser_client: httpx.AsyncClient, ctx: Context) -> None:
    await desk_user(ctx, "shell@example.com", ["Test Reader"])
    await cookie_login(browser_client, "shell@example.com")
    for path in ("/app", "/app/test-customer", "/app/test-customer/new", "/app/test-customer/A%2FB",
                 "/app/query-report/Whatever", "/app/unknown-thing/1/2/3"):
        r = await browser_client.get(path)
        assert r.status_code == 200, (path, r.text[:300])
        assert_page_headers(r)
        assert boot_of(r.text)["user"] == "shell@example.com"
        scripts = executable_scripts(r.text)
        assert len(scripts) == 1 and 'type="module"' in scripts[0] and 'src="/assets/desk/' in scripts[0], scripts
        assert "<script>" not in r.text and "onload=" not in r.text.lower()


async def test_the_login_page(browser_client: httpx.AsyncClient) -> None:
    r = await browser_client.get("/login", params={"redirect-to": "/app/test-customer?region=North"})
    assert r.status_code == 200
    assert_page_headers(r)
    html = r.text
    assert '<label for="login-email">Email</label>' in html
    assert '<label for="login-password">Password</label>' in html
    assert re.search(r'<button type="submit"[^>]*>Login</button>', html)
    assert 'data-redirect="/app/test-customer?region=North"' in html
    assert 'method="post" action="/login"' in html  # never a GET form: the password stays out of URLs
    assert [s for s in executable_scripts(html) if "login.js" in s]


async def test_the_login_page_refuses_an_off_site_redirect(browser_client: httpx.AsyncClient) -> None:
    for target in ("https://evil.example/", "//evil.example", "/\\evil.example"):
        r = await browser_client.get("/login", params={"redirect-to": target})
        assert 'data-redirect="/app"' in r.text, target
        assert "evil.example" not in r.text


async def test_the_login_page_in_german(browser_client: httpx.AsyncClient) -> None:
    r = await browser_client.get("/login", headers={"Accept-Language": "de-DE,de;q=0.9"})
    assert '<html lang="de">' in r.text
    assert ">E-Mail</label>" in r.text and ">Passwort</label>" in r.text
    assert re.search(r'<button type="submit"[^>]*>Anmelden</button>', r.text)


async def test_a_logged_in_user_skips_the_login_page(browser_client: httpx.AsyncClient, ctx: Context) -> None:
    await desk_user(ctx, "skip@example.com", ["Test Reader"])
    await cookie_login(browser_client, "skip@example.com")
    r = await browser_client.get("/login", params={"redirect-to": "/app/test-customer"})
    assert (r.status_code, r.headers["location"]) == (302, "/app/test-customer")
    r = await browser_client.get("/login", params={"redirect-to": "https://evil.example/"})
    assert r.headers["location"] == "/app"


async def test_the_login_form_works_without_javascript(browser_client: httpx.AsyncClient, ctx: Context) -> None:
    await desk_user(ctx, "nojs@example.com", ["Test Reader"])
    r = await browser_client.post("/login", data={"usr": "nojs@example.com", "pwd": "wrong-pass",
                                                  "redirect-to": "/app/test-customer"})
    assert r.status_code == 401
    assert "Invalid login credentials" in r.text
    assert 'value="nojs@example.com"' in r.text and 'data-redirect="/app/test-customer"' in r.text
    assert "sid" not in r.cookies
    r = await browser_client.post("/login", data={"usr": "nojs@example.com", "pwd": PASSWORD,
                                                  "redirect-to": "https://evil.example/"})
    assert (r.status_code, r.headers["location"]) == (303, "/app")
    r = await browser_client.get("/app")
    assert r.status_code == 200 and boot_of(r.text)["user"] == "nojs@example.com"


async def test_the_login_form_escapes_what_it_echoes(browser_client: httpx.AsyncClient) -> None:
    hostile = '"><script>alert(1)</script>'
    r = await browser_client.post("/login", data={"usr": hostile, "pwd": "x"})
    assert r.status_code == 401
    assert "<script>alert(1)</script>" not in r.text
    assert "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in r.text


async def test_a_website_user_has_no_desk(browser_client: httpx.AsyncClient, ctx: Context) -> None:
    await desk_user(ctx, "web@example.com", [], user_type="Website User")
    await cookie_login(browser_client, "web@example.com")
    r = await browser_client.get("/app/test-customer")
    assert r.status_code == 403
    assert_page_headers(r)
    assert "no access to the Desk" in r.text and "fw-boot" not in r.text
    r = await browser_client.get("/login")  # may log in as someone else
    assert r.status_code == 200


async def test_a_bad_authorization_header_is_a_client_error(browser_client: httpx.AsyncClient) -> None:
    r = await browser_client.get("/app", headers={"Authorization": "token nonsense"})
    assert r.status_code == 400
