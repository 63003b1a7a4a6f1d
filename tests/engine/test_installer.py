"""Installing apps (contract §1 `fw install-app`, §4; interface spec "Versioning"): required apps
first, clear errors for a missing or cyclic requirement, a failing `after_install` rolls the app
back, installed apps are recorded, and `migrate` installs pending apps and re-imports fixtures."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine import exceptions as exc
from engine.apps.installed import App
from engine.apps.installer import install_app, install_pending, installed_apps
from engine.apps.registry import AppRegistry
from engine.context import Context, unit_of_work
from engine.documents.factory import get_doc
from engine.migrate import migrate
from engine.settings import Settings
from engine.site import Site
from tests.engine.temp_apps import forget_apps, reset_site, temp_registry, temp_site, unique, write_app

BASE, CHILD, FAIL, LOOP_A, LOOP_B = (unique(n) for n in ("ibase", "ichild", "ifail", "iloopa", "iloopb"))
NAMES = [BASE, CHILD, FAIL]

SETUP = '''from engine.context import Context
from engine.documents.factory import new_doc

CALLS: list[str] = []


async def ensure_role(ctx: Context, name: str) -> None:
    if not await ctx.db.collection("role").find_one({{"_id": name}}):
        await new_doc(ctx, "Role", role_name=name).insert()


async def before_install(ctx: Context) -> None:
    CALLS.append("{app}:before_install")


async def after_install(ctx: Context) -> None:
    CALLS.append("{app}:after_install")
    await ensure_role(ctx, "{app} marker")


async def failing_after_install(ctx: Context) -> None:
    CALLS.append("{app}:after_install")
    await ensure_role(ctx, "{app} side effect")
    raise RuntimeError("the remote service is down")


async def after_migrate(ctx: Context) -> None:
    CALLS.append("{app}:after_migrate")
    await ensure_role(ctx, "{app} migrated")
'''


def role_fixture(*names: str) -> str:
    return json.dumps([{"doctype": "Role", "name": n, "role_name": n, "description": "from the fixture"}
                       for n in names])


@pytest.fixture(scope="module")
def apps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppRegistry]:
    apps_dir = tmp_path_factory.mktemp("installer-apps")
    write_app(apps_dir, BASE, f'''
before_install = "{BASE}.setup.before_install"
after_install = "{BASE}.setup.after_install"
after_migrate = "{BASE}.setup.after_migrate"
fixtures = [{{"dt": "Role", "filters": [["name", "=", "{BASE} role"]]}}]
''', {"setup.py": SETUP.format(app=BASE), "fixtures/role.json": role_fixture(f"{BASE} role")})
    write_app(apps_dir, CHILD, f'''
required_apps = ["{BASE}"]
after_install = "{CHILD}.setup.after_install"
''', {"setup.py": SETUP.format(app=CHILD), "fixtures/role.json": role_fixture(f"{CHILD} role")})
    write_app(apps_dir, FAIL, f'''
required_apps = ["{BASE}"]
after_install = "{FAIL}.setup.failing_after_install"
''', {"setup.py": SETUP.format(app=FAIL), "fixtures/role.json": role_fixture(f"{FAIL} role")})
    try:
        yield temp_registry(apps_dir, NAMES)
    finally:
        forget_apps(apps_dir, NAMES)


@pytest.fixture(scope="module")
async def module_site(settings: Settings, apps: AppRegistry) -> AsyncIterator[Site]:
    async with temp_site(settings, apps, "fw_installer") as site:
        yield site


@pytest.fixture
async def site(module_site: Site) -> Site:
    """The module's site with nothing installed (nor any record an app made)."""
    await reset_site(module_site)
    for app in NAMES:
        calls(app).clear()
    return module_site


def calls(app: str) -> list[str]:
    import importlib

    return importlib.import_module(f"{app}.setup").CALLS  # type: ignore[no-any-return]


def with_apps(site: Site, names: list[str]) -> Site:
    """The same database with apps.txt holding only `names`."""
    by_name = {a.name: a for a in site.apps.apps}
    registry = dataclasses.replace(site.apps, apps=[by_name[n] for n in names])
    return Site(site.settings, site.db, registry)


async def roles(ctx: Context) -> set[str]:
    return set(await ctx.db.collection("role").distinct("_id"))


# -- install_app -----------------------------------------------------------------------------------

async def test_required_apps_are_installed_first(site: Site) -> None:
    done = await install_app(site, CHILD)
    assert done == [BASE, CHILD]
    assert await installed_apps(site) == [BASE, CHILD]
    assert calls(BASE) == [f"{BASE}:before_install", f"{BASE}:after_install"]
    assert calls(CHILD) == [f"{CHILD}:after_install"]
    ctx = site.context()
    assert {f"{BASE} role", f"{CHILD} role", f"{BASE} marker", f"{CHILD} marker"} <= await roles(ctx)
    assert (await get_doc(ctx, "Role", f"{BASE} role")).description == "from the fixture"


async def test_installing_again_does_nothing(site: Site) -> None:
    await install_app(site, BASE)
    assert await install_app(site, BASE) == []
    assert await install_app(site, CHILD) == [CHILD]  # the base is not installed twice
    assert calls(BASE).count(f"{BASE}:after_install") == 1


async def test_failing_after_install_leaves_the_app_uninstalled(site: Site) -> None:
    with pytest.raises(exc.ConfigurationError) as err:
        await install_app(site, FAIL)
    message = err.value.message
    assert f"after_install of {FAIL!r} failed" in message
    assert "RuntimeError: the remote service is down" in message
    assert calls(FAIL) == [f"{FAIL}:after_install"]  # it did run
    assert await installed_apps(site) == [BASE]  # the requirement stays installed (its own unit of work)
    present = await roles(site.context())
    assert f"{FAIL} role" not in present  # the fixture write was rolled back
    assert f"{FAIL} side effect" not in present  # and so was the hook's own write
    assert f"{BASE} role" in present


