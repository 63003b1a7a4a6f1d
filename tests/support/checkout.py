"""A copy of this checkout as a fresh clone has it, for tests that install fw from scratch."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def copy_clean_checkout(dest: Path) -> None:
    """What a fresh `git clone` of this checkout holds (tracked files, plus new files git does not
    ignore, so uncommitted work is tested too): none of this checkout's virtualenv, node_modules,
    `.fw` data or build output."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                                capture_output=True, check=True, timeout=60).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.fail(f"this test copies the files of a git checkout: run the suite from a clone of fw ({e})")
    for raw in filter(None, listed.split(b"\0")):
        relative = raw.decode()
        source, target = ROOT / relative, dest / relative
        if not source.is_symlink() and not source.exists():
            continue  # deleted in the working tree, not yet committed
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            os.symlink(os.readlink(source), target)
        else:
            shutil.copy2(source, target)
