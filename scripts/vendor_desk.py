#!/usr/bin/env python3
"""Refresh the Desk's vendored JavaScript libraries in server/desk/static/vendor/.

    python scripts/vendor_desk.py            # download the pinned versions, verify, write the files
    python scripts/vendor_desk.py --check    # offline: the files on disk are exactly what the lock says

Each library is pinned below (package, exact version, which files of its npm tarball to take). The
script asks the npm registry for that version's tarball URL and `dist.integrity` (SHA-512), downloads
the tarball, checks it against that integrity and against the integrity recorded in `vendor.lock.json`
by the previous run (a version whose tarball changed on the registry is refused), then writes the
files, their licence, and a new lock with every written file's SHA-256.

Rewrites applied while copying (the only changes made to upstream files):
- a bare `from "preact"` import becomes `from "./preact.js"`: the browser loads ES modules by URL, and
  an import map would be an inline script, which the Desk's CSP (`script-src 'self'`) forbids;
- frappe-charts never writes inline styles, which the CSP (`style-src 'self'`) blocks, with a console
  error each: the call that injects its CSS as a `<style>` element is removed (css/report.css carries
  those rules), the `style` its SVG helper sets as an attribute (the bars', dots' and gradients'
  colours) goes through the CSSOM instead, and the tooltip's `<strong style="display: block;">`
  loses its attribute (report.css sets it);
- `//# sourceMappingURL=` comments are removed (the maps are not vendored).

A rewrite that no longer matches (the upstream file changed) stops the script rather than passing
the file through unchanged.

To upgrade a library: change its version here, run the script, run the Desk tests, commit the
vendor folder and the lock together. Only the Python standard library is needed (no Node, no npm).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import re
import sys
import tarfile
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REGISTRY = "https://registry.npmjs.org"
VENDOR = Path(__file__).resolve().parents[1] / "server" / "desk" / "static" / "vendor"
LOCK = VENDOR / "vendor.lock.json"
TIMEOUT = 60


@dataclass(frozen=True)
class Pin:
    package: str
    version: str
    files: dict[str, str]  # target file name in vendor/ → path inside the tarball (under `package/`)
    license_file: str = "LICENSE"
    rewrites: tuple[tuple[str, str], ...] = field(default=())


PINS = (
    Pin("preact", "11.2.0", {"preact.js": "dist/preact.mjs", "preact-hooks.js": "hooks/dist/hooks.mjs"},
        rewrites=((r'from\s*"preact"', 'from"./preact.js"'),)),
    Pin("htm", "3.1.1", {"htm.js": "dist/htm.module.js"}),
    Pin("socket.io-client", "4.8.4", {"socket.io.js": "dist/socket.io.esm.min.js"}),
    # the ES-module build: the UMD one assigns `window.frappe` and would wipe the Desk's `frappe`
    Pin("frappe-charts", "1.6.2", {"frappe-charts.js": "dist/frappe-charts.min.esm.js"},
        rewrites=((r"styleInject\(css_248z\);", ""),
                  (r'"innerHTML"===i\?n\.textContent=a:n\.setAttribute\(i,a\)',
                   '"innerHTML"===i?n.textContent=a:"style"===i?n.style.cssText=a:n.setAttribute(i,a)'),
                  (r'<strong style="display: block;">', "<strong>"))),
)
SOURCE_MAP = re.compile(r"\n?//# sourceMappingURL=\S+\s*$")


def _get(url: str) -> bytes:
    if not url.startswith(REGISTRY + "/"):
        raise SystemExit(f"refusing to download from outside the npm registry: {url}")
    with urllib.request.urlopen(url, timeout=TIMEOUT) as response:  # (https registry URLs only)
        return bytes(response.read())


def _integrity_ok(data: bytes, integrity: str) -> bool:
    algorithm, _sep, expected = integrity.partition("-")
    if algorithm != "sha512":
        raise SystemExit(f"unexpected integrity algorithm {algorithm!r} (expected sha512)")
    return base64.b64encode(hashlib.sha512(data).digest()).decode() == expected


def _rewrite(pin: Pin, text: str, matched: set[str]) -> str:
    """`text` with the pin's rewrites applied; the patterns that matched are added to `matched`."""
    for pattern, replacement in pin.rewrites:
        text, count = re.subn(pattern, replacement, text)
        if count:
            matched.add(pattern)
    return SOURCE_MAP.sub("\n", text).rstrip("\n") + "\n"