async def test_missing_requirement_is_named(site: Site) -> None:
    without_base = with_apps(site, [CHILD])
    with pytest.raises(exc.ConfigurationError) as err:
        await install_app(without_base, CHILD)
    assert f"{CHILD!r} requires {BASE!r}" in err.value.message
    assert "apps.txt" in err.value.message
    assert await installed_apps(site) == []
    with pytest.raises(exc.ConfigurationError, match=r"not in apps\.txt"):
        await install_app(site, "no_such_app")


async def test_missing_requirement_stops_the_registry(tmp_path: Path) -> None:
    name = unique("iorphan")
    write_app(tmp_path, name, 'required_apps = ["nothere_app"]\n')
    try:
        with pytest.raises(exc.ConfigurationError) as err:
            temp_registry(tmp_path, [name])
        assert f"{name!r} requires 'nothere_app'" in err.value.message
    finally:
        forget_apps(tmp_path, [name])


async def test_cyclic_required_apps_are_refused(site: Site, tmp_path: Path) -> None:
    write_app(tmp_path, LOOP_A, f'required_apps = ["{LOOP_B}"]\n')
    write_app(tmp_path, LOOP_B, f'required_apps = ["{LOOP_A}"]\n')
    try:
        with pytest.raises(exc.ConfigurationError, match="Cyclic required_apps") as err:
            temp_registry(tmp_path, [LOOP_A, LOOP_B])
        assert LOOP_A in err.value.message and LOOP_B in err.value.message
    finally:
        forget_apps(tmp_path, [LOOP_A, LOOP_B])

    # and the installer checks too (its registry might have been put together by hand)
    loop = [App(LOOP_A, tmp_path / LOOP_A, SimpleNamespace(required_apps=[LOOP_B])),  # type: ignore[arg-type]
            App(LOOP_B, tmp_path / LOOP_B, SimpleNamespace(required_apps=[LOOP_A]))]  # type: ignore[arg-type]
    looped = Site(site.settings, site.db, dataclasses.replace(site.apps, apps=loop))
    with pytest.raises(exc.ConfigurationError) as err:
        await install_app(looped, LOOP_A)
    assert err.value.message == f"Cyclic required_apps: {LOOP_A} -> {LOOP_B} -> {LOOP_A}"
    assert await installed_apps(site) == []


async def test_install_pending_installs_every_app_of_apps_txt(site: Site) -> None:
    sited = with_apps(site, [BASE, CHILD])
    assert await install_pending(sited) == [BASE, CHILD]
    assert await install_pending(sited) == []


# -- migrate --------------------------------------------------------------------------------------

async def test_migrate_installs_pending_apps_then_reimports_fixtures(site: Site) -> None:
    sited = with_apps(site, [BASE, CHILD])
    ctx = sited.context()
    first = await migrate(sited)
    assert first.apps_installed == [BASE, CHILD]
    assert await installed_apps(sited) == [BASE, CHILD]
    assert first.fixtures_created == [] and first.fixtures_updated == []  # install imported them already
    assert {f"{BASE} role", f"{CHILD} role"} <= await roles(ctx)

    # edits on the site are overwritten by the fixtures at the next migrate; deleted ones come back
    async with unit_of_work(ctx):
        role = await get_doc(ctx, "Role", f"{BASE} role")
        role.description = "edited on the site"
        await role.save()
        await (await get_doc(ctx, "Role", f"{CHILD} role")).delete()
    second = await migrate(sited)
    assert second.apps_installed == []
    assert second.fixtures_updated == [f"Role {BASE} role"]
    assert second.fixtures_created == [f"Role {CHILD} role"]
    assert (await get_doc(ctx, "Role", f"{BASE} role")).description == "from the fixture"
    assert calls(BASE).count(f"{BASE}:after_install") == 1  # installing is not repeated

    third = await migrate(sited)
    assert third.fixtures_created == [] and third.fixtures_updated == []


async def test_migrate_installs_an_app_added_to_apps_txt_later(site: Site) -> None:
    await migrate(with_apps(site, [BASE]))
    assert await installed_apps(site) == [BASE]
    report = await migrate(with_apps(site, [BASE, CHILD]))
    assert report.apps_installed == [CHILD]
    assert await installed_apps(site) == [BASE, CHILD]


async def test_migrate_without_install_leaves_pending_apps(site: Site) -> None:
    report = await migrate(with_apps(site, [BASE]), install=False)
    assert report.apps_installed == []
    assert await installed_apps(site) == []
    assert f"{BASE} role" not in await roles(site.context())  # not installed: its fixtures wait too


async def test_after_migrate_runs_every_time_and_is_idempotent(site: Site) -> None:
    sited = with_apps(site, [BASE])
    first = await migrate(sited)
    second = await migrate(sited)
    hook = f"{BASE}: after_migrate"
    assert hook in first.hooks_run and hook in second.hooks_run
    assert calls(BASE).count(f"{BASE}:after_migrate") == 2
    ctx = sited.context()
    assert await ctx.db.collection("role").count_documents({"_id": f"{BASE} migrated"}) == 1


async def test_failing_migrate_install_names_the_app(site: Site) -> None:
    with pytest.raises(exc.ConfigurationError, match=FAIL):
        await migrate(with_apps(site, [BASE, FAIL]))
    assert await installed_apps(site) == [BASE]
