"""`engine.documents.bulk.insert_many`: validated bulk inserts, duplicates reported, not raised."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents.bulk import insert_many
from engine.documents.factory import get_doc, new_doc
from engine.query.listing import get_all
from engine.site import Site
from tests.server.conftest import make_user

STANDARD = ("owner", "creation", "modified", "modified_by")


async def test_rows_are_validated_typed_and_stored_like_insert(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Acme", region="North").insert()
        single = await new_doc(ctx, "Test Note", title="one", count="3", customer="Acme", due="2024-03-01").insert()
    result = await insert_many(ctx, "Test Note", [
        {"title": "two", "count": "3", "customer": "Acme", "due": "2024-03-01"},
        {"title": "three", "ratio": 0.5}])
    assert result.failed == {} and result.duplicates == []
    assert len(result.inserted) == 2 and len(set(result.inserted)) == 2
    stored = await ctx.db.collection("test_note").find_one({"_id": result.names[0]})
    reference = await ctx.db.collection("test_note").find_one({"_id": single.name})
    assert stored["count"] == 3 and stored["customer_name"] == "Acme" and stored["region"] == "North"
    assert set(stored) == set(reference)  # the same stored shape as a normal insert (defaults, empties)
    assert stored["owner"] == "Administrator" and stored["docstatus"] == 0
    assert stored["status"] == reference["status"] == "Open"  # the Select default


async def test_invalid_rows_are_reported_and_the_others_inserted(ctx: Context) -> None:
    result = await insert_many(ctx, "Test Note", [
        {"title": "fine"}, {"count": 1}, {"title": "bad count", "count": "many"}, {"title": "x", "nope": 1},
        {"title": "bad link", "customer": "Nobody"}, "not a row", {"title": "submitted", "docstatus": 1}])
    assert list(result.names) == [0]
    assert {i: type(e).__name__ for i, e in result.failed.items()} == {
        1: "MandatoryError", 2: "FieldTypeError", 3: "DataError", 4: "LinkValidationError", 5: "DataError",
        6: "DocstatusTransitionError"}
    assert result.failed[4].field == "customer" and "Nobody" in result.failed[4].message
    assert await ctx.db.collection("test_note").count_documents({}) == 1


async def test_unique_clashes_are_duplicates_not_errors(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Note", title="stored", code="A").insert()
    result = await insert_many(ctx, "Test Note", [
        {"title": "clash with stored", "code": "A"}, {"title": "first B", "code": "B"},
        {"title": "second B", "code": "B"}, {"title": "no code"}])
    assert sorted(result.duplicates) == [0, 2]
    assert sorted(result.names) == [1, 3]
    assert await ctx.db.collection("test_note").count_documents({}) == 3


async def test_partial_unique_index_and_per_key_counters(ctx: Context) -> None:
    rows = [{"sensor": s, "date": f"2024-03-0{d}", "value": d, "source": "external"} for s in ("s1", "s2")
            for d in (1, 2)]
    first = await insert_many(ctx, "Test Reading", rows)
    assert sorted(first.inserted) == ["RD-s1-00001", "RD-s1-00002", "RD-s2-00001", "RD-s2-00002"]
    again = await insert_many(ctx, "Test Reading", [*rows, {**rows[0], "source": "manual"}])
    assert sorted(again.duplicates) == [0, 1, 2, 3]  # the partial index covers source "external" only
    assert len(again.inserted) == 1 and again.inserted[0] not in first.inserted  # a gap is fine, a clash is not


async def test_naming_rules(ctx: Context) -> None:
    series = await insert_many(ctx, "Test Series", [{"label": "a"}, {"label": "b", "naming_series": "TSX-"}])
    assert series.names[0].startswith("TS-") and series.names[1] == "TSX-00001"
    counter = await insert_many(ctx, "Test Counter", [{"label": "a"}, {"label": "b"}])
    assert [int(n) for n in counter.inserted] == [1, 2]
    customers = await insert_many(ctx, "Test Customer", [{"customer_name": "Zed"}, {"customer_name": "Zed"},
                                                         {"customer_name": "Yan"}])
    assert customers.names == {0: "Zed", 2: "Yan"} and customers.duplicates == [1]
    named = await insert_many(ctx, "Test Note", [{"title": "code names it", "name": "my-note"}])
    assert named.inserted == ["my-note"]


async def test_child_rows_are_named_and_linked(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
    result = await insert_many(ctx, "Test Order", [{"customer": "Acme", "posting_date": "2024-03-01",
                                                    "items": [{"item": "bolt", "qty": 2, "rate": 1.5}]}])
    order = await get_doc(ctx, "Test Order", result.inserted[0])
    assert order.name.startswith("TO-") and order.customer_name == "Acme"
    row = order.items[0]
    assert (row.parent, row.parenttype, row.parentfield, row.idx, row.qty) == (order.name, "Test Order", "items",
                                                                               1, 2)
    assert row.name


async def test_permissions(ctx: Context, site: Site) -> None:
    reader = await make_user(ctx, "bulk-reader@example.com", ["Test Reader"])
    refused = await insert_many(site.context(reader.email), "Test Note", [{"title": "x"}, {"title": "y", "count": "z"}])
    # each row is refused where the ordinary insert refuses it: the create right after the types
    assert not refused.names and {i: type(e).__name__ for i, e in refused.failed.items()} == {
        0: "PermissionError", 1: "FieldTypeError"}
    # has_permission hooks judge each document: fwtest refuses customers in region "Locked"
    manager = await make_user(ctx, "bulk-manager@example.com", ["System Manager"])
    result = await insert_many(site.context(manager.email), "Test Customer", [
        {"customer_name": "Open One", "region": "North"}, {"customer_name": "Locked One", "region": "Locked"}])
    assert result.inserted == ["Open One"] and list(result.failed) == [1]
    assert isinstance(result.failed[1], exc.PermissionError)
    bypass = await insert_many(site.context(reader.email), "Test Note", [{"title": "x"}], ignore_permissions=True)
    assert len(bypass.inserted) == 1


async def test_earlier_writes_are_committed_first_and_the_batch_survives_a_rollback(ctx: Context) -> None:
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            await new_doc(ctx, "Test Note", title="before").insert()
            await insert_many(ctx, "Test Note", [{"title": "batch"}])
            await new_doc(ctx, "Test Note", title="after").insert()
            raise RuntimeError("the request fails after the batch")
    titles = await get_all(ctx, "Test Note", pluck="title", order_by="title asc")
    assert titles == ["batch", "before"]


async def test_doctypes_that_cannot_be_bulk_inserted(ctx: Context) -> None:
    for doctype in ("Test Settings", "Test Order Item"):
        with pytest.raises(exc.DataError):
            await insert_many(ctx, doctype, [{}])
    assert (await insert_many(ctx, "Test Note", [])).inserted == []




async def test_the_memory_backend_reports_duplicates_too(memory_site: Site) -> None:
    ctx = memory_site.context()
    rows = [{"sensor": "m", "date": "2024-03-01", "source": "external"}]
    assert len((await insert_many(ctx, "Test Reading", rows)).inserted) == 1
    again = await insert_many(ctx, "Test Reading", [*rows, {**rows[0], "date": "2024-03-02"}])
    assert again.duplicates == [0] and list(again.names) == [1]


async def test_new_documents_start_in_the_workflows_first_state(ctx: Context, site: Site) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
        await new_doc(ctx, "Workflow", workflow_name="Bulk Orders", document_type="Test Order", is_active=1,
                      states=[{"state": "Draft", "doc_status": "0"}, {"state": "Open", "doc_status": "0"}],
                      transitions=[{"state": "Draft", "action": "Open", "next_state": "Open",
                                    "allowed": "System Manager"}]).insert()
    manager = await make_user(ctx, "bulk-orders@example.com", ["System Manager"])
    order = {"customer": "Acme", "posting_date": "2024-03-01"}
    result = await insert_many(site.context(manager.email), "Test Order", [order, {**order, "workflow_state": "Open"}])
    assert list(result.names) == [0] and isinstance(result.failed[1], exc.WorkflowTransitionError)
    assert (await get_doc(ctx, "Test Order", result.names[0])).workflow_state == "Draft"


# -- run_hooks: the whole insert plan, for many documents at a time --------------------------------

ORDER = {"customer": "Acme", "posting_date": "2024-03-01", "items": [{"item": "bolt", "qty": 2, "rate": 1.5}]}


async def test_with_hooks_each_document_meets_what_an_ordinary_insert_does(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
        single = await new_doc(ctx, "Test Order", **ORDER).insert()
    async with unit_of_work(ctx):
        result = await insert_many(ctx, "Test Order", [ORDER, {**ORDER, "remarks": "two"}], atomic=True,
                                   run_hooks=True)
    assert result.failed == {} and len(result.inserted) == 2
    for name in result.inserted:
        stored = await get_doc(ctx, "Test Order", name)
        assert stored.total == 3.0 and stored.items[0].amount == 3.0  # set by the controller's validate
        assert stored.customer_name == single.customer_name  # fetched like the ordinary insert's
    versions = await get_all(ctx, "Version", filters=[["ref_doctype", "=", "Test Order"]], pluck="docname")
    assert sorted(versions) == sorted([single.name, *result.inserted])  # track_changes: one Version each


async def test_with_hooks_the_hooks_run_in_the_plans_order(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    from fwtest.doctype.test_order.test_order import TestOrder

    seen: dict[str, list[str]] = {}

    def keep(self: TestOrder) -> None:  # on_change is the last hook: what ran on this document so far
        self._record("on_change")
        seen[str(self.remarks)] = list(self.flags["events"])

    monkeypatch.setattr(TestOrder, "on_change", keep)
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
        await new_doc(ctx, "Test Order", **ORDER, remarks="ordinary").insert()
    async with unit_of_work(ctx):
        await insert_many(ctx, "Test Order", [{**ORDER, "remarks": "bulk"}], atomic=True, run_hooks=True)
    assert seen["bulk"] == seen["ordinary"]
    assert "controller:before_naming" in seen["bulk"] and "controller:after_insert" in seen["bulk"]


async def test_with_hooks_a_refusal_by_a_hook_is_told_apart(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    from fwtest.doctype.test_order.test_order import TestOrder

    original = TestOrder.validate

    def validate(self: TestOrder) -> None:
        original(self)
        if self.remarks == "refuse":
            raise exc.ValidationError("refused by the controller", field="remarks")

    monkeypatch.setattr(TestOrder, "validate", validate)
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
    async with unit_of_work(ctx):
        result = await insert_many(ctx, "Test Order", [
            ORDER, {**ORDER, "remarks": "refuse"}, {**ORDER, "posting_date": None}, {**ORDER, "customer": "Nobody"}],
            atomic=True, run_hooks=True)
    assert list(result.names) == [0]
    assert {i: type(e).__name__ for i, e in result.failed.items()} == {
        1: "ValidationError", 2: "MandatoryError", 3: "LinkValidationError"}
    assert result.refused_by_hook == {1}


async def test_with_hooks_an_error_after_the_write_stores_nothing(ctx: Context,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from fwtest.doctype.test_order.test_order import TestOrder

    def on_update(self: TestOrder) -> None:
        if self.remarks == "fail":
            raise exc.ValidationError("on_update refused")

    monkeypatch.setattr(TestOrder, "on_update", on_update)
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
    with pytest.raises(exc.ValidationError, match="on_update refused"):
        async with unit_of_work(ctx):
            await insert_many(ctx, "Test Order", [ORDER, {**ORDER, "remarks": "fail"}], atomic=True, run_hooks=True)
    assert await get_all(ctx, "Test Order", pluck="name") == []
    assert await get_all(ctx, "Version", filters=[["ref_doctype", "=", "Test Order"]], pluck="name") == []


async def test_hooks_need_the_transaction(ctx: Context) -> None:
    with pytest.raises(exc.DataError, match="atomic"):
        await insert_many(ctx, "Test Order", [ORDER], run_hooks=True)
