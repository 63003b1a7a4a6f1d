"""Background jobs and realtime, with real processes: `fw worker`, `fw serve` ×2, redis-server.

    python bench/jobs_bench.py [--jobs 2000] [--latency-jobs 400] [--clients 200] [--rounds 50]

1. Throughput: N no-op jobs are queued, then one `fw worker --queue default` process starts:
   N / (last job's finish - first job's start), from arq's own result records. Also the
   enqueue rate of one sequential client.
   Baseline: a bare arq worker (same Redis, same `max_jobs` and `poll_delay`) running an empty
   coroutine, so the difference is what fw adds per job (site context, unit of work, lease).
2. Enqueue-to-start latency: jobs enqueued one every few ms return `time.time()` at their start;
   p50/p99 of (start - enqueue), for fw and for the bare arq worker.
3. Realtime delivery: C socket.io clients (half on each of two `fw serve` processes, one Redis),
   all in room `user:Administrator`; a POST to server A publishes an event; the time until all C
   clients received it, repeated R times (p50/p99), and until the first client got it.

All processes and the C clients share the machine: figures are for comparing, not absolutes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent
sys.path.insert(0, str(REPO))

from engine import db  # noqa: E402
from engine.apps.loader import registry_from_settings  # noqa: E402
from engine.core.bootstrap import ensure_bootstrap  # noqa: E402
from engine.jobs import queue  # noqa: E402
from engine.jobs.queue import RESULT_PREFIX  # noqa: E402
from engine.migrate import sync_schema  # noqa: E402
from engine.mongod import embedded  # noqa: E402
from engine.settings import Settings  # noqa: E402
from engine.site import Site  # noqa: E402
from tests.support.redis_server import start_redis  # noqa: E402

DB_NAME = "fw_jobs_bench"
ADMIN_PASSWORD = "bench-Admin-1"
RAW_QUEUE = "bench:raw"
RAW_WORKER = f"""
import asyncio, time
from arq import Worker, func
from arq.connections import RedisSettings

async def noop(ctx):
    return None

async def started_at(ctx):
    return time.time()

async def main(url):
    w = Worker(functions=[func(noop, name="noop"), func(started_at, name="started_at")], queue_name="{RAW_QUEUE}",
               redis_settings=RedisSettings.from_dsn(url), max_jobs=10, poll_delay=0.1, keep_result=3600,
               handle_signals=True)
    print("raw worker listening", flush=True)
    await w.async_run()

