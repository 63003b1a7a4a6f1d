"""A bounded soak: mixed load on real processes for a while, errors and memory watched (issue 17).

    python bench/soak.py [--duration 600] [--clients 16] [--sample 10] [--rows 5000] [--workers 2]
    python bench/soak.py --duration 60 --clients 4        # a short run

Processes: a private mongod (a one-member replica set, as fw needs for transactions), redis-server
(append-only, as production Redis for jobs should run), `fw serve --workers N`, `fw worker` and
`fw scheduler`, on the bench app's `Bench Record` (bench/http_bench.py's `seed`: N rows and a System
Manager's API key; access log off). `--clients` concurrent keep-alive clients (one asyncio process,
httpx) each send, back to back, a request drawn at random from the mix below: reads of one document,
lists, creates, PUTs *without* `modified` on random seeded documents (so many overlap), and method
calls (`get_count`, `get_value`, `set_value`, and `fwbench.api.enqueue_noop`, which queues a job that
`fw worker` runs). Every `--sample` seconds the resident memory (VmRSS) of every process is read from
/proc: the web server's master and each of its workers, the job worker, the scheduler, mongod, Redis.

The report: requests and errors by operation and status (any status >= 400 or a transport error is
an error: none is expected, in particular no 417 or 409 for a PUT that sent no `modified`), p50 and
p99 per operation, RSS at the first sample after the warm-up minute (or the first sample of a run
shorter than two minutes), at the end and at its maximum per process, and whether every queued job
ran. The exit status is 1 when there was an error or a job was not run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from bench.http_bench import DB_NAME, seed, wait_ready  # noqa: E402
from bench.jobs_bench import Proc, env_for, fw  # noqa: E402
from engine.jobs.queue import RESULT_PREFIX  # noqa: E402
from engine.mongod import embedded  # noqa: E402
from tests.support.redis_server import start_redis  # noqa: E402

RECORD = "/api/resource/Bench Record"
M = "/api/method"
WARM_UP = 60.0  # seconds before the memory baseline is taken (imports, caches, pools fill up)


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    error_samples: list[str] = field(default_factory=list)
    job_ids: list[str] = field(default_factory=list)

    def record(self, op: str, status: str, seconds: float, body: str = "") -> None:
        self.latencies[op].append(seconds * 1000)
        self.statuses[op][status] += 1
        if not status.startswith(("2", "3")) and len(self.error_samples) < 20:
            self.error_samples.append(f"{op}: {status} {body[:300]}")


Request = tuple[str, str, dict[str, object]]  # method, path, httpx keyword arguments


def operations(names: list[str]) -> list[tuple[str, int, Callable[[random.Random], Request]]]:
    """(label, weight, request maker): the mix."""
    def one(r: random.Random) -> Request:
        return "GET", f"{RECORD}/{r.choice(names)}", {}

    def listing(r: random.Random) -> Request:
        status = r.choice(["Open", "Closed", "Hold"])
        return "GET", RECORD, {"params": {
            "filters": f'[["status","=","{status}"],["qty",">",{r.randrange(400)}]]',
            "fields": '["name","title","status","qty","posted"]', "order_by": "modified desc",
            "limit_page_length": "20"}}

    def create(r: random.Random) -> Request:
        return "POST", RECORD, {"json": {"title": f"soak {r.random():.12f}", "status": "Open",
                                         "qty": r.randrange(500), "posted": "2026-05-05", "active": 1}}

    def put(r: random.Random) -> Request:  # no `modified`: last writer wins, never 417/409
        return "PUT", f"{RECORD}/{r.choice(names)}", {"json": {"qty": r.randrange(1000), "note": "soaked"}}

    def count(r: random.Random) -> Request:
        return "GET", f"{M}/fw.client.get_count", {"params": {
            "doctype": "Bench Record", "filters": f'{{"status": "{r.choice(["Open", "Closed"])}"}}'}}

    def value(r: random.Random) -> Request:
        return "GET", f"{M}/fw.client.get_value", {"params": {
            "doctype": "Bench Record", "filters": f'{{"name": "{r.choice(names)}"}}', "fieldname": "title"}}

    def set_value(r: random.Random) -> Request:
        return "POST", f"{M}/fw.client.set_value", {"json": {
            "doctype": "Bench Record", "name": r.choice(names), "fieldname": "rate", "value": r.random()}}

    def job(r: random.Random) -> Request:
        return "POST", f"{M}/fwbench.api.enqueue_noop", {}

    return [("GET one", 30, one), ("GET list", 20, listing), ("POST create", 12, create),
            ("PUT (no modified)", 15, put), ("get_count", 6, count), ("get_value", 7, value),
            ("set_value", 6, set_value), ("enqueue_noop", 4, job)]


async def client_loop(base_url: str, auth: str, names: list[str], stats: Stats, until: float, seed_: int) -> None:
    r = random.Random(seed_)
    ops = operations(names)
    labels, weights = [o[0] for o in ops], [o[1] for o in ops]
    makers = {o[0]: o[2] for o in ops}
    async with httpx.AsyncClient(base_url=base_url, headers={"Authorization": auth}, timeout=60) as client:
        while time.monotonic() < until:
            op = r.choices(labels, weights)[0]
            method, path, kwargs = makers[op](r)
            t0 = time.perf_counter()
            try:
                resp = await client.request(method, path, **kwargs)  # type: ignore[arg-type]
            except httpx.HTTPError as e:
                stats.record(op, f"transport {type(e).__name__}", time.perf_counter() - t0, str(e))
                continue
            stats.record(op, str(resp.status_code), time.perf_counter() - t0, resp.text)
            if op == "enqueue_noop" and resp.status_code == 200:
                job_id = resp.json().get("message")
                if isinstance(job_id, str):
                    stats.job_ids.append(job_id)


def rss_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            text = (task / "children").read_text().split()
            out += [int(c) for c in text]
    except OSError:
        pass
    return out


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def watched(named: dict[str, int], serve_pid: int) -> dict[str, int]:
    """label -> pid of every process to sample: the named ones and the web server's children
    (uvicorn's workers; its multiprocessing helper is left out)."""
    out = dict(named)
    for child in children(serve_pid):
        line = cmdline(child)
        if "resource_tracker" in line:
            continue
        out[f"fw serve worker (pid {child})"] = child
    return out


async def sample_memory(procs: Callable[[], dict[str, int]], rss: dict[str, list[tuple[float, int]]],
                        started: float, until: float, every: float) -> None:
    while True:
        now = time.monotonic()
        for label, pid in procs().items():
            kib = rss_kib(pid)
            if kib is not None:
                rss[label].append((now - started, kib))
        if now >= until:
            return
        await asyncio.sleep(min(every, max(until - now, 0)))


async def progress(stats: Stats, started: float, until: float) -> None:
    while time.monotonic() < until:
        await asyncio.sleep(min(60, max(until - time.monotonic(), 0.1)))
        done = sum(len(v) for v in stats.latencies.values())
        errors = sum(n for c in stats.statuses.values() for s, n in c.items() if not s.startswith(("2", "3")))
        print(f"  {time.monotonic() - started:5.0f} s: {done} requests, {errors} errors", flush=True)


async def jobs_done(redis_url: str, ids: list[str], timeout: float = 60) -> int:
    from redis.asyncio import Redis

    redis = Redis.from_url(redis_url)
    try:
        deadline = time.monotonic() + timeout
        while True:
            done = 0
            for i in range(0, len(ids), 1000):
                done += await redis.exists(*[f"{RESULT_PREFIX}{j}" for j in ids[i:i + 1000]])
            if done == len(ids) or time.monotonic() > deadline:
                return done
            await asyncio.sleep(0.5)
    finally:
        await redis.aclose()


async def soak(args: argparse.Namespace, base_url: str, auth: str, names: list[str],
               procs: Callable[[], dict[str, int]], redis_url: str) -> tuple[Stats, dict[str, list[tuple[float, int]]],
                                                                              float, int]:
    stats = Stats()
    rss: dict[str, list[tuple[float, int]]] = defaultdict(list)
    started = time.monotonic()
    until = started + args.duration
    clients = [client_loop(base_url, auth, names, stats, until, i) for i in range(args.clients)]
    await asyncio.gather(sample_memory(procs, rss, started, until, args.sample), progress(stats, started, until),
                         *clients)
    elapsed = time.monotonic() - started
    return stats, rss, elapsed, await jobs_done(redis_url, stats.job_ids)


def pct(values: list[float], p: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1] if len(values) > 1 else values[0]


def report(args: argparse.Namespace, stats: Stats, rss: dict[str, list[tuple[float, int]]], elapsed: float,
           jobs_run: int) -> int:
    total = sum(len(v) for v in stats.latencies.values())
    errors = Counter[str]()
    lines = [f"\nsoak: {elapsed:.0f} s, {args.clients} clients, fw serve --workers {args.workers}, fw worker, "
             f"fw scheduler; {total} requests ({total / elapsed:.0f}/s)\n",
             "| operation | requests | errors | p50 ms | p99 ms | statuses |", "|---|---:|---:|---:|---:|---|"]
    for op, values in stats.latencies.items():
        bad = {s: n for s, n in stats.statuses[op].items() if not s.startswith(("2", "3"))}
        for s, n in bad.items():
            errors[s] += n
        lines.append(f"| {op} | {len(values)} | {sum(bad.values())} | {pct(values, 50):.1f} | {pct(values, 99):.1f} | "
                     + ", ".join(f"{s}: {n}" for s, n in sorted(stats.statuses[op].items())) + " |")
    lines.append(f"\nerrors by status: {dict(errors) or 0}; jobs queued {len(stats.job_ids)}, run {jobs_run}\n")
    base_at = WARM_UP if elapsed >= 2 * WARM_UP else 0.0
    lines += [f"| process | RSS MiB at {base_at:.0f} s | at the end | max | end - start |", "|---|---:|---:|---:|---:|"]
    for label, samples in rss.items():
        base = next((kib for t, kib in samples if t >= base_at), samples[0][1])
        end, top = samples[-1][1], max(kib for _t, kib in samples)
        lines.append(f"| {label} | {base / 1024:.1f} | {end / 1024:.1f} | {top / 1024:.1f} | "
                     f"{(end - base) / 1024:+.1f} |")
    if stats.error_samples:
        lines += ["", "first errors:", *stats.error_samples]
    print("\n".join(lines), flush=True)
    return 1 if errors or jobs_run != len(stats.job_ids) else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=600, help="seconds of load (default 600)")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--sample", type=float, default=10, help="seconds between RSS samples")
    parser.add_argument("--rows", type=int, default=5000, help="Bench Records seeded (PUT and GET targets)")
    parser.add_argument("--workers", type=int, default=2, help="fw serve --workers")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fw-soak-"))
    mongod = embedded.start(work / "mongo", durable=True)
    redis = start_redis(persistent=True)
    procs: list[Proc] = []
    code = 1
    try:
        names, auth = asyncio.run(seed(mongod.url, args.rows))
        env = {**env_for(mongod.url, redis.url), "FW_DB_NAME": DB_NAME, "FW_ACCESS_LOG": "off"}
        port = embedded.free_port()
        serve = Proc(fw("serve", "--host", "127.0.0.1", "--port", str(port), "--workers", str(args.workers)), env,
                     work / "serve.log")
        worker = Proc(fw("worker"), env, work / "worker.log")
        scheduler = Proc(fw("scheduler"), env, work / "scheduler.log")
        procs = [serve, worker, scheduler]
        base_url = f"http://127.0.0.1:{port}"
        wait_ready(base_url, serve.proc, timeout=120)
        worker.wait_for("fw worker listening on")
        named = {"fw serve (master)": serve.proc.pid, "fw worker": worker.proc.pid,
                 "fw scheduler": scheduler.proc.pid, "mongod": mongod.process.pid, "redis-server": redis.process.pid}
        stats, rss, elapsed, jobs_run = asyncio.run(
            soak(args, base_url, auth, names, lambda: watched(named, serve.proc.pid), redis.url))
        code = report(args, stats, rss, elapsed, jobs_run)
        for p in procs:
            if p.proc.poll() is not None:
                print(f"{p.log_path.name}: exited with {p.proc.returncode} during the soak")
                code = 1
    finally:
        for p in reversed(procs):
            p.stop()
        redis.stop()
        mongod.stop()
        if code == 0:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"logs kept in {work}")
    sys.exit(code)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
