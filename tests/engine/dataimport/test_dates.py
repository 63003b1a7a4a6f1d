"""Dates in a file to import (issue 32): ISO, or the site's `date_format` (System Settings), with a
time of day for a Datetime, and Excel's date cells; any other form is refused with a message naming
the row, the column and the form expected. From real CSV and XLSX files."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.core import data_import as di
from engine.dataimport.values import ValueProblem, parse
from engine.documents.factory import get_doc
from engine.meta.schema import DocFieldSchema
from engine.query.listing import get_all
from tests.engine.dataimport.helpers import csv_bytes, data_import, xlsx_bytes

DATE = DocFieldSchema(fieldname="due", fieldtype="Date", label="Due")
DATETIME = DocFieldSchema(fieldname="at", fieldtype="Datetime", label="At")


def refused(df: DocFieldSchema, text: str, date_format: str) -> str:
    with pytest.raises(ValueProblem) as caught:
        parse(df, text, date_format)
    return str(caught.value)


def test_iso_and_the_sites_format() -> None:
    assert parse(DATE, "31-03-2024", "dd-mm-yyyy") == parse(DATE, "2024-03-31", "dd-mm-yyyy") == "2024-03-31"
    assert parse(DATE, "1.3.2024", "dd.mm.yyyy") == "2024-03-01"
    assert parse(DATE, "03/31/2024", "mm/dd/yyyy") == "2024-03-31"
    assert parse(DATE, "2024-03-31 00:00:00", "dd/mm/yyyy") == "2024-03-31"
    assert parse(DATETIME, "31/03/2024 14:30", "dd/mm/yyyy") == "2024-03-31 14:30:00"
    assert parse(DATETIME, "2024-03-31T14:30:05", "dd/mm/yyyy") == "2024-03-31 14:30:05"
    assert parse(DATETIME, "31-03-2024", "dd-mm-yyyy") == "2024-03-31 00:00:00"
    # Excel's date cells (openpyxl gives datetimes)
    assert parse(DATE, datetime(2024, 3, 31), "dd-mm-yyyy") == "2024-03-31"
    assert parse(DATETIME, datetime(2024, 3, 31, 14, 30), "mm/dd/yyyy") == "2024-03-31 14:30:00"
    assert parse(DATETIME, date(2024, 3, 31), "dd-mm-yyyy") == "2024-03-31 00:00:00"


def test_other_forms_are_refused_with_the_form_expected() -> None:
    assert refused(DATE, "03/31/2024", "dd-mm-yyyy") == \
        "03/31/2024 is not a date in the form DD-MM-YYYY or YYYY-MM-DD (e.g. 31-03-2024)"
    assert refused(DATE, "31/03/2024", "mm/dd/yyyy") == \
        "31/03/2024 is not a date in the form MM/DD/YYYY or YYYY-MM-DD (e.g. 03/31/2024)"
    assert refused(DATE, "31-03-2024", "yyyy-mm-dd") == \
        "31-03-2024 is not a date in the form YYYY-MM-DD (e.g. 2024-03-31)"
    assert "30-02-2024 is not a date" in refused(DATE, "30-02-2024", "dd-mm-yyyy")
    assert "2024-03-31 14:30 is not a date" in refused(DATE, "2024-03-31 14:30", "dd-mm-yyyy")
    assert refused(DATETIME, "31.03.2024 25:00", "dd.mm.yyyy") == (
        "31.03.2024 25:00 is not a date and time in the form DD.MM.YYYY HH:MM:SS or YYYY-MM-DD HH:MM:SS "
        "(e.g. 31.03.2024 14:30:00)")


async def _site_date_format(ctx: Context, date_format: str) -> None:
    async with unit_of_work(ctx):
        settings = await get_doc(ctx, "System Settings")
        settings.date_format = date_format
        await settings.save()


async def test_a_csv_in_the_sites_format(ctx: Context) -> None:
    await _site_date_format(ctx, "dd.mm.yyyy")
    text = ("Title,Due,At\n"
            "A,31.03.2024,31.03.2024 14:30\n"
            "B,2024-04-01,2024-04-01 08:00:00\n"
            "C,03/31/2024,\n"
            "D,,31.03.2024 8:00:61\n")
    doc = await data_import(ctx, "Test Note", "notes.csv", csv_bytes(text))
    preview = await di.get_preview_from_template(ctx, doc.name)
    assert preview["problems"] == [
        "Row 4, column B (Due): 03/31/2024 is not a date in the form DD.MM.YYYY or YYYY-MM-DD (e.g. 31.03.2024)",
        "Row 5, column C (At): 31.03.2024 8:00:61 is not a date and time in the form DD.MM.YYYY HH:MM:SS or "
        "YYYY-MM-DD HH:MM:SS (e.g. 31.03.2024 14:30:00)"]
    assert await di.run_data_import(ctx, doc.name) == {"status": "Partial Success", "succeeded": 2, "failed": 2}
    notes = await get_all(ctx, "Test Note", fields=["title", "due", "at"], order_by="title asc")
    assert notes == [{"title": "A", "due": "2024-03-31", "at": "2024-03-31 14:30:00"},
                     {"title": "B", "due": "2024-04-01", "at": "2024-04-01 08:00:00"}]


async def test_the_default_format_and_a_choice_in_template_options(ctx: Context) -> None:
    text = "Title,Due\nA,31-03-2024\nB,03/31/2024\n"
    doc = await data_import(ctx, "Test Note", "notes.csv", csv_bytes(text))  # the site's default: dd-mm-yyyy
    assert (await di.get_preview_from_template(ctx, doc.name))["problems"] == [
        "Row 3, column B (Due): 03/31/2024 is not a date in the form DD-MM-YYYY or YYYY-MM-DD (e.g. 31-03-2024)"]
    chosen = await di.get_preview_from_template(ctx, doc.name, template_options={"date_format": "mm/dd/yyyy"})
    assert chosen["problems"] == [
        "Row 2, column B (Due): 31-03-2024 is not a date in the form MM/DD/YYYY or YYYY-MM-DD (e.g. 03/31/2024)"]


async def test_a_date_format_of_no_site_is_refused(ctx: Context) -> None:
    with pytest.raises(exc.ValidationError) as caught:
        await data_import(ctx, "Test Note", "notes.csv", csv_bytes("Title\nA\n"),
                          template_options='{"date_format": "yyyy/dd/mm"}')
    assert caught.value.message.startswith("The date format of template_options must be one of dd-mm-yyyy, ")


async def test_excel_date_cells(ctx: Context) -> None:
    await _site_date_format(ctx, "mm/dd/yyyy")
    content = xlsx_bytes([["Title", "Due", "At"], ["A", datetime(2024, 3, 31), datetime(2024, 3, 31, 14, 30)],
                          ["B", "03/30/2024", "2024-03-30 09:15"]])
    doc = await data_import(ctx, "Test Note", "notes.xlsx", content)
    assert (await di.get_preview_from_template(ctx, doc.name))["problems"] == []
    assert await di.run_data_import(ctx, doc.name) == {"status": "Success", "succeeded": 2, "failed": 0}
    notes = await get_all(ctx, "Test Note", fields=["title", "due", "at"], order_by="title asc")
    assert notes == [{"title": "A", "due": "2024-03-31", "at": "2024-03-31 14:30:00"},
                     {"title": "B", "due": "2024-03-30", "at": "2024-03-30 09:15:00"}]
