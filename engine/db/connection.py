"""The connection to a real MongoDB and `Database`, one site's handle on it: the write and read
concerns fw relies on, and the hottest read there is (`Database.find_by_id`)."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any, Literal

import pymongo
from pymongo import AsyncMongoClient, ReturnDocument
from pymongo import errors as driver_errors

from engine import exceptions as exc

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


def monotonic_ms() -> float:
    return time.monotonic() * 1000
