"""Passwords by mail over HTTP (business.md §2.2), the mail read from a real SMTP server: reset links
(the same answer whether the user exists, rate-limited, single-use, expiring), setting a password by
key or by the old one (other sessions end; weak passwords refused with zxcvbn's reason), the welcome
mail, and the Email Account password that no read returns."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from engine.constants import RESET_KEY
from engine.context import Context, unit_of_work
from engine.core import passwords
from engine.documents import store
from engine.documents.factory import get_doc
from engine.mail import account
from engine.site import Site
from server.app import create_app
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import ok, refused
from tests.support.smtp import SmtpSink, link_in, mails_to

RESET = "/api/method/fw.core.doctype.user.user.reset_password"
UPDATE = "/api/method/fw.core.doctype.user.user.update_password"
STRONG = "correct horse battery staple 1977"


@pytest.fixture
async def web(mail_site: Site) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the site whose public URL is its own (FW_SITE_URL; mail_site puts the settings back)."""
    mail_site.settings = mail_site.settings.model_copy(update={"site_url": "http://testserver"})
    app = create_app(mail_site.settings, site=mail_site)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
        yield c


async def test_links_in_mails_never_come_from_a_guests_host(mail_site: Site, smtp_server: SmtpSink,
                                                           admin: ApiUser) -> None:
    """Without FW_SITE_URL a guest's Host header does not make the reset link (it would carry the key
    to the guest's host): refused, naming the setting, the same for every name; from this machine, and
    for a logged-in user's request, the request's URL is the link's."""
    ctx = mail_site.context("Administrator")
    await make_user(ctx, "ann@example.com", ["System Manager"], password="old pass word 42!")
    transport = httpx.ASGITransport(app=create_app(mail_site.settings, site=mail_site))
    async with httpx.AsyncClient(transport=transport, base_url="http://evil.example") as attacker:
        known = refused(await attacker.post(RESET, json={"user": "ann@example.com"}), 417)
        unknown = refused(await attacker.post(RESET, json={"user": "nobody@example.com"}), 417)
    assert known == unknown and "FW_SITE_URL" in known["exception"]
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as local:
        ok(await local.post(RESET, json={"user": "ann@example.com"}))
    [mail] = await smtp_server.wait_for(1)
    assert mail.rcpt_tos == ["ann@example.com"]  # the refused asks sent nothing
    assert link_in(mail, "/update-password?key=").startswith("http://127.0.0.1:8000/update-password?key=")
    async with httpx.AsyncClient(transport=transport, base_url="http://erp.internal") as desk:
        ok(await desk.post("/api/resource/User", json={"email": "new@example.com", "first_name": "Nina"},
                           headers=admin.token))
    welcome = (await smtp_server.wait_for(2))[1]
    assert link_in(welcome, "/update-password?key=").startswith("http://erp.internal/update-password?key=")


async def login(web: httpx.AsyncClient, usr: str, pwd: str) -> httpx.Response:
    return await web.post("/api/method/login", json={"usr": usr, "pwd": pwd})


def key_of(url: str) -> str:
    return parse_qs(urlsplit(url).query)["key"][0]


