"""The only module that imports the MongoDB driver.

Two backends share one surface: a real MongoDB through PyMongo's native async client
(`AsyncMongoClient`), and the in-memory `mongomock-motor` fallback. The in-memory backend has the
same API but no transactions: a unit of work there writes immediately and cannot roll back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pymongo
from pymongo import AsyncMongoClient, ReturnDocument
from pymongo import errors as driver_errors

from engine import exceptions as exc

log = logging.getLogger("fw.db")

Backend = Literal["mongo", "memory"]
ASCENDING = pymongo.ASCENDING
DESCENDING = pymongo.DESCENDING
AFTER = ReturnDocument.AFTER


class Database:
    """One site's database: a driver handle plus what the engine needs to know about it."""

    def __init__(self, client: Any, name: str, backend: Backend) -> None:
        self.client = client
        self.name = name
        self.backend = backend
        self.handle = client[name]
        self._collections: dict[str, Any] = {}

    @property
    def transactional(self) -> bool:
        return self.backend == "mongo"

    def collection(self, name: str) -> Any:
        coll = self._collections.get(name)
        if coll is None:  # building a driver collection object costs tens of microseconds: keep them
            coll = self._collections[name] = self.handle[name]
        return coll

    def start_session(self) -> Any:
        return self.client.start_session()

    async def drop(self) -> None:
        await self.client.drop_database(self.name)

    async def close(self) -> None:
        if self.backend == "mongo":
            await self.client.close()

    async def ping(self) -> None:
        await self.handle.command("ping")


def connect(url: str, db_name: str, *, timeout_ms: int = 10_000) -> Database:
    """A database handle on a real MongoDB (the connection itself is lazy)."""
    client: AsyncMongoClient[Any] = AsyncMongoClient(
        url, serverSelectionTimeoutMS=timeout_ms, tz_aware=False, uuidRepresentation="standard"
    )
    return Database(client, db_name, "mongo")


def is_unreachable(error: BaseException) -> bool:
    """Whether `error` means the server could not be reached (as opposed to a failed operation)."""
    return isinstance(error, driver_errors.ConnectionFailure)


def redacted(url: str) -> str:
    """A connection string with its password replaced, fit for a message."""
    return re.sub(r"(//[^:/@]+:)[^@/]+@", r"\1***@", url)


_memory_clients: dict[str, Any] = {}


def connect_memory(db_name: str) -> Database:
    """A database handle on the in-memory backend. Nothing persists; there are no transactions."""
    from mongomock_motor import AsyncMongoMockClient

    _patch_memory_duplicate_errors()
    client = _memory_clients.setdefault("default", AsyncMongoMockClient())
    return Database(client, db_name, "memory")


