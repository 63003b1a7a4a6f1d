"""Reading a whole database at one cluster time, and writing raw BSON back: what `fw backup` and
`fw restore` need of the driver.

A snapshot session (`snapshot=True`) pins the cluster time at its first read; every later read of
the session, in any collection, sees the database as it was then, so a backup taken while the site
writes holds whole transactions only. Documents travel as raw BSON (`find_raw_batches`,
`RawBSONDocument`): never decoded into dictionaries and encoded again.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

from bson import json_util
from bson.codec_options import CodecOptions
from bson.raw_bson import RawBSONDocument
from pymongo import errors as driver_errors

from engine import exceptions as exc
from engine.db.connection import Database

RAW = CodecOptions(document_class=RawBSONDocument)
SNAPSHOT_TOO_OLD = 239  # the snapshot fell out of the server's history window (minSnapshotHistoryWindowInSeconds)


@dataclass
class CollectionInfo:
    """A collection as `listCollections` and `listIndexes` describe it (mongodump's metadata)."""

    name: str
    options: dict[str, Any]
    uuid: str | None
    indexes: list[dict[str, Any]]


async def describe_collections(database: Database, exclude: Iterable[str] = ()) -> list[CollectionInfo]:
    """Every ordinary collection of the database (not views, not `system.*`), sorted by name."""
    skip = set(exclude)
    found = []
    async for info in await database.handle.list_collections():
        name = info["name"]
        if info.get("type", "collection") != "collection" or name.startswith("system.") or name in skip:
            continue
        uuid = info.get("info", {}).get("uuid")
        indexes = [dict(index) async for index in await database.handle[name].list_indexes()]
        found.append(CollectionInfo(name, dict(info.get("options", {})), uuid.hex() if uuid is not None else None,
                                    indexes))
    return sorted(found, key=lambda c: c.name)


def extended_json(value: Any) -> str:
    """Canonical extended JSON, as mongodump writes its metadata files."""
    return json_util.dumps(value, json_options=json_util.CANONICAL_JSON_OPTIONS)


def from_extended_json(text: str | bytes) -> Any:
    return json_util.loads(text)


class SnapshotReader:
    """Reads collections at the cluster time of its first read (see the module's docstring)."""

    def __init__(self, database: Database, session: Any) -> None:
        self.database = database
        self.session = session

    @property
    def cluster_time(self) -> tuple[int, int] | None:
        """(seconds, increment) of the snapshot, once the first read has pinned it."""
        # the driver keeps the snapshot's time privately; it has no public accessor
        stamp = getattr(self.session, "_snapshot_time", None)
        return (stamp.time, stamp.inc) if stamp is not None else None

    async def raw_batches(self, collection: str, batch_size: int = 1000) -> AsyncIterator[bytes]:
        """The collection's documents as concatenated BSON, one driver batch at a time, in natural order
        (as mongodump reads them: a collection scan, no index walk)."""
        cursor = self.database.handle[collection].find_raw_batches({}, session=self.session, batch_size=batch_size)
        try:
            async for batch in cursor:
                yield batch
        except driver_errors.OperationFailure as e:
            if e.code == SNAPSHOT_TOO_OLD:
                raise exc.ServiceUnavailableError(
                    f"The backup took longer than the database keeps old snapshots (reading {collection!r}); "
                    "raise mongod's minSnapshotHistoryWindowInSeconds and run it again.") from e
            raise
        finally:
            await cursor.close()


@contextlib.asynccontextmanager
async def snapshot_reader(database: Database) -> AsyncIterator[SnapshotReader]:
    if not database.transactional:
        raise exc.ConfigurationError("A backup needs a real MongoDB (a replica set); the in-memory backend has "
                                     "no snapshot reads. Set FW_MONGO_URL or use the embedded mongod.")
    async with database.client.start_session(snapshot=True, causal_consistency=False) as session:
        yield SnapshotReader(database, session)


def count_documents(batch: bytes) -> int:
    """How many BSON documents a concatenation holds (each starts with its int32 length)."""
    count = offset = 0
    end = len(batch)
    while offset < end:
        offset += int.from_bytes(batch[offset:offset + 4], "little")
        count += 1
    return count


async def insert_raw(database: Database, collection: str, documents: list[RawBSONDocument]) -> None:
    """Insert documents as they are (no validation: they were valid when backed up)."""
    if documents:
        coll = database.handle.get_collection(collection, codec_options=RAW)
        await coll.insert_many(documents, ordered=True, bypass_document_validation=True)


async def create_collection(database: Database, name: str, options: dict[str, Any]) -> None:
    await database.handle.create_collection(name, **options)


async def create_indexes(database: Database, collection: str, indexes: list[dict[str, Any]]) -> None:
    """Create indexes from their `listIndexes` descriptions (the `_id` index exists already)."""
    specs = [{k: v for k, v in index.items() if k not in ("v", "ns")} for index in indexes
             if index.get("name") != "_id_"]
    if specs:
        await database.handle.command({"createIndexes": collection, "indexes": specs})


async def drop_collection(database: Database, name: str) -> None:
    await database.handle.drop_collection(name)


async def collection_names(database: Database) -> list[str]:
    return sorted(n for n in await database.handle.list_collection_names() if not n.startswith("system."))
