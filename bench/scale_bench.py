"""Several processes, measured (issue "Scale-out"): 1 and 2 `fw serve` processes, 1 and 2 `fw worker`
processes, on one mongod and on a 3-member replica set, all on this machine.

    python bench/scale_bench.py [--duration 10] [--connections 32] [--jobs 2000]

HTTP: the peer workload's GET one and POST create (bench/peer_bench.py's `Bench Score`) under wrk
against `fw serve --workers N`; req/s, p99, server CPU per request (the whole process group) and
mongod CPU per request (every member's, for the replica set: replication costs the secondaries
too). Jobs: N no-op jobs queued, then K `fw worker` processes started at once; jobs/s from arq's
own start and finish times, and worker CPU per job.

On a 2-core machine wrk, the servers and mongod share the cores, so two processes cannot double
throughput here: read CPU per request (what each process costs) and how req/s moves, not capacity.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from bench.http_bench import run_wrk, start, stop, wait_ready  # noqa: E402
from bench.jobs_bench import Proc, drain_rate, enqueue_many, env_for, fw, prepare  # noqa: E402
from bench.peer_bench import group_cpu_seconds, lua_scripts, process_cpu_seconds, seed  # noqa: E402
from engine.mongod import embedded  # noqa: E402
from tests.support.redis_server import start_redis  # noqa: E402
from tests.support.replica_set import start_replica_set  # noqa: E402

PEER_DB = "fw_peer_bench"


def http_rows(label: str, url: str, mongod_pids: Callable[[], list[int]], args: argparse.Namespace,
              work: Path) -> list[str]:
    names, auth_header = asyncio.run(seed(url, 10_000))
    scripts = lua_scripts(work / f"lua-{label}", names, auth_header)
    env = {**env_for(url, ""), "FW_DB_NAME": PEER_DB, "FW_ROOT_DIR": str(ROOT)}
    env.pop("FW_REDIS_URL")
    rows = []
    for processes in (1, 2):
        port = embedded.free_port()
        server = start(fw("serve", "--host", "127.0.0.1", "--port", str(port), "--workers", str(processes)), env,
                       work / f"serve-{label}-{processes}.log")
        try:
            wait_ready(f"http://127.0.0.1:{port}", server, timeout=120)
            run_wrk(f"http://127.0.0.1:{port}", scripts["get_one"], 2, args.connections)  # warm-up
            for op in ("get_one", "create"):
                server_before = group_cpu_seconds(server.pid)
                mongod_before = sum(process_cpu_seconds(p) for p in mongod_pids())
                rps, _, p99, errors = run_wrk(f"http://127.0.0.1:{port}", scripts[op], args.duration,
                                              args.connections)
                done = rps * args.duration
                server_us = (group_cpu_seconds(server.pid) - server_before) / done * 1e6
                mongod_us = (sum(process_cpu_seconds(p) for p in mongod_pids()) - mongod_before) / done * 1e6
                rows.append(f"| {label} | {processes} | {op} | {rps:.0f} | {p99:.1f} | {errors} | {server_us:.0f} "
                            f"| {mongod_us:.0f} |")
                print(rows[-1], flush=True)
        finally:
            stop(server)
    return rows


async def job_rows(url: str, redis_url: str, args: argparse.Namespace, work: Path) -> list[str]:
    site = await prepare(url, redis_url)
    rows = []
    try:
        for workers in (1, 2):
            ids, _ = await enqueue_many(site, args.jobs, raw=False)
            procs = [Proc(fw("worker", "--queue", "default"), env_for(url, redis_url),
                          work / f"worker-{workers}-{i}.log") for i in range(workers)]
            try:
                for p in procs:  # start-up CPU is not the jobs' (they may start right after this line)
                    await asyncio.to_thread(p.wait_for, "fw worker listening on")
                started_cpu = sum(group_cpu_seconds(p.proc.pid) for p in procs)
                rate = await drain_rate(site, ids)
                cpu = sum(group_cpu_seconds(p.proc.pid) for p in procs) - started_cpu
            finally:
                for p in procs:
                    p.stop()
            rows.append(f"| {workers} | {args.jobs} | {rate:.0f} | {cpu / args.jobs * 1e6:.0f} |")
            print(rows[-1], flush=True)
    finally:
        await site.db.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--jobs", type=int, default=2000)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk not found: apt-get install wrk")
    work = Path(tempfile.mkdtemp(prefix="fw-scale-bench-"))
    redis = start_redis()
    single = embedded.start(work / "single", durable=True)
    rs = start_replica_set(work / "rs")
    try:
        http = ["| MongoDB | fw serve processes | operation | req/s | p99 ms | errors | server CPU µs/req "
                "| mongod CPU µs/req |", "|---|---:|---|---:|---:|---:|---:|---:|"]
        print("\n".join(http), flush=True)
        http += http_rows("single node", single.url, lambda: [single.process.pid], args, work)
        http += http_rows("3-member replica set", rs.url, lambda: rs.pids, args, work)
        jobs = ["| fw worker processes | jobs | jobs/s | worker CPU µs/job |", "|---:|---:|---:|---:|"]
        print("\n".join(jobs), flush=True)
        jobs += asyncio.run(job_rows(single.url, redis.url, args, work))
        print("\n" + "\n".join(http) + "\n\n" + "\n".join(jobs))
    finally:
        rs.stop()
        single.stop()
        redis.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
