"""Mail queued while Redis and the SMTP server are both away is sent exactly once when they are back:
the Email Queue record and its job commit with the request (the job in the outbox), the scheduler's
flush sends the mail once SMTP answers, and the job relayed later finds it sent."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import pytest

import engine as fw
from engine.context import unit_of_work
from engine.documents import store
from engine.jobs import outbox, queue
from engine.jobs.worker import build_workers
from engine.mail import queue as mail_queue
from engine.site import Site
from tests.support.redis_server import RedisServer
from tests.support.smtp import SmtpSink


@pytest.fixture
async def redis_mail_site(mail_site: Site, own_redis: RedisServer) -> AsyncIterator[Site]:
    previous = mail_site.settings
    mail_site.settings = previous.model_copy(update={"redis_url": own_redis.url})
    mail_site._jobs_backend = queue.ArqBackend(mail_site, own_redis.url)  # type: ignore[attr-defined]
    yield mail_site
    await mail_site.close_services()
    mail_site.settings = previous


async def test_redis_and_smtp_down_then_back_sends_each_mail_once(
        redis_mail_site: Site, own_redis: RedisServer, smtp_server: SmtpSink) -> None:
    site = redis_mail_site
    ctx = site.context("Administrator")
    own_redis.stop()
    smtp_server.stop()
    async with unit_of_work(ctx):  # the request commits although neither Redis nor SMTP answers
        names = [await fw.sendmail(ctx, f"user{i}@example.com", f"Mail {i}", "queued in an outage")
                 for i in range(3)]
    assert len(await site.db.collection(outbox.COLLECTION).find({}).to_list(None)) == 3
    assert await store.collection_of(site, "Email Queue").count_documents({"status": "Not Sent"}) == 3

    smtp_server.start()  # SMTP back, Redis still away: the scheduler's flush sends them
    assert await mail_queue.flush(ctx, now=datetime.now() + timedelta(minutes=1)) == 3
    await smtp_server.wait_for(3)

    own_redis.restart()  # the jobs reach arq and run: each finds its mail sent
    backend = queue.backend_for(site)
    assert isinstance(backend, queue.ArqBackend)
    assert await outbox.relay_pending(site, backend) == 3
    workers = build_workers(site, ["short"], burst=True)
    try:
        await asyncio.gather(*(w.async_run() for w in workers))
    finally:
        for w in workers:
            await w.close()
    await asyncio.sleep(0.2)
    assert sorted(m.rcpt_tos[0] for m in smtp_server.mails) == ["user0@example.com", "user1@example.com",
                                                                 "user2@example.com"]
    for name in names:
        rec = await store.collection_of(site, "Email Queue").find_one({"_id": name})
        assert rec is not None and rec["status"] == "Sent"
