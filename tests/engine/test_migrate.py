"""`migrate` against a fresh MongoDB database: collections, declared indexes, DocType records,
idempotence, bootstrap; and Custom Fields merged into meta at runtime."""

from __future__ import annotations

import json
import shutil
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from engine import db
from engine import exceptions as exc
from engine.apps import loader
from engine.apps.registry import AppRegistry
from engine.constants import CORE_ROLES, PASSWORD_KEY
from engine.context import Context
from engine.core import bootstrap
from engine.core.passwords import verify_password
from engine.documents.document import Document
from engine.documents.factory import get_doc, new_doc
from engine.meta.record import doctype_record, record_hash
from engine.meta.registry import STATE_COLLECTION
from engine.migrate import MigrateReport, desired_indexes, migrate, migrate_lock, sync_schema
from engine.query.listing import count, get_list
from engine.settings import Settings
from engine.site import Site
from tests.engine.temp_apps import temp_registry, temp_site
from tests.support.custom_fields import drop_custom_fields


@pytest.fixture(scope="module")
async def migrated(settings: Settings, registry: AppRegistry) -> AsyncIterator[tuple[Site, MigrateReport]]:
    """One fresh database migrated once, shared by the tests that do not change its indexes."""
    database = db.connect(settings.mongo_url or "", f"fw_migrate_{uuid.uuid4().hex[:12]}")
    site = Site(settings, database, registry)
    report = await migrate(site)
    yield site, report
    await database.drop()
    await database.close()


async def index_info(site: Site, collection: str) -> dict[str, dict[str, Any]]:
    return {ix["name"]: ix for ix in await db.list_indexes(site.db.collection(collection))}


# -- collections and indexes -------------------------------------------------------------------------


async def test_migrate_creates_collections_and_declared_indexes(migrated: tuple[Site, MigrateReport],
                                                                registry: AppRegistry) -> None:
    fresh_site, report = migrated
    assert not report.skipped
    collections = set(await fresh_site.db.handle.list_collection_names())
    for name, schema in registry.doctypes.items():
        meta = fresh_site.meta.get(name)
        if schema.istable:
            assert meta.collection not in collections, name  # child rows are embedded
        else:
            assert meta.collection in collections, name
            assert meta.collection in report.collections_created
    assert "test_order_item" not in report.collections_created

    note = await index_info(fresh_site, "test_note")
    assert note["fw_unique_code"]["key"] == {"code": 1}
    assert note["fw_unique_code"]["unique"]
    assert note["fw_unique_code"]["partialFilterExpression"] == {"code": {"$exists": True}}

    reading = await index_info(fresh_site, "test_reading")
    compound = reading["fw_uniq_sensor_date"]
    assert list(compound["key"].items()) == [("sensor", 1), ("date", 1)]
    assert compound["unique"]
    assert compound["partialFilterExpression"] == {"source": {"$eq": "external"}}

    category = await index_info(fresh_site, "test_category")
    assert category["fw_tree_ancestors"]["key"] == {"_ancestors": 1}
    assert category["fw_tree_parent_test_category"]["key"] == {"parent_test_category": 1}
    assert category["fw_unique_category_name"]["unique"]

    customer = await index_info(fresh_site, "test_customer")
    assert list(customer["fw_sort_customer_name"]["key"].items()) == [("customer_name", 1), ("_id", 1)]
    assert "test_reading.fw_uniq_sensor_date" in report.indexes_created
    assert "Migrate" not in report.summary() and "collections created" in report.summary()


async def test_every_declared_index_exists(migrated: tuple[Site, MigrateReport]) -> None:
    fresh_site, _ = migrated
    for name in fresh_site.meta.names():
        meta = fresh_site.meta.get(name)
        if meta.istable:
            continue
        present = await index_info(fresh_site, meta.collection)
        assert set(desired_indexes(meta)) <= set(present), name
        assert {n for n in present if n.startswith("fw_")} == set(desired_indexes(meta)), name