def _member(archive: tarfile.TarFile, pin: Pin, path: str) -> bytes:
    extracted = archive.extractfile(f"package/{path}")
    if extracted is None:
        raise SystemExit(f"{pin.package}@{pin.version}: {path} is not a file in the tarball")
    return extracted.read()


def _read_lock() -> dict[str, dict[str, object]]:
    try:
        data = json.loads(LOCK.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {entry["package"]: entry for entry in data.get("packages", [])}


def refresh() -> None:
    previous = _read_lock()
    entries = []
    for pin in PINS:
        quoted = urllib.parse.quote(pin.package, safe="@")
        meta = json.loads(_get(f"{REGISTRY}/{quoted}/{pin.version}"))
        tarball, integrity = meta["dist"]["tarball"], meta["dist"]["integrity"]
        old = previous.get(pin.package)
        if old and old.get("version") == pin.version and old.get("integrity") != integrity:
            raise SystemExit(f"{pin.package}@{pin.version}: the registry's integrity changed since the lock was "
                             f"written ({old.get('integrity')} → {integrity}); refusing")
        data = _get(tarball)
        if not _integrity_ok(data, integrity):
            raise SystemExit(f"{pin.package}@{pin.version}: the tarball does not match its integrity {integrity}")
        files: dict[str, str] = {}
        matched: set[str] = set()
        texts: dict[str, str] = {}
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for target, source in pin.files.items():
                texts[target] = _rewrite(pin, _member(archive, pin, source).decode("utf-8"), matched)
            unmatched = [pattern for pattern, _replacement in pin.rewrites if pattern not in matched]
            if unmatched:  # (checked before anything of the pin is written)
                raise SystemExit(f"{pin.package}@{pin.version}: the rewrite {unmatched[0]!r} matches nothing; the "
                                 "upstream files changed, so review the rewrite before vendoring them")
            for target, text in texts.items():
                (VENDOR / target).write_text(text, encoding="utf-8")
                files[target] = hashlib.sha256(text.encode()).hexdigest()
            licence = f"LICENSE.{pin.package}.txt"
            licence_bytes = _member(archive, pin, pin.license_file)
            (VENDOR / licence).write_bytes(licence_bytes)
            files[licence] = hashlib.sha256(licence_bytes).hexdigest()
        entries.append({"package": pin.package, "version": pin.version, "tarball": tarball,
                        "integrity": integrity, "files": files})
        print(f"{pin.package}@{pin.version}: {', '.join(files)}")
    LOCK.write_text(json.dumps({"registry": REGISTRY, "packages": entries}, indent=1) + "\n", encoding="utf-8")


def check() -> list[str]:
    """Problems with the vendored files (empty when they match the lock and the pins)."""
    problems = []
    lock = _read_lock()
    for pin in PINS:
        entry = lock.get(pin.package)
        if entry is None or entry.get("version") != pin.version:
            problems.append(f"{pin.package}: the lock does not hold version {pin.version}; run the script")
            continue
        files = entry.get("files")
        assert isinstance(files, dict)
        for name, digest in files.items():
            path = VENDOR / name
            if not path.is_file():
                problems.append(f"{name}: missing")
            elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
                problems.append(f"{name}: differs from what {pin.package}@{pin.version} gave (edited by hand?)")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="verify the vendored files offline")
    args = parser.parse_args()
    if args.check:
        problems = check()
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    VENDOR.mkdir(parents=True, exist_ok=True)
    refresh()
    return 0


if __name__ == "__main__":
    sys.exit(main())
