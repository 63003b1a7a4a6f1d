"""The only module that imports the MongoDB driver.

Two backends share one surface: a real MongoDB through PyMongo's native async client
(`AsyncMongoClient`), and the in-memory `mongomock-motor` fallback. The in-memory backend has the
same API but no transactions: a unit of work there writes immediately and cannot roll back.

Driver errors end here. `translate_errors` turns them into engine exceptions, and `Retry` decides
whether a failed unit of work is run again: after a write conflict, and after a lost connection
or a missing primary while some replica-set member still answers (an election), within the
database's retry budget. A database that nobody answers for is `DatabaseUnavailableError` as soon
as server selection gives up (`serverSelectionTimeoutMS`, a few seconds).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pymongo
from pymongo import AsyncMongoClient, ReturnDocument
from pymongo import errors as driver_errors
from pymongo.read_concern import ReadConcern

from engine import exceptions as exc
from engine.translation import _

log = logging.getLogger("fw.db")

Backend = Literal["mongo", "memory"]
ASCENDING = pymongo.ASCENDING
DESCENDING = pymongo.DESCENDING
AFTER = ReturnDocument.AFTER
DriverError = driver_errors.PyMongoError  # what may escape a driver call: `translate_error` maps it

DEFAULT_SERVER_SELECTION_TIMEOUT_MS = 3_000
# how long a server the driver marked unknown after a dropped connection may take to be found again
# before a retry gives up (0.5 s was too short on a loaded machine: a commit with an unknown outcome
# then answered 503 although the server was there); it adds at most this to a down mongod's 503
REDISCOVERY_WAIT = 1.0
DEFAULT_RETRY_BUDGET_MS = 15_000  # outlasts a default election (electionTimeoutMillis 10 s + the vote)
RETRY_BUDGET_OPTION = "fwRetryBudgetMS"  # fw's own connection-string option, taken out before the driver
WRITE_CONFLICT = 112
# What fw relies on, set explicitly (FW_MONGO_URL's `w` and `readConcernLevel` win):
# - writes are acknowledged once a majority of the replica set has them (`w: majority`): an
#   acknowledged write, a naming counter's increment included, survives a failover, so a counter
#   never hands out one number twice and a client never sees a write that is later rolled back;
# - reads outside transactions see majority-committed data (`majority`), never a write a failover
#   could still roll back; a majority-acknowledged write is visible to the next read;
# - a transaction reads one snapshot (`snapshot`) and commits with `w: majority`.
WRITE_CONCERN = "majority"
READ_CONCERN = "majority"
TRANSACTION_READ_CONCERN = "snapshot"


class Database:
    """One site's database: a driver handle plus what the engine needs to know about it."""

    def __init__(self, client: Any, name: str, backend: Backend, *,
                 retry_budget_ms: int = DEFAULT_RETRY_BUDGET_MS,
                 transaction_read_concern: str = TRANSACTION_READ_CONCERN) -> None:
        self.client = client
        self.name = name
        self.backend = backend
        self.handle = client[name]
        self.retry_budget_ms = retry_budget_ms
        self.transaction_read_concern = transaction_read_concern
        self._collections: dict[str, Any] = {}

    @property
    def transactional(self) -> bool:
        return self.backend == "mongo"

    def collection(self, name: str) -> Any:
        coll = self._collections.get(name)
        if coll is None:  # building a driver collection object costs tens of microseconds: keep them
            coll = self._collections[name] = self.handle[name]
        return coll

    async def find_by_id(self, collection: str, key: Any, projection: dict[str, Any] | None = None,
                         session: Any = None) -> dict[str, Any] | None:
        """The record whose `_id` is `key`, or None: `find_one({"_id": key})`, sent as a `find`
        command of one batch. The driver's `find_one` builds, runs and closes a cursor for it, about a
        tenth more of its work per call (85,000 instructions of 900,000, counted with valgrind): this
        is the hottest read there is. What `find_one` would apply by itself is applied here: the
        database's read concern (outside a transaction: inside one, the session's), read
        preference and codec options. The driver retries it once as a read, as it does `find_one`, and a
        failover is retried above (`Retry`), as for every read."""
        if self.backend != "mongo":
            return await self.collection(collection).find_one({"_id": key}, projection, session=session)
        handle = self.handle
        command: dict[str, Any] = {"find": collection, "filter": {"_id": key}, "limit": 1, "singleBatch": True}
        if projection is not None:
            command["projection"] = projection
        if session is None or not session.in_transaction:
            concern = handle.read_concern.document
            if concern:
                command["readConcern"] = concern
        reply = await handle.command(command, read_preference=handle.read_preference,
                                     codec_options=handle.codec_options, session=session)
        batch = reply["cursor"]["firstBatch"]
        return batch[0] if batch else None

    def start_session(self) -> Any:
        return self.client.start_session()

    async def drop(self) -> None:
        await self.client.drop_database(self.name)

    async def close(self) -> None:
        if self.backend == "mongo":
            await self.client.close()

    async def ping(self) -> None:
        await self.handle.command("ping")

    async def reachable(self, wait: float = REDISCOVERY_WAIT) -> bool:
        """Whether some member of the deployment answers, as the driver's monitors see it: true during
        an election (the secondaries answer), false for a lone mongod that is down. A server the
        driver has just marked unknown after a dropped connection gets `wait` seconds to be found again."""
        if self.backend != "mongo":
            return True
        deadline = time.monotonic() + wait
        while not self.client.topology_description.known_servers:
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.05)
        return True


