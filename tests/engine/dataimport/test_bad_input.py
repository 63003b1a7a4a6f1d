"""Every bad input of issue 32, from real files: each gets a message naming the row and the column
(or the file), and nothing is written for it: not CSV or XLSX, empty, over FW_MAX_FILE_SIZE, unknown
or repeated columns, a date in another format, a thousands separator, a Link to nothing, a mandatory
value missing, a formula (XLSX and CSV), child rows without a parent row, several sheets, merged
cells, another encoding, a BOM. Child rows, a template round trip and submit after import too."""

from __future__ import annotations

import csv
import io

import pytest
from openpyxl import load_workbook

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.core import data_import as di
from engine.dataimport.reader import read_sheet
from engine.documents.factory import get_doc, new_doc
from engine.query.listing import get_all
from tests.engine.dataimport.helpers import csv_bytes, data_import, xlsx_bytes


def refused(filename: str, content: bytes, text: str, limit: int = 10_000_000) -> None:
    with pytest.raises(exc.ValidationError) as caught:
        read_sheet(filename, content, limit)
    assert text in caught.value.message, caught.value.message
    assert caught.value.field == "import_file"


def test_files_refused_before_reading_rows() -> None:
    refused("people.pdf", b"%PDF-1.4", "Import CSV or Excel (XLSX) files only, not people.pdf")
    refused("people.xlsx", b"a,b\n1,2\n", "people.xlsx is not an Excel (XLSX) file")
    refused("people.csv", b"", "The file is empty")
    refused("people.csv", b"  \r\n", "The file is empty")
    refused("people.csv", b"a,b\n" * 100, "over the limit of 50 bytes (FW_MAX_FILE_SIZE)", limit=50)
    refused("people.csv", b",,\n1,2,3\n", "Row 1 holds no column names")
    refused("two.xlsx", xlsx_bytes([["Customer Name"], ["A"]], sheets=2),
            "The Excel file has 2 sheets (Sheet, Other 1); keep only the sheet to import")
    refused("merged.xlsx", xlsx_bytes([["Customer Name", "Region"], ["A", "North"]], merge="A2:B2"),
            "merged cells")


def test_a_formula_in_xlsx_names_its_cell() -> None:
    sheet = read_sheet("f.xlsx", xlsx_bytes([["Customer Name", "Region"], ["A", "North"]], formula_at="B2"),
                       10_000_000)
    with pytest.raises(exc.ValidationError) as caught:
        list(sheet.rows)
    assert caught.value.message.startswith("Row 2, column B (Region): a formula is not imported")


def test_encodings_bom_and_delimiters() -> None:
    latin = read_sheet("p.csv", csv_bytes("Customer Name;Region\nMüller;Süd\n", "cp1252"), 10_000)
    assert latin.header == ["Customer Name", "Region"]  # ";" sniffed
    assert list(latin.rows) == [(2, ["Müller", "Süd"])]
    assert "read as Windows-1252" in latin.notices[0]
    bom = read_sheet("p.csv", b"\xef\xbb\xbf" + csv_bytes("Customer Name\tRegion\nZoë\tNord\n"), 10_000)
    assert bom.header == ["Customer Name", "Region"] and list(bom.rows) == [(2, ["Zoë", "Nord"])]
    assert bom.notices == []


