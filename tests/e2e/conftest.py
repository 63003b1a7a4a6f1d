"""End-to-end harness: real `fw serve` processes (uvicorn, the CLI, migrate on startup) against the
session's mongod, each factory on its own database, talked to over real TCP.

`fw_servers` is a factory: `start()` launches a server on a free port and waits for
`GET /api/method/ping`; several servers started by one factory share its database, so a test can
stop a server and start a new one on the same data. At the end every server still running gets
SIGTERM (and is waited for) and the database is dropped.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pymongo
import pytest

from engine.mongod import embedded
from tests.conftest import FIXTURES

REPO_ROOT = Path(__file__).resolve().parents[2]
ADMIN_PASSWORD = "e2e-Admin-pass-1"
MAX_BODY_BYTES = 256 * 1024
# waits for readiness, not measurements: an overloaded machine (a load average of 20 on 2 cores was
# seen with several suites at once) starts a 2-worker `fw serve` in over a minute; a hung one still fails
START_TIMEOUT = 180.0
STOP_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _LoggedProcess:
    """What `fw` processes started by the tests share: their pid, their log, whether they run."""

    proc: subprocess.Popen[bytes]
    log_path: Path
    _log_file: object

    @property
    def pid(self) -> int:
        return self.proc.pid

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def running(self) -> bool:
        return self.proc.poll() is None

    def _close_log(self) -> None:
        with contextlib.suppress(Exception):
            self._log_file.close()  # type: ignore[attr-defined]


@dataclass
class FwServer(_LoggedProcess):
    """One running `fw serve` process."""

    url: str
    port: int
    workers: int
    proc: subprocess.Popen[bytes]
    log_path: Path
    mongo_url: str
    db_name: str
    _log_file: object = field(repr=False)
    exit_code: int | None = None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = STOP_TIMEOUT) -> int:
        """Send `sig` and wait; returns the exit code. A server that does not stop in time is killed
        and the test fails with its log."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self._kill_group()
                self.proc.wait()
                self._close_log()
                pytest.fail(f"fw serve (pid {self.pid}) did not exit {timeout:.0f}s after signal {sig}:\n"
                            f"{self.log()[-6000:]}")
        self._kill_group()  # worker processes a crashed supervisor may have left behind
        self._close_log()
        self.exit_code = self.proc.returncode
        return self.exit_code

    def _kill_group(self) -> None:
        # the server runs in its own session (process group = its pid): this reaches its workers too
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)