async def test_partial_unique_indexes_behave(migrated: tuple[Site, MigrateReport]) -> None:
    fresh_site, _ = migrated
    ctx = fresh_site.context("Administrator")
    for i in range(3):  # many notes without a code
        await new_doc(ctx, "Test Note", title=f"n{i}").insert()
    await new_doc(ctx, "Test Note", title="coded", code="C1").insert()
    with pytest.raises(exc.UniqueValidationError) as err:
        await new_doc(ctx, "Test Note", title="again", code="C1").insert()
    assert err.value.field == "code"
    assert await count(ctx, "Test Note") == 4

    for _ in range(2):  # non-external readings may repeat
        await new_doc(ctx, "Test Reading", sensor="S1", date="2026-01-01", source="manual").insert()
        await new_doc(ctx, "Test Reading", sensor="S1", date="2026-01-01").insert()
    await new_doc(ctx, "Test Reading", sensor="S1", date="2026-01-01", source="external").insert()
    await new_doc(ctx, "Test Reading", sensor="S1", date="2026-01-02", source="external").insert()
    await new_doc(ctx, "Test Reading", sensor="S2", date="2026-01-01", source="external").insert()
    with pytest.raises(exc.UniqueValidationError, match="must be unique together") as err:
        await new_doc(ctx, "Test Reading", sensor="S1", date="2026-01-01", source="external").insert()
    assert (err.value.field, err.value.fields) == ("date", ("sensor", "date"))  # the last, and all
    assert await count(ctx, "Test Reading") == 7
    assert await count(ctx, "Test Reading", {"source": "external"}) == 3


# -- idempotence -------------------------------------------------------------------------------------


async def test_second_migrate_changes_nothing_and_is_fast(migrated: tuple[Site, MigrateReport]) -> None:
    fresh_site, _ = migrated
    started = time.perf_counter()
    report = await migrate(fresh_site)
    elapsed = time.perf_counter() - started
    assert report.skipped
    assert not report.changed
    assert report.summary() == "Nothing changed (definitions unchanged since the last migrate)."
    assert elapsed < 1.0

    # forced: everything is compared, nothing is rewritten
    forced = await sync_schema(fresh_site, force=True)
    assert not forced.skipped
    assert (forced.collections_created, forced.indexes_created, forced.indexes_dropped,
            forced.doctypes_synced) == ([], [], [], [])
    assert forced.summary() == "Nothing changed."


async def test_force_migrate_recreates_a_missing_index_and_drops_a_stale_one(fresh_site: Site) -> None:
    await migrate(fresh_site)
    coll = fresh_site.db.collection("test_reading")
    await coll.drop_index("fw_uniq_sensor_date")
    await coll.create_index([("value", 1)], name="fw_stale")
    await coll.create_index([("source", 1)], name="app_owned")  # not fw's: left alone

    assert (await sync_schema(fresh_site)).skipped  # definitions unchanged: not even looked at
    report = await sync_schema(fresh_site, force=True)
    assert report.indexes_created == ["test_reading.fw_uniq_sensor_date"]
    assert report.indexes_dropped == ["test_reading.fw_stale"]
    assert "1 indexes created" in report.summary() and "1 indexes dropped" in report.summary()
    present = await index_info(fresh_site, "test_reading")
    assert "fw_stale" not in present
    assert "app_owned" in present
    assert present["fw_uniq_sensor_date"]["partialFilterExpression"] == {"source": {"$eq": "external"}}


async def test_force_migrate_replaces_an_index_whose_definition_differs(fresh_site: Site) -> None:
    await migrate(fresh_site)
    coll = fresh_site.db.collection("test_note")
    await coll.drop_index("fw_unique_code")
    await coll.create_index([("code", 1)], name="fw_unique_code")  # not unique any more
    report = await sync_schema(fresh_site, force=True)
    assert report.indexes_dropped == ["test_note.fw_unique_code"]
    assert report.indexes_created == ["test_note.fw_unique_code"]
    assert (await index_info(fresh_site, "test_note"))["fw_unique_code"]["unique"]


