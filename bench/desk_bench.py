"""The Desk in headless Chromium: what a cold start transfers, and how fast lists and forms render.

    python bench/desk_bench.py [--rounds 5] [--json]

Sets up what the tour does (a private mongod, `fw migrate`, the demo data, one `fw serve`), then
drives Debian's Chromium (`FW_CHROMIUM`, default /usr/bin/chromium) through Playwright, logged in as
the demo HR reviewer, and measures (median of `--rounds`, each cold round in a fresh browser context,
i.e. an empty HTTP cache and localStorage):

1. Bytes on the wire for `/app` until the home page is drawn: cold (nothing cached) and warm (a
   reload), compressed as sent (Chromium's `encodedDataLength`: headers and bodies), by kind (the
   shell, JavaScript, CSS, the rest) and the Socket.IO connection apart (it is realtime, not the page).
2. Time from navigation to a rendered list of 20 rows (`/app/warehouse-violation`), and from a click
   on "500" to 500 rendered rows (`/app/employee-score`), cold and warm, with the API calls each made.
3. Time from navigation to an interactive form (`/app/warehouse-violation/<name>`: fields drawn, the
   form script's indicator shown), cold and warm, with its API calls.
4. Time from navigation to a rendered report of 1,000 rows with its chart (the Employee Score Report
   of a period bench/desk_bench_data.py fills with 1,000 scores), cold and warm.
5. Time of a bulk action over 200 rows from the list (once: it changes the rows): the demo warehouse
   manager selects 200 Draft violations (page size 500, "Select all") and applies "Submit for
   Review"; from the click on the action to the dialog with the 200 rows' results (the server runs
   it as a job with a progress bar; the results come by Socket.IO).

Times are `performance.now()` in the page when the condition first holds (checked every animation
frame), so they include parsing, rendering and every request. A benchmark, not a test: the figures
go to bench/README.md ("The Desk").
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright  # noqa: E402

from bench.desk_bench_data import BULK_DATE, BULK_ROWS, REPORT_PERIOD, REPORT_ROWS  # noqa: E402
from engine.mongod import embedded  # noqa: E402

CHROMIUM = os.environ.get("FW_CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
DB_NAME = "fw_desk_bench"
ADMIN_PASSWORD = "bench-admin-1"
USER, PASSWORD = "reviewer@demo.example.com", "demo-pass-1"  # apps/workforce_scoring/demo.py
BUDGET_KB = 300
ROWS_20 = "document.querySelectorAll('main table tbody tr').length >= 20"
ROWS_500 = "document.querySelectorAll('main table tbody tr').length >= 500"
FORM_READY = (
    "document.querySelector('main [role=combobox]') !== null && "
    "document.querySelector('.page-title .indicator-pill') !== null"
)
REPORT_PATH = f"/app/query-report/Employee%20Score%20Report?period={REPORT_PERIOD}"
REPORT_READY = (
    f"document.querySelectorAll('.report-table tbody tr').length >= {REPORT_ROWS} && "
    "document.querySelector('.report-chart svg rect') !== null"
)
BULK_USER = "warehouse@demo.example.com"
BULK_DONE = (
    "[...document.querySelectorAll('[role=dialog]')]"
    f".some((d) => d.textContent.includes('{BULK_ROWS} succeeded, 0 refused'))"
)
HOME_READY = "document.querySelector('main h1') !== null && document.querySelector('nav.sidebar a') !== null"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def desk_site(work: Path) -> Iterator[str]:
    """A private mongod with the migrated reference apps and their demo data, and `fw serve`: its URL."""
    mongod = embedded.start(work / "mongo", durable=False)
    env = {
        **os.environ,
        "FW_MONGO_URL": mongod.url,
        "FW_DB_NAME": DB_NAME,
        "FW_ROOT_DIR": str(REPO),
        "FW_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "FW_ACCESS_LOG": "off",
        "PYTHONPATH": str(REPO),
    }
    env.pop("FW_REDIS_URL", None)
    server = None
    try:
        steps = (["migrate"], ["execute", "workforce_scoring.demo.load"], ["execute", "bench.desk_bench_data.load"])
        for args in steps:
            done = subprocess.run(
                [sys.executable, "-m", "engine.cli", *args],
                env=env,
                cwd=work,
                capture_output=True,
                text=True,
                timeout=600,
            )
            if done.returncode != 0:
                raise SystemExit(f"fw {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        port = free_port()
        log = open(work / "serve.log", "wb")  # noqa: SIM115 - closed below
        server = subprocess.Popen(
            [sys.executable, "-m", "engine.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            cwd=work,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/method/ping", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"fw serve did not start: see {work / 'serve.log'}") from None
                time.sleep(0.2)
        yield url
    finally:
        if server is not None and server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            embedded_db_drop(mongod.url)
        mongod.stop()


def embedded_db_drop(url: str) -> None:
    from pymongo import MongoClient

    with MongoClient(url) as client:
        client.drop_database(DB_NAME)


@dataclass
class Traffic:
    """What one page load put on the wire (from the DevTools protocol's Network domain)."""

    urls: dict[str, str] = field(default_factory=dict)  # requestId → url
    kinds: dict[str, str] = field(default_factory=dict)  # requestId → resource type
    sizes: dict[str, int] = field(default_factory=dict)  # requestId → encoded bytes (headers + body)
    cached: int = 0

    def by_kind(self) -> dict[str, int]:
        out: dict[str, int] = {"shell": 0, "script": 0, "stylesheet": 0, "api": 0, "other": 0, "socket.io": 0}
        for rid, size in self.sizes.items():
            url, kind = self.urls.get(rid, ""), self.kinds.get(rid, "")
            if "/socket.io/" in url:
                out["socket.io"] += size
            elif kind == "Document":
                out["shell"] += size
            elif kind == "Script":
                out["script"] += size
            elif kind == "Stylesheet":
                out["stylesheet"] += size
            elif "/api/" in url:
                out["api"] += size
            else:
                out["other"] += size
        return out


def watch_traffic(context: BrowserContext, page: Page) -> Traffic:
    traffic = Traffic()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")

    def sent(event: dict[str, Any]) -> None:
        traffic.urls[event["requestId"]] = event["request"]["url"]
        traffic.kinds[event["requestId"]] = event.get("type", "")

    def finished(event: dict[str, Any]) -> None:
        traffic.sizes[event["requestId"]] = int(event.get("encodedDataLength", 0))

    def from_cache(_event: dict[str, Any]) -> None:
        traffic.cached += 1

    cdp.on("Network.requestWillBeSent", sent)
    cdp.on("Network.loadingFinished", finished)
    cdp.on("Network.requestServedFromCache", from_cache)
    return traffic


def logged_in_context(browser: Browser, url: str, user: str = USER) -> BrowserContext:
    context = browser.new_context(base_url=url, viewport={"width": 1280, "height": 900}, locale="en-US")
    r = context.request.post(f"{url}/api/method/login", data={"usr": user, "pwd": PASSWORD})
    if not r.ok:
        raise SystemExit(f"login as {user}: {r.status} {r.text()[:300]}")
    return context


def api_calls(page: Page) -> list[str]:
    calls: list[str] = []
    page.on("request", lambda r: calls.append(r.url) if "/api/" in r.url else None)
    return calls


def until(page: Page, condition: str, timeout: float = 60_000) -> float:
    """Wait for `condition` (checked every frame); the page's clock (ms since navigation) at that moment."""
    page.wait_for_function(f"() => {condition} ? performance.now() : false", polling="raf", timeout=timeout)
    return float(page.evaluate("performance.now()"))


def open_and_time(page: Page, path: str, condition: str) -> tuple[float, int]:
    calls = api_calls(page)
    page.goto(path, wait_until="commit")
    ms = until(page, condition)
    page.wait_for_timeout(200)  # a request started late would still count
    return ms, len(calls)


def click_500(page: Page) -> tuple[float, int]:
    calls = api_calls(page)
    start = float(page.evaluate("performance.now()"))
    page.get_by_role("group", name="Rows per page").get_by_role("button", name="500").click()
    ms = until(page, ROWS_500) - start
    page.wait_for_timeout(200)
    return ms, len(calls)


def bulk_action(browser: Browser, url: str) -> float:
    """ms from the click on "Submit for Review" for BULK_ROWS selected rows to their results shown."""
    context = logged_in_context(browser, url, BULK_USER)
    try:
        page = context.new_page()
        with page.expect_websocket() as socket:
            page.goto(f"/app/warehouse-violation?date={BULK_DATE}")
        socket.value.wait_for_event("framereceived")  # realtime joined: the job's results come that way
        until(page, ROWS_20)
        page.get_by_role("group", name="Rows per page").get_by_role("button", name="500").click()
        until(page, f"document.querySelectorAll('main table tbody tr').length >= {BULK_ROWS}")
        page.get_by_role("checkbox", name="Select all").check()
        page.get_by_role("group", name="Selected documents").get_by_role("button", name="Actions").click()
        start = float(page.evaluate("performance.now()"))
        page.get_by_role("menuitem", name="Submit for Review").click()
        return until(page, BULK_DONE, timeout=300_000) - start
    finally:
        context.close()


def median(values: list[float]) -> float:
    return float(statistics.median(values))


def a_violation(url: str) -> str:
    request = urllib.request.Request(
        f"{url}/api/method/login", data=f"usr={USER}&pwd={PASSWORD}".encode(), method="POST"
    )
    with urllib.request.urlopen(request) as response:
        cookie = "; ".join(h.split(";", 1)[0] for h in response.headers.get_all("Set-Cookie") or [])
    query = urllib.request.Request(
        f"{url}/api/v2/document/Warehouse%20Violation?limit=1&fields=%5B%22name%22%5D", headers={"Cookie": cookie}
    )
    with urllib.request.urlopen(query) as response:
        return str(json.load(response)["data"][0]["name"])


def run(url: str, rounds: int) -> dict[str, Any]:
    violation = a_violation(url)
    results: dict[str, list[float]] = {}

    def add(key: str, value: float) -> None:
        results.setdefault(key, []).append(value)

    kinds_cold: list[dict[str, int]] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS, headless=True)
        try:
            for _ in range(rounds):
                # 1. /app cold, then warm (a reload of the same context)
                context = logged_in_context(browser, url)
                page = context.new_page()
                traffic = watch_traffic(context, page)
                page.goto("/app")
                until(page, HOME_READY)
                page.wait_for_load_state("networkidle")
                kinds = traffic.by_kind()
                kinds_cold.append(kinds)
                add("app_cold_kb", (sum(kinds.values()) - kinds["socket.io"]) / 1024)
                add("app_cold_requests", len([u for u in traffic.urls.values() if "/socket.io/" not in u]))
                warm = watch_traffic(context, page)
                page.reload()
                until(page, HOME_READY)
                page.wait_for_load_state("networkidle")
                kinds = warm.by_kind()
                add("app_warm_kb", (sum(kinds.values()) - kinds["socket.io"]) / 1024)
                context.close()

                # 2. a list of 20: cold (new context), then warm (the same list again, meta cached)
                for label, path, condition in (
                    ("list20", "/app/warehouse-violation", ROWS_20),
                    ("form", f"/app/warehouse-violation/{violation}", FORM_READY),
                ):
                    context = logged_in_context(browser, url)
                    page = context.new_page()
                    ms, calls = open_and_time(page, path, condition)
                    add(f"{label}_cold_ms", ms)
                    add(f"{label}_cold_calls", calls)
                    page.goto("/app")
                    until(page, HOME_READY)
                    ms, calls = open_and_time(page, path, condition)
                    add(f"{label}_warm_ms", ms)
                    add(f"{label}_warm_calls", calls)
                    context.close()

                # 3. 500 rows: a click on "500" in a fresh list, then again after a reload (warm)
                context = logged_in_context(browser, url)
                page = context.new_page()
                for label in ("cold", "warm"):
                    page.goto("/app/employee-score")
                    until(page, ROWS_20)
                    page.wait_for_load_state("networkidle")
                    ms, calls = click_500(page)
                    add(f"list500_{label}_ms", ms)
                    add(f"list500_{label}_calls", calls)
                context.close()

                # 4. a report of 1,000 rows with its chart: cold (new context), then warm
                context = logged_in_context(browser, url)
                page = context.new_page()
                for label in ("cold", "warm"):
                    ms, calls = open_and_time(page, REPORT_PATH, REPORT_READY)
                    add(f"report1000_{label}_ms", ms)
                    add(f"report1000_{label}_calls", calls)
                    page.goto("/app")
                    until(page, HOME_READY)
                context.close()
            # 5. a bulk action over 200 rows (once: afterwards the rows are in another state)
            results["bulk200_ms"] = [bulk_action(browser, url)]
        finally:
            browser.close()
    summary = {key: round(median(values), 1) for key, values in results.items()}
    summary["app_cold_by_kind_kb"] = {k: round(median([c[k] for c in kinds_cold]) / 1024, 1) for k in kinds_cold[0]}
    summary["rounds"] = rounds
    return summary