@dataclass
class FwProcess(_LoggedProcess):
    """One running `fw` command other than serve (`fw worker`, `fw scheduler`, `fw execute`)."""

    args: list[str]
    proc: subprocess.Popen[bytes]
    log_path: Path
    _log_file: object = field(repr=False)
    exit_code: int | None = None

    def wait_for_log(self, text: str, timeout: float = START_TIMEOUT) -> None:
        """Wait until the process has logged `text` (e.g. that it is ready)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log():
                return
            if self.proc.poll() is not None:
                self._close_log()
                pytest.fail(f"fw {' '.join(self.args)} exited with code {self.proc.returncode} before logging "
                            f"{text!r}:\n{self.log()[-8000:]}")
            time.sleep(0.05)
        pytest.fail(f"fw {' '.join(self.args)} did not log {text!r} within {timeout:.0f}s:\n{self.log()[-8000:]}")

    def wait(self, timeout: float = STOP_TIMEOUT) -> int:
        """Wait for the process to exit by itself; returns the exit code (fails the test on a hang)."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"fw {' '.join(self.args)} (pid {self.pid}) did not exit within {timeout:.0f}s:\n"
                        f"{self.log()[-6000:]}")
        self._close_log()
        self.exit_code = self.proc.returncode
        return self.exit_code

    def stop(self, sig: int = signal.SIGTERM, timeout: float = STOP_TIMEOUT) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.wait(timeout)

    def kill(self) -> None:
        """SIGKILL the whole process group: no cleanup of any kind runs."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        self.proc.wait()
        self._close_log()
        self.exit_code = self.proc.returncode



class FwServerFactory:
    """Starts `fw serve` processes on one database (FW_DB_NAME) of the session's mongod."""

    def __init__(self, mongo_url: str, db_name: str, workdir: Path) -> None:
        self.mongo_url = mongo_url
        self.db_name = db_name
        self.workdir = workdir
        self.servers: list[FwServer] = []
        self.processes: list[FwProcess] = []

    def spawn(self, *args: str, env: dict[str, str] | None = None) -> FwProcess:
        """Start `fw <args>` (e.g. `worker --queue long,default`) on this factory's database."""
        n = len(self.processes)
        log_path = self.workdir / f"fw-{args[0]}-{n}.log"
        log_file = open(log_path, "wb")  # noqa: SIM115 - closed by FwProcess
        proc = subprocess.Popen([sys.executable, "-m", "engine.cli", *args], cwd=self.workdir, env=self.env(env),
                                stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        process = FwProcess(list(args), proc, log_path, log_file)
        self.processes.append(process)
        return process

    def stop_processes(self) -> None:
        """SIGKILL whatever a test left running (workers, schedulers); tests check clean stops themselves."""
        for process in self.processes:
            if process.exit_code is None:
                process.kill()

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("FW_")}
        env.update({
            "FW_MONGO_URL": self.mongo_url,
            "FW_DB_NAME": self.db_name,
            "FW_ROOT_DIR": str(FIXTURES / "site"),
            "FW_ADMIN_PASSWORD": ADMIN_PASSWORD,
            "FW_DURABLE_WRITES": "false",
            "FW_DATA_DIR": str(self.workdir / "data"),
            "FW_MAX_BODY_BYTES": str(MAX_BODY_BYTES),
            "PYTHONPATH": os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p),
            "PYTHONUNBUFFERED": "1",
        })
        env.update(extra or {})
        return env

    def start(self, *, workers: int = 1, env: dict[str, str] | None = None,
              timeout: float = START_TIMEOUT) -> FwServer:
        port = free_port()
        n = len(self.servers)
        log_path = self.workdir / f"fw-serve-{n}-{port}.log"
        log_file = open(log_path, "wb")  # noqa: SIM115 - closed by FwServer.stop
        cmd = [sys.executable, "-m", "engine.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
               "--workers", str(workers)]
        # cwd is a private folder so no `.env` of the developer's checkout leaks into the server
        proc = subprocess.Popen(cmd, cwd=self.workdir, env=self.env(env), stdout=log_file,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        server = FwServer(f"http://127.0.0.1:{port}", port, workers, proc, log_path, self.mongo_url, self.db_name,
                          log_file)
        self.servers.append(server)
        self._wait_ready(server, timeout)
        return server

    def _wait_ready(self, server: FwServer, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last_error = ""
        with httpx.Client(timeout=2.0) as client:
            while time.monotonic() < deadline:
                if server.proc.poll() is not None:
                    server.stop()
                    pytest.fail(f"fw serve exited with code {server.proc.returncode} before answering "
                                f"ping:\n{server.log()[-8000:]}")
                try:
                    r = client.get(f"{server.url}/api/method/ping")
                    if r.status_code == 200 and r.json() == {"message": "pong"}:
                        return
                    last_error = f"HTTP {r.status_code}: {r.text[:300]}"
                except httpx.TransportError as e:
                    last_error = repr(e)
                time.sleep(0.1)
        server.stop(signal.SIGKILL)
        pytest.fail(f"fw serve did not answer GET /api/method/ping within {timeout:.0f}s "
                    f"(last: {last_error}):\n{server.log()[-8000:]}")

    def stop_all(self) -> list[tuple[FwServer, int]]:
        self.stop_processes()
        return [(s, s.stop()) for s in self.servers if s.exit_code is None]

    def drop_database(self) -> None:
        client: pymongo.MongoClient[dict[str, object]] = pymongo.MongoClient(self.mongo_url)
        try:
            client.drop_database(self.db_name)
        finally:
            client.close()


@pytest.fixture
def fw_servers(mongod: embedded.EmbeddedMongo, tmp_path: Path) -> Iterator[FwServerFactory]:
    """A factory of real `fw serve` processes sharing one fresh database."""
    factory = FwServerFactory(mongod.url, f"fw_e2e_{secrets.token_hex(4)}", tmp_path)
    try:
        yield factory
    finally:
        try:
            stopped = factory.stop_all()
        finally:
            factory.drop_database()
    unclean = [(s, code) for s, code in stopped if code != 0]
    if unclean:
        server, code = unclean[0]
        pytest.fail(f"fw serve (pid {server.pid}) exited with code {code} on SIGTERM:\n{server.log()[-6000:]}")


@pytest.fixture(scope="module")
def shared_server(mongod: embedded.EmbeddedMongo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FwServer]:
    """One `fw serve` for a whole module's read-mostly tests (startup is the slow part)."""
    factory = FwServerFactory(mongod.url, f"fw_e2e_{secrets.token_hex(4)}", tmp_path_factory.mktemp("fw-e2e"))
    try:
        yield factory.start()
    finally:
        try:
            factory.stop_all()
        finally:
            factory.drop_database()


@contextlib.contextmanager
def login(base_url: str, usr: str = "Administrator", pwd: str = ADMIN_PASSWORD) -> Iterator[httpx.Client]:
    """An httpx client logged in with form fields (it keeps the `sid` cookie)."""
    with httpx.Client(base_url=base_url, timeout=15.0) as client:
        r = client.post("/api/method/login", data={"usr": usr, "pwd": pwd})
        if r.status_code != 200:
            pytest.fail(f"login as {usr} failed: {r.status_code} {r.text[:500]}")
        yield client
