"""Notifications as jobs: the request only decides which rules fire; the rules that do are one job.
With no hook after the write, the job rides in the document's own record (one write, no transaction)
until a relay queues it and takes it off; after a hook, it goes into the job outbox in the document's
transaction. Either way it exists exactly when the document's write does, the request makes no Redis
call, and it is sent once however often it is relayed or run. On a private redis-server and the real
mongod; Test Review (the fixture app's `"*"` handlers hidden from it) has no hook after its write and
no Version, so its saves may skip their transaction."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine import db
from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents.bulk import insert_many
from engine.documents.factory import get_doc, new_doc
from engine.jobs import outbox, payload, queue
from engine.jobs.worker import build_workers
from engine.notifications import alerts
from engine.query import listing
from engine.site import Site
from tests.support.hooks import patch_handlers
from tests.support.jobs import arq_jobs, jobs_done
from tests.support.redis_server import RedisServer
from tests.support.users import user_context

REVIEW = "Test Review"
READING = "Test Reading"


@pytest.fixture(autouse=True)
def review_without_star_hooks(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    no_star_hooks(site, monkeypatch)


def no_star_hooks(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """Test Review and Test Reading without the fixture app's `"*"` handlers (the core's kept)."""
    def core_only(real: Any) -> Any:
        return lambda doctype, event: real(doctype, event) if doctype not in (REVIEW, READING) else tuple(
            h for h in real(doctype, event) if h.__module__.startswith("engine."))

    patch_handlers(monkeypatch, site.apps, core_only)




async def rule(ctx: Context, name: str, **fields: Any) -> None:
    values: dict[str, Any] = {"document_type": REVIEW, "channel": "System Notification", "event": "New",
                              "subject": "{{ doc.title }}", "message": "", "condition": 'doc.title != "quiet"',
                              "recipients": [{"receiver_by_role": "System Manager"}]}
    values.update(fields)
    await new_doc(ctx, "Notification", name=name, **values).insert()


async def subjects(ctx: Context) -> list[str]:
    return sorted(await listing.get_all(ctx, "Notification Log", pluck="subject"))


async def waiting(site: Site) -> list[dict[str, Any]]:
    return await site.db.collection(outbox.COLLECTION).find({}).to_list(None)


async def run_short_jobs(site: Site) -> None:
    for worker in build_workers(site, ["short"], burst=True):
        try:
            await worker.async_run()
        finally:
            await worker.close()


class Commits:
    """Counts the transactions committed; `fail` makes each commit fail (as a lost primary would)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        self.fail = False
        original = db.UnitOfWork._commit_transaction

        async def commit(uow: db.UnitOfWork) -> None:
            self.count += 1
            if self.fail:
                raise exc.DatabaseUnavailableError("commit lost (test)")
            await original(uow)

        monkeypatch.setattr(db.UnitOfWork, "_commit_transaction", commit)


async def carried(site: Site, name: str) -> dict[str, Any]:
    """What the stored record of a Test Review carries (`{}`: nothing, and no mark for the relays)."""
    record = await site.db.collection(site.meta.get(REVIEW).collection).find_one({"_id": name})
    assert record is not None
    assert (payload.CARRIED in record) == (payload.CARRIED_AT in record)
    return dict(record.get(payload.CARRIED) or {})


def relay(site: Site) -> Any:
    return outbox.relay_carried(site, queue.backend_for(site))  # type: ignore[arg-type]


