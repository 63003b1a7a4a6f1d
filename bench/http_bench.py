"""fw's HTTP API vs a bare Starlette + driver app, same mongod, same worker count, one run.

    python bench/http_bench.py [--duration 10] [--connections 32] [--workers 1]
    python bench/http_bench.py --access-log-cost      # GET one with each access log setting

Load comes from wrk (Debian's `wrk` package). fw requests authenticate with an API key of a
System Manager user (not Administrator, so permission checks run); the baseline does the same
database work with no authentication, permissions or validation. `--access-log-cost` instead runs
GET one against four fw servers: uvicorn's own access log (what `fw serve` wrote before
FW_ACCESS_LOG), and FW_ACCESS_LOG=off, text and json; each writes its log to a file.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from engine import auth, db  # noqa: E402
from engine.apps.loader import registry_from_settings  # noqa: E402
from engine.context import unit_of_work  # noqa: E402
from engine.core.bootstrap import ensure_bootstrap  # noqa: E402
from engine.documents.factory import new_doc  # noqa: E402
from engine.documents.naming import hash_name  # noqa: E402
from engine.migrate import sync_schema  # noqa: E402
from engine.mongod import embedded  # noqa: E402
from engine.settings import Settings  # noqa: E402
from engine.site import Site  # noqa: E402

DB_NAME = "fw_http_bench"
LIST_QS = ('?filters=[["status","=","Open"],["posted",">=","2026-03-01"]]'
           '&fields=["name","title","status","posted","qty"]&order_by=posted%20desc&limit_page_length=20')


async def fresh_site(url: str, db_name: str) -> tuple[Site, str]:
    """A new bench database (schema, bootstrap) and the Authorization header of a System Manager's
    API key (not Administrator, so permission checks run)."""
    settings = Settings(root_dir=ROOT, mongo_url=url, db_name=db_name, admin_password="bench-admin-1")
    site = Site(settings, db.connect(url, db_name), registry_from_settings(settings))
    await site.db.drop()
    await sync_schema(site)
    await ensure_bootstrap(site)
    ctx = site.context("Administrator")
    async with unit_of_work(ctx):
        await new_doc(ctx, "User", email="bench@example.com", first_name="Bench",
                      roles=[{"role": "System Manager"}]).insert()
    keys = await auth.generate_keys_for(site, "bench@example.com")
    return site, f"token {keys['api_key']}:{keys['api_secret']}"


async def seed(url: str, rows: int) -> tuple[list[str], str]:
    site, auth_header = await fresh_site(url, DB_NAME)
    coll = site.db.collection("bench_record")
    names: list[str] = []
    batch = []
    statuses = ["Open", "Closed", "Hold"]
    for i in range(rows):
        name = hash_name()
        names.append(name)
        stamp = f"2026-01-01 00:{i // 60 % 60:02d}:{i % 60:02d}.{i:06d}"
        batch.append({"_id": name, "title": f"Record {i}", "status": statuses[i % 3], "qty": i % 500,
                      "amount": i * 1.25, "rate": (i % 97) / 7, "posted": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
                      "active": i % 2, "note": "benchmark row", "owner": "Administrator", "creation": stamp,
                      "modified": stamp, "modified_by": "Administrator", "docstatus": 0, "idx": 0})
        if len(batch) == 5000:
            await coll.insert_many(batch)
            batch = []
    if batch:
        await coll.insert_many(batch)
    await site.db.close()
    return names, auth_header


def lua_scripts(folder: Path, names: list[str], auth_header: str | None) -> dict[str, Path]:
    sample = random.Random(3).sample(names, 2000)
    names_lua = "{" + ",".join(f'"{n}"' for n in sample) + "}"
    header = f'wrk.headers["Authorization"] = "{auth_header}"\n' if auth_header else ""
    common = f'{header}wrk.headers["Content-Type"] = "application/json"\nlocal names = {names_lua}\n'
    scripts = {
        "get_one": common + 'request = function()\n  return wrk.format("GET", "/api/resource/Bench%20Record/" '
                            '.. names[math.random(#names)])\nend\n',
        "get_list": common + f'request = function()\n  return wrk.format("GET", "/api/resource/Bench%20Record'
                             f'{LIST_QS.replace(chr(34), "%22").replace("[", "%5B").replace("]", "%5D")}")\nend\n',
        "create": common + 'local i = 0\nrequest = function()\n  i = i + 1\n  return wrk.format("POST", '
                           '"/api/resource/Bench%20Record", nil, \'{"title":"New \' .. i .. \'","status":"Open",'
                           '"qty":\' .. (i % 100) .. \',"posted":"2026-05-05","active":1}\')\nend\n',
        "update": common + 'request = function()\n  return wrk.format("PUT", "/api/resource/Bench%20Record/" '
                           '.. names[math.random(#names)], nil, \'{"qty":\' .. math.random(1000) .. \'}\')\nend\n',
    }
    paths = {}
    for name, text in scripts.items():
        path = folder / f"{name}.lua"
        path.write_text(text + 'response = function(status, headers, body)\n  if status >= 400 then\n'
                        '    errors_seen = (errors_seen or 0) + 1\n'
                        '    if errors_seen < 3 then print(status, body) end\n'
                        '  end\nend\n')
        paths[name] = path
    return paths


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/api/method/ping", timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up")


def run_wrk(url: str, script: Path, duration: int, connections: int) -> tuple[float, float, float, int]:
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{duration}s", "--latency", "-s", str(script), url],
                         capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]

    def pct(p: str) -> float:
        m = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out)
        assert m, out
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, pct("50"), pct("99"), int(non2xx.group(1)) if non2xx else 0


def start(cmd: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(cmd, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True)


def stop(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def access_log_cost(args: argparse.Namespace, env: dict[str, str], work: Path, names: list[str],
                    auth_header: str, procs: list[subprocess.Popen[bytes]]) -> None:
    """GET one against fw with each access log, alternated round by round; prints req/s medians and
    each one's cost against FW_ACCESS_LOG=off. The servers go into `procs` (the caller stops them)."""
    variants = {"uvicorn's access log": ("off", ["--log-level", "info"]),
                "FW_ACCESS_LOG=off": ("off", ["--log-level", "warning", "--no-access-log"]),
                "FW_ACCESS_LOG=text": ("text", ["--log-level", "warning", "--no-access-log"]),
                "FW_ACCESS_LOG=json": ("json", ["--log-level", "warning", "--no-access-log"])}
    ports = {}
    for i, (label, (kind, flags)) in enumerate(variants.items()):
        ports[label] = embedded.free_port()
        procs.append(start([sys.executable, "-m", "uvicorn", "server.app:create_app_from_env", "--factory", "--port",
                            str(ports[label]), "--workers", str(args.workers), *flags],
                           {**env, "FW_ACCESS_LOG": kind}, work / f"fw-access-{i}.log"))
    for label, proc in zip(variants, procs, strict=True):
        wait_ready(f"http://127.0.0.1:{ports[label]}", proc)
    script = lua_scripts(work, names, auth_header)["get_one"]
    results: dict[str, list[float]] = {label: [] for label in variants}
    cpu: dict[str, list[float]] = {label: [] for label in variants}
    for _ in range(args.rounds):
        for label, proc in zip(variants, procs, strict=True):
            before = cpu_seconds(proc.pid)
            rps = run_wrk(f"http://127.0.0.1:{ports[label]}", script, args.duration, args.connections)[0]
            results[label].append(rps)
            cpu[label].append((cpu_seconds(proc.pid) - before) / (rps * args.duration) * 1e6)
    off, off_cpu = statistics.median(results["FW_ACCESS_LOG=off"]), statistics.median(cpu["FW_ACCESS_LOG=off"])
    print(f"\nGET one, wrk -c{args.connections} -d{args.duration}s, {args.workers} worker(s), {args.rounds} "
          f"alternated round(s), medians; cost against FW_ACCESS_LOG=off. Server CPU per request (all its\n"
          f"threads, from /proc) moves far less than req/s on a busy machine.\n")
    for label in variants:
        median, per_request = statistics.median(results[label]), statistics.median(cpu[label])
        print(f"{label:24} {median:7.0f} req/s ({1 - median / off:6.1%})  {per_request:6.0f} µs CPU/request "
              f"({per_request / off_cpu - 1:+6.1%})   rounds: " + " ".join(f"{r:.0f}" for r in results[label])
              + " | " + " ".join(f"{c:.0f}" for c in cpu[label]))


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (all its threads) so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3,
                        help="base/fw runs alternate this many times per operation; medians are reported")
    parser.add_argument("--tune-baseline-gc", action="store_true",
                        help="give the baseline fw's garbage-collector tuning too (engine/runtime.py)")
    parser.add_argument("--access-log-cost", action="store_true",
                        help="GET one with uvicorn's access log and FW_ACCESS_LOG=off|text|json, alternated")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk not found: apt-get install wrk")
    work = Path(tempfile.mkdtemp(prefix="fw-http-bench-"))
    mongod = embedded.start(work / "mongo", durable=True)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        names, auth_header = asyncio.run(seed(mongod.url, args.rows))
        fw_port, base_port = embedded.free_port(), embedded.free_port()
        env = {**os.environ, "FW_MONGO_URL": mongod.url, "FW_DB_NAME": DB_NAME, "FW_ROOT_DIR": str(ROOT),
               "BENCH_MONGO_URL": mongod.url, "BENCH_DB": DB_NAME, "PYTHONPATH": str(ROOT.parent)}
        if args.tune_baseline_gc:
            env["BENCH_TUNE_GC"] = "1"
        if args.access_log_cost:
            access_log_cost(args, env, work, names, auth_header, procs)
            return
        # like the baseline, fw writes no access log here (--access-log-cost measures what one costs)
        fw = start([sys.executable, "-m", "uvicorn", "server.app:create_app_from_env", "--factory", "--port",
                    str(fw_port), "--workers", str(args.workers), "--log-level", "warning", "--no-access-log"],
                   {**env, "FW_ACCESS_LOG": "off"}, work / "fw.log")
        base = start([sys.executable, "-m", "uvicorn", "bench.baseline_app:app", "--port", str(base_port),
                      "--workers", str(args.workers), "--log-level", "warning", "--no-access-log"], env,
                     work / "base.log")
        procs = [fw, base]
        wait_ready(f"http://127.0.0.1:{fw_port}", fw)
        wait_ready(f"http://127.0.0.1:{base_port}", base)
        fw_scripts = lua_scripts(work, names, auth_header)
        (work / "base").mkdir()
        base_scripts = lua_scripts(work / "base", names, None)
        rows = []
        for label, key, bar in (("GET one", "get_one", 0.7), ("GET list (2 filters, sort, 20 of 10k)", "get_list", 0.7),
                                ("POST create", "create", 0.5), ("PUT update", "update", 0.5)):
            runs = []
            for _ in range(args.rounds):  # alternated, so a noisy moment hits both sides alike
                b = run_wrk(f"http://127.0.0.1:{base_port}", base_scripts[key], args.duration, args.connections)
                f = run_wrk(f"http://127.0.0.1:{fw_port}", fw_scripts[key], args.duration, args.connections)
                runs.append((f, b))
            rows.append((label, runs, bar))
        print(f"\nwrk -c{args.connections} -d{args.duration}s, {args.workers} worker(s) each, same mongod, "
              f"{args.rounds} alternated round(s) per operation, medians"
              + (", baseline with fw's GC tuning" if args.tune_baseline_gc else "") + "\n")
        print(f"{'operation':40} {'fw req/s':>9} {'p50 ms':>7} {'p99 ms':>7} | {'base req/s':>10} {'p50 ms':>7} "
              f"{'p99 ms':>7} | {'ratio':>5} {'bar':>4}  per-round ratios")
        for label, runs, bar in rows:
            f = [statistics.median(r[0][i] for r in runs) for i in range(4)]
            b = [statistics.median(r[1][i] for r in runs) for i in range(4)]
            ratios = [r[0][0] / r[1][0] for r in runs]
            ratio = statistics.median(ratios)
            print(f"{label:40} {f[0]:9.0f} {f[1]:7.1f} {f[2]:7.1f} | {b[0]:10.0f} {b[1]:7.1f} {b[2]:7.1f} | "
                  f"{ratio:5.2f} {bar:4.1f} {'ok' if ratio >= bar else 'BELOW'}  "
                  + " ".join(f"{x:.2f}" for x in ratios)
                  + (f"  (fw non-2xx: {sum(r[0][3] for r in runs)})" if any(r[0][3] for r in runs) else "")
                  + (f"  (base non-2xx: {sum(r[1][3] for r in runs)})" if any(r[1][3] for r in runs) else ""))
    finally:
        for proc in procs:
            stop(proc)
        mongod.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
