"""Issue 32: Data Import and Export speed and memory. ROWS Employee rows (apps/hr) imported from a CSV
and from an XLSX file through a Data Import record (the job's code path: batches of new documents
through the whole insert plan, hooks and Version records included, a Data Import Log per document),
against `fw.insert_many` of the same rows (batches of 1,000, no hooks) and the driver's `insert_many`
(raw documents, batches of 10,000), on the same durable mongod; then the export of the ROWS employees
as CSV and XLSX.

    python bench/data_import_bench.py [--rows 100000] [--export-only | --import-only]

`--export-only` loads the rows with the driver and measures only the export; `--import-only` leaves
the export out.

Peak memory is the process's resident set sampled every 50 ms during each step, minus the resident
set before it (the file's own bytes are held: they are read from the File store once per pass).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from openpyxl import Workbook

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine import db  # noqa: E402
from engine.apps.loader import registry_from_settings  # noqa: E402
from engine.context import unit_of_work  # noqa: E402
from engine.core import data_import as di  # noqa: E402
from engine.documents.bulk import insert_many  # noqa: E402
from engine.documents.factory import new_doc  # noqa: E402
from engine.documents.naming import hash_name  # noqa: E402
from engine.export.list_export import export_list  # noqa: E402
from engine.files.upload import save_file  # noqa: E402
from engine.migrate import migrate  # noqa: E402
from engine.mongod import embedded  # noqa: E402
from engine.settings import Settings  # noqa: E402
from engine.site import Site  # noqa: E402

HEADER = ["Employee Name", "Employee Number", "Status", "Company", "Branch", "Date of Joining"]


def rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


async def measured(step: Callable[[], Awaitable[Any]]) -> tuple[Any, float, int]:
    """The step's result, its seconds and its peak resident set above the start."""
    before = peak = rss()
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss())
            await asyncio.sleep(0.05)

    sampler = asyncio.create_task(sample())
    started = time.perf_counter()
    try:
        result = await step()
    finally:
        done.set()
        await sampler
    return result, time.perf_counter() - started, max(peak - before, 0)


def rows_of(n: int) -> list[list[Any]]:
    return [[f"Employee {i}", f"E-{i:06d}", "Active", "Acme", "North", f"20{10 + i % 15}-{1 + i % 12:02d}-15"]
            for i in range(n)]


def csv_file(rows: list[list[Any]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(HEADER)
    writer.writerows(rows)
    return out.getvalue().encode()


def xlsx_file(rows: list[list[Any]]) -> bytes:
    book = Workbook(write_only=True)
    sheet = book.create_sheet("Employees")
    sheet.append(HEADER)
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


async def clear(site: Site) -> None:
    for doctype in ("Employee", "Data Import Log"):
        await site.db.collection(site.meta.get(doctype).collection).delete_many({})


async def import_file(site: Site, name: str, content: bytes) -> dict[str, Any]:
    ctx = site.context("Administrator")
    file = await save_file(ctx, content, name, is_private=True)
    async with unit_of_work(ctx):
        record = await new_doc(ctx, "Data Import", reference_doctype="Employee", import_file=file.file_url).insert()
    return await di.run_data_import(site.context("Administrator"), record.name)


async def bulk(site: Site, rows: list[list[Any]]) -> int:
    ctx = site.context("Administrator")
    keys = ["employee_name", "employee_number", "status", "company", "branch", "date_of_joining"]
    done = 0
    for start in range(0, len(rows), 1000):
        async with unit_of_work(ctx):
            batch = [dict(zip(keys, r, strict=True)) for r in rows[start:start + 1000]]
            result = await insert_many(ctx, "Employee", batch)
        assert not result.failed and not result.duplicates, result
        done += len(result.names)
    return done


async def raw(site: Site, rows: list[list[Any]]) -> int:
    coll = site.db.collection(site.meta.get("Employee").collection)
    now = "2026-11-28 00:00:00.000000"
    keys = ["employee_name", "employee_number", "status", "company", "branch", "date_of_joining"]
    for start in range(0, len(rows), 10_000):
        await coll.insert_many([{"_id": hash_name(), "owner": "Administrator", "modified_by": "Administrator",
                                 "creation": now, "modified": now, "docstatus": 0, "idx": 0,
                                 **dict(zip(keys, r, strict=True))} for r in rows[start:start + 10_000]],
                               ordered=False)
    return len(rows)


async def export(site: Site, n: int, out: list[str]) -> None:
    fields = ["name", "employee_name", "employee_number", "status", "company", "branch", "date_of_joining"]
    for fmt in ("CSV", "Excel"):
        download, seconds, memory = await measured(lambda fmt=fmt: export_list(
            site.context("Administrator"), "Employee", fmt, fields, None, None, None, None))
        out.append(line(f"export as {fmt} ({download.size / 1e6:.1f} MB)", n, seconds, memory))
        download.content.close()


def line(label: str, n: int, seconds: float, memory: int, base: float | None = None) -> str:
    rate = n / seconds
    ratio = f"{base / rate:.1f}x" if base else ""
    return f"| {label} | {n:,} | {seconds:.1f} | {rate:,.0f} | {ratio} | {memory / 1e6:.0f} MB |"


async def main(n: int, export_only: bool = False, import_only: bool = False) -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="fw-bench-import-"))
    mongod = embedded.start(data_dir / "mongo", durable=True)
    try:
        settings = Settings(root_dir=REPO, mongo_url=mongod.url, db_name="fw_bench_import", data_dir=data_dir,
                            admin_password="bench-admin", access_log="off", max_file_size=200 * 1024 * 1024)
        site = Site(settings, db.connect(mongod.url, "fw_bench_import"), registry_from_settings(settings))
        await site.db.drop()
        await migrate(site)
        ctx = site.context("Administrator")
        async with unit_of_work(ctx):
            await new_doc(ctx, "Company", company_name="Acme").insert()
            await new_doc(ctx, "Branch", branch="North", company="Acme").insert()
        rows = rows_of(n)
        csv_bytes, xlsx_bytes = csv_file(rows), xlsx_file(rows)
        print(f"{n:,} rows: CSV {len(csv_bytes) / 1e6:.1f} MB, XLSX {len(xlsx_bytes) / 1e6:.1f} MB", flush=True)
        out = ["| step | rows | seconds | rows/s | slower than fw.insert_many | peak memory above start |",
               "|---|---:|---:|---:|---:|---:|"]
        _r, raw_s, raw_m = await measured(lambda: raw(site, rows))
        out.append(line("driver insert_many (raw documents)", n, raw_s, raw_m))
        if export_only:
            await export(site, n, out)
            print("\n".join(out))
            return
        await clear(site)
        _b, bulk_s, bulk_m = await measured(lambda: bulk(site, rows))
        await clear(site)
        base = n / bulk_s
        result, csv_s, csv_m = await measured(lambda: import_file(site, "employees.csv", csv_bytes))
        assert result["status"] == "Success", result
        await clear(site)
        result, xlsx_s, xlsx_m = await measured(lambda: import_file(site, "employees.xlsx", xlsx_bytes))
        assert result["status"] == "Success", result
        out += [line("fw.insert_many (batches of 1,000)", n, bulk_s, bulk_m),
                line("Data Import from CSV", n, csv_s, csv_m, base),
                line("Data Import from XLSX", n, xlsx_s, xlsx_m, base)]
        if not import_only:
            await export(site, n, out)
        print("\n".join(out))
    finally:
        mongod.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--export-only", action="store_true")
    parser.add_argument("--import-only", action="store_true")
    args = parser.parse_args()
    asyncio.run(main(args.rows, args.export_only, args.import_only))