async def test_a_firing_save_carries_its_job_in_its_own_record_without_a_transaction(
        redis_site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = redis_site.context("Administrator")
    await rule(ctx, "Reviewed")
    commits = Commits(monkeypatch)
    quiet = await new_doc(ctx, REVIEW, title="quiet").insert()  # the condition does not hold
    loud = await new_doc(ctx, REVIEW, title="loud").insert()
    assert commits.count == 0  # neither took a transaction: the job rides in the document's one write
    assert await carried(redis_site, quiet.name) == {}
    [(enqueue_id, entry)] = (await carried(redis_site, loud.name)).items()
    assert entry["payload"]["enqueue_id"] == enqueue_id
    assert entry["payload"]["method"] == "engine.notifications.alerts.run_rules"
    assert entry["payload"]["kwargs"]["rules"] == ["Reviewed"]
    assert entry["payload"]["kwargs"]["values"]["name"] == loud.name
    assert await waiting(redis_site) == []  # nothing in the outbox, nothing pushed by the request
    assert await queue.backend_for(redis_site).status(entry["job_id"]) is None
    # the carried jobs are no fields: not in the document, not in a list, not removed by the next save
    again = await get_doc(ctx, REVIEW, loud.name)
    assert payload.CARRIED not in again.as_dict() and payload.CARRIED_AT not in again.as_dict()
    assert payload.CARRIED not in (await listing.get_list(ctx, REVIEW, fields=["*"], filters={"name": loud.name}))[0]
    again.grade = "B"
    await again.save()  # (a New rule: this save fires nothing)
    assert list(await carried(redis_site, loud.name)) == [enqueue_id]
    # a relay queues it and takes it off the record, marks and all
    assert await relay(redis_site) == 1
    assert await carried(redis_site, loud.name) == {}
    assert await queue.backend_for(redis_site).status(entry["job_id"]) == "queued"
    assert await relay(redis_site) == 0
    await run_short_jobs(redis_site)
    assert await subjects(ctx) == ["loud"]


async def test_one_look_relays_the_jobs_of_every_carrier_doctype(redis_site: Site) -> None:
    ctx = redis_site.context("Administrator")
    await rule(ctx, "Reviewed")
    await rule(ctx, "Read", document_type=READING, subject="reading {{ doc.sensor }}", condition="")
    for i in range(3):
        await new_doc(ctx, REVIEW, title=f"r{i}").insert()
        await new_doc(ctx, READING, sensor=f"s{i}", date="2026-11-29", value=i).insert()
    carriers = {r["_id"] for r in await redis_site.db.collection(outbox.CARRIERS).find({}).to_list(None)}
    assert {redis_site.meta.get(REVIEW).collection, redis_site.meta.get(READING).collection} <= carriers
    assert await relay(redis_site) == 6
    assert await relay(redis_site) == 0
    await run_short_jobs(redis_site)
    assert await subjects(ctx) == ["r0", "r1", "r2", "reading s0", "reading s1", "reading s2"]


async def test_a_write_that_fails_carries_nothing_away(redis_site: Site) -> None:
    ctx = redis_site.context("Administrator")
    await rule(ctx, "Reviewed")
    first = await new_doc(ctx, REVIEW, title="first").insert()
    with pytest.raises(exc.DuplicateEntryError):
        await new_doc(ctx, REVIEW, name=first.name, title="second").insert()
    assert await relay(redis_site) == 1  # the first one's job; the refused insert's went with it
    await run_short_jobs(redis_site)
    assert await subjects(ctx) == ["first"]


async def test_jobs_carried_by_two_saves_are_both_sent(redis_site: Site) -> None:
    ctx = redis_site.context("Administrator")
    await rule(ctx, "Saved", event="Save", subject="{{ doc.title }}", condition="")
    review = await new_doc(ctx, REVIEW, title="one").insert()
    review.title = "two"
    await review.save()
    review.title = "three"
    await review.save()
    assert len(await carried(redis_site, review.name)) == 3  # each save's own job, with its own values
    assert await relay(redis_site) == 3
    await run_short_jobs(redis_site)
    assert await subjects(ctx) == ["one", "three", "two"]


async def test_a_job_added_while_a_relay_works_on_the_record_stays_for_the_next_look(
        redis_site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = redis_site.context("Administrator")
    await rule(ctx, "Saved", event="Save", subject="{{ doc.title }}", condition="")
    review = await new_doc(ctx, REVIEW, title="one").insert()
    real = outbox._take_off

    async def save_meanwhile(*args: Any) -> None:
        review.title = "two"
        await review.save()  # between the relay's look and its take-off
        await real(*args)

    monkeypatch.setattr(outbox, "_take_off", save_meanwhile)
    assert await relay(redis_site) == 1
    monkeypatch.setattr(outbox, "_take_off", real)
    [(_id, entry)] = (await carried(redis_site, review.name)).items()  # (marks kept: `carried` checks)
    assert entry["payload"]["kwargs"]["values"]["title"] == "two"
    assert await relay(redis_site) == 1
    await run_short_jobs(redis_site)
    assert await subjects(ctx) == ["one", "two"]


async def test_a_relay_that_dies_before_taking_jobs_off_sends_them_once(
        redis_site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = redis_site.context("Administrator")
    await rule(ctx, "Reviewed")
    loud = await new_doc(ctx, REVIEW, title="loud").insert()
    real = outbox._take_off

    async def dies(*args: Any) -> None:
        raise exc.DatabaseUnavailableError("primary lost (test)")

    monkeypatch.setattr(outbox, "_take_off", dies)
    with pytest.raises(exc.DatabaseUnavailableError):
        await relay(redis_site)  # queued in Redis, still on the record
    assert len(await carried(redis_site, loud.name)) == 1
    monkeypatch.setattr(outbox, "_take_off", real)
    assert await relay(redis_site) == 1  # queued again: arq refuses the same job id
    assert await carried(redis_site, loud.name) == {}
    await run_short_jobs(redis_site)
    assert await subjects(ctx) == ["loud"]


async def test_a_save_while_redis_is_away_keeps_its_job_until_redis_is_back(
        redis_site: Site, own_redis: RedisServer) -> None:
    ctx = redis_site.context("Administrator")
    await rule(ctx, "Reviewed")
    own_redis.stop()
    loud = await new_doc(ctx, REVIEW, title="in an outage").insert()  # the save does not ask Redis
    with pytest.raises(exc.ServiceUnavailableError):
        await relay(redis_site)
    assert len(await carried(redis_site, loud.name)) == 1  # still on the record
    own_redis.restart()
    assert await relay(redis_site) == 1
    await run_short_jobs(redis_site)
    assert await subjects(ctx) == ["in an outage"]


async def test_a_record_deleted_before_the_relay_hands_its_jobs_to_the_outbox(redis_site: Site) -> None:
    ctx = redis_site.context("Administrator")
    await rule(ctx, "Reviewed")
    loud = await new_doc(ctx, REVIEW, title="gone soon").insert()
    await (await get_doc(ctx, REVIEW, loud.name)).delete()
    [entry] = await waiting(redis_site)  # with the delete, in its transaction
    assert entry["payload"]["kwargs"]["values"]["name"] == loud.name
    assert await outbox.relay_once(redis_site, queue.backend_for(redis_site)) == 1  # type: ignore[arg-type]
    await run_short_jobs(redis_site)
    assert await subjects(ctx) == ["gone soon"]


async def test_documents_inserted_in_bulk_carry_their_jobs_in_either_mode(redis_site: Site) -> None:
    ctx = redis_site.context("Administrator")
    await rule(ctx, "Reviewed")
    first = await insert_many(ctx, REVIEW, [{"title": "a"}, {"title": "quiet"}, {"title": "b"}])
    assert sorted([len(await carried(redis_site, n)) for n in first.names.values()]) == [0, 1, 1]
    # outside a transaction, a clash with a stored name is left out, with its job
    clash = await insert_many(ctx, REVIEW, [{"name": first.names[0], "title": "again"}, {"title": "c"}])
    assert clash.duplicates == [0]
    async with unit_of_work(ctx):
        await insert_many(ctx, REVIEW, [{"title": "d"}], atomic=True, run_hooks=True)
    assert await waiting(redis_site) == []
    assert await relay(redis_site) == 4
    await run_short_jobs(redis_site)
    assert await subjects(ctx) == ["a", "b", "c", "d"]


async def test_a_delete_hands_over_the_jobs_a_save_added_after_the_delete_read_the_record(
        redis_site: Site) -> None:
    ctx = redis_site.context("Administrator")
    await rule(ctx, "Saved", event="Save", subject="{{ doc.title }}", condition="")
    review = await new_doc(ctx, REVIEW, title="first").insert()
    doomed = await get_doc(ctx, REVIEW, review.name)  # read before the other save
    other = await get_doc(redis_site.context("Administrator"), REVIEW, review.name)
    other.title = "second"
    await other.save()
    assert len(await carried(redis_site, review.name)) == 2
    await doomed.delete()
    assert len(await waiting(redis_site)) == 2  # both: what the record carried when it went
    assert await outbox.relay_once(redis_site, queue.backend_for(redis_site)) == 2  # type: ignore[arg-type]
    await run_short_jobs(redis_site)
    assert await subjects(ctx) == ["first", "second"]


async def test_a_hook_after_the_write_sends_the_job_through_the_outbox_in_the_transaction(
        redis_site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = redis_site.context("Administrator")
    await rule(ctx, "Reviewed", subject="{{ doc.title }} {{ doc.grade }}")

    def on_update(doc: Any, event: str) -> None:
        doc.grade = "A"  # what the rules see is the document after its hooks

    patch_handlers(monkeypatch, redis_site.apps, lambda real: lambda doctype, event: (
        [on_update] if doctype == REVIEW and event == "on_update" else real(doctype, event)))
    commits = Commits(monkeypatch)
    loud = await new_doc(ctx, REVIEW, title="loud").insert()
    assert commits.count == 1
    assert await carried(redis_site, loud.name) == {}
    [entry] = await waiting(redis_site)
    assert entry["payload"]["kwargs"]["values"]["grade"] == "A"
    assert await outbox.relay_once(redis_site, queue.backend_for(redis_site)) == 1  # type: ignore[arg-type]
    await run_short_jobs(redis_site)
    assert await subjects(ctx) == ["loud A"]


async def test_on_the_in_memory_backend_the_job_goes_through_the_outbox(
        memory_site: Site, own_redis: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """mongomock has neither `$unionWith` nor pipeline updates: no record carries a job there."""
    no_star_hooks(memory_site, monkeypatch)
    async with arq_jobs(memory_site, own_redis.url):
        ctx = memory_site.context("Administrator")
        await rule(ctx, "Reviewed")
        loud = await new_doc(ctx, REVIEW, title="in memory").insert()
        record = await memory_site.db.collection(memory_site.meta.get(REVIEW).collection).find_one({"_id": loud.name})
        assert record is not None and payload.CARRIED not in record
        [entry] = await waiting(memory_site)
        assert entry["payload"]["kwargs"]["values"]["name"] == loud.name
        assert await outbox.relay_once(memory_site, queue.backend_for(memory_site)) == 1  # type: ignore[arg-type]
        await run_short_jobs(memory_site)
        assert await subjects(ctx) == ["in memory"]


async def test_a_value_change_is_seen_before_the_write(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    await rule(ctx, "Grade moved", event="Value Change", value_changed="grade", subject="{{ doc.grade }}",
               condition="")
    review = await new_doc(ctx, REVIEW, title="R", grade="B").insert()
    commits = Commits(monkeypatch)
    review.title = "R2"
    await review.save()  # the grade did not change: nothing fires
    review.grade = "A"
    await review.save()
    assert commits.count == 0  # (without Redis the job runs after the commit: no transaction either)
    await jobs_done(ctx.site)
    assert await subjects(ctx) == ["A"]


async def test_a_condition_before_the_write_sees_who_saves(ctx: Context) -> None:
    ada = await user_context(ctx, "ada@example.com", "Test Reviewer")
    await rule(ctx, "Saved by Ada", event="Save", subject="{{ doc.title }} by {{ doc.modified_by }}",
               condition='doc.modified_by == "ada@example.com"')
    review = await new_doc(ctx, REVIEW, title="R").insert()  # saved by Administrator: nothing fires
    mine = await get_doc(ada, REVIEW, review.name)
    mine.title = "R2"
    await mine.save()  # before its write the document still says Administrator modified it last
    await jobs_done(ctx.site)
    assert await subjects(ctx) == ["R2 by ada@example.com"]


async def test_the_doctypes_with_rules_are_carriers_after_migrate(redis_site: Site) -> None:
    """A site restored or upgraded from before carried jobs: migrate registers its notified doctypes."""
    ctx = redis_site.context("Administrator")
    await rule(ctx, "Reviewed")
    collection = redis_site.meta.get(REVIEW).collection
    carriers = redis_site.db.collection(outbox.CARRIERS)
    assert await carriers.find_one({"_id": collection}) is not None  # (saving the rule registered it)
    await carriers.delete_many({})
    await redis_site.db.collection(collection).drop_index(outbox.CARRIED_INDEX)
    await redis_site.meta.refresh_if_stale()
    await alerts.ensure_indexes(redis_site)
    assert await carriers.find_one({"_id": collection}) is not None
    indexes = await redis_site.db.collection(collection).index_information()
    assert indexes[outbox.CARRIED_INDEX]["sparse"] is True


async def test_a_job_run_again_sends_each_rule_once(ctx: Context) -> None:
    await rule(ctx, "One")
    await rule(ctx, "Two", subject="two: {{ doc.title }}")
    await rule(ctx, "Off", subject="off", enabled=0)
    values = (await new_doc(ctx, REVIEW, title="quiet").insert()).as_dict()  # (fires nothing itself)
    await jobs_done(ctx.site)
    values["title"] = "again"
    job = ctx.site.context("Administrator")
    assert await alerts.run_rules(job, REVIEW, values, ["One", "Two", "Off"], key="k1") == 2
    assert await alerts.run_rules(job, REVIEW, values, ["One", "Two", "Off"], key="k1") == 0
    assert await subjects(ctx) == ["again", "two: again"]
    # two runs at the same moment (a job whose worker was thought dead): still once
    sent = await asyncio.gather(*(alerts.run_rules(ctx.site.context("Administrator"), REVIEW, values, ["One"],
                                                   key="k2") for _ in range(3)))
    assert sum(sent) == 1 and await subjects(ctx) == ["again", "again", "two: again"]


async def test_a_rule_disabled_before_its_job_runs_sends_nothing(ctx: Context) -> None:
    await rule(ctx, "Soon off")
    values = (await new_doc(ctx, REVIEW, title="quiet").insert()).as_dict()
    values["title"] = "late"
    doc = await get_doc(ctx, "Notification", "Soon off")
    doc.enabled = 0
    await doc.save()
    assert await alerts.run_rules(ctx.site.context("Administrator"), REVIEW, values, ["Soon off"], key="k") == 0
    await jobs_done(ctx.site)
    assert await subjects(ctx) == []
