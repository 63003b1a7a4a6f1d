"""The in-memory backend (mongomock-motor): the same engine API as on MongoDB, minus transactions.

Each test builds its own Site on a uniquely named in-memory database.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from engine import db
from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents.factory import get_doc, new_doc
from engine.migrate import migrate
from engine.query.listing import count, exists, get_list
from engine.site import Site
from engine.wiring import connect_database
from tests.conftest import make_settings


@pytest.fixture
def mctx(memory_site: Site) -> Context:
    return memory_site.context("Administrator")


def test_connect_memory_is_not_transactional() -> None:
    database = db.connect_memory(f"fw_mem_{uuid.uuid4().hex[:12]}")
    assert database.backend == "memory"
    assert not database.transactional


async def test_connect_database_with_memory_backend_setting() -> None:
    name = f"fw_mem_{uuid.uuid4().hex[:12]}"
    database, mongod = connect_database(make_settings(memory_backend=True, db_name=name,
                                                      mongo_url="mongodb://unused.invalid:1"))
    assert mongod is None
    assert database.backend == "memory"
    assert database.name == name
    assert not database.transactional
    await database.collection("probe").insert_one({"_id": "x"})
    assert await database.collection("probe").find_one({"_id": "x"}) == {"_id": "x"}
    await database.drop()


async def test_bootstrap_records_exist(memory_site: Site, mctx: Context) -> None:
    assert await exists(mctx, "User", "Administrator") == "Administrator"
    assert await exists(mctx, "User", "Guest") == "Guest"
    assert await exists(mctx, "Role", "System Manager") == "System Manager"
    assert "System Manager" in await memory_site.load_roles("Administrator")


async def test_insert_get_save_delete(mctx: Context) -> None:
    note = await new_doc(mctx, "Test Note", title="Hello", count="3", due="2026-01-02").insert()
    loaded = await get_doc(mctx, "Test Note", note.name)
    assert (loaded.title, loaded.count, loaded.due, loaded.owner) == ("Hello", 3, "2026-01-02", "Administrator")
    loaded.title = "Changed"
    await loaded.save()
    assert (await get_doc(mctx, "Test Note", note.name)).title == "Changed"
    # optimistic concurrency works here too
    note.title = "stale"
    with pytest.raises(exc.TimestampMismatchError):
        await note.save()
    await loaded.delete()
    with pytest.raises(exc.DoesNotExistError):
        await get_doc(mctx, "Test Note", note.name)


async def test_unique_fields_and_partial_indexes(mctx: Context) -> None:
    # many notes may leave the unique `code` empty; a repeated code is refused
    for i in range(3):
        await new_doc(mctx, "Test Note", title=f"n{i}").insert()
    await new_doc(mctx, "Test Note", title="coded", code="C1").insert()
    with pytest.raises(exc.UniqueValidationError) as err:
        await new_doc(mctx, "Test Note", title="coded again", code="C1").insert()
    assert err.value.field == "code"
    assert await count(mctx, "Test Note") == 4


async def test_duplicate_name_is_a_duplicate_entry_not_a_unique_field(mctx: Context) -> None:
    # the name clash must not be reported as a clash on a unique field (customer_name, code)
    await new_doc(mctx, "Test Customer", customer_name="Acme").insert()
    with pytest.raises(exc.DuplicateEntryError, match="Acme"):
        await new_doc(mctx, "Test Customer", customer_name="Acme").insert()
    await new_doc(mctx, "Test Note", name="fixed-name", title="a").insert()
    with pytest.raises(exc.DuplicateEntryError, match="fixed-name"):
        await new_doc(mctx, "Test Note", name="fixed-name", title="b").insert()
    assert await count(mctx, "Test Note") == 1


async def test_compound_partial_unique_index(mctx: Context) -> None:
    await new_doc(mctx, "Test Reading", sensor="S1", date="2026-01-01", source="manual").insert()
    await new_doc(mctx, "Test Reading", sensor="S1", date="2026-01-01", source="manual").insert()
    await new_doc(mctx, "Test Reading", sensor="S1", date="2026-01-01", source="external").insert()
    with pytest.raises(exc.UniqueValidationError) as err:
        await new_doc(mctx, "Test Reading", sensor="S1", date="2026-01-01", source="external").insert()
    assert (err.value.field, err.value.fields) == ("date", ("sensor", "date"))
    # a save that would create the clash is refused too
    manual = (await get_list(mctx, "Test Reading", filters={"source": "manual"}, pluck="name"))[0]
    doc = await get_doc(mctx, "Test Reading", manual)
    doc.source = "external"
    with pytest.raises(exc.UniqueValidationError) as err:
        await doc.save()
    assert (err.value.field, err.value.fields) == ("date", ("sensor", "date"))
    assert await count(mctx, "Test Reading", {"source": "external"}) == 1


async def test_submit_and_cancel(mctx: Context) -> None:
    customer = await new_doc(mctx, "Test Customer", customer_name="Acme").insert()
    order = await new_doc(mctx, "Test Order", customer=customer.name, posting_date="2026-03-04",
                          items=[{"item": "Bolt", "qty": 2, "rate": 1.5}]).insert()
    assert order.name.startswith("TO-")
    assert order.total == 3.0
    await order.submit()
    assert (await get_doc(mctx, "Test Order", order.name)).docstatus == 1
    with pytest.raises(exc.DocstatusTransitionError):
        await order.delete()
    await order.cancel()
    assert (await get_doc(mctx, "Test Order", order.name)).docstatus == 2


async def test_get_list_filters_order_paging_and_count(mctx: Context) -> None:
    for i, region in enumerate(["North", "South", "North", "East", "North"]):
        await new_doc(mctx, "Test Customer", customer_name=f"C{i}", region=region, credit_limit=i * 10).insert()
    # default order: sort_field customer_name ASC
    assert await get_list(mctx, "Test Customer", pluck="name") == ["C0", "C1", "C2", "C3", "C4"]
    north = await get_list(mctx, "Test Customer", fields=["name", "credit_limit"], filters={"region": "North"},
                           order_by="credit_limit desc")
    assert north == [{"name": "C4", "credit_limit": 40.0}, {"name": "C2", "credit_limit": 20.0},
                     {"name": "C0", "credit_limit": 0.0}]
    page = await get_list(mctx, "Test Customer", pluck="name", limit_start=1, limit_page_length=2)
    assert page == ["C1", "C2"]
    assert await get_list(mctx, "Test Customer", pluck="name",
                          or_filters=[["region", "=", "East"], ["credit_limit", ">", 30]]) == ["C3", "C4"]
    assert await get_list(mctx, "Test Customer", pluck="name", filters=[["customer_name", "like", "%3"]]) == ["C3"]
    assert await count(mctx, "Test Customer") == 5
    assert await count(mctx, "Test Customer", {"region": "North"}) == 3
    assert await count(mctx, "Test Customer", {"region": ["in", ["East", "South"]]}) == 2


async def test_naming_series(mctx: Context) -> None:
    first = await new_doc(mctx, "Test Series", label="a").insert()
    second = await new_doc(mctx, "Test Series", label="b").insert()
    other = await new_doc(mctx, "Test Series", label="c", naming_series="TSX-").insert()
    prefix = first.name.rsplit("-", 1)[0]
    assert first.name.startswith("TS-")
    assert int(second.name.rsplit("-", 1)[1]) == int(first.name.rsplit("-", 1)[1]) + 1
    assert second.name.startswith(prefix)
    assert other.name.startswith("TSX-")
    counters = [await new_doc(mctx, "Test Counter", label=str(i)).insert() for i in range(3)]
    assert [c.name for c in counters] == [1, 2, 3] or [str(c.name) for c in counters] == ["1", "2", "3"]


async def test_permissions_work_on_memory_backend(memory_site: Site, mctx: Context) -> None:
    await new_doc(mctx, "Role", role_name="Test Reader").insert()
    await new_doc(mctx, "User", email="reader@example.com", first_name="R", roles=[{"role": "Test Reader"}]).insert()
    note = await new_doc(mctx, "Test Note", title="x", reviewer_note="hidden").insert()
    reader = memory_site.context("reader@example.com")
    rows = await get_list(reader, "Test Note", fields=["*"])
    assert len(rows) == 1
    assert "reviewer_note" not in rows[0]
    doc = await get_doc(reader, "Test Note", note.name)
    doc.title = "y"
    with pytest.raises(exc.PermissionError):
        await doc.save()


async def test_not_transactional_failed_hook_leaves_the_write_behind(mctx: Context) -> None:
    """DOCUMENTED LIMITATION: the in-memory backend has no transactions, so a hook that fails after
    the write cannot undo it. On MongoDB the same insert leaves nothing (see test_lifecycle)."""
    with pytest.raises(exc.ValidationError, match="after_insert refused"):
        await new_doc(mctx, "Test Note", title="fail-after-insert").insert()
    left: list[dict[str, Any]] = await get_list(mctx, "Test Note", fields=["title"])
    assert left == [{"title": "fail-after-insert"}]

    # the same for an explicit unit of work that fails after writing
    with pytest.raises(RuntimeError):
        async with unit_of_work(mctx):
            await new_doc(mctx, "Test Note", title="written then failed").insert()
            raise RuntimeError("boom")
    assert await count(mctx, "Test Note", {"title": "written then failed"}) == 1


async def test_migrate_is_idempotent_on_memory_backend(memory_site: Site) -> None:
    await migrate(memory_site)  # the first one installs the apps (whose fixtures may add custom fields)
    report = await migrate(memory_site)
    assert report.skipped
    users = await memory_site.db.collection("user").count_documents({})
    await migrate(memory_site, force=True)
    assert await memory_site.db.collection("user").count_documents({}) == users