async def test_cell_and_column_problems_name_row_and_column(ctx: Context) -> None:
    text = ("Title,Title,Due,Count,Amount,Colour,Customer,Status\n"
            "A,dup,31.03.2024,\"1,234\",\"2,5\",red,Nobody,Open\n"
            ",,2024-03-31,1,2.5,,,Open\n"
            "C,,2024-02-30,x,=SUM(1),,,Open\n"
            "'=text,,,'+1,,,,\n")
    doc = await data_import(ctx, "Test Note", "notes.csv", csv_bytes(text))
    preview = await di.get_preview_from_template(ctx, doc.name)
    warnings, problems = preview["warnings"], preview["problems"]
    assert "Column B (Title) repeats column A (Title) and is not imported" in warnings
    assert "Column F (Colour) matches no field of Test Note and is not imported" in warnings
    expected = [
        "Row 2, column C (Due): 31.03.2024 is not a date in the form DD-MM-YYYY or YYYY-MM-DD (e.g. 31-03-2024)",
        "Row 2, column D (Count): 1,234 has a thousands separator; write the number without it (e.g. 1234)",
        "Row 2, column E (Amount): 2,5 uses a decimal comma; write 2.5",
        "Row 2, column G (Customer): Test Customer Nobody does not exist or you may not use it",
        "Row 3, column A (Title): Title is mandatory and empty",
        "Row 4, column C (Due): 2024-02-30 is not a date in the form DD-MM-YYYY or YYYY-MM-DD (e.g. 31-03-2024)",
        "Row 4, column D (Count): x is not a whole number",
        "Row 4, column E (Amount): =SUM(1) is a formula; formulas are not imported, write its value instead",
    ]
    for line in expected:
        assert line in problems, (line, problems)
    result = await di.run_data_import(ctx, doc.name)
    assert result == {"status": "Partial Success", "succeeded": 1, "failed": 3}
    assert await get_all(ctx, "Test Note", pluck="title") == ["=text"]  # our export's quote undone: text


async def test_child_rows_follow_their_parent(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Known").insert()
    text = ("ID,Customer,Posting Date,Item (Items),Qty (Items)\n"
            ",,,orphan,1\n"
            ",Known,2024-03-01,bolt,2\n"
            ",,,nut,3\n"
            ",Known,2024-03-02,washer,4\n")
    doc = await data_import(ctx, "Test Order", "orders.csv", csv_bytes(text), submit_after_import=1)
    preview = await di.get_preview_from_template(ctx, doc.name)
    assert [c["map_to"] for c in preview["columns"]] == ["name", "customer", "posting_date", "items.item",
                                                       "items.qty"]
    assert preview["payload_count"] == 3
    assert preview["problems"][0].startswith("Row 2: a child row with no parent row above it")
    result = await di.run_data_import(ctx, doc.name)
    assert result == {"status": "Partial Success", "succeeded": 2, "failed": 1}
    logs = await di.get_import_logs(ctx, doc.name)
    first = await get_doc(ctx, "Test Order", logs[1]["docname"])
    assert logs[1]["row_indexes"] == [3, 4]
    assert [(r.item, r.qty) for r in first.items] == [("bolt", 2), ("nut", 3)]
    assert first.docstatus == 1  # submitted after import


async def test_template_round_trip(ctx: Context) -> None:
    blank = await di.download_template(ctx, "Test Order", export_fields={"Test Order": ["name", "customer",
                                                                                        "posting_date"],
                                                                         "items": ["item", "qty"]})
    assert blank.filename == "Test Order.csv"
    rows = list(csv.reader(io.StringIO(blank.read_all().decode("utf-8-sig"))))
    assert rows == [["ID", "Customer", "Posting Date", "Item (Items)", "Qty (Items)"]]
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Known").insert()
        order = await new_doc(ctx, "Test Order", customer="Known", posting_date="2024-03-01",
                              items=[{"item": "bolt", "qty": 2}, {"item": "nut", "qty": 3}]).insert()
    filled = await di.download_template(ctx, "Test Order", export_fields={"Test Order": ["name", "customer",
                                                                                         "posting_date"],
                                                                          "items": ["item", "qty"]},
                                        export_records="all", file_type="Excel")
    sheet = load_workbook(io.BytesIO(filled.read_all())).active
    assert sheet is not None
    assert [list(r) for r in sheet.iter_rows(values_only=True)][1:] == [
        [order.name, "Known", "2024-03-01", "bolt", 2], [None, None, None, "nut", 3]]
    default = await di.download_template(ctx, "Test Customer")
    assert default.read_all().decode("utf-8-sig").splitlines()[0] == "ID,Customer Name,Region,Credit Limit"
    with pytest.raises(exc.DataError):
        await di.download_template(ctx, "Test Customer", export_records="everything")
