"""The peer benchmark's workload (issue "Performance"): fw as a user runs it against two bare apps,
alternated in one run on one mongod, with server and mongod CPU per request.

    python bench/peer_bench.py [--duration 10] [--connections 32] [--workers 2] [--rounds 3]
                               [--ops get_one,get_list,update,create] [--bare-options "w=majority&..."]

- 10,000 `Bench Score` documents: `employee_name, company, branch, employee_number` (Data), `date`
  (Date), `value` (Float), `status` (Data); a declared index on `company, value`.
- Operations: GET one by name; GET list `company = X and value > Y`, `fields=["*"]`,
  `order_by=value desc`, 20 rows; PUT one field (no `modified` sent); POST create.
- fw: `fw serve --workers 2` with its default settings (access log on, as a user runs it),
  authenticating every request with a System Manager's API key.
- one-call: bare Starlette + PyMongo async, one driver call per request.
- same-calls: the same bare app making the database calls fw makes (an update reads, then writes).

Server CPU is summed over the server's whole process group (uvicorn's workers included) from
/proc; mongod's likewise. Both are per request, over the same wrk run, and move far less than
req/s on a busy machine. wrk comes from Debian's `wrk` package.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from bench.http_bench import fresh_site, run_wrk, start, stop, wait_ready  # noqa: E402
from engine.documents.naming import hash_name  # noqa: E402
from engine.mongod import embedded  # noqa: E402

DB_NAME = "fw_peer_bench"
COMPANIES = [f"Company {i}" for i in range(5)]
LIST_PATH = ('/api/resource/Bench%20Score?filters=%5B%5B%22company%22,%22=%22,%22Company%202%22%5D,'
             '%5B%22value%22,%22%3E%22,50%5D%5D&fields=%5B%22*%22%5D&order_by=value%20desc&limit_page_length=20')
OPERATIONS = (("GET one by name", "get_one"), ("GET list (company, value >, fields *, 20)", "get_list"),
              ("PUT one field (no modified)", "update"), ("POST create", "create"))


async def seed(url: str, rows: int, db_name: str = DB_NAME) -> tuple[list[str], str]:
    site, auth_header = await fresh_site(url, db_name)
    names = [hash_name() for _ in range(rows)]
    stamp = "2026-01-01 00:00:00.000000"
    await site.db.collection("bench_score").insert_many([
        {"_id": name, "employee_name": f"Employee {i}", "company": COMPANIES[i % 5], "branch": f"Branch {i % 17}",
         "employee_number": f"E-{i:05d}", "date": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
         "value": float(i % 1000) / 10, "status": ("Open", "Closed")[i % 2], "owner": "Administrator",
         "creation": stamp, "modified": stamp, "modified_by": "Administrator", "docstatus": 0, "idx": 0}
        for i, name in enumerate(names)])
    await site.db.close()
    return names, auth_header


def lua_scripts(folder: Path, names: list[str], auth_header: str | None) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    sample = random.Random(5).sample(names, 2000)
    header = f'wrk.headers["Authorization"] = "{auth_header}"\n' if auth_header else ""
    common = (f'{header}wrk.headers["Content-Type"] = "application/json"\n'
              f'local names = {{{",".join(chr(34) + n + chr(34) for n in sample)}}}\n')
    body = ('\'{"employee_name":"New \' .. i .. \'","company":"Company 1","branch":"Branch 3",'
            '"employee_number":"N-\' .. i .. \'","date":"2026-05-05","value":\' .. (i % 100) .. \','
            '"status":"Open"}\'')
    scripts = {
        "get_one": 'request = function()\n  return wrk.format("GET", "/api/resource/Bench%20Score/" '
                   '.. names[math.random(#names)])\nend\n',
        "get_list": f'request = function()\n  return wrk.format("GET", "{LIST_PATH}")\nend\n',
        "update": 'request = function()\n  return wrk.format("PUT", "/api/resource/Bench%20Score/" '
                  '.. names[math.random(#names)], nil, \'{"value":\' .. math.random(1000) .. \'}\')\nend\n',
        "create": f'local i = 0\nrequest = function()\n  i = i + 1\n  return wrk.format("POST", '
                  f'"/api/resource/Bench%20Score", nil, {body})\nend\n',
    }
    paths = {}
    for key, text in scripts.items():
        paths[key] = folder / f"{key}.lua"
        paths[key].write_text(common + text)
    return paths


def group_cpu_seconds(leader: int) -> float:
    """User + system CPU so far of every process in `leader`'s session (a server and its workers)."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == leader or int(stat.parent.name) == leader:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Result:
    rps: list[float] = field(default_factory=list)
    p50: list[float] = field(default_factory=list)
    p99: list[float] = field(default_factory=list)
    errors: int = 0
    server_us: list[float] = field(default_factory=list)
    mongod_us: list[float] = field(default_factory=list)

    def median(self, name: str) -> float:
        return statistics.median(getattr(self, name))


