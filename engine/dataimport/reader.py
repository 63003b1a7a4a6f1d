"""A spreadsheet's rows, read lazily: CSV (UTF-8 with or without a BOM, else Windows-1252 with a
notice; the delimiter sniffed among , ; tab |) or XLSX (one sheet, no merged cells, no formulas;
openpyxl reads the workbook, engine/dataimport/xlsx_rows.py its rows). Only the file's own bytes
are held: rows are produced one at a time.

Every problem is a `FileProblem` naming the row (1 = the header) and the column when it has one."""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any

from engine import exceptions as exc
from engine.dataimport.mapping import column_letter
from engine.dataimport.xlsx_process import ReaderFailed, rows_in_process
from engine.dataimport.xlsx_rows import FORMULA_CELL, Book, sheet_rows
from engine.translation import _

XLSX_MAGIC = b"PK\x03\x04"
SNIFF_BYTES = 16 * 1024


@dataclass
class Sheet:
    """The header and a generator of `(row number, cells)`; `notices` tell how the file was read."""

    header: list[str]
    rows: Iterator[tuple[int, list[Any]]]
    kind: str  # "CSV" or "XLSX"
    notices: list[str] = field(default_factory=list)
    # the number of the sheet's last row (blank ones included), for progress without a pass of its own;
    # None when the file does not say (an XLSX without its dimension)
    last_row: int | None = None


def kind_of(filename: str, content: bytes) -> str:
    name = filename.lower()
    if name.endswith(".xlsx"):
        if not content.startswith(XLSX_MAGIC):
            raise exc.ValidationError(_("{0} is not an Excel (XLSX) file", filename), field="import_file")
        return "XLSX"
    if name.endswith(".csv"):
        return "CSV"
    raise exc.ValidationError(_("Import CSV or Excel (XLSX) files only, not {0}", filename), field="import_file")


def _encoding(content: bytes) -> tuple[str, list[str]]:
    """The codec the file is read with (checked by decoding it once, then let go) and its notices."""
    codecs = ("utf-8-sig", "utf-8") if content.startswith(b"\xef\xbb\xbf") else ("utf-8",)
    for codec in codecs:
        try:
            content.decode(codec)
            return codec, []
        except UnicodeDecodeError:
            continue
    # Excel on Windows saves "CSV" in the system's code page; cp1252 decodes Western European text
    try:
        content.decode("cp1252")
        codec, encoding = "cp1252", "Windows-1252"
    except UnicodeDecodeError:
        codec, encoding = "latin-1", "ISO-8859-1"
    return codec, [_("The file is not UTF-8; it was read as {0}. Check special characters in the preview, "
                     "or save it as \"CSV UTF-8\"", encoding)]


def _text(content: bytes, codec: str) -> io.TextIOWrapper:
    """The file as text, decoded as it is read: a whole decoded copy would cost up to four times the
    file's bytes (io.StringIO) for as long as the import runs."""
    return io.TextIOWrapper(io.BytesIO(content), encoding=codec, newline="")


