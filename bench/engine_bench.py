"""Engine vs raw driver, same process, same mongod, one run: insert, get, list, save.

    python bench/engine_bench.py [--n 2000] [--rows 100000]

Each operation runs N times sequentially (latency-bound, like one request after another) through
the engine's public API and through PyMongo's AsyncMongoClient doing the equivalent database
work, and prints ops/s and the engine/raw ratio. The mongod is the embedded one, started with
durable (journaled) writes like the product default.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from engine import db  # noqa: E402
from engine.apps.loader import registry_from_settings  # noqa: E402
from engine.documents.factory import get_doc, new_doc  # noqa: E402
from engine.documents.naming import hash_name  # noqa: E402
from engine.migrate import sync_schema  # noqa: E402
from engine.mongod import embedded  # noqa: E402
from engine.query.listing import get_list  # noqa: E402
from engine.settings import Settings  # noqa: E402
from engine.site import Site  # noqa: E402

STATUSES = ["Open", "Closed", "Hold"]


def record_fields(i: int) -> dict[str, object]:
    return {"title": f"Record {i}", "status": STATUSES[i % 3], "qty": i % 500, "amount": round(i * 1.25, 2),
            "rate": (i % 97) / 7, "posted": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}", "active": i % 2,
            "note": "benchmark row"}


async def timed(n: int, op: Callable[[int], Awaitable[object]]) -> float:
    for i in range(min(50, n)):  # warm-up
        await op(i)
    started = time.perf_counter()
    for i in range(n):
        await op(i)
    return n / (time.perf_counter() - started)


async def main(n: int, rows: int) -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="fw-bench-"))
    mongod = embedded.start(data_dir, durable=True)
    try:
        settings = Settings(root_dir=ROOT, mongo_url=mongod.url, db_name="fw_bench")
        registry = registry_from_settings(settings)
        database = db.connect(mongod.url, "fw_bench")
        site = Site(settings, database, registry)
        await sync_schema(site)
        ctx = site.context("Administrator")
        meta = ctx.meta("Bench Record")
        raw = database.collection(meta.collection)
        raw_ins = database.collection("raw_insert")
        now = "2026-01-01 00:00:00.000000"
        std = {"owner": "Administrator", "modified_by": "Administrator", "creation": now, "modified": now,
               "docstatus": 0, "idx": 0}

        # 100k rows for get/list/save, loaded in bulk
        print(f"loading {rows} rows ...", flush=True)
        batch = []
        names = []
        for i in range(rows):
            name = hash_name()
            names.append(name)
            stamp = f"2026-01-01 00:00:{i % 60:02d}.{i:06d}"
            batch.append({"_id": name, **std, "creation": stamp, "modified": stamp, **record_fields(i)})
            if len(batch) == 5000:
                await raw.insert_many(batch, ordered=False)
                batch = []
        if batch:
            await raw.insert_many(batch, ordered=False)
        for coll in (raw_ins,):
            await coll.create_index([("status", 1), ("posted", 1)])
        rnd = random.Random(7)
        picks = [rnd.choice(names) for _ in range(n + 50)]

        async def engine_insert(i: int) -> None:
            await new_doc(ctx, "Bench Record", record_fields(i)).insert()

        async def raw_insert(i: int) -> None:
            await raw_ins.insert_one({"_id": hash_name(), **std, **record_fields(i)})

        async def engine_get(i: int) -> None:
            doc = await get_doc(ctx, "Bench Record", picks[i])
            doc.as_dict()

        async def raw_get(i: int) -> None:
            await raw.find_one({"_id": picks[i]})

        list_filters = [["status", "=", "Open"], ["posted", ">=", "2026-03-01"]]

        async def engine_list(i: int) -> None:
            await get_list(ctx, "Bench Record", fields=["name", "title", "status", "posted", "qty"],
                           filters=list_filters, order_by="posted desc", limit_page_length=20)

        async def raw_list(i: int) -> None:
            cursor = raw.find({"status": "Open", "posted": {"$gte": "2026-03-01"}},
                              {"_id": 1, "title": 1, "status": 1, "posted": 1, "qty": 1},
                              sort=[("posted", -1), ("_id", -1)], limit=20)
            await cursor.to_list(None)

        async def engine_save(i: int) -> None:
            doc = await get_doc(ctx, "Bench Record", picks[i])
            doc.qty = i
            await doc.save()

        async def raw_save(i: int) -> None:
            current = await raw.find_one({"_id": picks[i]})
            await raw.update_one({"_id": picks[i], "modified": current["modified"]},
                                 {"$set": {"qty": i, "modified": now, "modified_by": "Administrator"}})

        results = []
        for label, eng, rw, bar in (
            ("insert (8 fields, hash name)", engine_insert, raw_insert, 0.4),
            ("get by name", engine_get, raw_get, 0.6),
            (f"get_list 2 filters+sort, 20 of {rows}", engine_list, raw_list, 0.6),
            ("save one changed field (load+save)", engine_save, raw_save, 0.4),
        ):
            r = await timed(n, rw)
            e = await timed(n, eng)
            results.append((label, e, r, e / r, bar))
        print(f"\n{'operation':42} {'engine ops/s':>13} {'raw ops/s':>11} {'ratio':>7} {'bar':>5}")
        for label, e, r, ratio, bar in results:
            mark = "ok" if ratio >= bar else "BELOW"
            print(f"{label:42} {e:13.0f} {r:11.0f} {ratio:7.2f} {bar:5.1f} {mark}")
        await database.drop()
        await database.close()
    finally:
        mongod.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=2000, help="operations per measurement")
    parser.add_argument("--rows", type=int, default=100_000, help="rows in the listed collection")
    args = parser.parse_args()
    asyncio.run(main(args.n, args.rows))
