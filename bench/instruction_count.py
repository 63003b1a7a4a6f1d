"""Machine instructions per request, fw against the bare one-call app: a figure that does not move
with the machine's load (CPU time on these shared 2-core machines moves by 5-15% from run to run).

    python bench/instruction_count.py [--ops get_one,get_list,update,create] [--requests 300]
                                      [--no-db] [--access-log off|text|json] [--property-setters N]

Each app runs in a child process under valgrind's cachegrind (`--cache-sim=no`: instruction counts
only), in-process as bench/profile_writes.py drives it (ASGI, one client, no sockets), against one
mongod outside valgrind holding the peer workload's data (bench/peer_bench.py). Every app and
operation runs twice, with a warm-up and then 100 or 100 + `--requests` requests; the difference of
the two totals divided by `--requests` is the cost of one request, with start-up and warm-up taken
out. The counts are the whole process's: the server's Python, the driver, the event loop.

`--no-db`: the driver's `find_one`, `insert_one` and `find` command on the benchmark's collection answer from memory
(get_one and create only), so what is left is the server's own work: fw's code against Starlette and
one handler.

`--property-setters N`: the site carries N Property Setters on Bench Score (up to 50: seven properties
of each of its seven fields that change no answer, and the fields' order), applied by fw's meta.
Each fw child migrates as it starts (as `fw serve` does), so a definition change must be synced
before: with it pending, one child of a pair paid for the DocType records' rewrite and the per-request
figure moved by ±900k instructions.

A diagnostic, not a test; findings are in bench/README.md ("Instructions per request"). valgrind
comes from Debian's `valgrind` package.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from bench import profile_writes  # noqa: E402
from bench.peer_bench import DB_NAME, seed  # noqa: E402
from engine.mongod import embedded  # noqa: E402
from engine.settings import Settings  # noqa: E402
from server.app import create_app  # noqa: E402

APPS = ("fw", "one-call")
# properties that change how the Desk shows a field, not what the API answers
NEUTRAL_PROPERTIES = {"label": "Shown {0}", "description": "About {0}", "bold": "1", "print_hide": "1",
                      "in_standard_filter": "1", "in_list_view": "1", "allow_on_submit": "1"}
BENCH_FIELDS = ("employee_name", "company", "branch", "employee_number", "date", "value", "status")
OPS = ("get_one", "get_list", "update", "create")
NO_DB_OPS = ("get_one", "create")
WARM_UP = 100


def answer_from_memory(records: dict[str, dict[str, Any]]) -> None:
    """Replace the driver's find_one and insert_one on the benchmark's collection (and only there:
    fw's own lookups still reach mongod) by answers from `records`."""
    from pymongo.asynchronous.collection import AsyncCollection
    from pymongo.results import InsertOneResult

    real_find_one, real_insert_one = AsyncCollection.find_one, AsyncCollection.insert_one

    async def find_one(self: Any, filter: Any = None, *args: Any, **kwargs: Any) -> Any:
        if self.name != "bench_score":
            return await real_find_one(self, filter, *args, **kwargs)
        record = records.get(filter["_id"])
        return dict(record) if record is not None else None

    async def insert_one(self: Any, document: Any, *args: Any, **kwargs: Any) -> Any:
        if self.name != "bench_score":
            return await real_insert_one(self, document, *args, **kwargs)
        return InsertOneResult(document.get("_id"), True)

    from pymongo.asynchronous.database import AsyncDatabase

    real_command = AsyncDatabase.command

    async def command(self: Any, command: Any, *args: Any, **kwargs: Any) -> Any:
        # fw's `Database.find_by_id` (engine/db.py) reads a document as a `find` command
        if not isinstance(command, dict) or command.get("find") != "bench_score":
            return await real_command(self, command, *args, **kwargs)
        record = records.get(command["filter"]["_id"])
        return {"cursor": {"firstBatch": [dict(record)] if record is not None else [], "id": 0}, "ok": 1.0}

    AsyncCollection.find_one = find_one  # type: ignore[method-assign]
    AsyncCollection.insert_one = insert_one  # type: ignore[method-assign]
    AsyncDatabase.command = command  # type: ignore[method-assign]


async def child(label: str, op: str, requests: int, state: dict[str, Any], no_db: bool) -> None:
    """Run in the valgrind'ed process: warm up, then `requests` requests of `op` against `label`. A
    bare app's process holds that app alone, as under wrk: no fw site, whose background tasks (cache
    bus, job relay) and garbage-collector tuning would be counted with it."""
    records: dict[str, dict[str, Any]] = {}
    if no_db:
        from pymongo import AsyncMongoClient

        mongo: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(state["url"])
        async for record in mongo[DB_NAME]["bench_score"].find({"_id": {"$in": state["names"]}}):
            records[record["_id"]] = record
        await mongo.close()
        answer_from_memory(records)
    if label != "fw":
        client = profile_writes.bare_clients(state["url"])[label]
        await profile_writes.drive(client, op, state["names"], WARM_UP)
        await profile_writes.drive(client, op, state["names"], requests, start=WARM_UP)
        return
    settings = Settings(root_dir=ROOT, mongo_url=state["url"], db_name=DB_NAME, admin_password="bench-admin-1",
                        access_log=state.get("access_log", "off"))
    app = create_app(settings)
    async with app.router.lifespan_context(app) as lifespan_state:
        client = profile_writes.AsgiClient(app, {"Authorization": state["auth"]}, lifespan_state or {})
        await profile_writes.drive(client, op, state["names"], WARM_UP)
        await profile_writes.drive(client, op, state["names"], requests, start=WARM_UP)


async def add_property_setters(url: str, count: int) -> None:
    """`count` Property Setter records on Bench Score, written through the engine (the controller checks
    each), then the schema synced: otherwise the first fw child would rewrite the DocType records in
    its start-up migrate (its definitions changed) and the other not, a one-off cost in one total."""
    from engine import db
    from engine.apps.loader import registry_from_settings
    from engine.context import unit_of_work
    from engine.documents.factory import new_doc
    from engine.migrate import sync_schema
    from engine.site import Site

    rows = [{"field_name": field, "property": prop, "value": value.format(field)}
            for field in BENCH_FIELDS for prop, value in NEUTRAL_PROPERTIES.items()][:max(count - 1, 0)]
    if count:
        rows.append({"doctype_or_field": "DocType", "property": "field_order",
                     "value": json.dumps(list(reversed(BENCH_FIELDS)))})
    settings = Settings(root_dir=ROOT, mongo_url=url, db_name=DB_NAME, admin_password="bench-admin-1")
    site = Site(settings, db.connect(url, DB_NAME), registry_from_settings(settings))
    await site.meta.refresh_if_stale()
    ctx = site.context("Administrator")
    async with unit_of_work(ctx):
        for row in rows:
            await new_doc(ctx, "Property Setter", doc_type="Bench Score", **row).insert()
    await sync_schema(site)
    await site.close()


def instructions(label: str, op: str, requests: int, state_file: Path, work: Path, no_db: bool) -> int:
    out = work / f"cachegrind.{label}.{op}.{requests}"
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
               sys.executable, __file__, "--child", label, op, str(requests), str(state_file)]
    if no_db:
        command.append("--no-db")
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    if done.returncode != 0:
        raise RuntimeError(f"{label} {op} {requests}: exit {done.returncode}\n{done.stderr[-3000:]}")
    for line in out.read_text().splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise RuntimeError(f"no summary in {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", default=",".join(OPS))
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--no-db", action="store_true")
    parser.add_argument("--access-log", choices=("off", "text", "json"), default="off",
                        help="fw's access log (fw serve's default is text)")
    most = len(BENCH_FIELDS) * len(NEUTRAL_PROPERTIES) + 1
    parser.add_argument("--property-setters", type=int, default=0, metavar="N",
                        help=f"N Property Setters on Bench Score (at most {most})")
    parser.add_argument("--child", nargs=4, metavar=("APP", "OP", "REQUESTS", "STATE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        label, op, requests, state_file = args.child
        asyncio.run(child(label, op, int(requests), json.loads(Path(state_file).read_text()), args.no_db))
        return
    if not shutil.which("valgrind"):
        sys.exit("valgrind not found: apt-get install valgrind")
    ops = [op for op in args.ops.split(",") if op in OPS and (op in NO_DB_OPS or not args.no_db)]
    work = Path(tempfile.mkdtemp(prefix="fw-instructions-"))
    mongod = embedded.start(work / "mongo", durable=False)
    try:
        names, auth = asyncio.run(seed(mongod.url, 2_000))
        if args.property_setters:
            asyncio.run(add_property_setters(mongod.url, args.property_setters))
        state_file = work / "state.json"
        state_file.write_text(json.dumps({"url": mongod.url, "names": names, "auth": auth,
                                          "access_log": args.access_log}))
        runs = [(label, op, n) for op in ops for label in APPS for n in (0, args.requests)]
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            totals = dict(zip(runs, pool.map(lambda run: instructions(*run, state_file, work, args.no_db), runs),
                              strict=True))
        mode = "driver answering from memory" if args.no_db else "real mongod"
        setters = f"; {args.property_setters} Property Setters" if args.property_setters else ""
        print(f"\nInstructions per request ({mode}; {args.requests} requests after {WARM_UP} warm-up, "
              f"cachegrind{setters})\n")
        print(f"{'operation':10} {'one-call':>12} {'fw':>12} {'fw / one-call':>14} {'fw - one-call':>14}")
        for op in ops:
            per = {label: (totals[(label, op, args.requests)] - totals[(label, op, 0)]) / args.requests
                   for label in APPS}
            print(f"{op:10} {per['one-call']:12,.0f} {per['fw']:12,.0f} {per['fw'] / per['one-call']:14.2f} "
                  f"{per['fw'] - per['one-call']:14,.0f}")
    finally:
        mongod.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
