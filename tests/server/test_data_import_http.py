"""Data Import over HTTP (business.md §3.1) under Frappe's method paths (and their `frappe.` aliases):
the template as a file, the preview, the import as a job on `long` with its status and per-row logs;
403 without the import right, 417 for a bad file."""

from __future__ import annotations

import csv
import io

import httpx

from engine.context import Context
from engine.site import Site
from tests.apps.conftest import drain_jobs
from tests.engine.dataimport.helpers import csv_bytes, data_import
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import ok, refused

PATH = "/api/method/fw.core.doctype.data_import.data_import"


async def test_template_is_a_download(client: httpx.AsyncClient, admin: ApiUser) -> None:
    for path in (PATH, "/api/method/frappe.core.doctype.data_import.data_import"):
        r = await client.get(f"{path}.download_template", params={"doctype": "Test Customer"}, headers=admin.token)
        assert r.status_code == 200, r.text
        assert r.headers["content-disposition"].startswith('attachment; filename="Test Customer.csv"')
        assert list(csv.reader(io.StringIO(r.content.decode("utf-8-sig")))) == [
            ["ID", "Customer Name", "Region", "Credit Limit"]]
    r = await client.post(f"{PATH}.download_template", headers=admin.token,
                          json={"doctype": "Test Customer", "file_type": "Excel"})
    assert r.status_code == 200 and r.content.startswith(b"PK")
    refused(await client.get(f"{PATH}.download_template", params={"doctype": "Test Customer", "file_type": "PDF"},
                             headers=admin.token), 417)


async def test_preview_start_status_and_logs(client: httpx.AsyncClient, ctx: Context, site: Site,
                                             admin: ApiUser) -> None:
    doc = await data_import(ctx, "Test Customer", "c.csv", csv_bytes("Customer Name,Credit Limit\nA,1\nB,x\n"))
    preview = ok(await client.post(f"{PATH}.get_preview_from_template", json={"data_import": doc.name},
                                   headers=admin.token))["message"]
    assert preview["payload_count"] == 2
    assert preview["problems"] == ["Row 3, column B (Credit Limit): x is not a number"]
    job = ok(await client.post(f"{PATH}.form_start_import", json={"data_import": doc.name}, headers=admin.token))
    assert job["message"]
    await drain_jobs(site)
    status = ok(await client.get(f"{PATH}.get_import_status", params={"data_import_name": doc.name},
                                 headers=admin.token))["message"]
    assert status == {"status": "Partial Success", "total_records": 2, "success": 1, "failed": 1}
    logs = ok(await client.get(f"{PATH}.get_import_logs", params={"data_import": doc.name},
                               headers=admin.token))["message"]
    assert [(log["docname"], log["success"]) for log in logs] == [("A", 1), (None, 0)]
    pages = [ok(await client.get(f"{PATH}.get_import_logs", params={
        "data_import": doc.name, "start": start, "page_length": 1, "failed_first": 1}, headers=admin.token))["message"]
        for start in (0, 1, 2)]  # the Desk's: a page at a time, the failed rows first
    assert [[(log["docname"], log["success"]) for log in page] for page in pages] == [[(None, 0)], [("A", 1)], []]
    body = refused(await client.get(f"{PATH}.get_import_logs", params={"data_import": doc.name, "page_length": "x"},
                                    headers=admin.token), 417)
    assert body["exc_type"] == "ArgumentTypeError" and "page_length" in body["exception"]
    refused(await client.get(f"{PATH}.form_start_import", params={"data_import": doc.name}, headers=admin.token), 403)


async def test_refusals(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    doc = await data_import(ctx, "Test Customer", "c.pdf", b"%PDF-1.4")
    body = refused(await client.post(f"{PATH}.get_preview_from_template", json={"data_import": doc.name},
                                     headers=admin.token), 417)
    assert "Import CSV or Excel (XLSX) files only" in body["errors"][0]["message"]
    refused(await client.post(f"{PATH}.form_start_import", json={"data_import": doc.name}, headers=admin.token), 417)
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    refused(await client.post(f"{PATH}.get_preview_from_template", json={"data_import": doc.name},
                              headers=reader.token), 403)
    refused(await client.get(f"{PATH}.download_template", params={"doctype": "Test Customer"},
                             headers=reader.token), 403)
    refused(await client.post(f"{PATH}.get_preview_from_template", json={"data_import": "nope"},
                              headers=admin.token), 404)
