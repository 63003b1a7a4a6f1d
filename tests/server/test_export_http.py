"""List and report export over HTTP (business.md §3.2): `fw.desk.reportview.export_query` and
`fw.desk.query_report.export_query` answer a CSV or XLSX attachment of the rows the caller may read,
formula-like cells as text, 403 without the `export` right, 417 for bad arguments."""

from __future__ import annotations

import csv
import io
import json

import httpx
from openpyxl import load_workbook

from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import refused

LIST = "/api/method/fw.desk.reportview.export_query"
REPORT = "/api/method/fw.desk.query_report.export_query"


def csv_rows(r: httpx.Response) -> list[list[str]]:
    assert r.status_code == 200, r.text[:500]
    assert r.headers["content-type"].startswith("text/csv")
    assert r.headers["content-disposition"].startswith("attachment;")
    return list(csv.reader(io.StringIO(r.content.decode("utf-8-sig"))))


def xlsx_rows(r: httpx.Response) -> list[list[object]]:
    assert r.status_code == 200, r.text[:500]
    assert r.headers["content-type"].startswith("application/vnd.openxmlformats")
    sheet = load_workbook(io.BytesIO(r.content)).active
    assert sheet is not None
    return [list(row) for row in sheet.iter_rows(values_only=True)]


async def _customers(ctx: Context) -> None:
    async with unit_of_work(ctx):
        for name, region, limit in (("Nordwind", "North", 100), ("=cmd|' /C calc'!A0", "North", 5),
                                    ("Sudwind", "South", 7)):
            await new_doc(ctx, "Test Customer", customer_name=name, region=region, credit_limit=limit).insert()


async def test_list_export_as_csv_and_excel(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    await _customers(ctx)
    args = {"doctype": "Test Customer", "file_format_type": "CSV", "title": "Customers",
            "fields": json.dumps(["`tabTest Customer`.`name`", "region", "credit_limit"]),
            "order_by": "credit_limit desc"}
    r = await client.post(LIST, data=args, headers=admin.token)
    assert 'filename="Customers.csv"' in r.headers["content-disposition"]
    rows = csv_rows(r)
    assert rows[0] == ["ID", "Region", "Credit Limit"]
    assert rows[1:] == [["Nordwind", "North", "100.0"], ["Sudwind", "South", "7.0"],
                        ["'=cmd|' /C calc'!A0", "North", "5.0"]]
    sheet = xlsx_rows(await client.post(LIST, json={**args, "file_format_type": "Excel"}, headers=admin.token))
    assert sheet[0] == ["ID", "Region", "Credit Limit"]
    assert sheet[3] == ["=cmd|' /C calc'!A0", "North", 5]  # text in a string cell, never a formula
    assert sheet[1][2] == 100


async def test_filters_and_selected_items(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    await _customers(ctx)
    base = {"doctype": "Test Customer", "fields": ["name", "region"], "order_by": "name asc"}
    rows = csv_rows(await client.post(LIST, json={**base, "filters": [["region", "=", "North"]]},
                                      headers=admin.token))
    assert [r[0] for r in rows[1:]] == ["'=cmd|' /C calc'!A0", "Nordwind"]
    rows = csv_rows(await client.post(LIST, json={**base, "filters": {"region": "North"},
                                                  "selected_items": ["Nordwind", "Sudwind"]}, headers=admin.token))
    assert [r[0] for r in rows[1:]] == ["Nordwind"]


async def test_row_rules_apply_and_export_right_is_needed(client: httpx.AsyncClient, ctx: Context) -> None:
    await _customers(ctx)
    regional = await make_user(ctx, "regional@example.com", ["System Manager", "Test Regional"])
    rows = csv_rows(await client.post(LIST, json={"doctype": "Test Customer", "fields": ["name"]},
                                      headers=regional.token))
    assert sorted(r[0] for r in rows[1:]) == ["'=cmd|' /C calc'!A0", "Nordwind"]  # the row rule: North only
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])  # read, no export
    body = refused(await client.post(LIST, json={"doctype": "Test Customer"}, headers=reader.token), 403,
                   "PermissionError")
    assert "export" in body["errors"][0]["message"]


async def test_bad_arguments(client: httpx.AsyncClient, admin: ApiUser) -> None:
    refused(await client.post(LIST, json={"doctype": "Test Customer", "file_format_type": "PDF"},
                              headers=admin.token), 417)
    refused(await client.post(LIST, json={"doctype": "Test Customer", "fields": ["nope"]}, headers=admin.token), 417)
    refused(await client.post(LIST, json={"doctype": "Test Customer", "fields": "{oops"}, headers=admin.token), 417)
    refused(await client.post(LIST, json={"doctype": "No Such"}, headers=admin.token), 404)
    # POST only, refused as Frappe refuses a method's other HTTP methods
    refused(await client.get(LIST, params={"doctype": "Test Customer"}, headers=admin.token), 403)


async def _note(ctx: Context, title: str, count: int) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Note", title=title, count=count).insert()


async def test_report_export(client: httpx.AsyncClient, ctx: Context) -> None:
    for title, count in (("first", 1), ("@second", 5), ("third", 3)):
        await _note(ctx, title, count)
    exporter = await make_user(ctx, "exporter@example.com", ["Test Reader", "System Manager"])
    args = {"report_name": "Test Note Summary", "filters": {}, "file_format_type": "Excel"}
    sheet = xlsx_rows(await client.post(REPORT, json=args, headers=exporter.token))
    assert sheet[0] == ["Note", "Title", "Count"]
    assert [(r[1], r[2]) for r in sheet[1:]] == [("@second", 5), ("third", 3), ("first", 1)]
    shown = csv_rows(await client.post(REPORT, json={**args, "file_format_type": "CSV", "visible_idx": [2, 0]},
                                       headers=exporter.token))
    assert [(r[1], r[2]) for r in shown[1:]] == [("first", "1"), ("'@second", "5")]
    refused(await client.post(REPORT, json={**args, "visible_idx": [9]}, headers=exporter.token), 417)
    reader = await make_user(ctx, "reader2@example.com", ["Test Reader"])  # runs the report, may not export
    refused(await client.post(REPORT, json=args, headers=reader.token), 403, "PermissionError")
    refused(await client.post(REPORT, json={**args, "report_name": "Nope"}, headers=exporter.token), 404)