def connect(url: str, db_name: str, *, server_selection_timeout_ms: int = DEFAULT_SERVER_SELECTION_TIMEOUT_MS,
            retry_budget_ms: int = DEFAULT_RETRY_BUDGET_MS) -> Database:
    """A database handle on a real MongoDB (the connection itself is lazy).

    Options in the connection string win over the arguments: `serverSelectionTimeoutMS`, and fw's
    own `fwRetryBudgetMS` (removed from the URL before the driver sees it).
    """
    url, budget = _take_option(url, RETRY_BUDGET_OPTION)
    if budget is not None:
        try:
            retry_budget_ms = int(budget)
            if retry_budget_ms < 0:
                raise ValueError(budget)
        except ValueError:
            raise exc.ConfigurationError(f"{RETRY_BUDGET_OPTION} in FW_MONGO_URL must be a whole number of "
                                         f"milliseconds (0 or more), not {budget!r}") from None
    given = _url_options(url)
    options: dict[str, Any] = {"tz_aware": False, "uuidRepresentation": "standard"}
    if "serverselectiontimeoutms" not in given:
        options["serverSelectionTimeoutMS"] = server_selection_timeout_ms
    # write safety, stated rather than left to the driver's and the server's defaults (see
    # WRITE_CONCERN); `w` / `readConcernLevel` in the URL win
    if "w" not in given:
        options["w"] = WRITE_CONCERN
    if "readconcernlevel" not in given:
        options["readConcernLevel"] = READ_CONCERN
    client: AsyncMongoClient[Any] = AsyncMongoClient(url, **options)
    # a transaction reads one snapshot of majority-committed data (it commits with the client's write
    # concern, majority unless the URL says otherwise); a readConcernLevel in the URL applies to it too
    level = given.get("readconcernlevel") or TRANSACTION_READ_CONCERN
    return Database(client, db_name, "mongo", retry_budget_ms=retry_budget_ms,
                    transaction_read_concern=level)


def _url_options(url: str) -> dict[str, str]:
    """The options of a connection string, keys lower-cased (MongoDB's option names ignore case)."""
    query = url.partition("?")[2]
    pairs = (item.partition("=") for item in query.replace(";", "&").split("&") if item)
    return {key.lower(): value for key, _sep, value in pairs}


