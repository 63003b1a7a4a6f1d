"""engine/db.py when MongoDB goes away: timeouts from the settings or the connection string, driver
errors turned into `DatabaseUnavailableError`, and when a unit of work runs again.

Failures are provoked on the real test mongod with MongoDB's `failCommand` failpoint (the test
mongod runs with test commands): `NotWritablePrimary` (10107) is what a member that stopped being
primary answers during an election; `closeConnection` drops the connection as a crash would.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pymongo
import pytest

from engine import db
from engine import exceptions as exc
from engine.context import Context, run_in_unit_of_work, run_read
from engine.documents import store
from engine.documents.factory import new_doc
from engine.mongod import embedded
from engine.query.listing import count
from engine.site import Site
from tests.support.redis_server import _free_port

NOT_WRITABLE_PRIMARY = 10107


@pytest.fixture
def fail_command(mongod: embedded.EmbeddedMongo) -> Iterator[Any]:
    """`fail_command(["insert"], times=2, errorCode=...)`: the next `times` such commands fail."""
    admin = pymongo.MongoClient(mongod.url, directConnection=True).admin

    def configure(commands: list[str], *, times: int, **data: Any) -> None:
        admin.command("configureFailPoint", "failCommand", mode={"times": times},
                      data={"failCommands": commands, **data})

    try:
        yield configure
    finally:
        admin.command("configureFailPoint", "failCommand", mode="off")
        admin.client.close()


@pytest.fixture
def budget(site: Site) -> Iterator[Any]:
    """Set the site database's retry budget (ms) for one test."""
    before = site.db.retry_budget_ms

    def set_budget(ms: int) -> None:
        site.db.retry_budget_ms = ms

    yield set_budget
    site.db.retry_budget_ms = before


# -- the connection string ----------------------------------------------------------------------------

async def test_connection_string_options_win_over_the_settings() -> None:
    url = "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=250&fwRetryBudgetMS=1234&directConnection=true"
    database = db.connect(url, "x", server_selection_timeout_ms=9000, retry_budget_ms=5)
    try:
        assert database.client.options.server_selection_timeout == 0.25
        assert database.retry_budget_ms == 1234
        assert database.client.options.direct_connection is True  # other options pass through untouched
    finally:
        await database.close()
    database = db.connect("mongodb://127.0.0.1:1/?directConnection=true", "x", server_selection_timeout_ms=9000,
                          retry_budget_ms=5)
    try:
        assert database.client.options.server_selection_timeout == 9.0
        assert database.retry_budget_ms == 5
    finally:
        await database.close()
    database = db.connect("mongodb://127.0.0.1:1/?FWRETRYBUDGETMS=7", "x")  # option names ignore case
    try:
        assert database.retry_budget_ms == 7
        assert database.client.options.server_selection_timeout == db.DEFAULT_SERVER_SELECTION_TIMEOUT_MS / 1000
    finally:
        await database.close()


@pytest.mark.parametrize("value", ["soon", "-1", ""])
def test_a_bad_retry_budget_in_the_url_is_a_configuration_error(value: str) -> None:
    with pytest.raises(exc.ConfigurationError, match="fwRetryBudgetMS"):
        db.connect(f"mongodb://127.0.0.1:1/?fwRetryBudgetMS={value}", "x")


def test_the_settings_reach_the_driver(site: Site) -> None:
    from engine.wiring import connect

    settings = site.settings.model_copy(update={"mongo_server_selection_timeout_ms": 1500,
                                                "mongo_retry_budget_ms": 2500})
    database = connect(settings, "mongodb://127.0.0.1:1/")
    assert database.client.options.server_selection_timeout == 1.5
    assert database.retry_budget_ms == 2500


# -- a database nobody answers --------------------------------------------------------------------------

async def test_a_database_that_is_down_is_unavailable_within_the_selection_timeout(site: Site) -> None:
    """A lone server that does not answer: no retry (nothing answers, so no election is under way),
    `DatabaseUnavailableError` once server selection gives up, for writes and reads alike."""
    url = f"mongodb://127.0.0.1:{_free_port()}/?directConnection=true"
    down = Site(site.settings, db.connect(url, site.name, server_selection_timeout_ms=400), site.apps)
    ctx = Context(down, "Administrator")
    calls: list[int] = []

    async def write() -> None:
        calls.append(1)
        await store.collection(ctx, ctx.meta("Test Note")).insert_one({"_id": "x"}, session=await ctx.write_session())

    async def read() -> Any:
        calls.append(1)
        return await store.collection(ctx, ctx.meta("Test Note")).find_one({})

    try:
        for run, fn in ((run_in_unit_of_work, write), (run_read, read)):
            calls.clear()
            started = time.monotonic()
            with pytest.raises(exc.DatabaseUnavailableError, match="not reachable") as caught:
                await run(ctx, fn)
            assert time.monotonic() - started < 2.0  # the 0.4 s selection timeout, plus a short look for members
            assert calls == [1]
            assert isinstance(caught.value.__cause__, db.DriverError)
            assert caught.value.retry_after > 0
    finally:
        await down.db.close()


