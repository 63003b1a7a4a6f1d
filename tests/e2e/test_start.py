"""`fw start` as a real process on the embedded default (a site folder with the fixture app, its
mongod in `./.fw`): every process comes up with prefixed output, a scheduled job fires, operator
commands attach to the running site, a second `fw start` is refused, a killed child is restarted,
and SIGTERM stops everything, the site's mongod included, leaving no process behind.

The tests share one `fw start` (starting a site is the slow part) and run in this file's order."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pymongo
import pytest

from engine.commands.start import process_specs
from engine.mongod import embedded, site_mongod
from engine.settings import Settings
from tests.conftest import FIXTURES
from tests.e2e.conftest import free_port

REPO_ROOT = Path(__file__).resolve().parents[2]
DB_NAME = "fw_start"
CRON_TYPE = "fwtest.jobs.scheduled_note (* * * * *)"


@dataclass
class Started:
    root: Path
    proc: subprocess.Popen[bytes]
    log_path: Path
    port: int
    env: dict[str, str]

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for(self, pattern: str, timeout: float = 60.0, after: int = 0) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.log()[after:], re.MULTILINE)
            if found:
                return found
            if self.proc.poll() is not None:
                pytest.fail(f"fw start exited ({self.proc.returncode}) before printing {pattern!r}:\n"
                            f"{self.log()[-6000:]}")
            time.sleep(0.05)
        pytest.fail(f"fw start did not print {pattern!r} within {timeout:.0f}s:\n{self.log()[-6000:]}")

    def child_pid(self, name: str) -> int:
        return int(re.findall(rf"started {name} \(pid (\d+)\)", self.log())[-1])

    def mongod_pid(self) -> int | None:
        return site_mongod.running_pid(self.root / ".fw" / "mongo")

    def fw(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "engine.cli", *args], cwd=self.root, env=self.env,
                              capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)

    def db(self) -> pymongo.MongoClient[dict[str, object]]:
        state = site_mongod.read_state(self.root / ".fw" / "mongo")
        assert state is not None
        return pymongo.MongoClient(f"mongodb://127.0.0.1:{state['port']}/?replicaSet=rs0")


def _ppid(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("PPid:"):
            return int(line.split()[1])
    raise AssertionError(pid)


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Started]:
    root = tmp_path_factory.mktemp("fw-start-site")
    (root / "apps").mkdir()
    (root / "apps" / "fwtest").symlink_to(FIXTURES / "apps" / "fwtest")
    (root / "apps.txt").write_text("fwtest\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("FW_")}
    env.update({"FW_DB_NAME": DB_NAME, "FW_ADMIN_PASSWORD": "start-Admin-1", "FW_DURABLE_WRITES": "false",
                "FW_SCHEDULER_INTERVAL": "1", "PYTHONPATH": str(REPO_ROOT), "PYTHONUNBUFFERED": "1"})
    port = free_port()
    log_path = root / "fw-start.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "engine.cli", "start", "--port", str(port)], cwd=root, env=env,
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    site = Started(root, proc, log_path, port, env)
    try:
        site.wait_for(r"scheduler \| .*fw scheduler running", timeout=120)
        site.wait_for(r"web +\| .*Uvicorn running on", timeout=120)
        yield site
    finally:
        if proc.poll() is None:  # a failed test left it running
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        pid = site.mongod_pid()
        if pid is not None:
            embedded.stop_pid(pid)


def test_all_processes_come_up_with_prefixed_output(started: Started) -> None:
    log = started.log()
    assert re.search(rf"Migrated {DB_NAME}: .*apps installed: fwtest", log), log[:3000]
    web, scheduler = started.child_pid("web"), started.child_pid("scheduler")
    for pid in (web, scheduler):
        assert embedded.process_alive(pid) and _ppid(pid) == started.proc.pid, pid
    assert "worker" not in process_specs_names(started)  # no FW_REDIS_URL: jobs run in-process
    mongod = started.mongod_pid()
    assert mongod is not None and embedded.process_alive(mongod)
    assert re.search(r"^\d\d:\d\d:\d\d web       \| INFO: +Uvicorn running on", log, re.MULTILINE), log[-3000:]
    r = httpx.get(f"http://127.0.0.1:{started.port}/api/method/ping", timeout=10)
    assert r.json() == {"message": "pong"}


def process_specs_names(started: Started) -> list[str]:
    return re.findall(r"started (\w+) \(pid", started.log())


def test_a_second_fw_start_on_the_site_is_refused(started: Started) -> None:
    second = started.fw("start", "--port", str(free_port()))
    assert second.returncode == 2, second.stdout + second.stderr
    assert f"Site {DB_NAME!r} is already running (fw start, PID {started.proc.pid};" in second.stderr, second.stderr
    assert started.proc.poll() is None


def test_a_scheduled_job_fires(started: Started) -> None:
    with started.db() as client:
        db = client[DB_NAME]
        before = db.test_note.count_documents({"title": "scheduled"})
        # make the every-minute job due now (its last due time long ago): the next tick, within a
        # second (FW_SCHEDULER_INTERVAL=1), claims it and runs it in-process
        assert db.scheduled_job_type.update_one({"_id": CRON_TYPE}, {"$set": {"_last_due": "2000-01-01 00:00:00"}}
                                                ).matched_count == 1
        started.wait_for(rf"scheduler \| .*scheduled {re.escape(CRON_TYPE)} for", timeout=30)
        deadline = time.monotonic() + 30
        while db.test_note.count_documents({"title": "scheduled"}) <= before:
            assert time.monotonic() < deadline, started.log()[-4000:]
            time.sleep(0.1)


def test_operator_commands_attach_to_the_running_site(started: Started) -> None:
    mongod = started.mongod_pid()
    result = started.fw("execute", "fwtest.jobs.whoami")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '"Administrator"'
    added = started.fw("add-user", "ops@example.com", "--password", "pw-12345678", "--role", "System Manager")
    assert added.returncode == 0, added.stderr
    assert mongod is not None and started.mongod_pid() == mongod and embedded.process_alive(mongod)
    with started.db() as client:
        assert client[DB_NAME].user.find_one({"_id": "ops@example.com"}) is not None


def test_a_killed_child_is_restarted(started: Started) -> None:
    old = started.child_pid("scheduler")
    mark = len(started.log())
    os.kill(old, signal.SIGKILL)
    started.wait_for(r"system +\| scheduler exited with code -9 after [\d.]+s; restarting in 0\.5s", after=mark)
    new = int(started.wait_for(r"started scheduler \(pid (\d+)\)", after=mark).group(1))
    assert new != old and embedded.process_alive(new)
    started.wait_for(r"scheduler \| .*fw scheduler running", after=mark)


@contextlib.contextmanager
def _squatter(port: int) -> Iterator[None]:
    """Another program listening on `port`: it accepts connections and closes them at once."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    deadline = time.monotonic() + 10
    while True:  # the killed mongod's socket may take a moment to go
        try:
            server.bind(("127.0.0.1", port))
            break
        except OSError:
            assert time.monotonic() < deadline, f"port {port} stayed busy"
            time.sleep(0.02)
    server.listen()
    server.settimeout(0.1)
    done = threading.Event()

    def serve() -> None:
        while not done.is_set():
            with contextlib.suppress(TimeoutError):
                conn, _addr = server.accept()
                conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        server.close()


