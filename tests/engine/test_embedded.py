"""engine/mongod/embedded.py's process check: a process whose main thread has exited while another thread
still runs (as a killed mongod is for a moment, its lock file still open) counts as running; a
zombie with no thread left does not."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

from engine.mongod.embedded import process_alive

# the main thread ends through pthread_exit; the process lives on in its second thread
CHILD = textwrap.dedent("""
    import ctypes, sys, threading, time
    def linger():
        while not __import__("os").path.exists(sys.argv[1]):
            time.sleep(0.01)
    threading.Thread(target=linger).start()
    print("ready", flush=True)
    ctypes.CDLL(None).pthread_exit(None)
""")


def _state(pid: int) -> tuple[str, int]:
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return status["State"].split()[0], int(status["Threads"])


def _wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_a_process_whose_main_thread_exited_runs_until_its_last_thread_ends(tmp_path: Path) -> None:
    release = tmp_path / "release"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(release)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        with child.stdout:
            assert child.stdout.readline().strip() == "ready"
        _wait_for(lambda: _state(child.pid)[0] == "Z")
        assert _state(child.pid)[1] == 2  # the main thread is a zombie, the other one still runs
        assert process_alive(child.pid)
        release.touch()
        _wait_for(lambda: _state(child.pid)[1] == 1)
        assert _state(child.pid)[0] == "Z"  # dead and not reaped: this test has not waited for it yet
        assert not process_alive(child.pid)
    finally:
        release.touch()
        child.wait(timeout=10)
    assert not process_alive(child.pid)