# -- an election: a member answers, the primary is gone ----------------------------------------------------

async def test_a_unit_of_work_runs_again_while_the_primary_is_missing(ctx: Context, fail_command: Any) -> None:
    fail_command(["insert"], times=2, errorCode=NOT_WRITABLE_PRIMARY)
    calls: list[int] = []

    async def work() -> str:
        calls.append(1)
        ctx.msgprint(f"attempt {len(calls)}")
        doc = await new_doc(ctx, "Test Note", title="after the election").insert()
        await new_doc(ctx, "Test Note", title="second write").insert()  # in a transaction
        return str(doc.name)

    assert await run_in_unit_of_work(ctx, work)
    assert len(calls) == 3
    assert await count(ctx, "Test Note") == 2  # the failed attempts left nothing behind
    assert [m["message"] for m in ctx.messages] == ["attempt 3"]


async def test_the_retry_budget_bounds_the_wait(ctx: Context, fail_command: Any, budget: Any) -> None:
    budget(300)
    fail_command(["insert"], times=1000, errorCode=NOT_WRITABLE_PRIMARY)
    calls: list[int] = []

    async def work() -> None:
        calls.append(1)
        await new_doc(ctx, "Test Note", title="never").insert()
        await new_doc(ctx, "Test Note", title="never either").insert()

    started = time.monotonic()
    with pytest.raises(exc.DatabaseUnavailableError):
        await run_in_unit_of_work(ctx, work)
    assert 0.25 < time.monotonic() - started < 2.0
    assert len(calls) >= 2
    fail_command(["insert"], times=0)
    assert await count(ctx, "Test Note") == 0


async def test_reads_run_again_too(ctx: Context, fail_command: Any) -> None:
    await run_in_unit_of_work(ctx, lambda: new_doc(ctx, "Test Note", title="stored").insert())
    fail_command(["find", "aggregate"], times=4, errorCode=NOT_WRITABLE_PRIMARY)  # the driver retries a read once
    calls: list[int] = []

    async def read() -> int:
        calls.append(1)
        return await count(ctx, "Test Note")

    assert await run_read(ctx, read) == 1
    assert len(calls) >= 2


async def test_a_unit_that_wrote_outside_a_transaction_is_not_run_again(ctx: Context, fail_command: Any) -> None:
    """A `final` write runs without a transaction: once sent it may be applied, so a connection lost
    afterwards is answered 503 rather than running the unit (and the write) again."""
    calls: list[int] = []

    async def work() -> None:
        calls.append(1)
        await store.insert(ctx, ctx.meta("Test Note"), {"_id": "once", "title": "once"}, final=True)
        fail_command(["find"], times=2, closeConnection=True)
        await ctx.db.collection("test_note").find_one({})

    with pytest.raises(exc.DatabaseUnavailableError):
        await run_in_unit_of_work(ctx, work)
    assert calls == [1]
    assert await count(ctx, "Test Note") == 1


# -- the commit -----------------------------------------------------------------------------------------

async def test_a_commit_with_an_unknown_outcome_is_sent_again_not_the_unit(ctx: Context, fail_command: Any) -> None:
    """The connection drops at commit (twice: the driver retries a commit once itself): the commit is
    sent again, as `with_transaction` does; the unit's work is not repeated."""
    calls: list[int] = []

    async def work() -> None:
        calls.append(1)
        await new_doc(ctx, "Test Note", title="one").insert()
        await new_doc(ctx, "Test Note", title="two").insert()
        fail_command(["commitTransaction"], times=2, closeConnection=True)

    await run_in_unit_of_work(ctx, work)
    assert calls == [1]
    assert sorted(await ctx.db.collection("test_note").distinct("title")) == ["one", "two"]


async def test_a_commit_that_stays_unknown_is_unavailable_and_not_repeated(ctx: Context, fail_command: Any,
                                                                          budget: Any) -> None:
    budget(300)
    calls: list[int] = []

    async def work() -> None:
        calls.append(1)
        await new_doc(ctx, "Test Note", title="one").insert()
        await new_doc(ctx, "Test Note", title="two").insert()
        fail_command(["commitTransaction"], times=1000, closeConnection=True)

    with pytest.raises(exc.DatabaseUnavailableError, match="unknown"):
        await run_in_unit_of_work(ctx, work)
    assert calls == [1]


# -- what is retried ------------------------------------------------------------------------------------