def _patch_memory_duplicate_errors() -> None:
    """Make the in-memory backend's duplicate-key errors name what was actually violated.

    mongomock-motor reports the first unique index that has *any* matching document as the
    violated key: a duplicate `_id` came out as a clash on some unique field, and partial indexes
    (`where`, and unique fields left empty) were matched while ignoring their filter. Replaces its
    per-collection patch with one that checks `_id` first and honours sparse and partial filters.
    """
    from mongomock import DuplicateKeyError, helpers
    from mongomock_motor import patches

    if getattr(patches, "_fw_duplicate_details", False):
        return

    def violated_index(collection: Any, data: Mapping[str, Any]) -> dict[str, Any] | None:
        for index in collection._store.indexes.values():
            if not index.get("unique"):
                continue
            keys = [key for key, _ in index.get("key")]
            values: dict[str, Any] = {}
            for key in keys:
                try:
                    values[key] = helpers.get_value_by_dot(data, key)
                except KeyError:
                    values[key] = None
            if index.get("sparse") and set(values.values()) == {None}:
                continue
            query: dict[str, Any] = dict(values)
            if index.get("partialFilterExpression") is not None:
                if not list(collection._iter_documents({"$and": [index["partialFilterExpression"],
                                                                 {"_id": data.get("_id")}]})):
                    continue
                query = {"$and": [index["partialFilterExpression"], values]}
            query = {"$and": [query, {"_id": {"$ne": data.get("_id")}}]}
            if list(collection._iter_documents(query)):
                return {"keyPattern": dict(index.get("key")), "keyValue": values}
        return None

    def patch(collection: Any) -> Any:
        insert, ensure_uniques = collection._insert, collection._ensure_uniques

        def _insert(data: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return insert(data, *args, **kwargs)
            except DuplicateKeyError as e:
                if e.details or not isinstance(data, Mapping):
                    raise
                # not raised by _ensure_uniques (those carry details): the `_id` is taken
                details = {"keyPattern": {"_id": 1}, "keyValue": {"_id": data.get("_id")}}
                raise DuplicateKeyError(str(e), 11000, details) from None

        def _ensure_uniques(new_data: Any) -> Any:
            try:
                return ensure_uniques(new_data)
            except DuplicateKeyError as e:
                details = violated_index(collection, new_data)
                if details is None:
                    raise
                raise DuplicateKeyError(str(e), 11000, details) from None

        collection._insert = _insert
        collection._ensure_uniques = _ensure_uniques
        return collection

    patches._patch_insert_and_ensure_uniques = patch
    patches._fw_duplicate_details = True


# ---------------------------------------------------------------------------------------------
# Driver calls whose shape differs between the two backends, and error translation


async def aggregate(coll: Any, pipeline: list[dict[str, Any]], session: Any = None,
                    max_time_ms: int | None = None) -> list[dict[str, Any]]:
    """Run an aggregation and return every row (pymongo's async `aggregate` is a coroutine)."""
    options: dict[str, Any] = {"maxTimeMS": max_time_ms} if max_time_ms else {}
    if session:
        options["session"] = session
    with translate_errors():
        cursor = coll.aggregate(pipeline, **options)
        if asyncio.iscoroutine(cursor):
            cursor = await cursor
        return await cursor.to_list(length=None)


async def list_indexes(coll: Any) -> list[dict[str, Any]]:
    cursor = coll.list_indexes()
    if asyncio.iscoroutine(cursor):
        cursor = await cursor
    return [dict(ix) for ix in await cursor.to_list(length=None)]


async def create_collection(handle: Any, name: str) -> bool:
    """Create a collection; False when it exists already (another process may have just made it)."""
    try:
        await handle.create_collection(name)
    except driver_errors.CollectionInvalid:
        return False
    except driver_errors.OperationFailure as e:
        if e.code == 48:  # NamespaceExists
            return False
        raise
    return True


async def drop_index(coll: Any, name: str) -> bool:
    """Drop an index; False when it is gone already."""
    try:
        await coll.drop_index(name)
    except driver_errors.OperationFailure as e:
        if e.code == 27 or "not found" in str(e).lower():  # IndexNotFound
            return False
        raise
    return True


def index_model(keys: Sequence[tuple[str, int]], **options: Any) -> Any:
    return pymongo.IndexModel(list(keys), **options)


@contextlib.contextmanager
def translate_errors(doctype: str | None = None, unique_labels: Mapping[str, str] | None = None) -> Iterator[None]:
    """Turn driver errors into engine exceptions: duplicate keys name the document or the field."""
    try:
        yield
    except driver_errors.DuplicateKeyError as e:
        from engine.translation import _  # (engine.translation imports the context, which imports this)

        details = e.details or {}
        key_pattern = details.get("keyPattern") or {}
        key_value = details.get("keyValue") or {}
        fields = [f for f in key_pattern if f != "_id"]
        if not fields:
            name = key_value.get("_id", "")
            raise exc.DuplicateEntryError(_("{0} {1} already exists", _(doctype or "Document"), name)) from e
        labels = [_((unique_labels or {}).get(f, f)) for f in fields]
        values = ", ".join(str(key_value.get(f)) for f in fields)
        msg = (_("{0} must be unique ({1} already exists)", labels[0], values) if len(fields) == 1
               else _("{0} must be unique together ({1} already exists)", ", ".join(labels), values))
        raise exc.UniqueValidationError(msg, field=fields[0]) from e
    except driver_errors.ExecutionTimeout as e:  # maxTimeMS reached (an OperationFailure: caught first)
        from engine.translation import _

        raise exc.QueryTimeoutError(_("The query ran too long and was stopped: narrow the filters or ask for "
                                      "fewer rows")) from e
    except driver_errors.OperationFailure as e:
        if e.has_error_label("TransientTransactionError") or e.code == 112:  # WriteConflict
            from engine.translation import _

            raise exc.TransientError(_("The document was changed by another request; please retry")) from e
        raise
    except driver_errors.DocumentTooLarge as e:  # (pymongo refuses it before sending: nothing was written)
        from engine.translation import _

        raise exc.DocumentTooLargeError(_("{0}: the document or query is larger than the database accepts "
                                          "({1} MB at most); send less data", _(doctype or "Document"),
                                          16)) from e
    except driver_errors.ServerSelectionTimeoutError as e:
        raise exc.ConfigurationError(
            f"MongoDB is not reachable ({e}). Check FW_MONGO_URL, or unset it to use the embedded MongoDB."
        ) from e


def is_transient(error: BaseException) -> bool:
    if isinstance(error, exc.TransientError):
        return True
    return isinstance(error, driver_errors.PyMongoError) and error.has_error_label("TransientTransactionError")


# ---------------------------------------------------------------------------------------------
# Units of work


@dataclass
class UnitOfWork:
    """The transaction of one request or job: started lazily at the first write.

    `after_commit` callbacks (jobs, realtime messages) run only once the writes are durable and
    are dropped on rollback.
    """

    db: Database
    session: Any = None
    after_commit: list[Callable[[], Awaitable[None] | None]] = field(default_factory=list)
    writes: int = 0

    @property
    def in_transaction(self) -> bool:
        return self.session is not None and self.session.in_transaction

    async def write_session(self, *, final: bool = False) -> Any:
        """The session a write must use; opens the transaction on the first write.

        `final=True` says this write is certainly the unit's last one: if it is also the first, it
        runs without a transaction (a single-document write is atomic by itself) and saves the
        commit round trip. Any later write in the unit would then open a transaction of its own.
        """
        self.writes += 1
        if not self.db.transactional or (final and self.writes == 1 and not self.in_transaction):
            return None
        if self.session is None:
            self.session = self.db.start_session()
        if not self.session.in_transaction:
            await self.session.start_transaction()
        return self.session

    def read_session(self) -> Any:
        """Reads join the transaction once one is open, so they see the unit's own writes."""
        return self.session if self.session is not None and self.session.in_transaction else None

    async def commit(self) -> None:
        if self.in_transaction:
            with translate_errors():
                await self.session.commit_transaction()
        callbacks, self.after_commit = self.after_commit, []
        self.writes = 0
        for cb in callbacks:
            try:
                result = cb()
                if asyncio.iscoroutine(result):
                    await result
            except Exception:  # an after-commit side effect must not undo a committed request
                log.exception("after-commit callback failed")

    async def rollback(self) -> None:
        self.after_commit = []
        self.writes = 0
        if self.in_transaction:
            with contextlib.suppress(driver_errors.PyMongoError):
                await self.session.abort_transaction()

    async def close(self) -> None:
        if self.session is not None:
            await self.session.end_session()
            self.session = None


@contextlib.asynccontextmanager
async def transaction(db: Database) -> AsyncIterator[UnitOfWork]:
    """Commit on success, roll back on any error."""
    uow = UnitOfWork(db)
    try:
        yield uow
    except BaseException:
        await uow.rollback()
        await uow.close()
        raise
    try:
        await uow.commit()
    finally:
        await uow.close()


def monotonic_ms() -> float:
    return time.monotonic() * 1000


# ---------------------------------------------------------------------------------------------
# Replica-set bootstrap of a private mongod (used by engine.embedded)


ALREADY_INITIALIZED = 23  # MongoDB's error code


def ensure_replica_set(port: int, *, durable: bool, timeout: float = 60.0,
                       alive: Callable[[], bool] | None = None) -> None:
    """Initiate (or re-point, after a port change) a single-node replica set and wait for primary.
    `alive` says whether the mongod process still runs: once it does not, waiting stops at once."""
    host = f"127.0.0.1:{port}"
    client: pymongo.MongoClient[Any] = pymongo.MongoClient(
        f"mongodb://{host}/?directConnection=true", serverSelectionTimeoutMS=2000
    )
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                client.admin.command("ping")
                break
            except driver_errors.PyMongoError:
                if alive is not None and not alive():
                    raise exc.ConfigurationError(f"mongod on {host} exited") from None
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        config = None
        while config is None:
            try:
                config = client.admin.command("replSetGetConfig")["config"]
            except driver_errors.OperationFailure:
                try:
                    client.admin.command("replSetInitiate", {
                        "_id": "rs0", "members": [{"_id": 0, "host": host}],
                        "writeConcernMajorityJournalDefault": durable,
                    })
                    break
                except driver_errors.OperationFailure as e:
                    # a stored config it has not loaded yet (after a port change mongod first checks
                    # whether the old address is itself): wait for it
                    if e.code != ALREADY_INITIALIZED or time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
        if config is not None and config["members"][0]["host"] != host:
            config["members"][0]["host"] = host
            config["version"] += 1
            client.admin.command("replSetReconfig", config, force=True)
        while not client.admin.command("hello").get("isWritablePrimary"):
            if time.monotonic() > deadline:
                raise exc.ConfigurationError(f"mongod on {host} did not become primary")
            time.sleep(0.05)
    finally:
        client.close()