def alternate(servers: dict[str, tuple[subprocess.Popen[bytes], int]], scripts: dict[str, dict[str, Path]],
              ops: list[str], *, rounds: int, duration: int, connections: int,
              mongod_pid: int | None = None) -> dict[tuple[str, str], Result]:
    """wrk against every server for each operation, alternated round by round (so a noisy moment hits
    every server alike), after a short warm-up (connection pools, caches, the first imports); server
    CPU per request, and mongod's when `mongod_pid` is given. Keyed by (operation, server label)."""
    results = {(op, label): Result() for op in ops for label in servers}
    for label, (_, port) in servers.items():
        for op in ("get_one", "get_list"):
            run_wrk(f"http://127.0.0.1:{port}", scripts[label][op], 2, connections)
    for op in ops:
        for _ in range(rounds):
            for label, (proc, port) in servers.items():
                server_before = group_cpu_seconds(proc.pid)
                mongod_before = process_cpu_seconds(mongod_pid) if mongod_pid else 0.0
                rps, p50, p99, errors = run_wrk(f"http://127.0.0.1:{port}", scripts[label][op], duration, connections)
                done = rps * duration
                r = results[(op, label)]
                r.rps.append(rps)
                r.p50.append(p50)
                r.p99.append(p99)
                r.errors += errors
                r.server_us.append((group_cpu_seconds(proc.pid) - server_before) / done * 1e6)
                if mongod_pid:
                    r.mongod_us.append((process_cpu_seconds(mongod_pid) - mongod_before) / done * 1e6)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ops", default=",".join(op for _, op in OPERATIONS),
                        help="comma-separated subset of " + ", ".join(op for _, op in OPERATIONS))
    parser.add_argument("--bare-options", default="",
                        help="connection-string options for the bare apps' client, e.g. fw's own: "
                             "w=majority&readConcernLevel=majority")
    args = parser.parse_args()
    operations = tuple((title, op) for title, op in OPERATIONS if op in args.ops.split(","))
    if not shutil.which("wrk"):
        sys.exit("wrk not found: apt-get install wrk")
    work = Path(tempfile.mkdtemp(prefix="fw-peer-bench-"))
    mongod = embedded.start(work / "mongo", durable=True)
    servers: dict[str, tuple[subprocess.Popen[bytes], int]] = {}
    try:
        names, auth_header = asyncio.run(seed(mongod.url, args.rows))
        bare_url = mongod.url + (f"&{args.bare_options}" if args.bare_options else "")
        env = {**os.environ, "FW_MONGO_URL": mongod.url, "FW_DB_NAME": DB_NAME, "FW_ROOT_DIR": str(ROOT),
               "FW_ADMIN_PASSWORD": "bench-admin-1", "BENCH_MONGO_URL": bare_url, "BENCH_DB": DB_NAME,
               "PYTHONPATH": str(ROOT.parent)}
        for label, cmd, extra in (
                ("one-call", ["-m", "uvicorn", "bench.peer_baseline_app:app"], {"BENCH_CALLS": "one"}),
                ("same-calls", ["-m", "uvicorn", "bench.peer_baseline_app:app"], {"BENCH_CALLS": "same"}),
                ("fw", ["-m", "engine.cli", "serve"], {})):
            port = embedded.free_port()
            flags = ["--host", "127.0.0.1", "--port", str(port), "--workers", str(args.workers)]
            if label != "fw":
                flags += ["--log-level", "warning", "--no-access-log"]
            servers[label] = (start([sys.executable, *cmd, *flags], {**env, **extra}, work / f"{label}.log"), port)
        for proc, port in servers.values():
            wait_ready(f"http://127.0.0.1:{port}", proc, timeout=120)
        scripts = {label: lua_scripts(work / label, names, auth_header if label == "fw" else None)
                   for label in servers}
        results = alternate(servers, scripts, [op for _, op in operations], rounds=args.rounds,
                            duration=args.duration, connections=args.connections, mongod_pid=mongod.process.pid)
        print(f"\nwrk -c{args.connections} -d{args.duration}s, {args.workers} server processes each, one durable "
              f"mongod, {args.rounds} alternated round(s), medians; CPU in µs per request\n")
        print(f"{'operation':44} {'server':10} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} "
              f"{'srv CPU':>8} {'mongod':>7}   fw ratio (rounds)")
        for title, op in operations:
            for label in servers:
                r = results[(op, label)]
                line = (f"{title:44} {label:10} {r.median('rps'):7.0f} {r.median('p50'):7.1f} {r.median('p99'):7.1f} "
                        f"{r.errors:6d} {r.median('server_us'):8.0f} {r.median('mongod_us'):7.0f}")
                if label != "fw":
                    f = results[(op, "fw")]
                    ratios = [a / b for a, b in zip(f.rps, r.rps, strict=True)]
                    line += f"   fw/{label}: {statistics.median(ratios):.2f} (" + " ".join(
                        f"{x:.2f}" for x in ratios) + ")"
                print(line)
                title = ""
    finally:
        for proc, _ in servers.values():
            stop(proc)
        mongod.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