async def test_a_missing_collection_is_created_by_force_migrate(fresh_site: Site) -> None:
    await migrate(fresh_site)
    await fresh_site.db.handle.drop_collection("test_counter")
    report = await sync_schema(fresh_site, force=True)
    assert report.collections_created == ["test_counter"]
    assert "test_counter" in await fresh_site.db.handle.list_collection_names()


async def test_migrate_cannot_create_a_unique_index_over_duplicates(fresh_site: Site) -> None:
    await migrate(fresh_site)
    coll = fresh_site.db.collection("test_note")
    await coll.drop_index("fw_unique_code")
    await coll.insert_many([{"_id": "a", "title": "a", "code": "X"}, {"_id": "b", "title": "b", "code": "X"}])
    with pytest.raises(exc.UniqueValidationError):
        await sync_schema(fresh_site, force=True)


# -- DocType records ---------------------------------------------------------------------------------


async def test_doctype_records_are_written_once(migrated: tuple[Site, MigrateReport],
                                                registry: AppRegistry) -> None:
    fresh_site, report = migrated
    coll = fresh_site.db.collection("doctype")
    records = {r["_id"]: r for r in await coll.find({}).to_list(None)}
    assert set(records) == set(registry.doctypes)
    assert sorted(report.doctypes_synced) == sorted(registry.doctypes)
    note = records["Test Note"]
    assert "definition" not in note  # one source of truth: the record itself is in Frappe's shape
    assert [f["fieldname"] for f in note["fields"]][:2] == ["title", "body"]
    assert note["module"] == "FW Test"
    assert records["Test Order"]["is_submittable"] == 1
    assert records["Test Order Item"]["istable"] == 1
    assert records["Test Category"]["is_tree"] == 1

    forced = await sync_schema(fresh_site, force=True)
    assert forced.doctypes_synced == []
    again = {r["_id"]: r for r in await coll.find({}).to_list(None)}
    assert {k: v["modified"] for k, v in again.items()} == {k: v["modified"] for k, v in records.items()}

    # a record that no longer matches its definition is rewritten (and only that one)
    await coll.update_one({"_id": "Test Note"}, {"$set": {"json_hash": "stale"}})
    forced = await sync_schema(fresh_site, force=True)
    assert forced.doctypes_synced == ["Test Note"]
    # a record of a doctype that no longer exists is removed
    await coll.insert_one({"_id": "Gone Doctype", "json_hash": "x", "custom": 0})
    await sync_schema(fresh_site, force=True)
    assert await coll.find_one({"_id": "Gone Doctype"}) is None


async def test_doctype_record_has_frappes_shape(migrated: tuple[Site, MigrateReport]) -> None:
    fresh_site, _ = migrated
    record = await fresh_site.db.collection("doctype").find_one({"_id": "Test Order"})
    assert record is not None
    assert record["is_submittable"] == 1 and record["sort_order"] in ("ASC", "DESC")
    rows = {row["fieldname"]: row for row in record["fields"]}
    items = rows["items"]
    assert items["fieldtype"] == "Table" and items["options"] == "Test Order Item"
    assert (items["parent"], items["parentfield"], items["parenttype"]) == ("Test Order", "fields", "DocType")
    assert [row["idx"] for row in record["fields"]] == list(range(1, len(record["fields"]) + 1))
    assert len({row["name"] for row in record["fields"]}) == len(record["fields"])
    assert rows["amended_from"]["read_only"] == 1 and rows["amended_from"]["is_custom_field"] == 0  # implicit
    assert all(row["reqd"] in (0, 1) and isinstance(row["permlevel"], int) for row in record["fields"])
    perms = record["permissions"]
    assert perms and perms[0]["parentfield"] == "permissions" and perms[0]["parenttype"] == "DocType"
    assert {perms[0]["read"], perms[0]["import"]} <= {0, 1}
    assert "doctype" not in items  # stored as the engine stores child rows

    # read back through the engine it is exactly what the builder makes: every stored key is declared
    ctx = fresh_site.context("Administrator")
    doc = (await get_doc(ctx, "DocType", "Test Order")).as_dict(no_nulls=True)
    for key in ("owner", "creation", "modified", "modified_by", "json_hash"):
        assert doc.pop(key)
    assert doc == doctype_record(fresh_site.meta.get("Test Order"))
    assert doc["fields"][0]["doctype"] == "DocField" and doc["permissions"][0]["doctype"] == "DocPerm"

    # row names are stable: a rebuild (a new Meta) names every row the same
    await fresh_site.meta.reload()
    again = doctype_record(fresh_site.meta.get("Test Order"))
    assert [r["name"] for r in again["fields"]] == [r["name"] for r in record["fields"]]


