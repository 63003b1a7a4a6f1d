"""The site's embedded mongod, shared by every fw process of the site (`fw start`, `serve`, `worker`,
`scheduler`, `execute`, `migrate`, `add-user`, ...).

It runs as the site's own daemon: whichever fw process needs it first starts it (detached, so it
outlives that process), the others attach to it, and the last one to leave stops it. Three files in
the data directory (`FW_DATA_DIR/mongo`) coordinate this:

- `mongod.json`: the running mongod's pid and port (and who started it, when). A process finds the
  site's mongod here; a file whose pid is gone, or is no longer a mongod on this data directory, is
  stale (a killed mongod) and is replaced by a fresh start.
- `start.lock`: held (flock, exclusive) while a process reads or changes `mongod.json`, starts mongod
  or stops it, so two processes never start two mongods on one directory.
- `users.lock`: each process using mongod holds a shared flock on it. Leaving, a process tries to take
  it exclusively: it succeeds only when no other process holds it, and then stops mongod. The kernel
  drops the locks of a process that dies however it dies, so a killed process never counts as a user.

A mongod left running by a killed last user is adopted by the next fw process (and stopped when that
one leaves). Locks are advisory flocks on local files: the data directory must not be on NFS.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import db
from engine import exceptions as exc
from engine.mongod import embedded

log = logging.getLogger("fw.mongod")
STATE_FILE = "mongod.json"
START_LOCK = "start.lock"
USERS_LOCK = "users.lock"
LOCK_TIMEOUT = 120.0


@dataclass
class SharedMongod:
    """This process's use of the site's mongod; `release()` when done (the last user stops it)."""

    data_dir: Path
    pid: int
    port: int
    _users_fd: int | None

    @property
    def url(self) -> str:
        return f"mongodb://127.0.0.1:{self.port}/?replicaSet=rs0"

    def detach(self) -> None:
        """Stop counting as a user without the last-user check (for a process holding another handle)."""
        if self._users_fd is not None:
            os.close(self._users_fd)
            self._users_fd = None

    def release(self) -> bool:
        """Stop using mongod; stops it if no other process uses it. Returns whether it was stopped."""
        if self._users_fd is None:
            return False
        with _exclusive(self.data_dir / START_LOCK):
            os.close(self._users_fd)
            self._users_fd = None
            if not _no_other_user(self.data_dir):
                return False
            state = read_state(self.data_dir)  # the one running now (it may have been restarted since)
            running = state is not None and _is_site_mongod(state, self.data_dir)
            if running and state is not None:  # (`state is not None` again: mypy does not narrow through `running`)
                log.info("stopping the embedded MongoDB (pid %s): no other fw process uses it", state["pid"])
                embedded.stop_pid(state["pid"])
            (self.data_dir / STATE_FILE).unlink(missing_ok=True)
            return running


def attach(data_dir: Path, *, durable: bool = True) -> SharedMongod:
    """Use the site's running mongod, or start it (recovering from a stale state file)."""
    data_dir = data_dir.absolute()  # processes started in other folders must recognise its --dbpath
    data_dir.mkdir(parents=True, exist_ok=True)
    with _exclusive(data_dir / START_LOCK):
        state = read_state(data_dir)
        if state is not None and not _is_site_mongod(state, data_dir):
            log.warning("the embedded MongoDB recorded in %s (pid %s) is gone; starting a new one",
                        data_dir / STATE_FILE, state.get("pid"))
            (data_dir / STATE_FILE).unlink(missing_ok=True)
            state = None
        if state is None:
            state = _orphan(data_dir)  # running, but its state file was lost (e.g. Ctrl+C while it started)
        if state is None:
            pid, port = embedded.launch_daemon(data_dir, durable=durable)
            state = {"pid": pid, "port": port, "started_by": os.getpid(), "started_at": time.time()}
            _write_state(data_dir, state)
        else:
            pid, port = int(state["pid"]), int(state["port"])
            try:  # running: make sure it answers (it may be electing itself primary after a restart)
                db.ensure_replica_set(port, durable=durable, timeout=30.0, alive=lambda: embedded.process_alive(pid))
            except Exception as e:
                raise exc.ConfigurationError(
                    f"The embedded MongoDB (pid {pid}, port {port}) does not answer ({e}). "
                    f"Log: {data_dir / embedded.LOG_NAME}") from e
        users_fd = os.open(data_dir / USERS_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(users_fd, fcntl.LOCK_SH)  # never blocks for long: exclusive holders hold START_LOCK too
    return SharedMongod(data_dir, pid, port, users_fd)


def read_state(data_dir: Path) -> dict[str, Any] | None:
    try:
        state = json.loads((data_dir / STATE_FILE).read_text())
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) and isinstance(state.get("pid"), int) else None


def running_pid(data_dir: Path) -> int | None:
    """The pid of the site's mongod if it runs, else None (for status output and tests)."""
    data_dir = data_dir.absolute()
    state = read_state(data_dir)
    return int(state["pid"]) if state is not None and _is_site_mongod(state, data_dir) else None


def _write_state(data_dir: Path, state: dict[str, Any]) -> None:
    tmp = data_dir / f"{STATE_FILE}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(state))
    os.replace(tmp, data_dir / STATE_FILE)  # readers see the old file or the new one, never half of one


def _is_site_mongod(state: dict[str, Any], data_dir: Path) -> bool:
    """Whether the recorded pid is a live mongod serving this data directory (pids get reused)."""
    pid = state["pid"]
    if not embedded.process_alive(pid):
        return False
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return True  # no /proc (not Linux): trust the live pid
    dbpath = str(data_dir / "db").encode()
    return any(arg.endswith(b"mongod") for arg in argv[:1]) and dbpath in argv


def _orphan(data_dir: Path) -> dict[str, Any] | None:
    """The mongod that holds this data directory's `mongod.lock`, if one runs, with its port."""
    with contextlib.suppress(OSError, ValueError):
        pid = int((data_dir / "db" / "mongod.lock").read_text().strip())
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if _is_site_mongod({"pid": pid}, data_dir) and b"--port" in argv:
            state = {"pid": pid, "port": int(argv[argv.index(b"--port") + 1]), "started_by": None,
                     "started_at": time.time()}
            _write_state(data_dir, state)
            log.warning("adopted the embedded MongoDB already running on %s (pid %s)", data_dir, pid)
            return state
    return None


def _no_other_user(data_dir: Path) -> bool:
    fd = os.open(data_dir / USERS_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


@contextlib.contextmanager
def _exclusive(path: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise exc.ConfigurationError(
                        f"Another fw process has been starting or stopping the embedded MongoDB for "
                        f"{timeout:.0f}s (lock {path}); check `{path.parent / embedded.LOG_NAME}`") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases its lock
