"""Issue 19 point 2, write safety: the write and read concerns fw relies on are set explicitly (the
connection string may say otherwise), and a create whose commit or write outcome is unknown, and so
is sent again, stores one document with one name. MongoDB's `failCommand` failpoint makes the server
run a command and then answer a retryable write-concern error: the write is applied, its
acknowledgement lost (as when a primary steps down or a majority does not confirm in time)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pymongo
import pytest

from engine import db
from engine.context import Context, run_in_unit_of_work, unit_of_work
from engine.documents import naming, store
from engine.mongod import embedded
from engine.site import Site
from tests.server.conftest import ApiUser
from tests.server.helpers import ok

EXCEEDED_TIME_LIMIT = 262  # retryable, and unlike ShutdownInProgress no reason for the driver to drop the server


# -- stated concerns ----------------------------------------------------------------------------

async def test_majority_write_and_read_concerns_are_set_explicitly(mongod: embedded.EmbeddedMongo) -> None:
    database = db.connect(mongod.url, "fw_concerns")
    try:
        assert database.client.write_concern.document == {"w": "majority"}
        assert database.client.read_concern.level == "majority"
        assert database.transaction_read_concern == "snapshot"
        uow = db.UnitOfWork(database)
        session = await uow.write_session()
        try:
            assert session.in_transaction
            assert session._transaction.opts.read_concern.level == "snapshot"
            assert database.handle["probe"].write_concern.document == {"w": "majority"}  # commits inherit it
        finally:
            await uow.rollback()
            await uow.close()
    finally:
        await database.close()


async def test_the_connection_string_wins(mongod: embedded.EmbeddedMongo) -> None:
    database = db.connect(f"{mongod.url}{'&' if '?' in mongod.url else '?'}w=1&readConcernLevel=local", "fw_concerns")
    try:
        assert database.client.write_concern.document == {"w": 1}
        assert database.client.read_concern.level == "local"
        assert database.transaction_read_concern == "local"
    finally:
        await database.close()


# -- writes whose acknowledgement is lost -----------------------------------------------------------

@pytest.fixture
def lose_acknowledgement(mongod: embedded.EmbeddedMongo) -> Iterator[Any]:
    """`lose_acknowledgement(["commitTransaction"], times=2)`: the next `times` of those commands run,
    then answer a retryable write-concern error."""
    admin = pymongo.MongoClient(mongod.url, directConnection=True).admin

    def fail(commands: list[str], times: int = 1) -> None:
        admin.command("configureFailPoint", "failCommand", mode={"times": times}, data={
            "failCommands": commands,
            "writeConcernError": {"code": EXCEEDED_TIME_LIMIT, "errmsg": "ExceededTimeLimit (failpoint)",
                                  "errorLabels": ["RetryableWriteError"]}})

    try:
        yield fail
    finally:
        admin.command("configureFailPoint", "failCommand", mode="off")
        admin.client.close()


@pytest.mark.parametrize("times", [1, 3])
async def test_a_create_whose_commit_is_not_acknowledged_is_stored_once(
        client: httpx.AsyncClient, ctx: Context, admin: ApiUser, lose_acknowledgement: Any, times: int) -> None:
    """The commit is sent again (by the driver once, then by fw within its budget): MongoDB applies a
    transaction's commit once, so one document, and the naming counter moved by one."""
    lose_acknowledgement(["commitTransaction"], times=times)
    doc = ok(await client.post("/api/resource/Test Series", json={"label": "once"}, headers=admin.token))["data"]
    assert await ctx.db.collection("test_series").count_documents({}) == 1
    assert doc["name"].endswith("-00001")
    lose_acknowledgement(["commitTransaction"], times=0)
    second = ok(await client.post("/api/resource/Test Series", json={"label": "next"}, headers=admin.token))["data"]
    assert second["name"].endswith("-00002")  # the counter was not advanced twice by the first


async def test_a_counter_increment_whose_acknowledgement_is_lost_counts_once(
        ctx: Context, lose_acknowledgement: Any) -> None:
    """The driver sends a retryable write again with the same transaction number: the server answers
    from its record of the first, so the number is not skipped (nor handed out twice)."""
    lose_acknowledgement(["findAndModify"])
    assert await naming.next_counter(ctx, "SAFE-") == 1
    assert await naming.next_counter(ctx, "SAFE-") == 2


async def test_a_single_write_outside_a_transaction_is_applied_once(site: Site, ctx: Context,
                                                                   lose_acknowledgement: Any) -> None:
    """A unit's only write runs without a transaction (`final`): a retryable write, sent again by the
    driver, applied once."""
    lose_acknowledgement(["insert"])
    meta = ctx.meta("Test Note")

    async def create() -> None:
        await store.insert(ctx, meta, {"_id": "single", "title": "t"}, final=True)

    await run_in_unit_of_work(ctx, create)
    assert await ctx.db.collection("test_note").count_documents({}) == 1
    async with unit_of_work(ctx):
        assert await store.load(ctx, meta, "single", {"title": 1}) == {"_id": "single", "title": "t"}

