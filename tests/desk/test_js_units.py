"""The Desk's pure client logic under `node --test` (desk.md §10): routes, `__()`, indicator rules,
display formats, new documents' defaults, form-script registration, the `frm` object, form layout and
list columns (tests/desk/js/*.test.mjs import the modules the browser loads, unchanged)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).parent
REPO = HERE.parents[1]


def test_node_unit_tests_of_the_desk() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required for the Desk's unit tests (install Node.js 20+)")
    files = sorted(str(p) for p in (HERE / "js").glob("*.test.mjs"))
    assert len(files) >= 8
    result = subprocess.run([node, "--test", *files], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    passed = re.search(r"^# pass (\d+)$", result.stdout, re.M)
    assert passed and int(passed.group(1)) >= 20, result.stdout[-2000:]
    assert "# fail 0" in result.stdout
