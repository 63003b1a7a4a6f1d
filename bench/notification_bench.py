"""Issue 31: what a Notification costs the request that saves a document. Four kinds of save, measured
in one alternating run on a real mongod and Redis (jobs through arq and the job outbox, as in
production):

- `no rule`: a site without any Notification;
- `rule on another doctype`: a site whose only enabled Notification is on another doctype;
- `condition false`: the doctype has a System Notification whose condition does not hold;
- `fires`: the doctype has a System Notification that fires (one Notification Log per save);
- the same two without and with a firing rule on doctypes with `track_changes` (a Version record per
  save): saves that take a transaction anyway, as those of most doctypes with hooks after the write do;
- `HTTP: no rule` and `HTTP: fires`: the whole request, `POST /api/resource/<doctype>` through the
  ASGI app in this process (authentication, the answer; a doctype no code takes part in, which a
  create without a rule may take directly: engine/documents/direct_create.py).

    python bench/notification_bench.py [--saves 200] [--rounds 6] [--calls 100]

Each save is an insert through the document lifecycle as a request does it (its own unit of work,
after-commit callbacks included). Per save: this process's CPU (median of the rounds, the cases
alternating round by round so the machine's load moves all alike), mongod's CPU, and the Python
function calls (sys.setprofile, a separate pass). Then, for the firing cases, the work left to the
job: the jobs relayed (from the saved records that carry them, or the outbox) and run by an arq
worker in this process, with the Notification Logs counted (each save exactly one). Last, the
latency a user sees: with a relay and a worker running in this process, the time from a firing
save's return to its Notification Log, save after save."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine import db  # noqa: E402
from engine.apps.loader import build_registry  # noqa: E402
from engine.context import unit_of_work  # noqa: E402
from engine.documents.factory import new_doc  # noqa: E402
from engine.jobs import outbox  # noqa: E402
from engine.jobs.backends import backend_for  # noqa: E402
from engine.migrate import migrate  # noqa: E402
from engine.mongod import embedded  # noqa: E402
from engine.query import listing  # noqa: E402
from engine.settings import Settings  # noqa: E402
from engine.site import Site  # noqa: E402

CASES = ("no rule", "rule on another doctype", "condition false", "fires", "tracked: no rule", "tracked: fires",
         "HTTP: no rule", "HTTP: fires")
DOCTYPES = {"no rule": "Bench Alert Plain", "rule on another doctype": "Bench Alert Plain",
            "condition false": "Bench Alert Quiet", "fires": "Bench Alert Loud",
            "tracked: no rule": "Bench Alert Tracked", "tracked: fires": "Bench Alert Tracked Loud",
            "HTTP: no rule": "Bench Alert Plain", "HTTP: fires": "Bench Alert Loud"}
# what a case's ratio is to (else "no rule")
BASE = {"tracked: fires": "tracked: no rule", "HTTP: no rule": "HTTP: no rule", "HTTP: fires": "HTTP: no rule"}
OTHER = "Bench Alert Other"


def cpu_of(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0


def write_doctypes(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    fields = [{"fieldname": "title", "fieldtype": "Data", "reqd": 1},
              {"fieldname": "status", "fieldtype": "Select", "options": "Open\nClosed"},
              {"fieldname": "qty", "fieldtype": "Int"},
              {"fieldname": "note", "fieldtype": "Small Text"},
              {"fieldname": "user", "fieldtype": "Data"}]
    for name in (*set(DOCTYPES.values()), OTHER):
        data = {"doctype": "DocType", "name": name, "module": "Bench Alerts", "autoname": "hash", "custom": 1,
                "track_changes": int("Tracked" in name), "fields": fields,
                "permissions": [{"role": "System Manager", "read": 1, "write": 1, "create": 1, "delete": 1}]}
        (folder / f"{name.lower().replace(' ', '_')}.json").write_text(json.dumps(data))


async def rule(site: Site, name: str, doctype: str, condition: str) -> None:
    ctx = site.context()
    async with unit_of_work(ctx):
        await new_doc(ctx, "Notification", name=name, document_type=doctype, channel="System Notification",
                      event="New", condition=condition, subject="{{ doc.title }} is new",
                      message="<p>{{ doc.title }}: {{ doc.qty }}</p>",
                      recipients=[{"receiver_by_document_field": "user"}]).insert()


def saver(site: Site, doctype: str) -> Callable[[int], Awaitable[Any]]:
    async def save(i: int) -> Any:
        ctx = site.context()  # a request's: no unit of work yet, the lifecycle opens (and commits) one
        return await new_doc(ctx, doctype, title=f"Crate {i}", status="Open", qty=i % 50, note="bench",
                                 user="Administrator").insert()

    return save


async def poster(site: Site, doctype: str) -> Callable[[int], Awaitable[Any]]:
    """A save as a client makes it: POST /api/resource/<doctype> through the ASGI app, as Administrator
    with an API key. Returns the new document's values."""
    import httpx

    from engine import auth
    from server.app import create_app

    keys = await auth.generate_keys_for(site, "Administrator")
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(site.settings, site=site)),
                               base_url="http://bench", headers={
                                   "Authorization": f"token {keys['api_key']}:{keys['api_secret']}"})

    class Saved:
        def __init__(self, data: dict[str, Any]) -> None:
            self.name = data["name"]

    async def save(i: int) -> Any:
        answer = await client.post(f"/api/resource/{doctype}", json={
            "title": f"Crate {i}", "status": "Open", "qty": i % 50, "note": "bench", "user": "Administrator"})
        if answer.status_code != 200:
            raise RuntimeError(f"POST {doctype}: {answer.status_code} {answer.text[:200]}")
        return Saved(answer.json()["data"])

    return save


