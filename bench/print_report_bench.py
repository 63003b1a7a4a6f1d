"""Issue 33: the report view's grouped query vs the raw MongoDB aggregation, and PDF rendering.

    python bench/print_report_bench.py [--rows 1000000] [--rounds 5]

Loads ROWS Warehouse Violations (raw insert_many: this measures reads) spread over 12 months and 4
branches, then times `fw.desk.reportview.get`'s engine function (group by branch, sum of penalty
points; Administrator, so no permission filter) against the same `$group` through PyMongo, both
over every row and for one month (`period`, which has an index: `explain()` shows which plan the
`$match` gets). Then the PDF of one violation in the standard layout (pages/s, one page each) and of
Scoring Settings with a 500-row table, with the peak resident memory each added and the CPU seconds
per PDF. Medians of ROUNDS.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from backup import peak_memory  # noqa: E402
from pypdf import PdfReader  # noqa: E402

from engine import db  # noqa: E402
from engine.apps.loader import registry_from_settings  # noqa: E402
from engine.context import bind, unit_of_work  # noqa: E402
from engine.desk import report_builder  # noqa: E402
from engine.documents.factory import new_doc  # noqa: E402
from engine.documents.naming import hash_name  # noqa: E402
from engine.migrate import migrate  # noqa: E402
from engine.mongod import embedded  # noqa: E402
from engine.printing.page import print_page  # noqa: E402
from engine.printing.pdf import to_pdf  # noqa: E402
from engine.settings import Settings  # noqa: E402
from engine.site import Site  # noqa: E402

BRANCHES = ["Branch 1", "Branch 2", "Branch 3", "Branch 4"]
MONTH = "2026-06"


async def load(site: Site, rows: int) -> str:
    ctx = site.context()
    async with unit_of_work(ctx):
        for company in ("Acme Logistics", "Borealis Freight"):
            await new_doc(ctx, "Company", company_name=company).insert()
        for i, branch in enumerate(BRANCHES):
            company = "Acme Logistics" if i < 2 else "Borealis Freight"
            await new_doc(ctx, "Branch", branch=branch, company=company).insert()
        await new_doc(ctx, "Warehouse Violation Type", violation_type="Blocked Aisle", penalty_points=5).insert()
        employee = await new_doc(ctx, "Employee", employee_name="Ada Lovelace", employee_number="E-1", status="Active",
                                 company="Acme Logistics", branch="Branch 1").insert()
    coll = site.db.collection(site.meta.get("Warehouse Violation").collection)
    now = "2026-06-01 00:00:00.000000"
    batch: list[dict[str, Any]] = []
    for i in range(rows):
        month = f"2026-{1 + i % 12:02d}"
        batch.append({"_id": f"WV-BENCH-{i:07d}", "owner": "Administrator", "modified_by": "Administrator",
                      "creation": now, "modified": now, "docstatus": 1, "idx": 0, "employee": employee.name,
                      "employee_name": "Ada Lovelace", "company": "Acme Logistics", "branch": BRANCHES[i % 4],
                      "date": f"{month}-10", "period": month, "violation_type": "Blocked Aisle",
                      "penalty_points": float(1 + i % 9), "workflow_state": "Confirmed"})
        if len(batch) == 10_000:
            await coll.insert_many(batch, ordered=False)
            batch = []
    if batch:
        await coll.insert_many(batch, ordered=False)
    return str(employee.name)


async def timed(call: Any, rounds: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(rounds):
        started = time.perf_counter()
        result = await call()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


async def bench_report(site: Site, rounds: int) -> None:
    ctx = site.context()
    coll = site.db.collection(site.meta.get("Warehouse Violation").collection)
    for label, filters, match in (("all rows", None, {}), (f"one month ({MONTH})", [["period", "=", MONTH]],
                                                           {"period": MONTH})):
        async def engine(filters: Any = filters) -> Any:
            with bind(ctx):
                return await report_builder.get(ctx, "Warehouse Violation", group_by="branch", filters=filters,
                                                aggregate_function="sum", aggregate_on_field="penalty_points")

        pipeline = [{"$match": match}, {"$group": {"_id": "$branch", "count": {"$sum": 1},
                                                   "points": {"$sum": "$penalty_points"}}}, {"$sort": {"points": -1}}]

        async def raw(pipeline: list[dict[str, Any]] = pipeline) -> Any:
            return await (await coll.aggregate(pipeline)).to_list(None)

        engine_s, rows = await timed(engine, rounds)
        raw_s, raw_rows = await timed(raw, rounds)
        assert sorted((r[0], r[1], r[2]) for r in rows["values"]) == sorted(
            (r["_id"], r["count"], r["points"]) for r in raw_rows)
        explain = await site.db.handle.command({
            "explain": {"aggregate": coll.name, "pipeline": pipeline, "cursor": {}}, "verbosity": "queryPlanner"})
        plan = str(explain)
        stage = "IXSCAN" if "IXSCAN" in plan else "COLLSCAN" if "COLLSCAN" in plan else "?"
        print(f"group by branch, sum of points, {label:22} engine {engine_s * 1000:8.1f} ms"
              f"   raw {raw_s * 1000:8.1f} ms   ratio {engine_s / raw_s:5.2f}   plan {stage}", flush=True)


async def bench_pdf(site: Site, employee: str, rounds: int) -> None:
    ctx = site.context()
    with bind(ctx):
        async with unit_of_work(ctx):
            doc = await new_doc(ctx, "Warehouse Violation", employee=employee, date="2026-06-10",
                                violation_type="Blocked Aisle", description="Pallet left in aisle 4").insert()
        coll = site.db.collection(site.meta.get("Scoring Settings").collection)
        levels = ["needs_improvement", "average", "good", "excellent"]
        rows = [{"name": hash_name(), "idx": i + 1, "level": levels[i % 4],
                 "min_pph": i * 1.5, "max_pph": i * 1.5 + 1, "parent": "Scoring Settings",
                 "parentfield": "thresholds", "parenttype": "Scoring Settings", "docstatus": 0} for i in range(500)]
        await coll.update_one({"_id": "Scoring Settings"}, {"$set": {"thresholds": rows, "docstatus": 0,
                                                                     "modified": "2026-06-01 00:00:00.000000"}},
                              upsert=True)
        for label, doctype, name in (("one violation, standard layout", "Warehouse Violation", doc.name),
                                     ("Scoring Settings, 500-row table", "Scoring Settings", "Scoring Settings")):
            page = await print_page(ctx, doctype, name)
            pdf = await to_pdf(ctx, page.html)  # warm-up (fonts)
            cpu = time.process_time()
            async with peak_memory() as memory:
                seconds, pdf = await timed(lambda: to_pdf(ctx, page.html), rounds)  # noqa: B023 (awaited here)
            cpu = (time.process_time() - cpu) / rounds  # CPU seconds per PDF: what a busy machine's clock hides
            pages = len(PdfReader(io.BytesIO(pdf)).pages)
            print(f"PDF {label:32} {seconds * 1000:8.1f} ms  {pages:3d} pages  {pages / seconds:6.1f} pages/s  "
                  f"{len(pdf) / 1024:7.0f} KB  peak RSS +{memory[0] / 1e6:.0f} MB  CPU {cpu:.2f} s", flush=True)


async def main(rows: int, rounds: int) -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="fw-bench-print-"))
    mongod = embedded.start(data_dir / "mongo", durable=True)
    try:
        settings = Settings(root_dir=REPO, mongo_url=mongod.url, db_name="fw_bench_print", data_dir=data_dir,
                            admin_password="bench-admin")
        site = Site(settings, db.connect(mongod.url, "fw_bench_print"), registry_from_settings(settings))
        await site.db.drop()
        await migrate(site)
        print(f"loading {rows:,} Warehouse Violations ...", flush=True)
        started = time.perf_counter()
        employee = await load(site, rows)
        print(f"loaded in {time.perf_counter() - started:.0f} s", flush=True)
        await bench_report(site, rounds)
        await bench_pdf(site, employee, rounds)
        await site.db.drop()
        await site.db.close()
    finally:
        mongod.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main(args.rows, args.rounds))
