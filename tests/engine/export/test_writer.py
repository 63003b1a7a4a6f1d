"""CSV and XLSX tables (engine/export/writer.py, cells.py): formula-like texts stay text, values keep
their types, names are safe, and a large table is written without holding it in memory."""

from __future__ import annotations

import csv
import io

import pytest
from openpyxl import load_workbook

from engine import exceptions as exc
from engine.export.cells import csv_cell, is_formula_like
from engine.export.writer import file_format, safe_filename, write_table

ROWS = [["ID", "Title", "Count"], ["N-1", "=HYPERLINK(\"http://x\")", 3], ["N-2", "+1", -4.5],
        ["N-3", "@SUM(A1)", None], ["N-4", "-2", 0], ["N-5", "\tcmd", 1], ["N-6", "plain", True]]


def test_formula_like_texts_are_quoted_in_csv() -> None:
    download = write_table(ROWS, "CSV", "Test Note")
    assert download.filename == "Test Note.csv"
    text = download.read_all().decode("utf-8")
    assert text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(text[1:])))
    assert rows[1] == ["N-1", "'=HYPERLINK(\"http://x\")", "3"]
    assert rows[2] == ["N-2", "'+1", "-4.5"]  # a negative number stays a number
    assert rows[3] == ["N-3", "'@SUM(A1)", ""]
    assert rows[4][1] == "'-2" and rows[5][1] == "'\tcmd"
    assert rows[6] == ["N-6", "plain", "1"]


def test_formula_like_texts_are_string_cells_in_xlsx() -> None:
    download = write_table(ROWS, "Excel", "Test: Note/1")
    assert download.filename == "Test_ Note_1.xlsx"
    book = load_workbook(io.BytesIO(download.read_all()))
    sheet = book.active
    assert sheet is not None and sheet.title == "Test  Note 1"
    formula = sheet["B2"]
    assert formula.value == "=HYPERLINK(\"http://x\")" and formula.data_type == "s"
    assert sheet["C2"].value == 3 and sheet["C2"].data_type == "n"
    assert sheet["C3"].value == -4.5
    assert sheet["C4"].value is None


def test_helpers() -> None:
    assert file_format("excel") == "Excel" and file_format("XLSX") == "Excel" and file_format(None) == "CSV"
    with pytest.raises(exc.DataError):
        file_format("pdf")
    assert safe_filename('a"b\\c') == "a_b_c" and safe_filename("..") == "export"
    assert is_formula_like("=1") and not is_formula_like(-1) and csv_cell(None) == ""


def test_a_large_table_spools_to_disk() -> None:
    rows = ([f"N-{i}", "x" * 50, i] for i in range(120_000))
    download = write_table(rows, "CSV", "big")
    assert download.size > 4 * 1024 * 1024
    assert getattr(download.content, "_rolled", True)  # past SPOOL_BYTES the spool is a real file
    assert sum(len(c) for c in download.chunks()) == download.size
