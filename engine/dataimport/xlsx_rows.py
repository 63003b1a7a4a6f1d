"""An XLSX sheet's rows, read fast. openpyxl reads the workbook's own parts (which sheets there are,
the shared strings, the styles that make a number a date, the date epoch: `Book`); this module
reads the sheet's XML with ElementTree's C parser, one row at a time, and keeps nothing of the rows
it has given. openpyxl's read-only rows cost about five times as much per cell (a cell object, a
regular expression for its coordinate, a dozen checks each), and its read-only workbook parses
every sheet once just to size it when the file does not say its size before its rows (openpyxl's
own write-only files do not, fw's exports among them). tests/engine/dataimport/test_xlsx_rows.py
checks this reader against openpyxl's on the same files, value for value."""

from __future__ import annotations

import io
import re
from collections.abc import Generator
from typing import Any
from xml.etree.ElementTree import Element, iterparse

from openpyxl.reader.excel import ExcelReader
from openpyxl.styles.stylesheet import apply_stylesheet
from openpyxl.utils import column_index_from_string
from openpyxl.utils.datetime import from_excel, from_ISO8601

MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
SHEET_DATA, ROW, CELL, DIMENSION = f"{MAIN}sheetData", f"{MAIN}row", f"{MAIN}c", f"{MAIN}dimension"
VALUE, FORMULA, INLINE, TEXT, RUN = f"{MAIN}v", f"{MAIN}f", f"{MAIN}is", f"{MAIN}t", f"{MAIN}r"
DIGITS = "0123456789"


class Formula:
    """A cell that holds a formula (the import refuses it: the value is what the sheet last computed)."""

    def __reduce__(self) -> str:
        return "FORMULA_CELL"  # (unpickled, from a reading process, as the one instance)


FORMULA_CELL = Formula()


class Book:
    """A workbook's parts as openpyxl reads them (its manifest, shared strings, workbook part and
    styles), its sheets not opened: `sheets` are (name, path in the archive), chart sheets included."""

    def __init__(self, content: bytes) -> None:
        reader = ExcelReader(io.BytesIO(content), read_only=True, data_only=False)
        try:
            reader.read_manifest()
            reader.read_strings()
            reader.read_workbook()
            apply_stylesheet(reader.archive, reader.wb)
            self.sheets = [(str(sheet.name), str(rel.target)) for sheet, rel in reader.parser.find_sheets()
                           if rel.target in reader.valid_files]
        except Exception:
            reader.archive.close()
            raise
        self.archive = reader.archive
        self.shared: list[Any] = reader.shared_strings
        book = reader.wb
        # (openpyxl's own: the styles whose numbers are dates or durations, as its reader uses them)
        self.dates: set[int] = set(getattr(book, "_date_formats"))  # noqa: B009
        self.durations: set[int] = set(getattr(book, "_timedelta_formats"))  # noqa: B009
        self.epoch = book.epoch

    def close(self) -> None:
        self.archive.close()

    def last_row(self, path: str) -> int | None:
        """The number of the sheet's last row, for progress: from its `<dimension>` when that comes
        before the rows (Excel and LibreOffice write it), else how many `<row` tags the XML holds
        (counted as it inflates, without parsing it)."""
        with self.archive.open(path) as source:
            for _event, element in iterparse(source, events=("start",)):
                if element.tag == DIMENSION:
                    last = (element.get("ref") or "").rpartition(":")[2].lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ$")
                    return int(last) if last.isdigit() else None
                if element.tag == SHEET_DATA:
                    break
        return self._counted_rows(path)

    def _counted_rows(self, path: str) -> int:
        count, carried = 0, b""
        with self.archive.open(path) as source:
            while block := source.read(BLOCK):
                chunk = carried + block
                keep = len(chunk) - CARRY  # a tag that starts in the last bytes is counted with the next block
                count += sum(1 for match in ROW_TAG.finditer(chunk) if match.start() < keep)
                carried = chunk[keep:]
        return count + len(ROW_TAG.findall(carried))


ROW_TAG = re.compile(rb"<(?:\w+:)?row[\s>/]")
BLOCK = 1 << 20  # bytes of XML counted at a time
CARRY = 32


class _Cells:
    """What turns a `<c>` element into its value, for one workbook."""

    def __init__(self, book: Book) -> None:
        self.shared = book.shared
        self.dates = book.dates
        self.durations = book.durations
        self.epoch = book.epoch
        self.columns: dict[str, int] = {}  # column letters → index (1-based), as met

    def column(self, reference: str) -> int:
        letters = reference.rstrip(DIGITS)
        index = self.columns.get(letters)
        if index is None:
            index = self.columns[letters] = column_index_from_string(letters)
        return index

    def value(self, cell: Element) -> Any:
        kind = cell.get("t", "n")
        text: str | None = None
        inline: Element | None = None
        for child in cell:
            tag = child.tag
            if tag == VALUE:
                text = child.text
            elif tag == FORMULA:
                return FORMULA_CELL
            elif tag == INLINE:
                inline = child
        if kind == "inlineStr":
            return _inline_text(inline) if inline is not None else None
        if not text:
            return None
        if kind == "n":
            number: int | float = float(text) if any(c in text for c in ".eE") else int(text)
            style = cell.get("s")
            if style and int(style) in self.dates:
                return from_excel(number, self.epoch, timedelta=int(style) in self.durations)
            return number
        if kind == "s":
            return self.shared[int(text)]
        if kind == "b":
            return bool(int(text))
        if kind == "d":
            return from_ISO8601(text)
        return text  # "str" (a formula's text result) and "e" (an error such as #N/A)


def _inline_text(inline: Element) -> str:
    """An inline string's text: its plain `<t>`, or its rich-text runs' (not its phonetic guides)."""
    parts = []
    for child in inline:
        if child.tag == TEXT:
            parts.append(child.text or "")
        elif child.tag == RUN:
            parts.append(child.findtext(TEXT) or "")
    return "".join(parts)


def sheet_rows(book: Book, path: str) -> Generator[tuple[int, list[Any]], None, None]:
    """`(row number, values)` of each row of the sheet at `path`, in order; a value is None for an
    empty cell, `FORMULA_CELL` for a formula, else a str, int, float, bool, date or datetime."""
    cells = _Cells(book)
    source = book.archive.open(path)
    number = 0
    sheet_data: Element | None = None
    try:
        for event, element in iterparse(source, events=("start", "end")):
            if event == "start":
                if element.tag == SHEET_DATA:
                    sheet_data = element
                continue
            if element.tag != ROW:
                continue
            reference = element.get("r")
            number = int(reference) if reference else number + 1
            values: list[Any] = []
            for cell in element:
                if cell.tag != CELL:
                    continue
                where = cell.get("r")
                column = cells.column(where) if where else len(values) + 1
                if column <= len(values):  # (out of order: a file no spreadsheet program writes)
                    values[column - 1] = cells.value(cell)
                    continue
                values.extend([None] * (column - 1 - len(values)))
                values.append(cells.value(cell))
            if sheet_data is not None:
                sheet_data.clear()  # (the rows given are dropped: memory stays flat)
            yield number, values
    finally:
        source.close()
