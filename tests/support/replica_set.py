"""A local MongoDB replica set of three `mongod` processes from the wheel (one of them
elected primary), for the failover tests and bench/scale_bench.py."""

from __future__ import annotations

import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymongo

from engine.mongod import embedded


@dataclass
class ReplicaSet:
    """Three mongod processes forming `rs0`, each on its own port and data directory."""

    root: Path
    ports: list[int]
    processes: list[subprocess.Popen[bytes] | None] = field(default_factory=list)

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{p}" for p in self.ports)
        return f"mongodb://{hosts}/?replicaSet=rs0"

    def start_member(self, i: int) -> None:
        data_dir = self.root / f"m{i}"
        (data_dir / "db").mkdir(parents=True, exist_ok=True)
        proc = subprocess.Popen(embedded.mongod_args(data_dir, self.ports[i]), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        if i < len(self.processes):
            self.processes[i] = proc
        else:
            self.processes.append(proc)

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.processes if p is not None and p.poll() is None]

    def client(self, **options: Any) -> pymongo.MongoClient[dict[str, Any]]:
        return pymongo.MongoClient(self.url, serverSelectionTimeoutMS=30_000, **options)

    def initiate(self) -> None:
        for port in self.ports[1:]:  # the quorum check of replSetInitiate needs every member answering
            member: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(
                f"mongodb://127.0.0.1:{port}/?directConnection=true", serverSelectionTimeoutMS=30_000)
            try:
                member.admin.command("ping")
            finally:
                member.close()
        direct: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(
            f"mongodb://127.0.0.1:{self.ports[0]}/?directConnection=true", serverSelectionTimeoutMS=30_000)
        try:
            direct.admin.command("ping")
            direct.admin.command("replSetInitiate", {"_id": "rs0", "members": [
                {"_id": i, "host": f"127.0.0.1:{p}"} for i, p in enumerate(self.ports)]})
        finally:
            direct.close()
        self.wait_for_primary(timeout=60)

    def primary(self) -> int | None:
        """Index of the member that says it is the writable primary, if any (asked directly)."""
        for i, port in enumerate(self.ports):
            proc = self.processes[i]
            if proc is None or proc.poll() is not None:
                continue
            direct: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(
                f"mongodb://127.0.0.1:{port}/?directConnection=true", serverSelectionTimeoutMS=500)
            try:
                if direct.admin.command("hello").get("isWritablePrimary"):
                    return i
            except pymongo.errors.PyMongoError:
                pass
            finally:
                direct.close()
        return None

    def wait_for_primary(self, timeout: float, other_than: int | None = None) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.primary()
            if found is not None and found != other_than:
                return found
            time.sleep(0.05)
        raise AssertionError(f"no primary (other than {other_than}) within {timeout} s")

    def kill(self, i: int) -> None:
        proc = self.processes[i]
        assert proc is not None
        proc.kill()
        proc.wait()

    def stop(self) -> None:
        for proc in self.processes:
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.processes:
            if proc is not None:
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    proc.kill()


def start_replica_set(root: Path, members: int = 3) -> ReplicaSet:
    """Start and initiate a replica set of `members` mongod processes under `root`; stop() it after."""
    rs = ReplicaSet(root, [embedded.free_port() for _ in range(members)])
    try:
        for i in range(members):
            rs.start_member(i)
        rs.initiate()
    except BaseException:
        rs.stop()
        raise
    return rs