async def test_fixture_custom_field_is_in_the_doctype_record_after_migrate(
        migrated: tuple[Site, MigrateReport]) -> None:
    fresh_site, _ = migrated
    record = await fresh_site.db.collection("doctype").find_one({"_id": "Employee"})
    assert record is not None
    names = [row["fieldname"] for row in record["fields"]]
    shift = record["fields"][names.index("shift")]  # workforce_scoring's fixture Custom Field
    assert names.index("shift") == names.index("branch") + 1
    assert shift["is_custom_field"] == 1 and shift["parent"] == "Employee"
    assert record["json_hash"] == record_hash(fresh_site.meta.get("Employee"))


async def test_an_old_record_is_replaced_whole(migrated: tuple[Site, MigrateReport]) -> None:
    fresh_site, _ = migrated
    coll = fresh_site.db.collection("doctype")
    before = await coll.find_one({"_id": "Test Note"})
    assert before is not None
    # a record of the previous format: definition kept aside, empty tables, another hash
    await coll.update_one({"_id": "Test Note"}, {"$set": {"json_hash": "old", "definition": {"x": 1},
                                                         "fields": [], "permissions": []}})
    report = await sync_schema(fresh_site, force=True)
    assert report.doctypes_synced == ["Test Note"]
    after = await coll.find_one({"_id": "Test Note"})
    assert after is not None and "definition" not in after
    assert after["fields"] == before["fields"] and after["creation"] == before["creation"]


async def test_schema_hash_is_stored(migrated: tuple[Site, MigrateReport]) -> None:
    fresh_site, _ = migrated
    state = await fresh_site.db.collection(STATE_COLLECTION).find_one({"_id": "schema"})
    assert state is not None and len(state["hash"]) == 64


# -- migrate hooks -----------------------------------------------------------------------------------


async def test_migrate_runs_before_and_after_migrate_hooks(fresh_site: Site) -> None:
    from fwtest import migration

    calls = migration.CALLS
    calls.clear()
    report = await migrate(fresh_site)
    assert calls == [("before", ""), ("after", fresh_site.db.name)]
    ours = [hook for hook in report.hooks_run if hook.startswith("fwtest:")]  # other installed apps have hooks too
    assert ours == ["fwtest: before_migrate", "fwtest: after_migrate"]
    assert await fresh_site.db.collection("role").find_one({"_id": "Migrated Role"}) is not None
    again = await migrate(fresh_site)  # hooks run on every migrate, even when the schema is unchanged
    assert again.skipped
    assert again.hooks_run == report.hooks_run
    assert len(calls) == 4
    assert await fresh_site.db.collection("role").count_documents({"_id": "Migrated Role"}) == 1


# -- bootstrap ---------------------------------------------------------------------------------------