def test_failure_kinds() -> None:
    conflict = pymongo.errors.OperationFailure("WriteConflict", code=112)
    labelled = pymongo.errors.OperationFailure("no such transaction", code=251,
                                               details={"errorLabels": ["TransientTransactionError"]})
    unknown = pymongo.errors.AutoReconnect("lost at commit")
    unknown._add_error_label("UnknownTransactionCommitResult")
    duplicate = pymongo.errors.DuplicateKeyError("E11000", code=11000)
    assert db.failure_kind(conflict) == db.failure_kind(labelled) == "conflict"
    assert db.failure_kind(pymongo.errors.ServerSelectionTimeoutError("no primary")) == "unavailable"
    assert db.failure_kind(pymongo.errors.NotPrimaryError("not primary")) == "unavailable"
    assert db.failure_kind(exc.DatabaseUnavailableError("x")) == "unavailable"
    assert db.failure_kind(exc.TransientError("x")) == "conflict"
    assert db.failure_kind(unknown) is None
    assert db.failure_kind(duplicate) is None
    assert db.failure_kind(ValueError("x")) is None
    assert isinstance(db.translate_error(pymongo.errors.AutoReconnect("gone")), exc.DatabaseUnavailableError)
    assert isinstance(db.translate_error(conflict), exc.TransientError)
    assert isinstance(db.translate_error(duplicate), exc.DuplicateEntryError)
    other = pymongo.errors.OperationFailure("something else", code=2)
    assert db.translate_error(other) is other


async def test_a_final_write_outside_a_transaction_runs_again_only_if_never_sent(site: Site) -> None:
    """During an election a lone write that server selection could not send is safe to send again;
    one whose connection dropped may have been applied, and one after a commit would apply twice."""
    unsent = pymongo.errors.ServerSelectionTimeoutError("no primary yet")
    dropped = pymongo.errors.AutoReconnect("connection reset")
    outside = db.UnitOfWork(site.db, wrote_outside_transaction=True)
    committed = db.UnitOfWork(site.db, committed=True)
    assert await db.Retry(site.db).again(unsent, outside)
    assert await db.Retry(site.db).again(exc.DatabaseUnavailableError("x"), db.UnitOfWork(site.db))
    assert not await db.Retry(site.db).again(dropped, outside)
    assert not await db.Retry(site.db).again(unsent, committed)
    assert not await db.Retry(site.db).again(exc.TransientError("conflict"), committed)


class CommandLog(pymongo.monitoring.CommandListener):
    def __init__(self) -> None:
        self.commands: list[dict[str, Any]] = []

    def started(self, event: pymongo.monitoring.CommandStartedEvent) -> None:
        self.commands.append(dict(event.command))

    def succeeded(self, event: Any) -> None:
        pass

    def failed(self, event: Any) -> None:
        pass


@pytest.fixture
async def logged_database(mongod: embedded.EmbeddedMongo) -> Any:
    """A `Database` as `db.connect` makes it, with every command its driver sends kept in `.log`."""
    log = CommandLog()
    database = db.connect(mongod.url, "fw_find_by_id")
    await database.client.close()
    client = pymongo.AsyncMongoClient(mongod.url, tz_aware=False, uuidRepresentation="standard", w="majority",
                                      readConcernLevel="majority", event_listeners=[log])
    database = db.Database(client, "fw_find_by_id", "mongo")
    database.log = log  # type: ignore[attr-defined]
    await client.drop_database("fw_find_by_id")
    yield database
    await client.drop_database("fw_find_by_id")
    await client.close()


async def test_find_by_id_answers_as_find_one(logged_database: Any) -> None:
    import uuid

    database = logged_database
    key = uuid.uuid4()
    records = database.collection("things")
    await records.insert_one({"_id": "a", "n": 1, "when": "2026-01-01", "key": key, "nested": {"x": [1, 2]}})
    for projection in (None, {"n": 1}, {"nested.x": 1, "_id": 0}):
        assert await database.find_by_id("things", "a", projection) == await records.find_one({"_id": "a"}, projection)
    found = await database.find_by_id("things", "a")
    assert found["key"] == key and isinstance(found["key"], uuid.UUID)  # the database's codec options
    assert await database.find_by_id("things", "missing") is None
    assert await database.find_by_id("no_such_collection", "a") is None


async def test_find_by_id_reads_majority_committed_data_or_in_the_transaction(logged_database: Any) -> None:
    """Outside a transaction the `find` carries the database's read concern (`majority`); inside one
    it carries none of its own and sees the transaction's uncommitted write."""
    database = logged_database
    await database.collection("things").insert_one({"_id": "a"})
    database.log.commands.clear()
    await database.find_by_id("things", "a")
    [find] = [c for c in database.log.commands if "find" in c]
    assert find["readConcern"] == {"level": "majority"} and find["limit"] == 1 and find["singleBatch"] is True
    async with database.client.start_session() as session:
        await session.start_transaction()
        await database.collection("things").insert_one({"_id": "b", "n": 2}, session=session)
        database.log.commands.clear()
        assert await database.find_by_id("things", "b", session=session) == {"_id": "b", "n": 2}
        assert await database.find_by_id("things", "b") is None  # not committed: invisible outside
        inside, outside = [c for c in database.log.commands if "find" in c]
        assert "readConcern" not in inside and inside["txnNumber"] is not None
        assert outside["readConcern"] == {"level": "majority"}
        await session.abort_transaction()
