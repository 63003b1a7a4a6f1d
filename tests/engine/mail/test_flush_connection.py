"""`flush` sends on a few SMTP connections at once, each kept for a run of mails (`smtp.Session`),
against a real aiosmtpd: a refused mail leaves the others and the connection alone, a connection the
server drops between mails is replaced and no mail is lost or sent twice, a connection is renewed
after MAILS_PER_CONNECTION mails, and flushes running side by side still send each mail once."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

import engine as fw
from engine.documents import store
from engine.mail import queue as mail_queue
from engine.mail import smtp
from engine.site import Site
from tests.support.jobs import jobs_done
from tests.support.smtp import SmtpSink


async def queued(site: Site, count: int, refused: str | None = None) -> list[str]:
    """`count` mails queued while no SMTP server is configured (so only `flush` sends them)."""
    url = site.settings.smtp_url
    site.settings = site.settings.model_copy(update={"smtp_url": None})
    ctx = site.context("Administrator")
    names = [await fw.sendmail(ctx, refused if refused and i == 2 else f"r{i}@example.com", f"Mail {i}", "Hi")
             for i in range(count)]
    await jobs_done(site)  # (their jobs found no server to send to)
    site.settings = site.settings.model_copy(update={"smtp_url": url})
    return names


def connections(monkeypatch: pytest.MonkeyPatch, lanes: int = 1) -> list[Any]:
    """The SMTP clients opened from now on (by flushes sending on `lanes` connections at once)."""
    monkeypatch.setattr(mail_queue, "FLUSH_CONNECTIONS", lanes)
    opened: list[Any] = []
    real = smtp._client

    def client(config: smtp.SmtpConfig) -> Any:
        opened.append(real(config))
        return opened[-1]

    monkeypatch.setattr(smtp, "_client", client)
    return opened


async def statuses(site: Site, names: list[str]) -> list[str]:
    rows = {r["_id"]: r["status"] for r in await store.collection_of(site, "Email Queue").find(
        {"_id": {"$in": names}}, {"status": 1}).to_list(None)}
    return [rows[n] for n in names]


def subjects(sink: SmtpSink) -> Counter[str]:
    return Counter(str(m.message["Subject"]) for m in sink.mails)


async def test_a_run_shares_one_connection_and_a_refused_mail_leaves_the_others(
        mail_site: Site, smtp_server: SmtpSink, monkeypatch: pytest.MonkeyPatch) -> None:
    names = await queued(mail_site, 6, refused="nobody@example.com")
    smtp_server.refuse.add("nobody@example.com")
    opened = connections(monkeypatch)
    assert await mail_queue.flush(mail_site.context("Administrator")) == 5
    assert len(opened) == 1
    assert subjects(smtp_server) == Counter({f"Mail {i}": 1 for i in range(6) if i != 2})
    assert await statuses(mail_site, names) == ["Sent", "Sent", "Error", "Sent", "Sent", "Sent"]
    assert not opened[0].is_connected  # closed at the end of the run


async def test_a_connection_dropped_between_mails_is_replaced_and_each_mail_leaves_once(
        mail_site: Site, smtp_server: SmtpSink, monkeypatch: pytest.MonkeyPatch) -> None:
    names = await queued(mail_site, 4)
    opened = connections(monkeypatch)
    real_claim = mail_queue.claim
    claims = 0

    async def claim(*args: Any, **kwargs: Any) -> Any:
        nonlocal claims
        claims += 1
        if claims == 3:  # the server restarts between the second and the third mail
            smtp_server.stop()
            smtp_server.start()
        return await real_claim(*args, **kwargs)

    monkeypatch.setattr(mail_queue, "claim", claim)
    assert await mail_queue.flush(mail_site.context("Administrator")) == 4
    assert len(opened) == 2
    assert subjects(smtp_server) == Counter({f"Mail {i}": 1 for i in range(4)})
    assert await statuses(mail_site, names) == ["Sent"] * 4


async def test_a_connection_is_renewed_after_its_share_of_mails(
        mail_site: Site, smtp_server: SmtpSink, monkeypatch: pytest.MonkeyPatch) -> None:
    await queued(mail_site, 5)
    monkeypatch.setattr(smtp, "MAILS_PER_CONNECTION", 2)
    opened = connections(monkeypatch)
    assert await mail_queue.flush(mail_site.context("Administrator")) == 5
    assert len(opened) == 3
    assert subjects(smtp_server) == Counter({f"Mail {i}": 1 for i in range(5)})


async def test_flushes_on_several_connections_side_by_side_send_each_mail_once(
        mail_site: Site, smtp_server: SmtpSink, monkeypatch: pytest.MonkeyPatch) -> None:
    names = await queued(mail_site, 30)
    opened = connections(monkeypatch, lanes=4)
    ctx = mail_site.context("Administrator")
    sent = await asyncio.gather(mail_queue.flush(ctx), mail_queue.flush(ctx))
    assert sum(sent) == 30
    assert 2 <= len(opened) <= 8  # each flush: at most 4 lanes, each on one connection
    await smtp_server.wait_for(30)
    await asyncio.sleep(0.2)  # (a mail sent twice would be here now)
    assert subjects(smtp_server) == Counter({f"Mail {i}": 1 for i in range(30)})
    assert await statuses(mail_site, names) == ["Sent"] * 30