async def test_migrate_bootstraps_users_and_roles_idempotently(migrated: tuple[Site, MigrateReport],
                                                               settings: Settings) -> None:
    fresh_site, _ = migrated
    users = fresh_site.db.collection("user")
    roles = fresh_site.db.collection("role")
    admin = await users.find_one({"_id": "Administrator"})
    assert admin is not None
    assert settings.admin_password
    assert verify_password(admin[PASSWORD_KEY], settings.admin_password)
    assert not verify_password(admin[PASSWORD_KEY], settings.admin_password + "x")
    assert {r["role"] for r in admin["roles"]} == {"Administrator", "System Manager"}
    guest = await users.find_one({"_id": "Guest"})
    assert guest is not None and [r["role"] for r in guest["roles"]] == ["Guest"]
    assert set(CORE_ROLES) <= set(await roles.distinct("_id"))

    counts = (await users.count_documents({}), await roles.count_documents({}))
    await migrate(fresh_site)
    await migrate(fresh_site, force=True)
    assert (await users.count_documents({}), await roles.count_documents({})) == counts
    again = await users.find_one({"_id": "Administrator"})
    assert again is not None and again[PASSWORD_KEY] == admin[PASSWORD_KEY]

    # the records are readable through the engine
    ctx = fresh_site.context("Administrator")
    assert (await get_doc(ctx, "User", "Administrator")).full_name == "Administrator"
    assert "System Manager" in await fresh_site.load_roles("Administrator")


async def test_bootstrap_generates_a_password_when_none_is_configured(fresh_site: Site,
                                                                        settings: Settings) -> None:
    site = Site(settings.model_copy(update={"admin_password": None}), fresh_site.db, fresh_site.apps)
    await sync_schema(site)
    generated = await bootstrap.ensure_bootstrap(site)
    assert generated and len(generated) >= 12
    admin = await site.db.collection("user").find_one({"_id": "Administrator"})
    assert admin is not None and verify_password(admin[PASSWORD_KEY], generated)
    assert await bootstrap.ensure_bootstrap(site) is None  # printed once only


# -- Custom Fields (on the session's site) -----------------------------------------------------------


@pytest.fixture
async def cf_ctx(ctx: Context) -> AsyncIterator[Context]:
    """`ctx`, and afterwards no Custom Field left behind: the session site's preserved DocType
    records and the indexes are put back to the doctypes' own definitions."""
    yield ctx
    await drop_custom_fields(ctx.site, ["Test Customer", "Test Order", "Test Category"])


async def add_nickname(ctx: Context, **extra: object) -> Document:
    return await new_doc(ctx, "Custom Field", dt="Test Customer", fieldname="nickname", fieldtype="Data",
                         insert_after="customer_name", **extra).insert()


async def test_custom_field_is_merged_into_meta_after_commit(cf_ctx: Context) -> None:
    assert "nickname" not in cf_ctx.meta("Test Customer").by_name
    cf = await add_nickname(cf_ctx, label="Nickname")
    assert cf.name == "Test Customer-nickname"
    meta = cf_ctx.meta("Test Customer")
    fieldnames = [f.fieldname for f in meta.fields]
    assert fieldnames.index("nickname") == fieldnames.index("customer_name") + 1
    assert meta.by_name["nickname"].display_label == "Nickname"

    customer = await new_doc(cf_ctx, "Test Customer", customer_name="Acme", nickname="Ace").insert()
    assert (await get_doc(cf_ctx, "Test Customer", customer.name)).nickname == "Ace"
    assert await get_list(cf_ctx, "Test Customer", fields=["name", "nickname"], filters={"nickname": "Ace"}) == [
        {"name": "Acme", "nickname": "Ace"}]


async def test_custom_field_clashing_with_an_existing_field_is_refused(cf_ctx: Context) -> None:
    before = [f.fieldname for f in cf_ctx.meta("Test Customer").fields]
    with pytest.raises(exc.ValidationError) as err:
        await new_doc(cf_ctx, "Custom Field", dt="Test Customer", fieldname="region", fieldtype="Data").insert()
    assert err.value.field == "fieldname"
    await add_nickname(cf_ctx)
    with pytest.raises((exc.ValidationError, exc.DuplicateEntryError)):
        await add_nickname(cf_ctx)
    assert await count(cf_ctx, "Custom Field") == 1
    assert [f.fieldname for f in cf_ctx.meta("Test Customer").fields] == [*before[:1], "nickname", *before[1:]]