def _take_option(url: str, name: str) -> tuple[str, str | None]:
    """`url` without option `name` (any case), and that option's value (None if absent)."""
    base, sep, query = url.partition("?")
    if not sep:
        return url, None
    kept, value = [], None
    for item in query.replace(";", "&").split("&"):
        key, _eq, found = item.partition("=")
        if key.lower() == name.lower():
            value = found
        elif item:
            kept.append(item)
    return (f"{base}?{'&'.join(kept)}" if kept else base), value


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


_duplicate_patch_installed = False  # mongomock-motor's patch is process-wide: replace it once


def _patch_memory_duplicate_errors() -> None:
    """Make the in-memory backend's duplicate-key errors name what was actually violated.

    mongomock-motor reports the first unique index that has *any* matching document as the
    violated key: a duplicate `_id` came out as a clash on some unique field, and partial indexes
    (`where`, and unique fields left empty) were matched while ignoring their filter. Replaces its
    per-collection patch with one that checks `_id` first and honours sparse and partial filters.
    """
    from mongomock import DuplicateKeyError, helpers
    from mongomock_motor import patches

    global _duplicate_patch_installed
    if _duplicate_patch_installed:
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
    _duplicate_patch_installed = True


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


DUPLICATE_KEY = 11000


@contextlib.contextmanager
def translate_errors(doctype: str | None = None, unique_labels: Mapping[str, str] | None = None) -> Iterator[None]:
    """Turn driver errors into engine exceptions: duplicate keys name the document or the field."""
    try:
        yield
    except driver_errors.DuplicateKeyError as e:
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
        raise exc.UniqueValidationError(msg, fields=tuple(fields)) from e
    except driver_errors.ExecutionTimeout as e:  # maxTimeMS reached (an OperationFailure: caught first)
        raise exc.QueryTimeoutError(_("The query ran too long and was stopped: narrow the filters or ask for "
                                      "fewer rows")) from e
    except driver_errors.WriteConcernError as e:
        # the server ran the write but could not confirm it to a majority (a primary stepping down,
        # a wtimeout): its outcome is unknown, as after a lost connection; never run again by `Retry`
        raise unavailable_error(e) from e
    except driver_errors.OperationFailure as e:
        if e.has_error_label("TransientTransactionError") or e.code == WRITE_CONFLICT:
            raise conflict_error() from e
        raise
    except driver_errors.DocumentTooLarge as e:  # (pymongo refuses it before sending: nothing was written)
        raise exc.DocumentTooLargeError(_("{0}: the document or query is larger than the database accepts "
                                          "({1} MB at most); send less data", _(doctype or "Document"),
                                          16)) from e
    except driver_errors.ConnectionFailure as e:  # lost connection, no primary, server selection timed out
        raise unavailable_error(e) from e


def unavailable_error(error: driver_errors.PyMongoError, lang: str | None = None) -> exc.DatabaseUnavailableError:
    log.warning("MongoDB unavailable: %s", error)
    if error.has_error_label("UnknownTransactionCommitResult") or isinstance(error, driver_errors.WriteConcernError):
        return exc.DatabaseUnavailableError(_("The database did not confirm the commit, so whether it was saved is "
                                              "unknown; check before sending it again", lang=lang))
    return exc.DatabaseUnavailableError(_("The database is not reachable right now; please retry in a few seconds",
                                          lang=lang))


def conflict_error() -> exc.TransientError:
    return exc.TransientError(_("The document was changed by another request; please retry"))


def bulk_write_errors(error: BaseException) -> list[dict[str, Any]] | None:
    """The per-document errors of a failed bulk write (`insert_many`, either backend), each with its
    `index` in the batch; None for any other error."""
    details = getattr(error, "details", None)
    errors = details.get("writeErrors") if isinstance(details, dict) else None
    return errors if isinstance(errors, list) else None


def is_duplicate_key(write_error: Mapping[str, Any]) -> bool:
    """Whether one of `bulk_write_errors` refused a document for a duplicate key."""
    return write_error.get("code") == DUPLICATE_KEY


