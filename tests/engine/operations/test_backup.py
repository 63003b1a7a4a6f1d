"""`fw backup`'s engine side: one cluster time for every collection (a backup taken while
transactions commit holds whole transactions only), mongodump's layout and metadata, the manifest's
counts and checksums, sessions left out, and a failed write leaving no backup behind."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import os
import random
import time
from pathlib import Path
from typing import Any

import bson
import jsonschema
import pytest

from engine import exceptions as exc
from engine.operations import layout
from engine.operations.backup import backup_site
from engine.site import Site
from tests.engine.operations.support import populate

# mongodump's <collection>.metadata.json (canonical extended JSON)
METADATA_SCHEMA = {
    "type": "object",
    "required": ["options", "indexes", "collectionName", "type", "uuid"],
    "properties": {
        "options": {"type": "object"},
        "indexes": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["v", "key", "name"],
            "properties": {"v": {"type": "object", "required": ["$numberInt"]}, "key": {"type": "object"},
                           "name": {"type": "string"}}}},
        "collectionName": {"type": "string"},
        "type": {"const": "collection"},
        "uuid": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
    },
}


def _documents(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rb") as f:
        return list(bson.decode_file_iter(f))


async def test_the_backup_is_in_mongodumps_layout_with_a_manifest(site: Site, tmp_path: Path) -> None:
    made = await populate(site.context())
    await site.sessions.create("Administrator", "127.0.0.1")  # a session: never backed up
    result = await backup_site(site, output_dir=tmp_path)

    assert result.path.parent == tmp_path and result.path.name.startswith(f"{site.name}-")
    assert [p.name for p in tmp_path.iterdir()] == [result.path.name]  # no temporary folder left
    manifest = json.loads((result.path / "fw-backup.json").read_text())
    assert manifest["format"] == "fw-backup/1" and manifest["site"] == site.name
    assert list(manifest["apps"]) == site.apps.app_names and manifest["encrypted"] is False
    assert manifest["cluster_time"]["t"] > 0 and manifest["created"].endswith("+00:00")
    names = await site.db.handle.list_collection_names()
    backed_up = {c["name"]: c for c in manifest["collections"]}
    assert set(backed_up) == {n for n in names if n != "_fw_sessions"}
    assert {"_fw_file_chunks", "_fw_file_contents", "_fw_series", "_fw_state"} <= set(backed_up)

    for name, entry in backed_up.items():
        # mongodump's names and formats: <db>/<collection>.bson.gz and .metadata.json.gz
        assert entry["data"] == f"{site.db.name}/{name}.bson.gz"
        assert entry["metadata"] == f"{site.db.name}/{name}.metadata.json.gz"
        documents = _documents(result.path / entry["data"])
        assert len(documents) == entry["count"] == await site.db.handle[name].count_documents({})
        with gzip.open(result.path / entry["metadata"], "rt") as f:
            metadata = json.load(f)
        jsonschema.validate(metadata, METADATA_SCHEMA)
        assert metadata["collectionName"] == name
        stored = [index["name"] async for index in await site.db.handle[name].list_indexes()]
        assert [index["name"] for index in metadata["indexes"]] == stored
        for file in (entry["data"], entry["metadata"]):
            content = (result.path / file).read_bytes()
            assert manifest["files"][file] == {"sha256": hashlib.sha256(content).hexdigest(), "bytes": len(content)}
    users = {d["_id"]: d for d in _documents(result.path / backed_up["user"]["data"])}
    assert users["kept@example.com"]["api_key"] == made["api_key"] and users["kept@example.com"]["_password_hash"]
    assert result.documents == sum(c["count"] for c in manifest["collections"])


# Collections of the consistency test: the snapshot is read in name order, so the two sides of each
# transaction sit in collections read seconds apart, a big collection between them.
ACCOUNTS_A, PAIRS_A, FILLER, ACCOUNTS_Z, PAIRS_Z = ("aaa_bk_accounts", "aaa_bk_pairs", "mmm_bk_filler",
                                                    "zzz_bk_accounts", "zzz_bk_pairs")
ACCOUNTS, START = 10, 1000


async def test_a_backup_under_write_load_holds_whole_transactions_only(site: Site, tmp_path: Path) -> None:
    db = site.db
    try:
        for name in (ACCOUNTS_A, ACCOUNTS_Z):
            await db.collection(name).insert_many([{"_id": i, "balance": START} for i in range(ACCOUNTS)])
        for start in range(0, 12_000, 2_000):  # incompressible, so gzip takes its time over it
            await db.collection(FILLER).insert_many([{"_id": i, "payload": os.urandom(1024)}
                                                     for i in range(start, start + 2_000)])
        stop = asyncio.Event()
        commits: list[float] = []

        async def move_money() -> None:
            """Transactions that move money from an account in A to one in Z and insert a pair of records."""
            rng = random.Random(7)
            while not stop.is_set():
                async with db.start_session() as session, await session.start_transaction():
                    amount = rng.randrange(1, 50)
                    await db.collection(ACCOUNTS_A).update_one({"_id": rng.randrange(ACCOUNTS)},
                                                               {"$inc": {"balance": -amount}}, session=session)
                    await db.collection(ACCOUNTS_Z).update_one({"_id": rng.randrange(ACCOUNTS)},
                                                               {"$inc": {"balance": amount}}, session=session)
                    await db.collection(PAIRS_A).insert_one({"_id": len(commits)}, session=session)
                    await db.collection(PAIRS_Z).insert_one({"_id": len(commits)}, session=session)
                commits.append(time.monotonic())
                await asyncio.sleep(0)

        reading: dict[str, float] = {}

        def progress(collection: str, done: int, total: int) -> None:
            reading.setdefault(collection, time.monotonic())

        writer = asyncio.create_task(move_money())
        while len(commits) < 5:
            await asyncio.sleep(0.01)
        try:
            result = await backup_site(site, output_dir=tmp_path, progress=progress)
        finally:
            stop.set()
            await writer

        # transactions committed while the backup read A and before it read Z: a backup reading each
        # collection at its own time would have split some of them
        between = [t for t in commits if reading[ACCOUNTS_A] < t < reading[ACCOUNTS_Z]]
        assert len(between) >= 3, (len(commits), reading)
        entries = {c.name: c for c in result.manifest.collections}

        def backed_up(name: str) -> list[dict[str, Any]]:
            return _documents(result.path / entries[name].data)

        balances = [d["balance"] for d in backed_up(ACCOUNTS_A) + backed_up(ACCOUNTS_Z)]
        assert len(balances) == 2 * ACCOUNTS and sum(balances) == 2 * ACCOUNTS * START  # nothing half-moved
        pairs_a = sorted(d["_id"] for d in backed_up(PAIRS_A))
        assert pairs_a == sorted(d["_id"] for d in backed_up(PAIRS_Z))  # no pair split
        assert 5 <= len(pairs_a) < len(commits)  # the transactions before the snapshot, none after
        assert pairs_a == list(range(len(pairs_a)))
        assert len(backed_up(FILLER)) == 12_000
    finally:
        for name in (ACCOUNTS_A, PAIRS_A, FILLER, ACCOUNTS_Z, PAIRS_Z):
            await db.handle.drop_collection(name)


async def test_a_failed_write_leaves_no_backup_and_says_what_to_do(site: Site, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    await populate(site.context())
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    with pytest.raises(exc.ConfigurationError) as refused:
        await backup_site(site, output_dir=blocked / "backups")
    assert str(blocked / "backups") in refused.value.message and "--output" in refused.value.message

    written = 0

    def full_disk(self: layout.BackupFileWriter, data: bytes) -> None:
        nonlocal written
        written += 1
        if written > 3:
            raise OSError(28, "No space left on device")
        self._gzip.write(data)

    monkeypatch.setattr(layout.BackupFileWriter, "write", full_disk)
    with pytest.raises(exc.ConfigurationError) as refused:
        await backup_site(site, output_dir=tmp_path / "backups")
    assert "No space left on device" in refused.value.message and "free some space" in refused.value.message
    assert list((tmp_path / "backups").iterdir()) == []  # the partial backup is gone


async def test_the_in_memory_backend_is_told_it_cannot_be_backed_up(memory_site: Site, tmp_path: Path) -> None:
    with pytest.raises(exc.ConfigurationError) as refused:
        await backup_site(memory_site, output_dir=tmp_path)
    assert "real MongoDB" in refused.value.message and "FW_MONGO_URL" in refused.value.message
    assert list(tmp_path.iterdir()) == []