async def test_reset_link_sets_a_new_password_once_and_ends_sessions(
        web: httpx.AsyncClient, mail_site: Site, smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    await make_user(ctx, "ann@example.com", ["System Manager"], password="old pass word 42!")
    other = httpx.AsyncClient(transport=web._transport, base_url="http://testserver")  # another browser
    ok(await login(other, "ann@example.com", "old pass word 42!"))
    ok(await other.get("/api/method/fw.auth.get_logged_user"))

    known = ok(await web.post(RESET, json={"user": "ann@example.com"}))
    unknown = ok(await web.post(RESET, json={"user": "nobody@example.com"}))
    assert known == unknown  # the same answer: nothing tells whether an account exists
    [mail] = await smtp_server.wait_for(1)
    assert mail.rcpt_tos == ["ann@example.com"] and mail.message["Subject"] == "Reset your password"
    url = link_in(mail, "/update-password?key=")
    assert url.startswith("http://testserver/update-password?key=")
    key = key_of(url)
    raw = await store.collection_of(mail_site, "User").find_one({"_id": "ann@example.com"})
    assert raw is not None and key not in str(raw)  # only its hash is stored

    page = await web.get(f"/update-password?key={key}")
    assert page.status_code == 200 and "New Password" in page.text and "Confirm Password" in page.text

    weak = refused(await web.post(UPDATE, json={"new_password": "password1", "key": key}), 417, "ValidationError")
    assert "too weak" in str(weak)
    answer = ok(await web.post(UPDATE, json={"new_password": STRONG, "key": key}))
    assert answer["message"] == "/login"
    refused(await login(web, "ann@example.com", "old pass word 42!"), 401)
    ok(await login(web, "ann@example.com", STRONG))
    await asyncio.sleep(0.1)
    assert (await other.get("/api/method/fw.auth.get_logged_user")).status_code in (401, 403)  # session ended
    again = refused(await httpx.AsyncClient(transport=web._transport, base_url="http://testserver").post(
        UPDATE, json={"new_password": "another strong pass 1999", "key": key}), 417)
    assert "invalid, used or expired" in str(again)
    await other.aclose()


async def test_expired_wrong_and_missing_keys_are_refused(web: httpx.AsyncClient, mail_site: Site,
                                                          smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    await make_user(ctx, "ann@example.com", ["System Manager"])
    ok(await web.post(RESET, json={"user": "ann@example.com"}))
    [mail] = await smtp_server.wait_for(1)
    key = key_of(link_in(mail, "/update-password?key="))
    await store.collection_of(mail_site, "User").update_one(
        {"_id": "ann@example.com"}, {"$set": {f"{RESET_KEY}.expires": time.time() - 1}})
    for sent in (key, "not-a-key"):
        body = refused(await web.post(UPDATE, json={"new_password": STRONG, "key": sent}), 417, "ValidationError")
        assert "invalid, used or expired" in str(body)
    refused(await web.post(UPDATE, json={"new_password": STRONG}), 417)
    refused(await web.post(UPDATE, json={"key": key}), 417)


async def test_reset_requests_are_rate_limited_alike_for_known_and_unknown_names(
        web: httpx.AsyncClient, mail_site: Site, smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    await make_user(ctx, "ann@example.com", ["System Manager"])
    for name in ("ann@example.com", "nobody@example.com"):
        for _ in range(3):
            ok(await web.post(RESET, json={"user": name}))
        body = refused(await web.post(RESET, json={"user": name}), 429, "TooManyRequestsError")
        assert "Too many password reset requests" in str(body)
    await smtp_server.wait_for(3)
    await asyncio.sleep(0.2)
    assert len(mails_to(smtp_server, "ann@example.com")) == 3


async def test_disabled_users_get_no_mail(web: httpx.AsyncClient, mail_site: Site, smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    await make_user(ctx, "ann@example.com", ["System Manager"])
    await store.collection_of(mail_site, "User").update_one({"_id": "ann@example.com"}, {"$set": {"enabled": 0}})
    ok(await web.post(RESET, json={"user": "ann@example.com"}))
    ok(await web.post(RESET, json={"user": "Administrator"}))
    await asyncio.sleep(0.5)
    assert smtp_server.mails == []


async def test_logged_in_change_needs_the_old_password_and_keeps_this_session(
        web: httpx.AsyncClient, mail_site: Site) -> None:
    ctx = mail_site.context("Administrator")
    await make_user(ctx, "ann@example.com", ["System Manager"], password="old pass word 42!")
    other = httpx.AsyncClient(transport=web._transport, base_url="http://testserver")
    ok(await login(other, "ann@example.com", "old pass word 42!"))
    ok(await login(web, "ann@example.com", "old pass word 42!"))
    refused(await web.post(UPDATE, json={"new_password": STRONG, "old_password": "wrong"}), 401)
    answer = ok(await web.post(UPDATE, json={"new_password": STRONG, "old_password": "old pass word 42!"}))
    assert answer["message"] == "/app"
    await asyncio.sleep(0.1)
    assert ok(await web.get("/api/method/fw.auth.get_logged_user"))["message"] == "ann@example.com"
    assert (await other.get("/api/method/fw.auth.get_logged_user")).status_code in (401, 403)
    await other.aclose()


async def test_minimum_password_score_comes_from_system_settings(web: httpx.AsyncClient, mail_site: Site,
                                                                 smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    await make_user(ctx, "ann@example.com", ["System Manager"])
    async with unit_of_work(ctx):
        doc = await get_doc(ctx, "System Settings")
        doc.minimum_password_score = "0"
        await doc.save()
    ok(await web.post(RESET, json={"user": "ann@example.com"}))
    [mail] = await smtp_server.wait_for(1)
    ok(await web.post(UPDATE, json={"new_password": "abc", "key": key_of(link_in(mail, "/update-password?key="))}))
    ok(await login(web, "ann@example.com", "abc"))


async def test_welcome_mail_for_a_new_user_sets_the_password(web: httpx.AsyncClient, mail_site: Site,
                                                             smtp_server: SmtpSink, admin: ApiUser) -> None:
    ok(await web.post("/api/resource/User", json={"email": "new@example.com", "first_name": "Nina"},
                      headers=admin.token))
    ok(await web.post("/api/resource/User", json={"email": "quiet@example.com", "first_name": "Q",
                                                  "send_welcome_email": 0}, headers=admin.token))
    [mail] = await smtp_server.wait_for(1)
    assert mail.rcpt_tos == ["new@example.com"] and "Nina" in mail.body()
    url = link_in(mail, "/update-password?key=")
    raw = await store.collection_of(mail_site, "User").find_one({"_id": "new@example.com"})
    assert raw is not None and raw[RESET_KEY]["expires"] > time.time() + 2 * 24 * 3600  # days, not minutes
    ok(await web.post(UPDATE, json={"new_password": STRONG, "key": key_of(url)}))
    ok(await login(web, "new@example.com", STRONG))
    await asyncio.sleep(0.3)
    assert mails_to(smtp_server, "quiet@example.com") == []


async def test_email_account_password_is_encrypted_and_never_returned(
        web: httpx.AsyncClient, mail_site: Site, smtp_server: SmtpSink, admin: ApiUser, ctx: Context) -> None:
    body = ok(await web.post("/api/resource/Email Account", json={
        "email_account_name": "Outgoing", "email_id": "ops@example.com", "enable_outgoing": 1,
        "default_outgoing": 1, "smtp_server": "127.0.0.1", "smtp_port": smtp_server.port,
        "password": "smtp-secret-9"}, headers=admin.token))
    assert "password" not in body["data"]
    raw = await store.collection_of(mail_site, "Email Account").find_one({"_id": "Outgoing"})
    assert raw is not None and passwords.is_encrypted(raw["password"]) and "smtp-secret-9" not in raw["password"]
    reads = [
        await web.get("/api/resource/Email Account/Outgoing", headers=admin.token),
        await web.get("/api/resource/Email Account", params={"fields": '["*"]'}, headers=admin.token),
        await web.get("/api/v2/document/Email Account/Outgoing", headers=admin.token),
        await web.post("/api/method/frappe.client.get_list", json={"doctype": "Email Account", "fields": ["*"]},
                       headers=admin.token),
        await web.post("/api/method/frappe.client.get", json={"doctype": "Email Account", "name": "Outgoing"},
                       headers=admin.token),
    ]
    for r in reads:
        assert r.status_code == 200, r.text
        assert "smtp-secret" not in r.text and "$fwenc$" not in r.text and '"password"' not in r.text, r.text
    for r in [await web.post("/api/method/frappe.client.get_value", json={
            "doctype": "Email Account", "filters": "Outgoing", "fieldname": "password"}, headers=admin.token),
            await web.get("/api/resource/Email Account", params={"fields": '["password"]'}, headers=admin.token)]:
        assert r.status_code >= 400 and "smtp-secret" not in r.text and "$fwenc$" not in r.text, r.text
    config = await account.outgoing(mail_site)
    assert config is not None and config.password == "smtp-secret-9" and config.sender == "ops@example.com"
    # a save that does not send the password keeps it
    ok(await web.put("/api/resource/Email Account/Outgoing", json={"smtp_port": smtp_server.port},
                     headers=admin.token))
    assert (await account.outgoing(mail_site)).password == "smtp-secret-9"  # type: ignore[union-attr]


async def test_pages_offer_the_flow(web: httpx.AsyncClient) -> None:
    login_page = await web.get("/login")
    assert 'href="/forgot-password"' in login_page.text and "Forgot password?" in login_page.text
    forgot = await web.get("/forgot-password")
    assert forgot.status_code == 200 and 'id="forgot-email"' in forgot.text and ">Send<" in forgot.text
    hostile = await web.get('/update-password?key="><script>alert(1)</script>')
    assert hostile.status_code == 200 and "<script>alert(1)" not in hostile.text
