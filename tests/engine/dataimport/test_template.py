"""`download_template` with child tables (issue 32, Frappe's exporter): by default and for `All` /
`Mandatory` (Frappe's other `export_fields` shapes) the child tables' columns come too, headed
`Label (Table Label)`; a label used twice becomes its fieldname; the records' child rows follow on
the rows below; the file goes back in through the import; records are read page after page."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator
from typing import Any

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.core import data_import as di
from engine.dataimport import template
from engine.documents import store
from engine.documents.factory import get_doc, new_doc
from engine.migrate import sync_doctype
from engine.query.listing import get_all, get_list
from engine.site import Site
from tests.engine.dataimport.helpers import data_import

ORDER = "Test Order"
CHILD = ["Item (Items)", "Qty (Items)", "Rate (Items)", "Amount (Items)"]


def header(download: Any) -> list[str]:
    return next(csv.reader(io.StringIO(download.read_all().decode("utf-8-sig"))))


def rows(download: Any) -> list[list[str]]:
    return list(csv.reader(io.StringIO(download.read_all().decode("utf-8-sig"))))


@pytest.fixture
async def setters(site: Site) -> AsyncIterator[Site]:
    yield site
    await store.collection_of(site, "Property Setter").delete_many({})
    await site.meta.bump()
    await sync_doctype(site, ORDER)


async def setter(ctx: Context, field_name: str, prop: str, value: Any) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Property Setter", doc_type=ORDER, field_name=field_name, property=prop, value=value,
                      doctype_or_field="DocField").insert()


async def test_child_tables_come_by_default_and_with_all(ctx: Context) -> None:
    assert header(await di.download_template(ctx, ORDER)) == [
        "ID", "Customer", "Posting Date", "Total", "Remarks", "Status", *CHILD]  # Customer Name: read-only
    every = ["ID", "Customer", "Customer Name", "Posting Date", "Total", "Remarks", "Status", "Amended From", *CHILD]
    assert header(await di.download_template(ctx, ORDER, export_fields="All")) == every
    assert header(await di.download_template(ctx, ORDER, export_fields='"all"')) == every  # JSON, any case
    # Frappe's dict names the tables it wants; a parent's fields alone stay alone
    assert header(await di.download_template(ctx, ORDER, export_fields={ORDER: ["name", "customer"]})) == [
        "ID", "Customer"]
    assert header(await di.download_template(ctx, ORDER, export_fields={ORDER: ["customer"],
                                                                        "Test Order Item": ["qty"]})) == [
        "Customer", "Qty (Items)"]
    with pytest.raises(exc.DataError) as caught:
        await di.download_template(ctx, ORDER, export_fields='"Some"')
    assert caught.value.message == "export_fields must be All, Mandatory or the fields by doctype"
    with pytest.raises(exc.DataError) as caught:
        await di.download_template(ctx, ORDER, export_fields="Some")
    assert caught.value.message == "export_fields must be valid JSON"


async def test_mandatory_fields_and_mandatory_tables(setters: Site, ctx: Context) -> None:
    assert header(await di.download_template(ctx, ORDER, export_fields="Mandatory")) == [
        "ID", "Customer", "Posting Date"]  # the items table is not mandatory
    await setter(ctx, "items", "reqd", 1)
    await setter(ctx, "remarks", "label", "Total")  # a label used twice
    assert header(await di.download_template(ctx, ORDER, export_fields="mandatory")) == [
        "ID", "Customer", "Posting Date", "Item (Items)"]  # the item is the row's one mandatory field
    assert header(await di.download_template(ctx, ORDER)) == [
        "ID", "Customer", "Posting Date", "Total", "remarks", "Status", *CHILD]


async def _orders(ctx: Context, count: int) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Known").insert()
        for i in range(count):
            await new_doc(ctx, ORDER, customer="Known", posting_date=f"2024-03-{1 + i:02d}", remarks=f"order {i}",
                          items=[{"item": f"bolt {i}", "qty": 1 + i}, {"item": f"nut {i}", "qty": 2, "rate": 0.5}]
                          ).insert()


async def test_records_with_their_child_rows_go_back_in(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(template, "PAGE", 2)  # five orders: three pages, each after the last one's sort key
    await _orders(ctx, 5)
    listed = await get_list(ctx, ORDER, fields=["name", "remarks"], limit_page_length=0)
    filled = rows(await di.download_template(ctx, ORDER, export_records="all"))
    assert filled[0] == ["ID", "Customer", "Posting Date", "Total", "Remarks", "Status", *CHILD]
    parents = [r for r in filled[1:] if r[0]]
    assert [(r[0], r[4]) for r in parents] == [(o["name"], o["remarks"]) for o in listed]
    first = filled[1:3]
    i = int(listed[0]["remarks"].split()[-1])
    assert first[0][6:8] == [f"bolt {i}", str(1 + i)] and first[1][:6] == [""] * 6
    assert first[1][6:9] == [f"nut {i}", "2", "0.5"]
    five = rows(await di.download_template(ctx, ORDER, export_records="5_records", export_fields="All"))
    assert len(five) == 1 + 10

    # the template, filled in, is a file the import reads: the child rows land under their documents
    content = "\r\n".join(",".join(r[1:]) for r in [filled[0], *filled[1:]]).encode()  # without the ID column
    doc = await data_import(ctx, ORDER, "orders.csv", content)
    assert (await di.get_preview_from_template(ctx, doc.name))["problems"] == []
    assert await di.run_data_import(ctx, doc.name) == {"status": "Success", "succeeded": 5, "failed": 0}
    names = await get_all(ctx, ORDER, pluck="name", filters={"name": ["not in", [o["name"] for o in listed]]})
    copies = [await get_doc(ctx, ORDER, name) for name in names]
    assert sorted((c.remarks, [(r.item, r.qty) for r in c.items]) for c in copies) == [
        (f"order {i}", [(f"bolt {i}", 1 + i), (f"nut {i}", 2)]) for i in range(5)]