def translate_error(error: BaseException, *, lang: str | None = None) -> BaseException:
    """The engine exception for a driver error that escaped `translate_errors` (the error itself if
    it is not a driver error, or one the engine has no name for). `lang`: for a caller outside any
    context (the language of its messages)."""
    if not isinstance(error, driver_errors.PyMongoError):
        return error
    if isinstance(error, driver_errors.ConnectionFailure):
        return unavailable_error(error, lang)
    try:
        with translate_errors():
            raise error
    except exc.FwError as mapped:
        return mapped
    except driver_errors.PyMongoError:
        return error


# ---------------------------------------------------------------------------------------------
# Retrying a unit of work


Failure = Literal["conflict", "unavailable"]


def _driver_error(error: BaseException) -> driver_errors.PyMongoError | None:
    """The driver error behind `error` (itself, or what an engine exception was raised from)."""
    for candidate in (error, error.__cause__):
        if isinstance(candidate, driver_errors.PyMongoError):
            return candidate
    return None


def _never_sent(error: BaseException) -> bool:
    """The operation never reached a server: the driver raises a server-selection timeout only when
    no attempt was sent (after a sent attempt it raises that attempt's error)."""
    return isinstance(_driver_error(error), driver_errors.ServerSelectionTimeoutError)


def failure_kind(error: BaseException) -> Failure | None:
    """What a failed unit of work met, if running it again may succeed: a conflict with another
    transaction (the server refused: a write conflict, a lock timeout, any error it labels
    TransientTransactionError), or the database out of reach (connection lost, primary gone, no
    server selected). None for anything else, including a commit whose outcome is unknown
    (running the unit again could apply it twice)."""
    driver = _driver_error(error)
    if driver is not None:
        if driver.has_error_label("UnknownTransactionCommitResult") \
                or isinstance(driver, driver_errors.WriteConcernError):
            return None  # the write may have been applied: running the unit again could apply it twice
        if isinstance(driver, driver_errors.ConnectionFailure):
            return "unavailable"
        if driver.has_error_label("TransientTransactionError") or (
                isinstance(driver, driver_errors.OperationFailure) and driver.code == WRITE_CONFLICT):
            return "conflict"
    if isinstance(error, exc.DatabaseUnavailableError):
        return "unavailable"
    if isinstance(error, exc.TransientError):
        return "conflict"
    return None