@pytest.mark.parametrize(("dt", "fieldname", "fieldtype", "options"), [
    ("Test Customer", "owner", "Data", None),               # a standard field
    ("Test Customer", "name", "Data", None),
    ("Test Order", "amended_from", "Data", None),           # an implicit field of submittable doctypes
    ("Test Category", "parent_test_category", "Data", None),  # the implicit tree parent
    ("Test Customer", "Bad Name", "Data", None),            # not a fieldname
    ("Test Customer", "partner", "Link", None),             # a Link needs options
    ("Test Customer", "partner", "Link", "No Such Doctype"),
])
async def test_invalid_custom_fields_are_refused(cf_ctx: Context, dt: str, fieldname: str, fieldtype: str,
                                                 options: str | None) -> None:
    """A Custom Field that cannot be merged into meta must be refused before it is stored: once
    stored, every later meta reload of every process would fail on it."""
    with pytest.raises(exc.ValidationError):
        await new_doc(cf_ctx, "Custom Field", dt=dt, fieldname=fieldname, fieldtype=fieldtype,
                      options=options).insert()
    assert await count(cf_ctx, "Custom Field") == 0
    await cf_ctx.site.meta.reload()
    assert cf_ctx.meta(dt).name == dt


async def test_a_bad_custom_field_record_is_skipped_not_fatal(cf_ctx: Context,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    """Records written around the engine (a restore, a script) cannot break meta for the site."""
    await cf_ctx.db.collection("custom_field").insert_many([
        {"_id": "Test Customer-owner", "dt": "Test Customer", "fieldname": "owner", "fieldtype": "Data"},
        {"_id": "Test Customer-Bad", "dt": "Test Customer", "fieldname": "Bad Name", "fieldtype": "Data"},
        {"_id": "Nope-x", "dt": "No Such Doctype", "fieldname": "x", "fieldtype": "Data"},
        {"_id": "Test Customer-nickname", "dt": "Test Customer", "fieldname": "nickname", "fieldtype": "Data"},
    ])
    await cf_ctx.site.meta.bump()
    meta = cf_ctx.meta("Test Customer")
    assert "nickname" in meta.by_name
    assert "Bad Name" not in meta.by_name
    assert [f.fieldname for f in meta.fields].count("owner") == 0
    skipped = [r.getMessage() for r in caplog.records if "is ignored" in r.getMessage()]
    assert len(skipped) == 3


async def test_custom_field_updates_the_doctype_record(cf_ctx: Context) -> None:
    records = cf_ctx.db.collection("doctype")

    async def fieldnames() -> list[str]:
        record = await records.find_one({"_id": "Test Customer"})
        assert record is not None
        return [f["fieldname"] for f in record["fields"]]

    assert "nickname" not in await fieldnames()
    cf = await add_nickname(cf_ctx)
    names = await fieldnames()
    assert names.index("nickname") == names.index("customer_name") + 1
    await cf.delete()
    assert "nickname" not in await fieldnames()


async def test_deleting_a_custom_field_removes_it_from_meta(cf_ctx: Context) -> None:
    cf = await add_nickname(cf_ctx)
    assert "nickname" in cf_ctx.meta("Test Customer").by_name
    await cf.delete()
    assert "nickname" not in cf_ctx.meta("Test Customer").by_name
    with pytest.raises(exc.DataError):
        await new_doc(cf_ctx, "Test Customer", customer_name="Acme", nickname="Ace").insert()
    with pytest.raises(exc.DataError):
        await get_list(cf_ctx, "Test Customer", fields=["nickname"])


async def test_unique_custom_field_gets_its_index(cf_ctx: Context) -> None:
    await new_doc(cf_ctx, "Custom Field", dt="Test Customer", fieldname="tax_id", fieldtype="Data", unique=1).insert()
    await new_doc(cf_ctx, "Test Customer", customer_name="A", tax_id="T1").insert()
    await new_doc(cf_ctx, "Test Customer", customer_name="B").insert()
    await new_doc(cf_ctx, "Test Customer", customer_name="C").insert()
    with pytest.raises(exc.UniqueValidationError) as err:
        await new_doc(cf_ctx, "Test Customer", customer_name="D", tax_id="T1").insert()
    assert err.value.field == "tax_id"
    cf = await get_doc(cf_ctx, "Custom Field", "Test Customer-tax_id")
    await cf.delete()
    indexes = await index_info(cf_ctx.site, "test_customer")
    assert "fw_unique_tax_id" not in indexes


async def test_custom_field_is_picked_up_by_another_process(cf_ctx: Context, settings: Settings,
                                                            registry: AppRegistry) -> None:
    other = Site(settings, cf_ctx.site.db, registry)  # another process on the same database
    await other.meta.refresh_if_stale()
    assert "nickname" not in other.meta.get("Test Customer").by_name
    await add_nickname(cf_ctx)
    await other.meta.refresh_if_stale()  # meta_check_interval is 0 in tests
    assert "nickname" in other.meta.get("Test Customer").by_name


# -- several processes migrating at once (`fw serve --workers N` migrates in every worker) -----------


async def test_concurrent_migrates_on_a_fresh_database(settings: Settings, registry: AppRegistry) -> None:
    import asyncio

    name = f"fw_migrate_{uuid.uuid4().hex[:12]}"
    sites = [Site(settings, db.connect(settings.mongo_url or "", name), registry) for _ in range(4)]
    try:
        reports = await asyncio.gather(*(migrate(site) for site in sites))
        assert all(not r.skipped for r in reports) or any(r.skipped for r in reports)
        site = sites[0]
        for doctype in site.meta.names():
            meta = site.meta.get(doctype)
            if not meta.istable:
                assert set(desired_indexes(meta)) <= set(await index_info(site, meta.collection)), doctype
        users = site.db.collection("user")
        assert await users.count_documents({"_id": {"$in": ["Administrator", "Guest"]}}) == 2
        assert await site.db.collection("role").count_documents({"_id": "Migrated Role"}) == 1
        assert (await sync_schema(site, force=True)).changed is False
    finally:
        await sites[0].db.drop()
        for site in sites:
            await site.db.close()


async def test_migrate_lock_serialises_holders(fresh_site: Site) -> None:
    import asyncio

    events: list[str] = []

    async def hold(tag: str) -> None:
        async with migrate_lock(fresh_site, ttl=0.3):  # kept alive past its ttl while held
            events.append(f"{tag} in")
            await asyncio.sleep(0.8)
            events.append(f"{tag} out")

    await asyncio.gather(hold("a"), hold("b"))
    assert events in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])
    assert await fresh_site.db.collection(STATE_COLLECTION).find_one({"_id": "migrate_lock"}) is None


