"""The browser fixtures themselves: without Chromium a browser test fails, saying how to install it;
it never skips."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_a_missing_browser_fails_with_an_instruction(tmp_path: Path) -> None:
    env = {**os.environ, "FW_CHROMIUM": str(tmp_path / "no-chromium-here")}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA",
                           "tests/desk/test_browser_login.py::test_enter_logs_in"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0, done.stdout[-3000:]
    assert "1 error" in done.stdout and "skipped" not in done.stdout, done.stdout[-3000:]
    assert "apt-get install -y chromium" in done.stdout and "FW_CHROMIUM" in done.stdout, done.stdout[-3000:]