class Retry:
    """When to run a failed unit of work again, and how long to wait first.

    A conflict is retried up to `conflicts` times with a short jittered backoff (the other
    transaction is usually done within milliseconds). A database out of reach is retried only
    while some replica-set member answers (an election is under way: the driver will find the new
    primary) and only until `Database.retry_budget_ms` has passed since the first failure; a lone
    server that is down fails at once. A unit whose writes may be durable already is not run
    again, since they would be applied twice: after an earlier `commit()`, never; after a `final`
    write outside a transaction (by contract the unit's last operation that can fail), only if
    the driver never sent it (server selection timed out).
    """

    __slots__ = ("attempts", "conflicts", "database", "deadline")

    def __init__(self, database: Database, *, conflicts: int = 10) -> None:
        self.database = database
        self.conflicts = conflicts
        self.attempts = 0
        self.deadline: float | None = None

    async def again(self, error: BaseException, uow: UnitOfWork | None = None) -> bool:
        """Wait, then True if the unit (`uow`, for a unit that may have written) should run again;
        False at once if it should not."""
        kind = failure_kind(error)
        if kind is None:
            return False
        if uow is not None and (uow.committed or (uow.wrote_outside_transaction and not _never_sent(error))):
            return False
        now = time.monotonic()
        if self.deadline is None:
            self.deadline = now + self.database.retry_budget_ms / 1000
        remaining = self.deadline - now
        if kind == "conflict":
            if self.attempts >= self.conflicts:
                return False
            delay = min(0.005 * 2 ** self.attempts, 0.25)
        else:
            if remaining <= 0 or not await self.database.reachable():
                return False
            delay = min(0.1 * 2 ** self.attempts, 1.0)
        self.attempts += 1
        await asyncio.sleep(min(random.uniform(0.5, 1.0) * delay, max(remaining, 0.0)))
        return True

    @staticmethod
    def final_error(error: BaseException) -> BaseException:
        """What the caller sees once the retries are over: engine exceptions for driver errors."""
        if isinstance(error, exc.FwError):
            return error
        return translate_error(error)


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
    # writes of this unit a rollback cannot undo (`Retry` does not run such a unit again): a `final`
    # write that ran without a transaction (see `write_session`), an earlier `commit()`
    wrote_outside_transaction: bool = False
    committed: bool = False

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
        if not self.db.transactional:
            return None
        if final and self.writes == 1 and not self.in_transaction:
            self.wrote_outside_transaction = True
            return None
        if self.session is None:
            self.session = self.db.start_session()
        if not self.session.in_transaction:
            await self.session.start_transaction(read_concern=ReadConcern(self.db.transaction_read_concern))
        return self.session

    def read_session(self) -> Any:
        """Reads join the transaction once one is open, so they see the unit's own writes."""
        return self.session if self.session is not None and self.session.in_transaction else None

    async def commit(self) -> None:
        if self.in_transaction:
            await self._commit_transaction()
            self.committed = True
        callbacks, self.after_commit = self.after_commit, []
        self.writes = 0
        for cb in callbacks:
            try:
                result = cb()
                if asyncio.iscoroutine(result):
                    await result
            except Exception:  # an after-commit side effect must not undo a committed request
                log.exception("after-commit callback failed")

    async def _commit_transaction(self) -> None:
        """Commit; a commit whose outcome is unknown (the connection or the primary was lost) is sent
        again, as the driver's `with_transaction` does, while a member answers and the budget lasts:
        the server applies one transaction's commit once however often it is sent."""
        deadline: float | None = None
        attempt = 0
        while True:
            try:
                with translate_errors():
                    await self.session.commit_transaction()
                return
            except exc.FwError as e:
                driver = _driver_error(e)
                if driver is None or not driver.has_error_label("UnknownTransactionCommitResult") or (
                        isinstance(driver, driver_errors.OperationFailure) and driver.code == 50):  # MaxTimeMSExpired
                    raise
                now = time.monotonic()
                deadline = deadline if deadline is not None else now + self.db.retry_budget_ms / 1000
                if now >= deadline or not await self.db.reachable():
                    _end_on_server(self.db, self.session.session_id)
                    raise
                attempt += 1
                await asyncio.sleep(min(random.uniform(0.5, 1.0) * min(0.1 * 2 ** attempt, 1.0), deadline - now))

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


_ending: set[asyncio.Task[None]] = set()
KILL_SESSION_WAIT = 10.0  # s to wait for a member to answer before giving up killing a session


def _end_on_server(database: Database, session_id: Any) -> None:
    """Kill the session of a commit given up on, in the background once a server answers: if its
    transaction did not commit, it is aborted then, rather than holding its documents against the
    client's next try until MongoDB's transaction lifetime (60 s) runs out. (The driver cannot abort
    a transaction it has sent a commit for; a server that restarted has forgotten it anyway.)"""

    async def kill() -> None:
        with contextlib.suppress(Exception):  # best effort: the transaction expires by itself at worst
            if await database.reachable(wait=KILL_SESSION_WAIT):
                await database.client.admin.command("killSessions", [session_id])

    task = asyncio.get_running_loop().create_task(kill())
    _ending.add(task)
    task.add_done_callback(_ending.discard)


async def end_unit(uow: UnitOfWork, *, failed: bool) -> None:
    """A unit of work's end: roll back after an error, else commit (after-commit callbacks included);
    then close its session."""
    try:
        if failed:
            await uow.rollback()
        else:
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
