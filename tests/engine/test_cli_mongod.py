"""`fw` commands on the embedded default, as real processes: they attach to the site's running mongod
(and leave it running for its other users), and a MongoDB that cannot be started or reached is one
line on stderr with the cause, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.mongod import embedded, site_mongod

REPO_ROOT = Path(__file__).resolve().parents[2]


def fw(root: Path, *args: str, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FW_")}
    env.update({"FW_ADMIN_PASSWORD": "admin-pass-1", "FW_DURABLE_WRITES": "false", "COLUMNS": "300",
                "PYTHONPATH": str(REPO_ROOT), **(extra or {})})
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=180, stdin=subprocess.DEVNULL)


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    """An empty site folder (no apps) using the embedded default in `./.fw`; a mongod a failing test
    leaves running is stopped."""
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps.txt").write_text("")
    yield tmp_path
    pid = site_mongod.running_pid(tmp_path / ".fw" / "mongo")
    if pid is not None:
        embedded.stop_pid(pid)


def _one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), proc.stderr
    return lines[0]


def test_commands_attach_to_the_running_site_mongod(root: Path) -> None:
    held = site_mongod.attach(root / ".fw" / "mongo", durable=False)  # as `fw start` holds it
    try:
        migrated = fw(root, "migrate")
        assert migrated.returncode == 0, migrated.stderr
        added = fw(root, "add-user", "ops@example.com", "--password", "pw-12345678", "--role", "System Manager")
        assert added.returncode == 0, added.stderr
        again = fw(root, "add-user", "ops@example.com", "--password", "pw-12345678")
        assert "already exists" in _one_error_line(again)  # the same database: the user was kept
        assert site_mongod.running_pid(root / ".fw" / "mongo") == held.pid  # still running, not restarted
    finally:
        assert held.release() is True  # the commands did not count as users once they ended
    assert not embedded.process_alive(held.pid)


def test_a_command_alone_starts_and_stops_the_mongod(root: Path) -> None:
    proc = fw(root, "migrate")
    assert proc.returncode == 0, proc.stderr
    assert site_mongod.read_state(root / ".fw" / "mongo") is None  # stopped again: nobody else used it
    assert "Migrated fw" in proc.stderr


def test_a_corrupt_data_directory_is_one_line(root: Path) -> None:
    site_mongod.attach(root / ".fw" / "mongo", durable=False).release()
    (root / ".fw" / "mongo" / "db" / "WiredTiger.wt").write_bytes(os.urandom(4096))
    line = _one_error_line(fw(root, "migrate"))
    assert line.startswith("Error: The embedded MongoDB did not start: the data directory ")
    assert "is damaged" in line and line.endswith(f"Log: {root / '.fw' / 'mongo' / 'mongod.log'}"), line
    # the other commands say the same (no fallback to an empty in-memory site)
    assert "is damaged" in _one_error_line(fw(root, "add-user", "a@example.com", "--password", "pw-12345678"))


def test_an_unreachable_mongo_url_is_one_line(root: Path) -> None:
    url = f"mongodb://fw:secret@127.0.0.1:{embedded.free_port()}/?replicaSet=rs0"
    line = _one_error_line(fw(root, "execute", "engine.apps.callables.resolve_dotted", extra={"FW_MONGO_URL": url}))
    assert line.startswith(f"Error: Cannot reach MongoDB at {url.replace(':secret@', ':***@')}"), line
    assert "Check FW_MONGO_URL" in line and "secret" not in line