import sys
asyncio.run(main(sys.argv[1]))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env_for(mongo_url: str, redis_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FW_")}
    env.update({"FW_MONGO_URL": mongo_url, "FW_DB_NAME": DB_NAME, "FW_ROOT_DIR": str(ROOT),
                "FW_REDIS_URL": redis_url, "FW_ADMIN_PASSWORD": ADMIN_PASSWORD,
                "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"})
    return env


class Proc:
    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.log_path = log
        self._log = open(log, "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(args, env=env, cwd=log.parent, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)

    def wait_for(self, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log_path.read_text(errors="replace"):
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"{self.log_path.name}: no {text!r}:\n{self.log_path.read_text(errors='replace')[-3000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._log.close()


def fw(*args: str) -> list[str]:
    return [sys.executable, "-m", "engine.cli", *args]


def pct(values: list[float], p: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


async def prepare(mongo_url: str, redis_url: str) -> Site:
    settings = Settings(root_dir=ROOT, mongo_url=mongo_url, db_name=DB_NAME, redis_url=redis_url,
                        admin_password=ADMIN_PASSWORD)
    site = Site(settings, db.connect(mongo_url, DB_NAME), registry_from_settings(settings))
    await site.db.drop()
    await sync_schema(site)
    await ensure_bootstrap(site)
    return site


async def wait_results(pool: Any, ids: list[str], timeout: float = 600) -> None:
    keys = [f"{RESULT_PREFIX}{i}" for i in ids]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = 0
        for start in range(0, len(keys), 1000):
            done += await pool.exists(*keys[start:start + 1000])
        if done == len(keys):
            return
        await asyncio.sleep(0.02)
    raise RuntimeError(f"only {done} of {len(ids)} jobs finished")


async def enqueue_many(site: Site, n: int, raw: bool) -> tuple[list[str], float]:
    """Queue n no-op jobs (no worker running yet); returns their ids and the enqueue rate."""
    ctx = site.context()
    pool = await queue.backend_for(site).pool()  # type: ignore[attr-defined]
    ids = []
    started = time.perf_counter()
    for _ in range(n):
        if raw:
            ids.append((await pool.enqueue_job("noop", _queue_name=RAW_QUEUE)).job_id)
        else:
            ids.append(await queue.enqueue(ctx, "fwbench.jobs.noop"))
    return ids, n / (time.perf_counter() - started)


async def drain_rate(site: Site, ids: list[str]) -> float:
    """Jobs/s of a worker started on a full queue: n / (last finish - first start), from arq's results."""
    from arq.jobs import Job

    pool = await queue.backend_for(site).pool()  # type: ignore[attr-defined]
    await wait_results(pool, ids)
    infos = [await Job(i, pool).result_info() for i in ids]
    first = min(i.start_time for i in infos if i is not None)
    last = max(i.finish_time for i in infos if i is not None)
    return len(ids) / (last - first).total_seconds()


async def latency(site: Site, m: int, gap: float) -> dict[str, list[float]]:
    from arq.jobs import Job

    ctx = site.context()
    backend = queue.backend_for(site)
    assert isinstance(backend, queue.ArqBackend)
    pool = await backend.pool()
    out: dict[str, list[float]] = {}
    for raw in (False, True):
        sent: dict[str, float] = {}
        for _ in range(m):
            t = time.time()
            if raw:
                job = await pool.enqueue_job("started_at", _queue_name=RAW_QUEUE)
                sent[job.job_id] = t
            else:
                sent[await queue.enqueue(ctx, "fwbench.jobs.started_at")] = t
            await asyncio.sleep(gap)
        await wait_results(pool, list(sent))
        out["raw" if raw else "fw"] = [
            (await Job(job_id, pool).result(poll_delay=0.01) - t) * 1000 for job_id, t in sent.items()]
    return out


async def realtime(urls: list[str], clients: int, rounds: int) -> tuple[list[float], list[float], float]:
    """(ms until every client got it, ms until the first did, connect time s)."""
    import httpx
    import socketio

    async with httpx.AsyncClient(base_url=urls[0], timeout=30) as http:
        r = await http.post("/api/method/login", data={"usr": "Administrator", "pwd": ADMIN_PASSWORD})
        r.raise_for_status()
        sid = r.cookies["sid"]
        got: dict[int, int] = {}
        first: dict[int, float] = {}
        last: dict[int, float] = {}
        done: dict[int, asyncio.Event] = {i: asyncio.Event() for i in range(rounds)}
        socks = []

        def make() -> socketio.AsyncClient:
            sio = socketio.AsyncClient(reconnection=False)

            @sio.on("bench")
            async def on_bench(data: dict[str, int]) -> None:
                seq = data["seq"]
                now = time.perf_counter()
                got[seq] = got.get(seq, 0) + 1
                first.setdefault(seq, now)
                if got[seq] == clients:
                    last[seq] = now
                    done[seq].set()

            return sio

        connect_started = time.perf_counter()
        for start in range(0, clients, 20):
            batch = [make() for _ in range(start, min(start + 20, clients))]
            await asyncio.gather(*(s.connect(urls[(start + i) % len(urls)], headers={"Cookie": f"sid={sid}"},
                                             transports=["websocket"], wait_timeout=30)
                                   for i, s in enumerate(batch)))
            socks += batch
        connect_time = time.perf_counter() - connect_started
        await asyncio.sleep(1.0)
        all_ms, first_ms = [], []
        try:
            for seq in range(rounds):
                sent = time.perf_counter()
                r = await http.post("/api/method/fwbench.api.publish",
                                    json={"event": "bench", "message": {"seq": seq}, "user": "Administrator"})
                r.raise_for_status()
                await asyncio.wait_for(done[seq].wait(), 30)
                all_ms.append((last[seq] - sent) * 1000)
                first_ms.append((first[seq] - sent) * 1000)
                await asyncio.sleep(0.1)
        finally:
            await asyncio.gather(*(s.disconnect() for s in socks), return_exceptions=True)
    return all_ms, first_ms, connect_time


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2000)
    parser.add_argument("--latency-jobs", type=int, default=400)
    parser.add_argument("--gap", type=float, default=0.005, help="seconds between latency jobs")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="fw-jobs-bench-"))
    mongod = embedded.start(work / "mongo")
    redis = start_redis()
    procs: list[Proc] = []
    site = None
    try:
        site = await prepare(mongod.url, redis.url)
        env = env_for(mongod.url, redis.url)
        print(f"throughput: {args.jobs} no-op jobs ...", file=sys.stderr)
        fw_ids, fw_enq = await enqueue_many(site, args.jobs, raw=False)
        worker = Proc(fw("worker", "--queue", "default"), env, work / "worker.log")
        procs.append(worker)
        fw_rate = await drain_rate(site, fw_ids)
        raw_ids, raw_enq = await enqueue_many(site, args.jobs, raw=True)
        raw = Proc([sys.executable, "-c", RAW_WORKER, redis.url], env, work / "raw-worker.log")
        procs.append(raw)
        raw_rate = await drain_rate(site, raw_ids)
        worker.wait_for("fw worker listening on")
        raw.wait_for("raw worker listening")
        print(f"latency: {args.latency_jobs} jobs, one every {args.gap * 1000:.0f} ms ...", file=sys.stderr)
        lat = await latency(site, args.latency_jobs, args.gap)
        worker.stop()
        raw.stop()

        urls = []
        for i in range(2):
            port = free_port()
            server = Proc(fw("serve", "--host", "127.0.0.1", "--port", str(port)), env, work / f"serve-{i}.log")
            procs.append(server)
            server.wait_for("Application startup complete")
            urls.append(f"http://127.0.0.1:{port}")
        print(f"realtime: {args.clients} clients on 2 servers, {args.rounds} rounds ...", file=sys.stderr)
        all_ms, first_ms, connect_time = await realtime(urls, args.clients, args.rounds)

        print()
        print("| measurement | fw | bare arq |")
        print("|---|---:|---:|")
        print(f"| no-op jobs/s, one worker process started on {args.jobs} queued jobs "
              f"| {fw_rate:.0f} | {raw_rate:.0f} |")
        print(f"| enqueues/s (one client, sequential) | {fw_enq:.0f} | {raw_enq:.0f} |")
        print(f"| enqueue-to-start latency p50 (ms) | {pct(lat['fw'], 50):.1f} | {pct(lat['raw'], 50):.1f} |")
        print(f"| enqueue-to-start latency p99 (ms) | {pct(lat['fw'], 99):.1f} | {pct(lat['raw'], 99):.1f} |")
        print()
        print(f"| realtime, {args.clients} clients on 2 `fw serve` + Redis, {args.rounds} rounds | p50 ms | p99 ms |")
        print("|---|---:|---:|")
        print(f"| POST publish on server A → all {args.clients} clients received | {pct(all_ms, 50):.1f} "
              f"| {pct(all_ms, 99):.1f} |")
        print(f"| POST publish on server A → first client received | {pct(first_ms, 50):.1f} "
              f"| {pct(first_ms, 99):.1f} |")
        print(f"\n({args.clients} socket.io connections opened in {connect_time:.1f} s)")
    finally:
        for proc in reversed(procs):
            proc.stop()
        if site is not None:
            await site.db.drop()
            await site.close()
        redis.stop()
        mongod.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
