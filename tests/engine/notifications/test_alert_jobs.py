"""Notifications as jobs: the request only decides which rules fire; the rules that do are one job,
written with Redis into the job outbox in the document's own transaction (a save that would skip its
transaction takes one when a rule fires, so both commit or neither does), relayed without a Redis
call in the request, and sent once however often the job runs. On a private redis-server and the
real mongod; Test Review (the fixture app's `"*"` handlers hidden from it) has no hook after its
write and no Version, so its saves may skip their transaction."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine import db
from engine import exceptions as exc
from engine.context import Context
from engine.documents.factory import get_doc, new_doc
from engine.jobs import outbox, queue
from engine.jobs.worker import build_workers
from engine.notifications import alerts
from engine.query import listing
from engine.site import Site
from tests.support.hooks import patch_handlers
from tests.support.jobs import jobs_done
from tests.support.users import user_context

REVIEW = "Test Review"


@pytest.fixture(autouse=True)
def no_star_hooks(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """Test Review without the fixture app's `"*"` handlers (the core's Notification handlers kept)."""
    patch_handlers(monkeypatch, site.apps, lambda real: lambda doctype, event: real(doctype, event) if (
        doctype != REVIEW or event.startswith("fw_notifications")) else ())




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


async def test_a_firing_save_writes_its_job_in_the_documents_transaction(
        redis_site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = redis_site.context("Administrator")
    await rule(ctx, "Reviewed")
    commits = Commits(monkeypatch)
    quiet = await new_doc(ctx, REVIEW, title="quiet").insert()  # the condition does not hold
    assert commits.count == 0  # no job: its write skipped the transaction, as without the rule
    assert await waiting(redis_site) == []
    commits.fail = True
    with pytest.raises(exc.DatabaseUnavailableError):
        await new_doc(ctx, REVIEW, title="lost").insert()
    assert commits.count == 1  # the firing save took a transaction: its document and its job are lost together
    assert await listing.get_all(ctx, REVIEW, pluck="title") == ["quiet"]
    assert await waiting(redis_site) == []
    commits.fail = False
    loud = await new_doc(ctx, REVIEW, title="loud").insert()
    [entry] = await waiting(redis_site)  # committed with the document, and not pushed by the request
    assert entry["payload"]["method"] == "engine.notifications.alerts.run_rules"
    assert entry["payload"]["kwargs"]["rules"] == ["Reviewed"]
    assert entry["payload"]["kwargs"]["values"]["name"] == loud.name
    assert await queue.backend_for(redis_site).status(entry["job_id"]) is None
    # a relay takes it at its first look (not RELAY_AFTER later, as it does with the jobs a request pushes)
    assert await outbox.relay_pending(redis_site, queue.backend_for(redis_site),  # type: ignore[arg-type]
                                      older_than=outbox.RELAY_AFTER) == 1
    assert await waiting(redis_site) == []
    await run_short_jobs(redis_site)
    assert await subjects(ctx) == ["loud"]
    assert quiet.name != loud.name


async def test_a_save_whose_rule_fires_saves_in_a_transaction_and_a_value_change_is_seen_before_it(
        ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    await rule(ctx, "Grade moved", event="Value Change", value_changed="grade", subject="{{ doc.grade }}",
               condition="")
    review = await new_doc(ctx, REVIEW, title="R", grade="B").insert()
    commits = Commits(monkeypatch)
    review.title = "R2"
    await review.save()  # the grade did not change: nothing fires, the write skips its transaction
    assert commits.count == 0
    review.grade = "A"
    await review.save()
    assert commits.count == 1
    await jobs_done(ctx.site)
    assert await subjects(ctx) == ["A"]


async def test_a_condition_before_the_write_sees_who_saves(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    ada = await user_context(ctx, "ada@example.com", "Test Reviewer")
    await rule(ctx, "Saved by Ada", event="Save", subject="{{ doc.title }} by {{ doc.modified_by }}",
               condition='doc.modified_by == "ada@example.com"')
    review = await new_doc(ctx, REVIEW, title="R").insert()  # saved by Administrator: nothing fires
    commits = Commits(monkeypatch)
    mine = await get_doc(ada, REVIEW, review.name)
    mine.title = "R2"
    await mine.save()  # before its write the document still says Administrator modified it last
    assert commits.count == 1
    await jobs_done(ctx.site)
    assert await subjects(ctx) == ["R2 by ada@example.com"]


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
