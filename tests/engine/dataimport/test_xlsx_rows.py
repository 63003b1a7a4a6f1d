"""engine/dataimport/xlsx_rows.py reads a sheet's rows as openpyxl's read-only mode does, value for
value, on workbooks with every kind of cell a spreadsheet holds."""

from __future__ import annotations

import io
import os
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import pytest
from openpyxl import Workbook, load_workbook
from openpyxl.cell.rich_text import CellRichText, TextBlock
from openpyxl.cell.text import InlineFont
from openpyxl.utils.datetime import CALENDAR_MAC_1904

from engine import exceptions as exc
from engine.dataimport import xlsx_rows
from engine.dataimport.reader import read_xlsx
from engine.dataimport.xlsx_process import ReaderFailed, rows_in_process
from engine.dataimport.xlsx_rows import FORMULA_CELL, Book, sheet_rows


def _book(epoch: Any = None) -> bytes:
    book = Workbook()
    if epoch is not None:
        book.epoch = epoch
    sheet = book.active
    assert sheet is not None
    sheet.append(["Name", "Count", "Ratio", "Done", "Day", "At", "Clock", "Took", "Note"])
    sheet.append(["Ann", 3, 2.5, True, date(2024, 3, 31), datetime(2024, 3, 31, 14, 30, 5), time(7, 45),
                  timedelta(hours=30, minutes=5), "x"])
    sheet.append(["Bob", -7, 1e-9, False, date(1904, 1, 2), datetime(2100, 12, 31), None, None, ""])
    sheet.append([])  # an empty row
    sheet["A5"] = "far"
    sheet["AB5"] = 12345678901234  # past Z, and a number beyond 32 bits
    sheet["C6"] = "gap before"
    sheet["A7"] = CellRichText("plain ", TextBlock(InlineFont(b=True), "bold"), " end")
    sheet["B7"] = "=1+2"
    sheet["D8"] = 0
    sheet["E8"] = 45000
    sheet["E8"].number_format = "dd/mm/yyyy"  # a custom date format
    sheet["F8"] = 0.5
    sheet["F8"].number_format = "0.00%"  # a number, not a date
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _openpyxl_rows(content: bytes) -> dict[int, list[Any]]:
    book = load_workbook(io.BytesIO(content), read_only=True, data_only=False)
    rows: dict[int, list[Any]] = {}
    sheet = book.worksheets[0]
    for number, row in enumerate(sheet.iter_rows(), start=sheet.min_row):
        values = _trimmed([FORMULA_CELL if getattr(c, "data_type", None) == "f" else c.value for c in row])
        if values:
            rows[number] = values
    book.close()
    return rows


def _trimmed(values: list[Any]) -> list[Any]:
    while values and values[-1] is None:  # (a missing cell and an empty one read alike)
        values = values[:-1]
    return values


def _our_rows(content: bytes) -> dict[int, list[Any]]:
    book = Book(content)
    try:
        [(_name, path)] = book.sheets
        return {number: _trimmed(values) for number, values in sheet_rows(book, path) if _trimmed(values)}
    finally:
        book.close()


@pytest.mark.parametrize("epoch", [None, CALENDAR_MAC_1904], ids=["1900", "1904"])
def test_every_kind_of_cell_reads_as_openpyxl_reads_it(epoch: Any) -> None:
    content = _book(epoch)
    ours, theirs = _our_rows(content), _openpyxl_rows(content)
    assert ours == theirs
    assert ours[7][:2] == ["plain bold end", FORMULA_CELL]  # rich inline text joined; the formula flagged
    assert ours[5][27] == 12345678901234 and ours[8][4] == datetime(2023, 3, 15) + (
        timedelta(days=1462) if epoch else timedelta())


def test_the_import_reads_the_values_as_text_the_fields_parse() -> None:
    content = _book()
    sheet = read_xlsx(content)
    assert sheet.header[:3] == ["Name", "Count", "Ratio"]
    number, values = next(sheet.rows)
    assert number == 2
    assert values[:8] == ["Ann", 3, 2.5, True, "2024-03-31", "2024-03-31 14:30:05", "07:45:00", timedelta(hours=30,
                                                                                                         minutes=5)]


@pytest.mark.parametrize("block", [1 << 20, 61], ids=["one block", "tags across blocks"])
def test_the_last_row_comes_from_the_dimension_or_a_count_of_the_rows(block: int,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(xlsx_rows, "BLOCK", block)
    content = _book()  # a workbook openpyxl wrote whole: its dimension comes first
    book = Book(content)
    assert book.last_row(book.sheets[0][1]) == 8
    book.close()
    streamed = Workbook(write_only=True)  # as fw's exports are written: no dimension before the rows
    sheet = streamed.create_sheet("Rows")
    for i in range(2500):
        sheet.append([f"row {i}", i])
    out = io.BytesIO()
    streamed.save(out)
    book = Book(out.getvalue())
    assert book.last_row(book.sheets[0][1]) == 2500
    book.close()
    assert read_xlsx(out.getvalue()).last_row == 2500


def readers() -> list[int]:
    """This process's children that read a sheet, still there (running or not yet reaped)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[1]) == os.getpid() and b"engine.dataimport.xlsx_process" in command:
            found.append(int(entry))
    return found


def test_a_process_of_its_own_reads_the_same_rows() -> None:
    content = _book()
    book = Book(content)
    [(_name, path)] = book.sheets
    expected = list(sheet_rows(book, path))[1:]  # after the header
    book.close()
    got = list(rows_in_process(content, path))
    assert got == expected and dict(got)[7][1] is FORMULA_CELL  # (the one instance, through the pipe)
    assert readers() == []


def test_a_reading_process_stopped_early_or_failing_is_gone() -> None:
    content = _book()
    rows = rows_in_process(content, Book(content).sheets[0][1])
    assert next(rows)[0] == 2
    rows.close()  # the import stopped reading
    assert readers() == []
    with pytest.raises(ReaderFailed, match="KeyError"):
        list(rows_in_process(content, "xl/worksheets/no-such-sheet.xml"))
    assert readers() == []


def test_the_import_reads_in_a_process_and_names_a_formula_in_the_middle() -> None:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Name", "Count"])
    for i in range(1200):
        sheet.append([f"n{i}", i])
    sheet["B1100"] = "=1+2"
    out = io.BytesIO()
    book.save(out)
    read = read_xlsx(out.getvalue(), in_process=True)
    seen = []
    with pytest.raises(exc.ValidationError, match=r"Row 1100, column B \(Count\): a formula"):
        for number, _values in read.rows:
            seen.append(number)
    assert seen == list(range(2, 1100))  # every row before it, in order
    assert readers() == []
