"""Tables written to a file download, row by row, in bounded memory: CSV (UTF-8 with a BOM, so that
Excel reads it as UTF-8) or XLSX (openpyxl's write-only workbook, whose rows go to a temporary file).
The result is a `Download`, spooled to disk past a few megabytes, which the server streams out."""

from __future__ import annotations

import csv
import io
import re
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell

from engine import exceptions as exc
from engine.export.cells import csv_cell, is_formula_like, xlsx_value
from engine.translation import _

CSV_TYPE = "text/csv; charset=utf-8"
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
SPOOL_BYTES = 4 * 1024 * 1024
CHUNK = 64 * 1024


@dataclass
class Download:
    """A file to send: its name, type and content (a binary file positioned at 0)."""

    filename: str
    content_type: str
    content: IO[bytes]
    size: int

    def chunks(self) -> Iterator[bytes]:
        try:
            while block := self.content.read(CHUNK):
                yield block
        finally:
            self.content.close()

    def read_all(self) -> bytes:
        try:
            return self.content.read()
        finally:
            self.content.close()


def file_format(value: Any) -> str:
    """`file_format_type` as "CSV" or "Excel" (Frappe's names; "xlsx" accepted too)."""
    text = str(value or "CSV").strip().lower()
    if text == "csv":
        return "CSV"
    if text in ("excel", "xlsx"):
        return "Excel"
    raise exc.DataError(_("file_format_type must be CSV or Excel, not {0}", value), field="file_format_type")


def safe_filename(title: str) -> str:
    name = re.sub(r"[^\w\- .()]+", "_", title, flags=re.UNICODE).strip(" ._") or "export"
    return name[:100]


def _spool() -> IO[bytes]:
    return tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES, mode="w+b")


class CsvTable:
    """Rows appended one by one to a spooled CSV file."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.out = _spool()
        self.out.write("\ufeff".encode())
        self.buffer = io.StringIO()
        self.writer = csv.writer(self.buffer, lineterminator="\r\n")

    def append(self, row: list[Any]) -> None:
        self.writer.writerow([csv_cell(v) for v in row])
        if self.buffer.tell() > CHUNK:
            self._flush()

    def _flush(self) -> None:
        self.out.write(self.buffer.getvalue().encode())
        self.buffer.seek(0)
        self.buffer.truncate()

    def close(self) -> None:
        """Drop an unfinished table (an error stopped the export)."""
        self.out.close()

    def finish(self) -> Download:
        self._flush()
        size = self.out.tell()
        self.out.seek(0)
        return Download(f"{self.filename}.csv", CSV_TYPE, self.out, size)


class XlsxTable:
    """Rows appended one by one to a write-only workbook (openpyxl keeps them in a temporary file)."""

    def __init__(self, filename: str, sheet_title: str) -> None:
        self.filename = filename
        self.book = Workbook(write_only=True)
        self.sheet = self.book.create_sheet(re.sub(r"[\[\]:*?/\\]", " ", sheet_title)[:31] or "Sheet1")

    def append(self, row: list[Any]) -> None:
        cells = []
        for value in row:
            cell = WriteOnlyCell(self.sheet, value=xlsx_value(value))
            if is_formula_like(value):
                cell.data_type = "s"  # openpyxl would take a text starting with "=" for a formula
            cells.append(cell)
        self.sheet.append(cells)

    def close(self) -> None:
        self.book.close()

    def finish(self) -> Download:
        out = _spool()
        self.book.save(out)  # openpyxl writes to any binary file object
        size = out.tell()
        out.seek(0)
        return Download(f"{self.filename}.xlsx", XLSX_TYPE, out, size)


def table_for(fmt: str, title: str) -> CsvTable | XlsxTable:
    """An empty CSV or Excel table named after `title`."""
    name = safe_filename(title)
    return CsvTable(name) if fmt == "CSV" else XlsxTable(name, title)


def write_table(rows: Iterable[list[Any]], fmt: str, title: str) -> Download:
    """`rows` (the header first) as a CSV or Excel download named after `title`."""
    table = table_for(fmt, title)
    try:
        for row in rows:
            table.append(row)
    except BaseException:
        table.close()
        raise
    return table.finish()
