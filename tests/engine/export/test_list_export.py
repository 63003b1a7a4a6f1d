"""engine/export/list_export.py over more rows than one page: the file holds the rows of one unpaged
`get_list` in the same order (ties and nulls in the sort field included), each page read after the
last row's sort key, never by an offset (MongoDB's profiler)."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from openpyxl import load_workbook

from engine.context import Context
from engine.export import list_export
from engine.query.listing import get_list
from tests.engine.query.test_list_pages import DOCTYPE, ROWS, notes
from tests.support.profiler import profiled_finds

__all__ = ["notes"]  # the fixture, shared with the listing's tests

PAGE = 7
FIELDS = ["name", "title", "region", "priority", "due"]


def _csv(value: Any) -> str:
    return "" if value is None else str(value)


@pytest.mark.usefixtures("notes")
@pytest.mark.parametrize("order_by", [None, "region desc", "priority asc, due desc", "due asc"])
async def test_the_export_is_one_unpaged_get_list(ctx: Context, monkeypatch: pytest.MonkeyPatch,
                                                  order_by: str | None) -> None:
    monkeypatch.setattr(list_export, "PAGE", PAGE)
    whole = await get_list(ctx, DOCTYPE, fields=FIELDS, order_by=order_by, limit_page_length=0)
    assert len(whole) == ROWS > 8 * PAGE

    async def export() -> None:
        download = await list_export.export_list(ctx, DOCTYPE, "CSV", FIELDS, None, order_by, None, None)
        rows = list(csv.reader(io.StringIO(download.read_all().decode("utf-8-sig"))))
        assert rows[0] == ["ID", "Title", "Region", "Priority", "Due"]
        assert rows[1:] == [[_csv(r[f]) for f in FIELDS] for r in whole]

    finds = await profiled_finds(ctx, ctx.meta(DOCTYPE).collection, export)
    assert len(finds) == ROWS // PAGE + 1  # one find a page, none skipping
    assert not any(entry["command"].get("skip") for entry in finds)
    assert all(entry["command"].get("limit") == PAGE for entry in finds)


@pytest.mark.usefixtures("notes")
async def test_excel_with_a_filter_and_selected_rows(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(list_export, "PAGE", PAGE)
    filters = [["owner", "=", "owner@example.com"]]
    whole = await get_list(ctx, DOCTYPE, fields=FIELDS, filters=filters, order_by="region asc", limit_page_length=0)
    download = await list_export.export_list(ctx, DOCTYPE, "Excel", FIELDS, filters, "region asc", None, "Notes")
    sheet = load_workbook(io.BytesIO(download.read_all())).active
    assert sheet is not None
    rows = [list(r) for r in sheet.iter_rows(values_only=True)][1:]
    # (a cell holding "" reads back as empty)
    assert rows == [[r[f] if r[f] != "" else None for f in FIELDS] for r in whole] and len(rows) == 30
    picked = [r["name"] for r in whole[::3]]
    download = await list_export.export_list(ctx, DOCTYPE, "CSV", ["name"], filters, "region asc", picked, None)
    assert [r[0] for r in csv.reader(io.StringIO(download.read_all().decode("utf-8-sig")))][1:] == picked
