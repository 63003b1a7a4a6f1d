"""The reference application under load: receive_data, the monthly calculation, the report.

    python bench/receive_data_bench.py [--records 10000] [--employees 1000] [--report-rows 50000]

1. One `receive_data` call delivering `--records` daily values (10 % of them already stored,
   2 % with unknown employee codes) through the engine path (the whitelisted function with a
   System Manager's context, as the HTTP layer calls it), against a raw `insert_many` of the very
   documents it stored (same collection, same indexes): records/s and the ratio.
2. The calculation of one month for `--employees` active employees with 30 daily values each and
   some submitted violations (`workforce_scoring.tasks.calculate_period`): seconds.
3. The Employee Score Report over `--report-rows` score records: one period of `--employees` rows
   among them, and the worst case of every record in the period (ms, median of 5 runs).

Runs on a private durable `mongod` (the product default) unless FW_MONGO_URL is set; loads the
repository's apps (hr, workforce_scoring) and migrates a fresh database.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine import db  # noqa: E402
from engine.apps.loader import registry_from_settings  # noqa: E402
from engine.context import unit_of_work  # noqa: E402
from engine.documents.bulk import insert_many  # noqa: E402
from engine.documents.factory import new_doc  # noqa: E402
from engine.migrate import migrate  # noqa: E402
from engine.mongod import embedded  # noqa: E402
from engine.settings import Settings  # noqa: E402
from engine.site import Site  # noqa: E402

DB_NAME = "fw_bench_scoring"
MONTH = "2024-03"


async def setup_masters(site: Site, employees: int) -> list[tuple[str, str]]:
    """2 companies, 4 branches, `employees` employees (bulk inserted); returns (name, code) pairs."""
    ctx = site.context()
    async with unit_of_work(ctx):
        for company in ("Acme Logistics", "Borealis Freight"):
            await new_doc(ctx, "Company", company_name=company).insert()
        for i, company in enumerate(("Acme Logistics", "Acme Logistics", "Borealis Freight", "Borealis Freight")):
            await new_doc(ctx, "Branch", branch=f"Branch {i + 1}", company=company).insert()
        await new_doc(ctx, "Warehouse Violation Type", violation_type="Blocked Aisle", penalty_points=5).insert()
    rows = [{"employee_name": f"Employee {i:05d}", "employee_number": f"B-{i:05d}", "status": "Active",
             "company": "Acme Logistics" if i % 2 == 0 else "Borealis Freight",
             "branch": f"Branch {1 + (i % 2) * 2 + (i // 2) % 2}"} for i in range(employees)]
    result = await insert_many(ctx, "Employee", rows)
    assert not result.failed, result.failed
    return [(result.names[i], rows[i]["employee_number"]) for i in sorted(result.names)]


async def bench_receive(site: Site, staff: list[tuple[str, str]], records: int, rounds: int = 5) -> dict[str, float]:
    from workforce_scoring.api.external import receive_data

    ctx = site.context()
    days = max(1, records // len(staff))
    dates = [f"2024-01-{1 + d:02d}" if d < 31 else f"2024-02-{d - 30:02d}" for d in range(days)]
    data = [{"employee_code": code, "date": day, "value": (i * 7) % 100}
            for day in dates for i, (_name, code) in enumerate(staff)][:records]
    unknown = len(data) // 50
    for i in range(unknown):  # 2 % unknown codes
        data[i * 50]["employee_code"] = f"UNKNOWN-{i}"
    stored = [row for i, row in enumerate(data) if i % 10 == 5][: len(data) // 10]  # 10 % already stored
    async with unit_of_work(ctx):
        pre = await receive_data(ctx, stored)
    assert pre["created"] == len(stored), pre

    coll = site.db.collection("employee_score")
    before = {r["_id"] for r in await coll.find({}, {"_id": 1}).to_list(None)}

    async def reset() -> None:  # back to the 10 % stored before the delivery
        await coll.delete_many({"_id": {"$nin": sorted(before)}})

    engine_times: list[float] = []
    raw_times: list[float] = []
    created: list[dict[str, Any]] = []
    for _round in range(rounds):  # alternate engine and raw runs; the machine's noise hits both
        await reset()
        started = time.perf_counter()
        async with unit_of_work(ctx):
            result = await receive_data(ctx, data)
        engine_times.append(time.perf_counter() - started)
        assert result["created"] == len(data) - len(stored) - unknown, result
        assert result["skipped"] == len(stored) + unknown
        if not created:
            created = [r for r in await coll.find({}).to_list(None) if r["_id"] not in before]
        await reset()
        started = time.perf_counter()
        await coll.insert_many(created, ordered=False)
        raw_times.append(time.perf_counter() - started)

    # the same delivery over HTTP (in-process ASGI server, API key, JSON body)
    await reset()
    http_s, body_bytes = await deliver_over_http(site, data, len(created))
    engine_s, raw_s = statistics.median(engine_times), statistics.median(raw_times)
    return {"records": len(data), "created": len(created), "engine_s": engine_s, "raw_s": raw_s, "http_s": http_s,
            "engine_rps": len(data) / engine_s, "raw_rps": len(created) / raw_s, "ratio": engine_s / raw_s,
            "best_ratio": min(engine_times) / min(raw_times), "rounds": rounds,
            "http_rps": len(data) / http_s, "body_kb": body_bytes / 1024}


async def deliver_over_http(site: Site, data: list[dict[str, Any]], expected: int) -> tuple[float, int]:
    import httpx
    import orjson

    from engine import auth
    from server.app import create_app

    keys = await auth.generate_keys_for(site, "Administrator")
    headers = {"Authorization": f"token {keys['api_key']}:{keys['api_secret']}", "Content-Type": "application/json"}
    body = orjson.dumps({"data": data})
    app = create_app(site.settings, site=site)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
        started = time.perf_counter()
        response = await client.post("/api/method/workforce_scoring.api.external.receive_data", content=body,
                                     headers=headers)
        elapsed = time.perf_counter() - started
    assert response.status_code == 200 and response.json()["message"]["created"] == expected, response.text[:500]
    return elapsed, len(body)


async def bench_calculation(site: Site, staff: list[tuple[str, str]]) -> dict[str, float]:
    from workforce_scoring.tasks import calculate_period

    ctx = site.context()
    rows = [{"employee": name, "date": f"{MONTH}-{day:02d}", "value": (i + day) % 100, "source": "external_system",
             "period_type": "Daily", "period_value": f"{MONTH}-{day:02d}"}
            for i, (name, _code) in enumerate(staff) for day in range(1, 31)]
    loaded = await insert_many(ctx, "Employee Score", rows, ignore_permissions=True)
    assert len(loaded.names) == len(rows)
    async with unit_of_work(ctx):
        for name, _code in staff[::20]:  # some submitted violations
            doc = await new_doc(ctx, "Warehouse Violation", employee=name, date=f"{MONTH}-10",
                                violation_type="Blocked Aisle").insert()
            await doc.submit()
    await drain(site)
    await site.db.collection("employee_score").delete_many({"period_type": "Monthly"})  # the violations' jobs
    started = time.perf_counter()
    async with unit_of_work(ctx):
        counts = await calculate_period(ctx, "Monthly", MONTH)
    elapsed = time.perf_counter() - started
    assert counts["created"] == len(staff), counts
    return {"employees": len(staff), "daily_rows": len(rows), "seconds": elapsed}


async def bench_report(site: Site, staff: list[tuple[str, str]], total: int) -> dict[str, float]:
    from engine.reports import script_report as reports

    ctx = site.context()
    coll = site.db.collection("employee_score")
    existing = await coll.count_documents({"period_type": "Monthly"})
    template = await coll.find_one({"period_type": "Monthly"})
    assert template is not None
    filler = []
    for i in range(total - existing):
        name, _code = staff[i % len(staff)]
        period = f"{2000 + i // (12 * len(staff))}-{1 + (i // len(staff)) % 12:02d}"
        filler.append({**template, "_id": f"ES-X{i:08d}", "employee": name, "period_value": period,
                       "value": float(i % 100)})
    await coll.insert_many(filler, ordered=False)
    report = site.apps.reports["Employee Score Report"]

    async def run(filters: dict[str, Any], rows: int) -> float:
        times = []
        for _ in range(5):
            started = time.perf_counter()
            result = await reports.run(ctx, report, filters)
            times.append(time.perf_counter() - started)
        assert len(result["result"]) == rows and len(result["chart"]["data"]["labels"]) == 10
        return statistics.median(times) * 1000

    one_period = await run({"period": MONTH, "company": ""}, len(staff))
    one_company = await run({"period": MONTH, "company": "Acme Logistics"}, (len(staff) + 1) // 2)
    await coll.update_many({"period_type": "Monthly"}, {"$set": {"period_value": "1999-12"}})
    everything = await run({"period": "1999-12", "company": ""}, total)
    return {"total": await coll.count_documents({"period_type": "Monthly"}), "period_rows": len(staff),
            "one_period_ms": one_period, "one_company_ms": one_company, "all_in_period_ms": everything}


async def drain(site: Site) -> None:
    from engine.jobs.queue import backend_for

    backend = backend_for(site)
    if hasattr(backend, "drain"):
        await backend.drain()


async def main(records: int, employees: int, report_rows: int) -> None:
    url = os.environ.get("FW_MONGO_URL")
    data_dir = None
    mongod = None
    if not url:
        data_dir = Path(tempfile.mkdtemp(prefix="fw-bench-scoring-"))
        mongod = embedded.start(data_dir, durable=True)
        url = mongod.url
    database = db.connect(url, DB_NAME)
    try:
        await database.drop()
        settings = Settings(root_dir=REPO, mongo_url=url, db_name=DB_NAME, admin_password="bench-admin",
                            meta_check_interval=0.0)
        site = Site(settings, database, registry_from_settings(settings))
        await migrate(site)
        staff = await setup_masters(site, employees)

        receive = await bench_receive(site, staff, records)
        print(f"receive_data (median of {receive['rounds']}): {receive['records']} records ({receive['created']} "
              f"created) in {receive['engine_s']:.3f} s = {receive['engine_rps']:.0f} records/s; raw insert_many of "
              f"the {receive['created']} stored documents {receive['raw_s']:.3f} s = {receive['raw_rps']:.0f} docs/s; "
              f"ratio {receive['ratio']:.2f}x (best runs {receive['best_ratio']:.2f}x); over HTTP (in-process ASGI, "
              f"{receive['body_kb']:.0f} KiB JSON body) "
              f"{receive['http_s']:.3f} s = {receive['http_rps']:.0f} records/s", flush=True)
        await site.db.collection("employee_score").delete_many({})

        calc = await bench_calculation(site, staff)
        print(f"calculation: {calc['employees']} employees x 30 days ({calc['daily_rows']} daily rows) in "
              f"{calc['seconds']:.2f} s", flush=True)

        rep = await bench_report(site, staff, report_rows)
        print(f"report: {rep['total']} Monthly score records; one period ({rep['period_rows']} rows) "
              f"{rep['one_period_ms']:.0f} ms, one company of it {rep['one_company_ms']:.0f} ms; all "
              f"{rep['total']} in the period {rep['all_in_period_ms']:.0f} ms", flush=True)
        await site.close_services()
    finally:
        await database.drop()
        await database.close()
        if mongod is not None:
            mongod.stop()
        if data_dir is not None:
            shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--employees", type=int, default=1_000)
    parser.add_argument("--report-rows", type=int, default=50_000)
    args = parser.parse_args()
    asyncio.run(main(args.records, args.employees, args.report_rows))
