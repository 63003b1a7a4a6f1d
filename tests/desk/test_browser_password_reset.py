"""Forgot password, end to end in Chromium (business.md §2.2): "Forgot password?" on the login page,
the email typed and sent, the mail read from a real SMTP server (aiosmtpd), its link opened, a new
password set, and a login with it. A `fw serve` of its own sends to that server (FW_SMTP_URL)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from engine.mongod import embedded
from tests.desk.browser import _fw
from tests.e2e.conftest import ADMIN_PASSWORD, FwServer, FwServerFactory
from tests.support.smtp import SmtpSink, link_in

USER = "mira@example.com"
NEW_PASSWORD = "violet tram 1984 harbour"


@pytest.fixture(scope="module")
def mail_server(mongod: embedded.EmbeddedMongo, tmp_path_factory: pytest.TempPathFactory,
                ) -> Iterator[tuple[FwServer, SmtpSink]]:
    sink = SmtpSink()
    sink.start()
    factory = FwServerFactory(mongod.url, f"fw_mail_{secrets.token_hex(4)}", tmp_path_factory.mktemp("mail"))
    env = {"FW_SMTP_URL": sink.url, "FW_MAIL_SENDER": "fw <fw@example.com>"}
    try:
        _fw(factory, env, "migrate")
        server = factory.start(env=env)
        with httpx.Client(base_url=server.url) as admin:
            r = admin.post("/api/method/login", json={"usr": "Administrator", "pwd": ADMIN_PASSWORD})
            assert r.status_code == 200, r.text
            r = admin.post("/api/resource/User", json={
                "email": USER, "first_name": "Mira", "new_password": "first pass 2024 door",
                "roles": [{"role": "System Manager"}]}, headers={"X-Frappe-CSRF-Token": "none"})
            assert r.status_code == 200, r.text
        yield server, sink
    finally:
        try:
            factory.stop_all()
        finally:
            factory.drop_database()
            sink.stop()


@pytest.fixture
def page(chromium: Browser, mail_server: tuple[FwServer, SmtpSink]) -> Iterator[Page]:
    context = chromium.new_context(base_url=mail_server[0].url, locale="en-US")
    context.set_default_timeout(10_000)
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"uncaught JavaScript errors: {errors}"


def test_forgot_password_end_to_end(page: Page, mail_server: tuple[FwServer, SmtpSink]) -> None:
    _server, sink = mail_server
    sink.clear()
    page.goto("/login")
    page.get_by_role("link", name="Forgot password?").click()
    page.wait_for_url("**/forgot-password")
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("alert")).to_have_text("Enter the email address of your account")
    page.get_by_label("Email").fill(USER)
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("alert")).to_contain_text("a link to set a new password is on its way")
    [mail] = sink.wait_for_sync(1)
    assert mail.rcpt_tos == [USER]
    url = link_in(mail, "/update-password?key=")

    page.goto(url)
    page.get_by_label("New Password", exact=True).fill("password")
    page.get_by_label("Confirm Password", exact=True).fill("password")
    page.get_by_role("button", name="Update").click()
    expect(page.get_by_role("alert")).to_contain_text("too weak")  # zxcvbn's reason, from the server
    page.get_by_label("New Password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("Confirm Password", exact=True).fill(NEW_PASSWORD + "x")
    page.get_by_role("button", name="Update").click()
    expect(page.get_by_role("alert")).to_have_text("The two passwords differ")
    page.get_by_label("Confirm Password", exact=True).fill(NEW_PASSWORD)
    page.get_by_role("button", name="Update").click()
    page.wait_for_url("**/login")

    page.get_by_label("Email").fill(USER)
    page.get_by_label("Password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Login").click()
    page.wait_for_url("**/app")
    expect(page.get_by_role("button", name="Mira")).to_be_visible()  # the user menu

    page.context.clear_cookies()  # the link worked once
    page.goto(url)
    page.get_by_label("New Password", exact=True).fill("another harbour tram 1999")
    page.get_by_label("Confirm Password", exact=True).fill("another harbour tram 1999")
    page.get_by_role("button", name="Update").click()
    expect(page.get_by_role("alert")).to_contain_text("invalid, used or expired")
