"""Where a write's time goes: the database commands one request issues and fw's own CPU per request.

    python bench/profile_writes.py [--requests 2000] [--top 30] [--op update|create|get_one|get_list]
                                   [--concurrency 16] [--app fw|one-call|same-calls] [--own-min 3]

Starts a private durable mongod (a single-node replica set, as the benches use), seeds the peer
benchmark's `Bench Score` documents, and drives the real Starlette app in this process (ASGI, no
sockets, no HTTP client: each request is one call of the ASGI app with a hand-built scope, so the
profile holds the server's work only) with the System Manager's API key:

1. MongoDB's profiler (level 2) over 50 requests: every command the database saw, by kind, per
   request (`find`, `update`, `insert`, transaction commits, ...).
2. Server CPU per request (`time.process_time`, no profiler), fw against the bare apps of
   bench/peer_baseline_app.py (one-call and same-calls) in the same process, alternated: what fw
   costs over Starlette + PyMongo for the same request, without wrk's or the machine's noise.
3. cProfile over `--requests` requests: own time by area (package, or fw's module), fw's own
   functions by cumulative time (`--own-min`), every function by cumulative and by own time, and the
   wall time per request (one client, so no contention: the server's CPU per request). `--app`
   profiles a bare app instead, to compare area by area.

A diagnostic, not a test: its findings are recorded in bench/README.md ("Write paths"; a create's
steps under "The performance issue's workload").
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import importlib
import io
import os
import pstats
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import orjson

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from bench.peer_bench import DB_NAME, LIST_PATH, seed  # noqa: E402
from engine.mongod import embedded  # noqa: E402
from engine.settings import Settings  # noqa: E402
from server.app import create_app  # noqa: E402


def request_for(op: str, names: list[str], i: int) -> tuple[str, str, dict[str, Any] | None]:
    if op == "update":
        return "PUT", f"/api/resource/Bench%20Score/{random.choice(names)}", {"value": random.randint(0, 1000)}
    if op == "create":
        return "POST", "/api/resource/Bench%20Score", {
            "employee_name": f"New {i}", "company": "Company 1", "branch": "Branch 3",
            "employee_number": f"N-{i}", "date": "2026-05-05", "value": i % 100, "status": "Open"}
    if op == "get_list":
        return "GET", LIST_PATH, None
    return "GET", f"/api/resource/Bench%20Score/{random.choice(names)}", None


class AsgiClient:
    """Calls an ASGI app directly: one scope, one body, the response collected (no sockets, no client library)."""

    def __init__(self, app: Any, headers: dict[str, str], state: dict[str, Any]) -> None:
        self.app = app
        self.headers = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
        self.state = state

    async def request(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, bytes]:
        raw_path, _, query = path.partition("?")
        payload = orjson.dumps(body) if body is not None else b""
        headers = [(b"host", b"bench"), *self.headers]
        if body is not None:
            headers += [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
                 "scheme": "http", "path": unquote(raw_path), "raw_path": raw_path.encode(),
                 "query_string": query.encode(), "root_path": "", "headers": headers,
                 "client": ("127.0.0.1", 50000), "server": ("bench", 80), "state": dict(self.state)}
        sent = False
        status = 0
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                await asyncio.Event().wait()  # a real server's receive blocks until the client disconnects
            sent = True
            return {"type": "http.request", "body": payload, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)
        return status, b"".join(chunks)


async def drive(client: AsgiClient, op: str, names: list[str], count: int, start: int = 0) -> None:
    for i in range(start, start + count):
        method, path, body = request_for(op, names, i)
        status, content = await client.request(method, path, body)
        if status >= 400:
            raise RuntimeError(f"{method} {path}: {status} {content[:300]!r}")


async def cpu_per_request(clients: dict[str, AsgiClient], op: str, names: list[str], count: int,
                          rounds: int = 5, concurrency: int = 1) -> dict[str, float]:
    """Median server CPU µs per request of each app, the apps alternated round by round; `concurrency`
    clients at once (a bare app's cost per request falls with it, as the driver's waits are shared)."""
    samples: dict[str, list[float]] = {label: [] for label in clients}
    each = max(1, count // concurrency)
    for r in range(rounds):
        for label, client in clients.items():
            began = time.process_time()
            base = 30_000 + r * count + concurrency * 1_000_000
            await asyncio.gather(*(drive(client, op, names, each, start=base + i * each) for i in range(concurrency)))
            samples[label].append((time.process_time() - began) / (each * concurrency) * 1e6)
    return {label: statistics.median(values) for label, values in samples.items()}


def area(filename: str, func: str) -> str:
    """Which package (or, for fw's own code, which module) a profiled function belongs to."""
    if "{method 'poll'" in func or "select.epoll" in func:
        return "(idle: waiting for the database)"
    if filename == "~":
        return f"(builtin) {func}"
    if "/site-packages/" in filename:
        return filename.split("/site-packages/", 1)[1].split("/", 1)[0]
    if str(ROOT.parent) in filename:
        return filename.split(str(ROOT.parent) + "/", 1)[1]
    if "/lib/python3" in filename:
        return "stdlib " + filename.rsplit("/", 1)[-1]
    return filename


def command_kind(entry: dict[str, Any]) -> str:
    command = entry.get("command", {})
    op = entry.get("op", "?")
    if op == "command":
        key = next(iter(command), "?")
        return f"{key} {command.get(key)}" if key in ("commitTransaction", "abortTransaction") else key
    collection = entry.get("ns", "").split(".", 1)[-1]
    # (a retryable write carries a txnNumber too; only `autocommit: false` marks a transaction)
    txn = " (in a transaction)" if command.get("autocommit") is False else ""
    return f"{op} {collection}{txn}"


def bare_clients(mongo_url: str) -> dict[str, AsgiClient]:
    """The one-call and same-calls apps of bench/peer_baseline_app.py, each its own module instance."""
    os.environ.update(BENCH_MONGO_URL=mongo_url, BENCH_DB=DB_NAME)
    clients = {}
    for calls in ("one", "same"):
        os.environ["BENCH_CALLS"] = calls
        sys.modules.pop("bench.peer_baseline_app", None)
        module = importlib.import_module("bench.peer_baseline_app")
        clients[f"{calls}-call" if calls == "one" else "same-calls"] = AsgiClient(module.app, {}, {})
    return clients


async def main(args: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp(prefix="fw-profile-writes-"))
    mongod = embedded.start(work / "mongo", durable=True)
    try:
        names, auth_header = await seed(mongod.url, 10_000)
        settings = Settings(root_dir=ROOT, mongo_url=mongod.url, db_name=DB_NAME, admin_password="bench-admin-1",
                            access_log="off")
        app = create_app(settings)
        async with app.router.lifespan_context(app) as state:
            client = AsgiClient(app, {"Authorization": auth_header}, state or {})
            await drive(client, args.op, names, 200)  # warm-up: caches, imports, the connection pool
            site = app.state.site
            database = site.db.handle
            await database.command("profile", 2)
            await drive(client, args.op, names, 50, start=10_000)
            await database.command("profile", 0)
            kinds: collections.Counter[str] = collections.Counter()
            async for entry in database["system.profile"].find({}):
                kinds[command_kind(entry)] += 1
            print(f"\nDatabase commands per {args.op} request (MongoDB profiler, 50 requests):")
            for kind, n in kinds.most_common():
                print(f"  {n / 50:5.2f}  {kind}")
            clients = {"fw": client, **bare_clients(mongod.url)}
            for bare in clients.values():
                await drive(bare, args.op, names, 200)
            cpu = await cpu_per_request(clients, args.op, names, max(200, args.requests // 4),
                                        concurrency=args.concurrency)
            print(f"\nServer CPU per {args.op} request, in this process, no profiler (median of 5 alternated "
                  f"rounds, {args.concurrency} client(s) at once):")
            for label, micros in cpu.items():
                print(f"  {label:>10}  {micros:6.0f} µs   fw / this {cpu['fw'] / micros:4.2f}")
            profiled = clients[args.app]
            profiler = cProfile.Profile()
            began = time.perf_counter()
            profiler.enable()
            await drive(profiled, args.op, names, args.requests, start=20_000)
            profiler.disable()
            if args.dump:
                profiler.dump_stats(args.dump)
            elapsed = time.perf_counter() - began
            print(f"\n{args.app}: {args.requests} {args.op} requests, one client: "
                  f"{elapsed / args.requests * 1e6:.0f} µs each under cProfile "
                  "(wall; the profiler itself adds about half)")
            by_area: collections.Counter[str] = collections.Counter()
            calls: collections.Counter[str] = collections.Counter()
            measured = pstats.Stats(profiler).stats.items()  # type: ignore[attr-defined]
            for (filename, _line, func), (_cc, ncalls, tottime, _ct, _callers) in measured:
                by_area[area(filename, func)] += tottime
                calls[area(filename, func)] += ncalls
            total = sum(by_area.values())
            print(f"\nOwn CPU by area (cProfile tottime, µs per request; {sum(calls.values()) / args.requests:.0f} "
                  "function calls per request):")
            for name, seconds in by_area.most_common(args.areas):
                print(f"  {seconds / args.requests * 1e6:7.0f} µs  {100 * seconds / total:5.1f}%  "
                      f"{calls[name] / args.requests:6.0f} calls  {name}")
            print(f"\nfw's own functions by cumulative time (µs per request, at least {args.own_min} µs; the "
                  "driver's and Starlette's calls inside them included):")
            for (filename, line, func), (_cc, ncalls, tottime, cumtime, _callers) in sorted(
                    measured, key=lambda item: -item[1][3]):
                label = area(filename, func)
                if label.startswith(("engine/", "server/")) and cumtime / args.requests * 1e6 >= args.own_min:
                    print(f"  {cumtime / args.requests * 1e6:7.1f} µs  own {tottime / args.requests * 1e6:5.1f}  "
                          f"{ncalls / args.requests:4.1f}x  {label}:{line} {func}")
            if args.callers:
                out = io.StringIO()
                pstats.Stats(profiler, stream=out).print_callers(*args.callers)
                print(out.getvalue()[:20000])
            for sort in ("cumulative", "tottime"):
                out = io.StringIO()
                pstats.Stats(profiler, stream=out).sort_stats(sort).print_stats(args.top)
                print(f"\n--- by {sort} ---")
                print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:12000])
    finally:
        mongod.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--areas", type=int, default=25, help="how many packages/modules to list")
    parser.add_argument("--callers", nargs="*", default=[], help="print the callers of functions matching these")
    parser.add_argument("--dump", help="also write the cProfile stats to this file (for pstats or snakeviz)")
    parser.add_argument("--op", choices=("update", "create", "get_one", "get_list"), default="update")
    parser.add_argument("--own-min", type=float, default=3.0,
                        help="list fw's functions whose cumulative time per request is at least this (µs)")
    parser.add_argument("--app", choices=("fw", "one-call", "same-calls"), default="fw",
                        help="which app cProfile watches (a bare one: to compare area by area)")
    parser.add_argument("--concurrency", type=int, default=1,
                        help="clients at once for the CPU comparison (wrk's 32 connections over 2 workers: 16)")
    asyncio.run(main(parser.parse_args()))
