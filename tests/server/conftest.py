"""In-process HTTP: httpx over ASGI against the test site, plus users with API keys."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest

from engine import auth
from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.site import Site
from server.app import create_app


@pytest.fixture
async def client(site: Site) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(site.settings, site=site)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


@dataclass
class ApiUser:
    email: str
    key: str
    secret: str

    @property
    def token(self) -> dict[str, str]:
        return {"Authorization": f"token {self.key}:{self.secret}"}

    @property
    def basic(self) -> dict[str, str]:
        raw = base64.b64encode(f"{self.key}:{self.secret}".encode()).decode()
        return {"Authorization": f"Basic {raw}"}


async def make_user(ctx: Context, email: str, roles: list[str], password: str = "pass-1234") -> ApiUser:
    async with unit_of_work(ctx):
        for role in roles:
            if not await ctx.db.collection("role").find_one({"_id": role}):
                await new_doc(ctx, "Role", role_name=role).insert()
        await new_doc(ctx, "User", email=email, first_name=email.split("@")[0], new_password=password,
                      roles=[{"role": r} for r in roles]).insert()
    keys = await auth.generate_keys_for(ctx.site, email)
    return ApiUser(email, keys["api_key"], keys["api_secret"])


@pytest.fixture
async def admin(ctx: Context) -> ApiUser:
    keys = await auth.generate_keys_for(ctx.site, "Administrator")
    return ApiUser("Administrator", keys["api_key"], keys["api_secret"])