async def timed(save: Callable[[int], Awaitable[Any]], n: int, mongod_pid: int, start: int) -> tuple[float, float]:
    cpu, mongo = time.process_time(), cpu_of(mongod_pid)
    for i in range(n):
        await save(start + i)
    return (time.process_time() - cpu) / n * 1e6, (cpu_of(mongod_pid) - mongo) / n * 1e6


async def counted(save: Callable[[int], Awaitable[Any]], n: int, start: int) -> float:
    """Python function calls per save (every 'call' event of this thread: the event loop's included)."""
    calls = 0

    def profiler(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(profiler)
    try:
        for i in range(n):
            await save(start + i)
    finally:
        sys.setprofile(None)
    return calls / n


async def run_jobs(site: Site) -> tuple[int, float]:
    """Relay what waits in the outbox and run the queued jobs with an arq worker in this process; the
    jobs' CPU (µs per job) and how many ran."""
    from engine.jobs.backends import queue_key
    from engine.jobs.worker import build_worker

    backend = backend_for(site)
    pool = await backend.pool()  # type: ignore[attr-defined]
    cpu = time.process_time()
    while await outbox.relay_once(site, backend):  # type: ignore[arg-type]
        pass
    queued = await pool.zcard(queue_key(site.name, "short"))
    worker = build_worker(site, "short", burst=True)
    await worker.main()
    await worker.close()
    ran = worker.jobs_complete + worker.jobs_failed
    return ran, (time.process_time() - cpu) / max(queued, 1) * 1e6


async def latency(site: Site, save: Callable[[int], Awaitable[Any]], n: int, start: int) -> list[float]:
    """Seconds from each firing save's return to its Notification Log, with the outbox relay and an arq
    worker running as tasks of this process (as `fw serve` and `fw worker` run them)."""
    from engine.jobs.worker import build_worker

    relay = outbox.start_relay(site)
    worker = build_worker(site, "short")
    running = asyncio.get_running_loop().create_task(worker.async_run())
    ctx = site.context()
    waits: list[float] = []
    try:
        for i in range(n):
            doc = await save(start + i)
            saved = time.monotonic()
            while not await listing.count(ctx, "Notification Log", [["document_name", "=", doc.name]],
                                          ignore_permissions=True):
                if time.monotonic() - saved > 30:
                    raise RuntimeError(f"no Notification Log for {doc.name} after 30 s")
                await asyncio.sleep(0.01)
            waits.append(time.monotonic() - saved)
    finally:
        await outbox.stop_relay(relay)
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
        await worker.close()
    return waits


async def main(saves: int, rounds: int, calls: int) -> None:
    from tests.support.redis_server import start_redis

    data_dir = Path(tempfile.mkdtemp(prefix="fw-bench-notif-"))
    mongod = embedded.start(data_dir / "mongo", durable=True)
    redis = None
    redis_url = os.environ.get("FW_TEST_REDIS_URL")
    if not redis_url:
        redis = start_redis()
        redis_url = redis.url
    sites: list[Site] = []
    try:
        folder = data_dir / "doctype_json"
        write_doctypes(folder)
        registry = build_registry(data_dir / "apps", [], folder)
        for db_name in ("fw_bench_notif_none", "fw_bench_notif_rules"):
            settings = Settings(root_dir=data_dir, mongo_url=mongod.url, db_name=db_name, data_dir=data_dir,
                                redis_url=redis_url, admin_password="bench-admin", access_log="off")
            site = Site(settings, db.connect(mongod.url, db_name), registry)
            await site.db.drop()
            await migrate(site)
            sites.append(site)
        bare, ruled = sites
        await (await backend_for(ruled).pool()).flushdb()  # type: ignore[attr-defined]
        await rule(ruled, "Bench other", OTHER, "doc.qty >= 0")
        await rule(ruled, "Bench quiet", DOCTYPES["condition false"], "doc.qty < 0")
        await rule(ruled, "Bench loud", DOCTYPES["fires"], "doc.qty >= 0")
        await rule(ruled, "Bench tracked loud", DOCTYPES["tracked: fires"], "doc.qty >= 0")
        saves_of = {"no rule": saver(bare, DOCTYPES["no rule"]),
                    **{case: saver(ruled, DOCTYPES[case]) for case in CASES[1:6]},
                    "HTTP: no rule": await poster(bare, DOCTYPES["HTTP: no rule"]),
                    "HTTP: fires": await poster(ruled, DOCTYPES["HTTP: fires"])}
        serial = 0
        for save in saves_of.values():  # warm-up: plans, caches, connections
            await timed(save, 30, mongod.process.pid, serial)
            serial += 30
        results: dict[str, list[tuple[float, float]]] = {case: [] for case in CASES}
        for round_ in range(rounds):
            order = CASES if round_ % 2 == 0 else tuple(reversed(CASES))
            for case in order:
                results[case].append(await timed(saves_of[case], saves, mongod.process.pid, serial))
                serial += saves
        call_counts = {}
        for case in CASES:
            call_counts[case] = await counted(saves_of[case], calls, serial)
            serial += calls
        fired = 30 + rounds * saves + calls  # (per firing case)
        print(f"\n{saves} saves x {rounds} rounds per case (alternating), calls over {calls} saves; Redis jobs "
              f"({redis_url.split('@')[-1]})\n")
        print("| save | fw process CPU µs/save | ratio | Python calls/save | ratio | mongod CPU µs/save |")
        print("|---|---|---|---|---|---|")
        cpus = {case: statistics.median(r[0] for r in results[case]) for case in CASES}
        for case in CASES:
            base = BASE.get(case, "no rule")
            mongo = statistics.median(r[1] for r in results[case])
            print(f"| {case} | {cpus[case]:.0f} | {cpus[case] / cpus[base]:.2f} | {call_counts[case]:,.0f} | "
                  f"{call_counts[case] / call_counts[base]:.2f} | {mongo:.0f} |")
        print("\n(ratios to `no rule`; `tracked: fires` to `tracked: no rule`; `HTTP: fires` to `HTTP: no rule`)")
        ran, job_us = await run_jobs(ruled)
        ctx = ruled.context()
        fired *= 3  # (the three firing cases)
        logs = await listing.count(ctx, "Notification Log", ignore_permissions=True)
        names = await listing.get_all(ctx, "Notification Log", pluck="document_name")
        print(f"\nfiring saves: {fired:,}; Notification Logs: {logs:,} ({len(set(names)):,} documents, each once: "
              f"{len(names) == len(set(names)) == fired}); jobs run after the saves: {ran:,} "
              f"({job_us:.0f} µs CPU per job, relay included)")
        waits = await latency(ruled, saver(ruled, DOCTYPES["fires"]), 20, serial + 10_000)
        print(f"latency save → Notification Log (relay every {outbox.RELAY_INTERVAL:g} s, worker polling every "
              f"0.1 s, {len(waits)} saves one after another): median {statistics.median(waits):.2f} s, "
              f"max {max(waits):.2f} s")
        for site in sites:
            await site.db.drop()
            await site.db.close()
    finally:
        mongod.stop()
        if redis is not None:
            redis.stop()
            shutil.rmtree(redis.workdir, ignore_errors=True)
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--saves", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--calls", type=int, default=100)
    args = parser.parse_args()
    asyncio.run(main(args.saves, args.rounds, args.calls))