def _kill_mongod(started: Started, *, take_its_port: bool) -> tuple[int, int, int]:
    """SIGKILL the site's mongod (keeping its port busy if asked); returns (old pid, new pid, log mark)."""
    state = site_mongod.read_state(started.root / ".fw" / "mongo")
    assert state is not None
    old, port = int(state["pid"]), int(state["port"])
    mark = len(started.log())
    with contextlib.ExitStack() as stack:
        os.kill(old, signal.SIGKILL)
        if take_its_port:
            while embedded.process_alive(old):
                time.sleep(0.01)
            stack.enter_context(_squatter(port))
        started.wait_for(rf"system +\| the site's MongoDB \(pid {old}\) is gone; starting it again", after=mark)
        found = started.wait_for(r"system +\| MongoDB runs again \(pid (\d+), port (\d+)\)", after=mark)
        assert (int(found.group(2)) == port) is not take_its_port, (port, found.group(0))
    new = int(found.group(1))
    assert new != old and started.mongod_pid() == new
    return old, new, mark


def _login(started: Started) -> None:
    """A login reads the user and writes a session: the web process works against the database."""
    r = httpx.post(f"http://127.0.0.1:{started.port}/api/method/login", timeout=60,
                   data={"usr": "Administrator", "pwd": "start-Admin-1"})
    assert r.status_code == 200, r.text


def test_a_dead_mongod_is_started_again_and_the_processes_reconnect(started: Started) -> None:
    web = started.child_pid("web")
    _old, _new, mark = _kill_mongod(started, take_its_port=False)
    _login(started)  # the same port: the web process's driver reconnected by itself
    assert started.child_pid("web") == web and "restarting the processes" not in started.log()[mark:]


def test_a_mongod_back_on_another_port_restarts_the_processes(started: Started) -> None:
    web = started.child_pid("web")
    _old, _new, mark = _kill_mongod(started, take_its_port=True)
    started.wait_for(r"system +\| its port changed from \d+: restarting the processes", after=mark)
    started.wait_for(r"started web \(pid \d+\)", after=mark)
    started.wait_for(r"web +\| .*Uvicorn running on", after=mark)
    assert started.child_pid("web") != web
    _login(started)


def test_sigterm_stops_everything(started: Started) -> None:
    pids = [started.proc.pid, *(int(p) for p in re.findall(r"started \w+ \(pid (\d+)\)", started.log()))]
    mongod = started.mongod_pid()
    assert mongod is not None
    started.proc.send_signal(signal.SIGTERM)
    assert started.proc.wait(60) == 0, started.log()[-4000:]
    deadline = time.monotonic() + 10
    while any(embedded.process_alive(pid) for pid in [*pids, mongod]):
        assert time.monotonic() < deadline, [p for p in [*pids, mongod] if embedded.process_alive(p)]
        time.sleep(0.05)
    log = started.log()
    assert "system    | stopping: web, scheduler" in log and log.rstrip().endswith("| stopped"), log[-3000:]
    assert not (started.root / ".fw" / "mongo" / "mongod.json").exists()
    assert not (started.root / ".fw" / f"start-{DB_NAME}.pid").exists()


def test_with_redis_a_worker_runs_too() -> None:
    names = [s.name for s in process_specs(Settings(redis_url="redis://127.0.0.1:6379/0"), "127.0.0.1", 8000)]
    assert names == ["web", "scheduler", "worker"]
    assert [s.name for s in process_specs(Settings(redis_url=None), "127.0.0.1", 8000)] == ["web", "scheduler"]