def report(s: dict[str, Any]) -> str:
    kinds = ", ".join(f"{k} {v}" for k, v in s["app_cold_by_kind_kb"].items())
    lines = [
        f"cold /app: {s['app_cold_kb']:.1f} KB in {s['app_cold_requests']:.0f} requests (budget {BUDGET_KB} KB; "
        f"by kind, KB: {kinds}); warm /app (reload): {s['app_warm_kb']:.1f} KB",
        "| view | cold ms | cold API calls | warm ms | warm API calls |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, name in (
        ("list20", "list, 20 rows"),
        ("list500", "list, 500 rows (click on 500)"),
        ("form", "form, interactive"),
        ("report1000", f"report, {REPORT_ROWS} rows and chart"),
    ):
        lines.append(
            f"| {name} | {s[f'{label}_cold_ms']:.0f} | {s[f'{label}_cold_calls']:.0f} | "
            f"{s[f'{label}_warm_ms']:.0f} | {s[f'{label}_warm_calls']:.0f} |"
        )
    lines.append(f"(median of {s['rounds']} rounds)")
    lines.append(f"bulk action over {BULK_ROWS} rows from the list (a job, results shown): {s['bulk200_ms']:.0f} ms")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"Chromium is needed at {CHROMIUM} (apt-get install -y chromium, or set FW_CHROMIUM)")
    work = Path(tempfile.mkdtemp(prefix="fw-desk-bench-"))
    try:
        with desk_site(work) as url:
            summary = run(url, args.rounds)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(report(summary))
    if args.json:
        print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
