"""Fixtures of the Desk's tests.

In-process HTTP (httpx over ASGI, the test site): `browser_client` keeps cookies like a browser;
`desk_user(...)` makes a user with a password. The reference apps' fixtures (`ws`, `org`,
`people`) come from tests/apps/conftest.py.

In the browser (tests/desk/test_browser_*.py; see tests/desk/browser.py): one real `fw serve` for
the whole session on its own database of the session's mongod, with the reference apps and their
demo data loaded once (`desk_server`); one Chromium (Debian's, through Playwright's sync API) per
test module (`chromium`; such a module holds sync tests only); a fresh browser context per test
(`context`, `page`), logged in as the test asks (`login_as`); a screenshot of every failing test in
test-output/desk/.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from engine.context import Context
from engine.site import Site
from server.app import create_app
from tests.apps.conftest import ApiUser, org, people, ws  # noqa: F401 - fixtures of the Desk tests
from tests.desk.browser import (  # noqa: F401 - the browser fixtures
    DeskServer,
    chromium,
    context,
    desk_server,
    login_as,
    page,
    pytest_runtest_makereport,
)
from tests.server.conftest import admin, client, make_user  # noqa: F401

PASSWORD = "desk-pass-1"


@pytest.fixture
async def browser_client(site: Site) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client that keeps cookies (a browser without JavaScript)."""
    app = create_app(site.settings, site=site)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


async def desk_user(ctx: Context, email: str, roles: list[str], **values: object) -> ApiUser:
    """A System User with `roles` and the password PASSWORD (plus API keys)."""
    user = await make_user(ctx, email, roles, password=PASSWORD)
    if values:
        from engine.context import unit_of_work
        from engine.documents.factory import get_doc

        async with unit_of_work(ctx):
            doc = await get_doc(ctx, "User", email)
            doc.update(values)
            await doc.save()
        ctx.site.forget_roles(email)
    return user


async def cookie_login(c: httpx.AsyncClient, usr: str, pwd: str = PASSWORD) -> None:
    r = await c.post("/api/method/login", json={"usr": usr, "pwd": pwd})
    assert r.status_code == 200, r.text


__all__ = ["PASSWORD", "DeskServer", "cookie_login", "desk_user"]
