"""Fixtures of the reference application's tests (apps/hr, apps/workforce_scoring).

The session's site loads `fwtest`, `hr` and `workforce_scoring` in one app registry
(tests/fixtures/site/apps.txt). The `site` fixture empties the database before each test, so
`ws` installs what the apps ship again: their fixtures (roles, the custom field, the workflow and
its states) and the defaults of `after_install`. `org` adds master data, `people` users with the
roles of contract §5, each with an API key.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from workforce_scoring.install import ensure_defaults

from engine import auth
from engine.apps.fixtures import import_app_fixtures
from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.site import Site
from tests.server.conftest import ApiUser, admin, client  # noqa: F401 - fixtures used by the app tests


def app_of(site: Site, name: str) -> Any:
    return next(app for app in site.apps.apps if app.name == name)


@pytest.fixture
async def ws(site: Site) -> AsyncIterator[Site]:
    """The site with hr and workforce_scoring installed (fixtures and after_install defaults).

    Background jobs the app enqueued (in-process in tests) finish before the next test empties
    the database, so none writes into another test's data."""
    for name in ("hr", "workforce_scoring"):
        await import_app_fixtures(site, app_of(site, name))
    ctx = site.context("Administrator")
    async with unit_of_work(ctx):
        await ensure_defaults(ctx)
    yield site
    await drain_jobs(site)


@dataclass
class Org:
    """Master data: two companies, three branches, employees by code, violation types."""

    companies: list[str]
    branches: dict[str, str]  # branch → company
    employees: dict[str, str] = field(default_factory=dict)  # employee_number → Employee name
    names: dict[str, str] = field(default_factory=dict)  # employee_number → employee_name

    def emp(self, code: str) -> str:
        return self.employees[code]


async def make_employee(ctx: Context, org: Org, code: str, name: str, company: str, branch: str | None,
                        user: str | None = None, status: str = "Active") -> str:
    doc = await new_doc(ctx, "Employee", employee_name=name, employee_number=code, company=company, branch=branch,
                        user_id=user, status=status, date_of_joining="2020-01-15").insert()
    org.employees[code] = doc.name
    org.names[code] = name
    return doc.name


@pytest.fixture
async def org(ws: Site) -> Org:
    ctx = ws.context("Administrator")
    result = Org(["Acme Logistics", "Borealis Freight"],
                 {"North Hub": "Acme Logistics", "South Hub": "Acme Logistics", "East Depot": "Borealis Freight"})
    async with unit_of_work(ctx):
        for company in result.companies:
            await new_doc(ctx, "Company", company_name=company).insert()
        for branch, company in result.branches.items():
            await new_doc(ctx, "Branch", branch=branch, company=company).insert()
        await make_employee(ctx, result, "E-1001", "Ada Lovelace", "Acme Logistics", "North Hub")
        await make_employee(ctx, result, "E-1002", "Grace Hopper", "Acme Logistics", "South Hub")
        await make_employee(ctx, result, "E-2001", "Alan Turing", "Borealis Freight", "East Depot")
        await make_employee(ctx, result, "E-2002", "Edsger Dijkstra", "Borealis Freight", "East Depot",
                            status="Left")
        for vtype, points in (("Blocked Aisle", 5), ("Missing Safety Gear", 8), ("Late Scan", None)):
            await new_doc(ctx, "Warehouse Violation Type", violation_type=vtype, penalty_points=points).insert()
    return result


async def api_user(ctx: Context, email: str, roles: list[str], *, language: str | None = None) -> ApiUser:
    """A user with `roles` and an API key (no password: hashing one is slow and not needed)."""
    async with unit_of_work(ctx):
        await new_doc(ctx, "User", email=email, first_name=email.split("@")[0], language=language,
                      roles=[{"role": r} for r in roles]).insert()
    keys = await auth.generate_keys_for(ctx.site, email)
    return ApiUser(email, keys["api_key"], keys["api_secret"])


@dataclass
class People:
    """Users of the roles of contract §5 (employee users linked to E-1001 and E-1002)."""

    sysman: ApiUser
    hr: ApiUser
    manager: ApiUser
    warehouse: ApiUser
    ada: ApiUser  # Employee, linked to E-1001
    grace: ApiUser  # Employee, linked to E-1002
    stranger: ApiUser  # Employee role, linked to no Employee


@pytest.fixture
async def people(org: Org, ws: Site) -> People:
    ctx = ws.context("Administrator")
    result = People(
        sysman=await api_user(ctx, "sysman@example.com", ["System Manager"]),
        hr=await api_user(ctx, "hr@example.com", ["HR Reviewer"]),
        manager=await api_user(ctx, "manager@example.com", ["Department Manager"]),
        warehouse=await api_user(ctx, "warehouse@example.com", ["Warehouse Manager"]),
        ada=await api_user(ctx, "ada@example.com", ["Employee"]),
        grace=await api_user(ctx, "grace@example.com", ["Employee"]),
        stranger=await api_user(ctx, "stranger@example.com", ["Employee"]),
    )
    await link_user(ctx, org.emp("E-1001"), result.ada.email)
    await link_user(ctx, org.emp("E-1002"), result.grace.email)
    return result


async def link_user(ctx: Context, employee: str, user: str) -> None:
    from engine.documents.factory import get_doc

    async with unit_of_work(ctx):
        doc = await get_doc(ctx, "Employee", employee)
        doc.user_id = user
        await doc.save()


async def call(http: httpx.AsyncClient, user: ApiUser | None, method: str, **kwargs: Any) -> httpx.Response:
    """POST /api/method/<method> with a JSON body, as `user` (None: as Guest)."""
    headers = user.token if user is not None else {}
    return await http.post(f"/api/method/{method}", json=kwargs, headers=headers)


async def drain_jobs(site: Site) -> None:
    """Wait for the in-process background jobs (no FW_REDIS_URL in tests) to finish."""
    from engine.jobs.queue import backend_for

    backend = backend_for(site)
    drain = getattr(backend, "drain", None)
    if drain is not None:
        await drain()
