"""Uninstalling an app (engine/apps/uninstaller.py): `plan` finds the app's doctypes with their record
counts, the Custom Fields and Property Setters on them, its Scheduled Job Types and the records of
its fixture files, changing nothing; `uninstall` removes exactly those and forgets the app."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from engine import exceptions as exc
from engine.apps import uninstaller
from engine.apps.installer import install_app, installed_apps
from engine.apps.registry import AppRegistry
from engine.documents import store
from engine.jobs.scheduler import sync_job_types
from engine.settings import Settings
from engine.site import Site
from tests.engine.temp_apps import doctype_json, forget_apps, temp_registry, temp_site, unique, write_app

APP, OTHER = unique("unapp"), unique("keepapp")
THING = "Unapp Thing"


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppRegistry]:
    apps_dir = tmp_path_factory.mktemp("uninstall-apps")
    write_app(apps_dir, APP, f'scheduler_events = {{"daily": ["{APP}.tasks.daily"]}}\n', {
        "tasks.py": "def daily():\n    pass\n",
        "doctype/unapp_thing/unapp_thing.json": doctype_json(
            THING, [{"fieldname": "title", "fieldtype": "Data", "label": "Title"}]),
        "fixtures/role.json": '[{"doctype": "Role", "name": "Unapp Role", "role_name": "Unapp Role"}]',
    })
    write_app(apps_dir, OTHER, f'scheduler_events = {{"daily": ["{OTHER}.tasks.daily"]}}\n',
              {"tasks.py": "def daily():\n    pass\n"})
    try:
        yield temp_registry(apps_dir, [APP, OTHER])
    finally:
        forget_apps(apps_dir, [APP, OTHER])


@pytest.fixture
async def site(settings: Settings, registry: AppRegistry) -> AsyncIterator[Site]:
    async with temp_site(settings, registry, "fw_uninstall") as site:
        await install_app(site, APP)
        await install_app(site, OTHER)
        await sync_job_types(site)
        yield site


async def test_plan_lists_what_goes_and_uninstall_removes_only_that(site: Site) -> None:
    things = store.collection_of(site, THING)
    await things.insert_many([{"_id": "a", "title": "A"}, {"_id": "b", "title": "B"}])
    fields = store.collection_of(site, "Custom Field")
    await fields.insert_many([{"_id": f"{THING}-extra", "dt": THING, "fieldname": "extra"},
                              {"_id": "User-nickname", "dt": "User", "fieldname": "nickname"}])
    await store.collection_of(site, "Property Setter").insert_one(
        {"_id": f"{THING}-title-bold", "doc_type": THING, "field_name": "title", "property": "bold"})
    assert await store.collection_of(site, "Role").find_one({"_id": "Unapp Role"}) is not None

    plan = await uninstaller.plan(site, APP)
    assert plan.doctypes == {THING: 2}
    assert plan.records["Custom Field"] == [f"{THING}-extra"]
    assert plan.records["Property Setter"] == [f"{THING}-title-bold"]
    assert plan.records["Role"] == ["Unapp Role"]
    assert plan.records["Scheduled Job Type"] == [f"{APP}.tasks.daily"]
    assert f"{THING}: the doctype and its 2 records" in plan.lines()
    assert await things.count_documents({}) == 2  # a plan changes nothing

    await uninstaller.uninstall(site, plan)
    assert site.meta.get(THING).collection not in await site.db.handle.list_collection_names()
    assert await fields.distinct("_id") == ["User-nickname"]
    assert await store.collection_of(site, "Property Setter").count_documents({}) == 0
    assert await store.collection_of(site, "Role").find_one({"_id": "Unapp Role"}) is None
    job_types = await store.collection_of(site, "Scheduled Job Type").distinct("_id")
    assert f"{OTHER}.tasks.daily" in job_types and f"{APP}.tasks.daily" not in job_types
    assert await store.collection_of(site, "DocType").find_one({"_id": THING}) is None
    assert await installed_apps(site) == [OTHER]
    with pytest.raises(exc.ConfigurationError, match="is not installed"):
        await uninstaller.plan(site, APP)


async def test_an_app_not_in_apps_txt_is_refused(site: Site) -> None:
    with pytest.raises(exc.ConfigurationError, match=r"is not in apps\.txt"):
        await uninstaller.plan(site, "nosuchapp")
