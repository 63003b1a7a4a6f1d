"""fw at two checkouts, alternated in one run on one mongod: did a change cost throughput?

    git worktree add /tmp/fw-before <commit>
    python bench/ab_bench.py --before /tmp/fw-before [--after DIR] [--duration 8] [--rounds 3] [--workers 2]

The peer benchmark's workload (bench/peer_bench.py: 10,000 `Bench Score` documents, GET one, the
list, PUT one field without `modified`, POST create, a System Manager's API key) against
`fw serve` from this checkout ("after") and from `--before`, each on its own copy of the data,
alternated round by round so a noisy moment hits both alike. Each server runs its checkout's code
(PYTHONPATH and the working directory point at it; both use this interpreter's packages) and
migrates its database on start. Prints req/s, p99 and server CPU per request, medians, and
after/before.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from bench.http_bench import stop, wait_ready  # noqa: E402
from bench.peer_bench import OPERATIONS, alternate, lua_scripts, seed  # noqa: E402
from engine.mongod import embedded  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the earlier commit")
    parser.add_argument("--after", type=Path, default=ROOT.parent, help="the later checkout (default: this one)")
    parser.add_argument("--duration", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ops", nargs="*", choices=[op for _, op in OPERATIONS], help="only these operations")
    parser.add_argument("--env", action="append", default=[], metavar="SIDE:NAME=VALUE",
                        help="an environment variable for one side's server, e.g. after:FW_ACCESS_LOG=off")
    args = parser.parse_args()
    extra: dict[str, dict[str, str]] = {"before": {}, "after": {}}
    for item in args.env:
        side, _, assignment = item.partition(":")
        name, eq, value = assignment.partition("=")
        if side not in extra or not eq:
            sys.exit(f"--env {item!r}: write before:NAME=VALUE or after:NAME=VALUE")
        extra[side][name] = value
    before, after = args.before.resolve(), args.after.resolve()
    operations = [(title, op) for title, op in OPERATIONS if not args.ops or op in args.ops]
    for checkout in (before, after):
        if not (checkout / "engine" / "cli.py").exists():
            sys.exit(f"{checkout} is not a checkout of fw (no engine/cli.py)")
    if not shutil.which("wrk"):
        sys.exit("wrk not found: apt-get install wrk")
    work = Path(tempfile.mkdtemp(prefix="fw-ab-bench-"))
    mongod = embedded.start(work / "mongo", durable=True)
    servers: dict[str, tuple[subprocess.Popen[bytes], int]] = {}
    try:
        checkouts = {"before": before, "after": after}
        scripts = {}
        for label, checkout in checkouts.items():
            db_name = f"fw_ab_{label}"
            names, auth_header = asyncio.run(seed(mongod.url, args.rows, db_name))
            scripts[label] = lua_scripts(work / label, names, auth_header)
            env = {**os.environ, "FW_MONGO_URL": mongod.url, "FW_DB_NAME": db_name,
                   "FW_ROOT_DIR": str(checkout / "bench"), "FW_ADMIN_PASSWORD": "bench-admin-1",
                   "PYTHONPATH": str(checkout), **extra[label]}
            port = embedded.free_port()
            cmd = [sys.executable, "-m", "engine.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                   "--workers", str(args.workers)]
            proc = subprocess.Popen(cmd, env=env, cwd=checkout, stdout=(work / f"{label}.log").open("wb"),
                                    stderr=subprocess.STDOUT, start_new_session=True)
            servers[label] = (proc, port)
        for proc, port in servers.values():
            wait_ready(f"http://127.0.0.1:{port}", proc, timeout=180)
        results = alternate(servers, scripts, [op for _, op in operations], rounds=args.rounds,
                            duration=args.duration, connections=args.connections)
        print(f"\nbefore = {before}, after = {after}\nwrk -c{args.connections} -d{args.duration}s, "
              f"{args.workers} server processes each, {args.rounds} alternated round(s), medians\n")
        print(f"{'operation':44} {'req/s before':>12} {'after':>7} {'after/before':>12} {'p99 ms':>13} "
              f"{'CPU µs/req':>13} {'errors':>7}")
        for title, op in operations:
            b, a = results[(op, "before")], results[(op, "after")]
            ratios = [x / y for x, y in zip(a.rps, b.rps, strict=True)]
            print(f"{title:44} {b.median('rps'):12.0f} {a.median('rps'):7.0f} {statistics.median(ratios):12.2f} "
                  f"{b.median('p99'):6.1f}/{a.median('p99'):<6.1f} {b.median('server_us'):6.0f}/"
                  f"{a.median('server_us'):<6.0f} {b.errors:3d}/{a.errors:<3d}")
    finally:
        for proc, _ in servers.values():
            stop(proc)
        mongod.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