def _delimiter(sample: str) -> str:
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def read_csv(content: bytes) -> Sheet:
    codec, notices = _encoding(content)
    delimiter = _delimiter(_text(content, codec).read(SNIFF_BYTES))
    reader = csv.reader(_text(content, codec), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        raise exc.ValidationError(_("The file is empty"), field="import_file") from None
    except csv.Error as error:
        raise exc.ValidationError(_("Row 1: {0}", str(error)), field="import_file") from None

    def rows() -> Iterator[tuple[int, list[Any]]]:
        number = 1
        try:
            for cells in reader:
                number += 1
                if any(c.strip() for c in cells):
                    yield number, cells
        except csv.Error as error:
            raise exc.ValidationError(_("Row {0}: {1}", number + 1, str(error)), field="import_file") from None

    try:  # (a pass of the C tokenizer alone: much cheaper than reading the rows' values)
        last_row: int | None = sum(1 for _cells in csv.reader(_text(content, codec), delimiter=delimiter))
    except csv.Error:
        last_row = None  # (the rows' own pass names the bad row)
    return Sheet([h.strip() for h in header], rows(), "CSV", notices, last_row)


def _has_merged_cells(content: bytes) -> bool:
    with zipfile.ZipFile(io.BytesIO(content)) as book:
        for name in book.namelist():
            if name.startswith("xl/worksheets/") and name.endswith(".xml"):
                with book.open(name) as part:
                    tail = b""
                    while block := part.read(256 * 1024):
                        if b"<mergeCell " in tail + block or b"<x:mergeCell " in tail + block:
                            return True
                        tail = block[-32:]
    return False


def _xlsx_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == time() else value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, time):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def read_xlsx(content: bytes, *, in_process: bool = False) -> Sheet:
    """The sheet of an XLSX file; `in_process`: its rows after the header read by a process of their
    own (engine/dataimport/xlsx_process.py), for an import."""
    try:
        book = Book(content)
    except Exception as error:  # openpyxl raises many kinds for a damaged file
        raise exc.ValidationError(_("The Excel file cannot be read: {0}", str(error)[:200]),
                                  field="import_file") from None
    if len(book.sheets) != 1:
        book.close()
        names = [name for name, _path in book.sheets]
        raise exc.ValidationError(_("The Excel file has {0} sheets ({1}); keep only the sheet to import",
                                    len(names), ", ".join(names)), field="import_file")
    if _has_merged_cells(content):
        book.close()
        raise exc.ValidationError(
            _("The Excel file has merged cells; unmerge them so that each value has its own cell"), field="import_file")
    path = book.sheets[0][1]
    lines = sheet_rows(book, path)
    header: list[str] = []

    def no_formula(number: int, values: list[Any]) -> list[Any]:
        for index, value in enumerate(values):
            if value is FORMULA_CELL:
                raise exc.ValidationError(
                    _("Row {0}, column {1} ({2}): a formula is not imported; paste its value instead",
                      number, column_letter(index), header[index] if index < len(header) else ""),
                    field="import_file")
        return values

    try:
        number, first = next(lines)
        header.extend(str(v).strip() if v is not None else "" for v in no_formula(number, first))
    except StopIteration:
        book.close()
        raise exc.ValidationError(_("The file is empty"), field="import_file") from None
    except exc.ValidationError:
        book.close()
        raise

    last_row = book.last_row(path)
    if in_process:
        lines.close()
        book.close()
        lines = rows_in_process(content, path)

    def rows() -> Iterator[tuple[int, list[Any]]]:
        try:
            for number, cells in lines:
                values = [_xlsx_value(v) for v in no_formula(number, cells)]
                if any(v not in (None, "") for v in values):
                    yield number, values
        except ReaderFailed as error:
            raise exc.ValidationError(_("The Excel file cannot be read: {0}", str(error)[:200]),
                                      field="import_file") from None
        finally:
            lines.close()
            book.close()

    return Sheet(header, rows(), "XLSX", [], last_row)


def read_sheet(filename: str, content: bytes, max_size: int, *, in_process: bool = False) -> Sheet:
    """The file's sheet; refused when empty, too large, of another kind, or without a header."""
    if max_size and len(content) > max_size:
        raise exc.ValidationError(_("The file is {0} bytes, over the limit of {1} bytes (FW_MAX_FILE_SIZE)",
                                    len(content), max_size), field="import_file")
    if not content.strip():
        raise exc.ValidationError(_("The file is empty"), field="import_file")
    sheet = read_xlsx(content, in_process=in_process) if kind_of(filename, content) == "XLSX" else read_csv(content)
    if not any(sheet.header):
        raise exc.ValidationError(_("Row 1 holds no column names; the first row must be the header"),
                                  field="import_file")
    return sheet
