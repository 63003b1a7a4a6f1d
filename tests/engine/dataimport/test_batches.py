"""Data Import's batches (engine/dataimport/importer.py): new documents go in many to a unit of work
through the whole insert plan; a document refused before its write is left out of its batch, and a
batch a hook refused in (or whose write failed) rolls back and goes in one document at a time, so a
refused row stores nothing and the others go in."""

from __future__ import annotations

from typing import Any

import pytest

from engine import db
from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.core import data_import as di
from engine.dataimport import importer
from engine.documents.factory import get_doc, new_doc
from engine.query.listing import get_all
from tests.engine.dataimport.helpers import csv_bytes, data_import

HEADER = "Customer,Posting Date,Remarks\n"


@pytest.fixture(autouse=True)
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importer, "BATCH", 3)


async def _customer(ctx: Context, name: str = "Acme") -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name=name).insert()


def _units(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Every unit of work that ends from now on: whether it failed (rolled back)."""
    ended: list[bool] = []
    end_unit = db.end_unit

    async def counted(uow: Any, *, failed: bool) -> None:
        ended.append(failed)
        await end_unit(uow, failed=failed)

    monkeypatch.setattr(db, "end_unit", counted)
    return ended


async def test_batches_apply_the_whole_insert_and_keep_the_files_order(ctx: Context,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    await _customer(ctx)
    rows = ["Acme,2024-03-01,one", "Acme,2024-03-02,two", "Nobody,2024-03-03,bad link", ",2024-03-04,no customer",
            "Acme,2024-03-05,five", "Acme,2024-03-06,six", "Acme,2024-03-07,seven"]
    doc = await data_import(ctx, "Test Order", "orders.csv", csv_bytes(HEADER + "\n".join(rows) + "\n"))
    units = _units(monkeypatch)
    result = await di.run_data_import(ctx, doc.name)
    assert result == {"status": "Partial Success", "succeeded": 5, "failed": 2}
    assert len([failed for failed in units if not failed]) < 7  # fewer units than documents: batches
    logs = await di.get_import_logs(ctx, doc.name)
    assert [(log["row_indexes"], log["success"]) for log in logs] == [
        ([2], 1), ([3], 1), ([4], 0), ([5], 0), ([6], 1), ([7], 1), ([8], 1)]
    assert logs[2]["messages"][0].startswith("Row 4, column A (Customer)") and "Nobody" in logs[2]["messages"][0]
    assert logs[3]["messages"][0].startswith("Row 5, column A (Customer)")
    created = [log["docname"] for log in logs if log["success"]]
    for name in created:
        order = await get_doc(ctx, "Test Order", name)
        assert order.customer == "Acme" and order.total == 0
        assert order.owner == "Administrator"
    versions = await get_all(ctx, "Version", filters=[["ref_doctype", "=", "Test Order"]], pluck="docname")
    assert sorted(versions) == sorted(created)  # track_changes: as an ordinary insert writes


async def test_a_hooks_refusal_rolls_its_batch_back_and_stores_nothing_of_it(ctx: Context,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from fwtest.doctype.test_order.test_order import TestOrder

    original = TestOrder.validate

    async def validate(self: TestOrder) -> None:
        original(self)
        if self.remarks == "refuse":  # a hook that writes, then refuses: its write must not stay
            await new_doc(self.ctx, "Test Note", title="left behind").insert()
            raise exc.ValidationError("refused by the controller", field="remarks")

    monkeypatch.setattr(TestOrder, "validate", validate)
    await _customer(ctx)
    rows = ["Acme,2024-03-01,one", "Acme,2024-03-02,refuse", "Acme,2024-03-03,three", "Acme,2024-03-04,four"]
    doc = await data_import(ctx, "Test Order", "orders.csv", csv_bytes(HEADER + "\n".join(rows) + "\n"))
    units = _units(monkeypatch)
    result = await di.run_data_import(ctx, doc.name)
    assert result == {"status": "Partial Success", "succeeded": 3, "failed": 1}
    assert True in units  # the first batch rolled back...
    assert await get_all(ctx, "Test Note", pluck="title") == []  # ...and the hook's write with it
    assert sorted(await get_all(ctx, "Test Order", pluck="remarks")) == ["four", "one", "three"]
    logs = await di.get_import_logs(ctx, doc.name)
    assert [(log["row_indexes"], log["success"]) for log in logs] == [([2], 1), ([3], 0), ([4], 1), ([5], 1)]
    assert logs[1]["messages"] == ["Row 3, column C (Remarks): refused by the controller"]


async def test_a_duplicate_in_a_batch_is_reported_and_the_others_go_in(ctx: Context) -> None:
    await _customer(ctx, "Alpha")
    doc = await data_import(ctx, "Test Customer", "customers.csv",
                            csv_bytes("Customer Name,Region\nBeta,North\nAlpha,South\nGamma,East\nGamma,West\n"))
    result = await di.run_data_import(ctx, doc.name)
    assert result == {"status": "Partial Success", "succeeded": 2, "failed": 2}
    assert sorted(await get_all(ctx, "Test Customer", pluck="name")) == ["Alpha", "Beta", "Gamma"]
    assert (await get_doc(ctx, "Test Customer", "Alpha")).region is None  # untouched
    assert (await get_doc(ctx, "Test Customer", "Gamma")).region == "East"  # the first one in the file
    logs = await di.get_import_logs(ctx, doc.name)
    assert [(log["row_indexes"], log["success"]) for log in logs] == [([2], 1), ([3], 0), ([4], 1), ([5], 0)]


async def test_the_file_is_read_a_chunk_ahead_and_its_error_comes_where_it_is() -> None:
    def rows() -> Any:
        yield from range(5)
        raise exc.ValidationError("Row 7, column B: a formula is not imported")

    seen: list[Any] = []
    with pytest.raises(exc.ValidationError, match="formula"):
        async for item in importer._read_ahead(rows(), 2):
            seen.append(item)
    assert seen == [0, 1, 2, 3, 4]  # every row before the bad one, in order
    async for item in importer._read_ahead(iter(range(10)), 3):  # a loop that stops early
        if item == 4:
            break
    assert [item async for item in importer._read_ahead(iter(range(7)), 3)] == list(range(7))


def test_an_outcome_stays_small_whatever_the_files_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importer, "KEPT_FAILURES", 2)
    outcome = importer.Outcome()
    for number in range(2, 7):
        outcome.fail([number], [f"Row {number}: refused"])
        outcome.create(f"DOC-{number}")
    assert (outcome.failed_count, outcome.succeeded, outcome.last_created) == (5, 5, "DOC-6")
    assert outcome.failed == [{"rows": [2], "messages": ["Row 2: refused"]},
                              {"rows": [3], "messages": ["Row 3: refused"]}]  # the first ones' messages only
