"""Shared by the Data Import tests: a file attached as a File, a Data Import for it, spreadsheets."""

from __future__ import annotations

import io
from typing import Any

from openpyxl import Workbook

from engine.context import Context, unit_of_work
from engine.documents.document import Document
from engine.documents.factory import new_doc
from engine.files.upload import save_file


def xlsx_bytes(rows: list[list[Any]], *, sheets: int = 1, merge: str | None = None,
               formula_at: str | None = None) -> bytes:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    for row in rows:
        sheet.append(row)
    if merge:
        sheet.merge_cells(merge)
    if formula_at:
        sheet[formula_at] = "=1+2"
    for i in range(1, sheets):
        book.create_sheet(f"Other {i}")
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def csv_bytes(text: str, encoding: str = "utf-8") -> bytes:
    return text.replace("\n", "\r\n").encode(encoding)


async def attach(ctx: Context, name: str, content: bytes) -> str:
    doc = await save_file(ctx, content, name, is_private=True)
    return str(doc.file_url)


async def data_import(ctx: Context, doctype: str, file_name: str, content: bytes, **values: Any) -> Document:
    url = await attach(ctx, file_name, content)
    async with unit_of_work(ctx):
        return await new_doc(ctx, "Data Import", reference_doctype=doctype, import_file=url, **values).insert()
