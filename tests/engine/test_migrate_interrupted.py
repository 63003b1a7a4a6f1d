"""Ctrl+C during `fw migrate` (a real process, SIGINT as the terminal sends it) leaves nothing the next
migrate cannot finish: the interrupted one exits 130 with one line and releases its lock, and the next
brings the database to exactly what one uninterrupted migrate makes."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymongo
import pytest

from engine.mongod import embedded
from tests.conftest import FIXTURES

REPO_ROOT = Path(__file__).resolve().parents[2]


def _env(url: str, db_name: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FW_")}
    env.update({"FW_MONGO_URL": url, "FW_DB_NAME": db_name, "FW_ROOT_DIR": str(FIXTURES / "site"),
                "FW_ADMIN_PASSWORD": "admin-pass-1", "FW_DURABLE_WRITES": "false", "PYTHONPATH": str(REPO_ROOT)})
    return env


def _migrate(url: str, db_name: str, tmp: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "engine.cli", "migrate"], cwd=tmp, env=_env(url, db_name),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out + err


def _snapshot(db: Any) -> dict[str, Any]:
    """What migrate makes, without timestamps: collections and their indexes, DocType records, the
    installed apps, the records fixtures and bootstrap create, Scheduled Job Types, Reports."""
    collections = sorted(n for n in db.list_collection_names() if not n.startswith("system."))
    return {
        "collections": collections,
        "indexes": {n: sorted(db[n].index_information()) for n in collections},
        "doctypes": sorted((d["_id"], d.get("json_hash")) for d in db.doctype.find({}, {"json_hash": 1})),
        "apps": sorted((db["_fw_state"].find_one({"_id": "installed_apps"}) or {}).get("apps", [])),
        "schema": (db["_fw_state"].find_one({"_id": "schema"}) or {}).get("hash"),
        "roles": sorted(db.role.distinct("_id")),
        "users": sorted(db.user.distinct("_id")),
        "custom_fields": sorted(db.custom_field.distinct("_id")),
        "workflows": sorted(db.workflow.distinct("_id")),
        "job_types": sorted(db.scheduled_job_type.distinct("_id")),
        "reports": sorted(db.report.distinct("_id")),
        "lock": db["_fw_state"].find_one({"_id": "migrate_lock"}),
    }


@pytest.fixture
def client(mongod: embedded.EmbeddedMongo) -> Iterator[pymongo.MongoClient[dict[str, Any]]]:
    with pymongo.MongoClient(mongod.url) as c:
        yield c


def test_ctrl_c_during_migrate_leaves_nothing_the_next_cannot_finish(
        mongod: embedded.EmbeddedMongo, client: pymongo.MongoClient[dict[str, Any]], tmp_path: Path) -> None:
    reference, interrupted = f"fw_mig_ref_{secrets.token_hex(3)}", f"fw_mig_int_{secrets.token_hex(3)}"
    try:
        code, output = _finish(_migrate(mongod.url, reference, tmp_path))
        assert code == 0, output
        expected = _snapshot(client[reference])
        assert expected["apps"] == ["fwtest", "hr", "workforce_scoring"] and expected["lock"] is None

        # interrupt it once its schema sync is under way: some DocType records written, not all
        proc = _migrate(mongod.url, interrupted, tmp_path)
        deadline = time.monotonic() + 120
        while client[interrupted].doctype.count_documents({}) < 3:
            assert proc.poll() is None, _finish(proc)[1]
            assert time.monotonic() < deadline, "migrate never began writing DocType records"
            time.sleep(0.005)
        proc.send_signal(signal.SIGINT)
        code, output = _finish(proc)
        assert code == 130, output
        assert "Interrupted: what the command had not finished was rolled back; run it again to finish." in output
        assert "Traceback" not in output, output
        half = _snapshot(client[interrupted])
        assert half["lock"] is None  # released on the way out: the next migrate need not wait for it to expire
        assert half != expected  # it really was stopped half-way

        code, output = _finish(_migrate(mongod.url, interrupted, tmp_path))
        assert code == 0, output
        assert _snapshot(client[interrupted]) == expected
        code, output = _finish(_migrate(mongod.url, interrupted, tmp_path))
        assert code == 0 and "Nothing changed" in output, output
    finally:
        client.drop_database(reference)
        client.drop_database(interrupted)
