#!/usr/bin/env python3
"""Take the README's screenshots of the Desk (docs/images/desk-*.png).

    python scripts/desk_screenshots.py [--out docs/images]

Sets up the tour's site (a private mongod, `fw migrate`, the demo data, `fw serve`; see
bench/desk_bench.py) and photographs, in headless Chromium as the demo HR reviewer, the Warehouse
Violation list and a pending violation's form. Run it again after a visible change to the Desk.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from bench.desk_bench import CHROMIUM, LAUNCH_ARGS, PASSWORD, USER, desk_site  # noqa: E402

VIEWPORT = {"width": 1200, "height": 680}


def shoot(url: str, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    taken = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS, headless=True)
        try:
            context = browser.new_context(base_url=url, viewport=VIEWPORT, locale="en-US")
            r = context.request.post(f"{url}/api/method/login", data={"usr": USER, "pwd": PASSWORD})
            assert r.ok, r.text()
            page = context.new_page()
            page.goto("/app/warehouse-violation")
            rows = page.get_by_role("table").locator("tbody").get_by_role("row")
            expect(rows).to_have_count(20)
            page.wait_for_load_state("networkidle")
            taken.append(out / "desk-list.png")
            page.screenshot(path=str(taken[-1]))
            page.goto("/app/warehouse-violation?workflow_state=Pending")
            expect(rows.first).to_be_visible()
            rows.first.get_by_role("link").click()
            expect(page.locator(".page-title .indicator-pill")).to_have_text("Pending")
            page.wait_for_load_state("networkidle")
            page.mouse.move(0, 0)
            taken.append(out / "desk-form.png")
            page.screenshot(path=str(taken[-1]))
            context.close()
        finally:
            browser.close()
    return taken


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fw-desk-shots-"))
    try:
        with desk_site(work) as url:
            for path in shoot(url, args.out):
                print(f"{path} ({path.stat().st_size // 1024} KB)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
