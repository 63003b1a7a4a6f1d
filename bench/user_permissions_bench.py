"""Issue 29: what User Permissions cost a request. A list of 20 and a count over ROWS Warehouse
Violations, through the HTTP API in this process, for a System Manager restricted by 3 User
Permissions (3 of 5 companies) against the same user without any.

    python bench/user_permissions_bench.py [--rows 100000] [--requests 300]

Loads ROWS violations (raw insert_many: this measures reads), spread over 5 companies. Each round
sends REQUESTS list requests and REQUESTS count requests as each user, alternating the users round by
round (the machine's load moves both alike); prints the CPU per request of this process (the server,
and the in-process client, the same for both users) and of mongod, the ratio restricted/free, and the
winning plan of each query as `explain()` gives it (the restricted filter must not scan the collection).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine import auth, db, permissions  # noqa: E402
from engine.apps.loader import registry_from_settings  # noqa: E402
from engine.context import unit_of_work  # noqa: E402
from engine.documents.factory import new_doc  # noqa: E402
from engine.documents.naming import hash_name  # noqa: E402
from engine.migrate import migrate  # noqa: E402
from engine.mongod import embedded  # noqa: E402
from engine.query.compile import compile_filter, compile_order_by  # noqa: E402
from engine.settings import Settings  # noqa: E402
from engine.site import Site  # noqa: E402
from server.app import create_app  # noqa: E402

COMPANIES = [f"Company {i}" for i in range(1, 6)]
DOCTYPE = "Warehouse Violation"
LIST = f"/api/resource/{DOCTYPE}?limit_page_length=20&fields=%5B%22name%22,%22employee%22,%22date%22%5D"
COUNT = f"/api/v2/doctype/{DOCTYPE}/count"


def cpu_of(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0


async def load(site: Site, rows: int) -> None:
    ctx = site.context()
    async with unit_of_work(ctx):
        for company in COMPANIES:
            await new_doc(ctx, "Company", company_name=company).insert()
        await new_doc(ctx, "Warehouse Violation Type", violation_type="Blocked Aisle", penalty_points=5).insert()
    coll = site.db.collection(site.meta.get(DOCTYPE).collection)
    now = "2026-06-01 00:00:00.000000"
    batch: list[dict[str, Any]] = []
    for i in range(rows):
        batch.append({"_id": hash_name(), "owner": "Administrator", "modified_by": "Administrator", "creation": now,
                      "modified": now, "docstatus": 0, "idx": 0, "employee": f"HR-EMP-{i % 500:05d}",
                      "company": COMPANIES[i % len(COMPANIES)], "date": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
                      "violation_type": "Blocked Aisle", "penalty_points": 5.0, "workflow_state": "Draft"})
        if len(batch) == 10_000:
            await coll.insert_many(batch, ordered=False)
            batch = []
    if batch:
        await coll.insert_many(batch, ordered=False)


async def user(site: Site, email: str, companies: list[str]) -> dict[str, str]:
    ctx = site.context()
    async with unit_of_work(ctx):
        await new_doc(ctx, "User", email=email, first_name=email.split("@")[0],
                      roles=[{"role": "System Manager"}]).insert()
        for company in companies:
            await new_doc(ctx, "User Permission", user=email, allow="Company", for_value=company).insert()
    keys = await auth.generate_keys_for(site, email)
    return {"Authorization": f"token {keys['api_key']}:{keys['api_secret']}"}


async def plans(site: Site, email: str) -> tuple[str, str]:
    """The winning plan's stages of the list query (sorted, 20) and of the count, as the engine builds them."""
    ctx = site.context(email)
    meta = ctx.meta(DOCTYPE)
    node = await permissions.row_filter(ctx, meta)
    query = compile_filter(meta, node, child_meta=ctx.meta) if node is not None else {}
    sort = dict(compile_order_by(meta, None))
    coll = site.meta.get(DOCTYPE).collection
    listed = await site.db.handle.command({"explain": {"find": coll, "filter": query, "sort": sort, "limit": 20},
                                           "verbosity": "queryPlanner"})
    counted = await site.db.handle.command({"explain": {"count": coll, "query": query}, "verbosity": "queryPlanner"})

    def stages(plan: dict[str, Any]) -> str:
        out, node_ = [], plan["queryPlanner"]["winningPlan"]
        while node_:
            out.append(node_["stage"] + (f"({node_['indexName']})" if "indexName" in node_ else ""))
            node_ = node_.get("inputStage") or (node_.get("inputStages") or [None])[0]
        return " <- ".join(out)

    return stages(listed), stages(counted)


async def measure(client: httpx.AsyncClient, headers: dict[str, str], path: str, n: int, mongod_pid: int
                  ) -> tuple[float, float]:
    cpu, mongo = time.process_time(), cpu_of(mongod_pid)
    for _ in range(n):
        r = await client.get(path, headers=headers)
        assert r.status_code == 200, r.text[:300]
    return (time.process_time() - cpu) / n * 1e6, (cpu_of(mongod_pid) - mongo) / n * 1e6


async def main(rows: int, requests: int, rounds: int) -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="fw-bench-up-"))
    mongod = embedded.start(data_dir / "mongo", durable=True)
    try:
        settings = Settings(root_dir=REPO, mongo_url=mongod.url, db_name="fw_bench_up", data_dir=data_dir,
                            admin_password="bench-admin", access_log="off")
        site = Site(settings, db.connect(mongod.url, "fw_bench_up"), registry_from_settings(settings))
        await site.db.drop()
        await migrate(site)
        print(f"loading {rows:,} {DOCTYPE}s ...", flush=True)
        await load(site, rows)
        users = {"free": await user(site, "free@bench.example.com", []),
                 "restricted": await user(site, "held@bench.example.com", COMPANIES[:3])}
        app = create_app(settings, site=site)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
            counts = {label: (await client.get(COUNT, headers=h)).json()["data"] for label, h in users.items()}
            print(f"rows seen: free {counts['free']:,}, restricted {counts['restricted']:,}")
            for label, email in (("free", "free@bench.example.com"), ("restricted", "held@bench.example.com")):
                listed, counted = await plans(site, email)
                print(f"plan {label:10}  list: {listed}\n{'':16}count: {counted}")
            results: dict[tuple[str, str], list[tuple[float, float]]] = {}
            for h in users.values():  # warm-up
                await measure(client, h, LIST, 20, mongod.process.pid)
                await measure(client, h, COUNT, 5, mongod.process.pid)
            for round_ in range(rounds):
                order = list(users.items()) if round_ % 2 == 0 else list(reversed(users.items()))
                for label, h in order:
                    for op, path in (("list of 20", LIST), ("count", COUNT)):
                        n = requests if op == "list of 20" else max(requests // 10, 10)
                        results.setdefault((op, label), []).append(await measure(client, h, path, n,
                                                                                 mongod.process.pid))
        print("\n| request | user | fw process µs/request | mongod µs/request | ratio restricted/free (fw) |")
        print("|---|---|---|---|---|")
        for op in ("list of 20", "count"):
            free = statistics.median(r[0] for r in results[(op, "free")])
            for label in ("free", "restricted"):
                fw_us = statistics.median(r[0] for r in results[(op, label)])
                mongo_us = statistics.median(r[1] for r in results[(op, label)])
                ratio = f"{fw_us / free:.2f}" if label == "restricted" else ""
                print(f"| {op} | {label} | {fw_us:.0f} | {mongo_us:.0f} | {ratio} |")
        await site.db.drop()
        await site.db.close()
    finally:
        mongod.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    asyncio.run(main(args.rows, args.requests, args.rounds))