async def test_migrate_lock_of_a_crashed_process_expires(fresh_site: Site) -> None:
    state = fresh_site.db.collection(STATE_COLLECTION)
    await state.insert_one({"_id": "migrate_lock", "owner": "crashed", "expires": time.time() - 1})
    started = time.perf_counter()
    async with migrate_lock(fresh_site):
        record = await state.find_one({"_id": "migrate_lock"})
        assert record is not None and record["owner"] != "crashed"
    assert time.perf_counter() - started < 1.0


# -- every doctype names its module ----------------------------------------------------------------

async def test_migrate_refuses_a_doctype_without_module_the_frameworks_own_included(
        settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    core = tmp_path / "core"
    shutil.copytree(loader.CORE_DOCTYPE_DIR, core)
    role = json.loads((core / "role.json").read_text())
    del role["module"]
    (core / "role.json").write_text(json.dumps(role))
    monkeypatch.setattr(loader, "CORE_DOCTYPE_DIR", core)
    registry = temp_registry(tmp_path / "apps", [])
    async with temp_site(settings, registry) as site:
        state = await site.db.collection(STATE_COLLECTION).find_one({"_id": "schema"})
        with pytest.raises(exc.ConfigurationError) as err:
            await migrate(site)
        assert f"Cannot migrate: doctype 'Role' ({core / 'role.json'}) has no `module`" in err.value.message
        # refused before anything was written: no lock left behind, the definitions hash unchanged
        assert await site.db.collection(STATE_COLLECTION).find_one({"_id": "schema"}) == state
        assert await site.db.collection(STATE_COLLECTION).find_one({"_id": "migrate_lock"}) is None
