"""`fw.sendmail` and the Email Queue, against a real SMTP server (aiosmtpd, tests/support/smtp.py):
sent after commit and never for a rollback, retried with back-off through an SMTP outage and sent
exactly once, permanent refusals, templates, attachments, hostile input."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import Any

import pytest

import engine as fw
from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents import store
from engine.documents.factory import new_doc
from engine.mail import queue as mail_queue
from engine.site import Site
from tests.support.smtp import SmtpSink


async def record(site: Site, name: str) -> dict[str, Any]:
    found = await store.collection_of(site, "Email Queue").find_one({"_id": name})
    assert found is not None
    return dict(found)


async def wait_status(site: Site, name: str, *statuses: str, timeout: float = 10.0) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        rec = await record(site, name)
        if rec["status"] in statuses:
            return rec
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"Email Queue {name} is {rec['status']}, expected {statuses}")
        await asyncio.sleep(0.02)


async def test_sent_after_commit_with_its_headers_and_envelope(mail_site: Site, smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    async with unit_of_work(ctx):
        name = await fw.sendmail(ctx, ["Ann <ann@example.com>", "bob@example.com"], "Your score",
                                 "Hello Ann", cc="carl@example.com", bcc=["dora@example.com"],
                                 reply_to="boss@example.com", reference_doctype="User",
                                 reference_name="Administrator")
        await asyncio.sleep(0.1)
        assert smtp_server.mails == []  # not before the commit
    [mail] = await smtp_server.wait_for(1)
    assert sorted(mail.rcpt_tos) == ["ann@example.com", "bob@example.com", "carl@example.com", "dora@example.com"]
    msg = mail.message
    assert msg["Subject"] == "Your score"
    assert msg["To"] == "Ann <ann@example.com>, bob@example.com"
    assert msg["Cc"] == "carl@example.com"
    assert msg["Bcc"] is None  # only in the envelope
    assert msg["Reply-To"] == "boss@example.com"
    assert msg["From"] == "fw <fw@example.com>"
    assert mail.body().strip() == "Hello Ann"
    rec = await wait_status(mail_site, name, "Sent")
    assert {r["recipient"]: r["status"] for r in rec["recipients"]} == {
        "ann@example.com": "Sent", "bob@example.com": "Sent", "carl@example.com": "Sent", "dora@example.com": "Sent"}
    assert rec["reference_doctype"] == "User" and rec["reference_name"] == "Administrator"
    assert "lease_until" not in rec


async def test_a_rolled_back_unit_sends_nothing(mail_site: Site, smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            await fw.sendmail(ctx, "ann@example.com", "Never", "This unit rolls back")
            raise RuntimeError("the request failed")
    assert await store.collection_of(mail_site, "Email Queue").count_documents({}) == 0
    await mail_queue.flush(ctx, now=datetime.now() + timedelta(hours=1))
    await asyncio.sleep(0.3)
    assert smtp_server.mails == []


async def test_smtp_down_then_up_is_sent_exactly_once(mail_site: Site, smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    smtp_server.stop()
    name = await fw.sendmail(ctx, "ann@example.com", "Outage", "Sent when SMTP is back")
    rec = await wait_status(mail_site, name, "Not Sent", timeout=10)
    deadline = asyncio.get_running_loop().time() + 10
    while rec["retry"] != 1:  # the job's try failed and was put back, with back-off
        assert asyncio.get_running_loop().time() < deadline, rec
        await asyncio.sleep(0.02)
        rec = await record(mail_site, name)
    assert "Connect" in rec["error"] or "refused" in rec["error"].lower(), rec["error"]
    assert rec["send_after"] > datetime.now().isoformat(sep=" ")
    assert await mail_queue.flush(ctx) == 0  # not due yet: the back-off holds
    smtp_server.start()
    later = datetime.now() + timedelta(minutes=2)
    # several schedulers (and a late job) at once: one claim wins, the mail leaves once
    results = await asyncio.gather(mail_queue.flush(ctx, now=later), mail_queue.flush(ctx, now=later),
                                   mail_queue.send_one(mail_site, name, now=later))
    assert results[0] + results[1] + (results[2] == "Sent") == 1
    await smtp_server.wait_for(1)
    await asyncio.sleep(0.3)
    assert len(smtp_server.mails) == 1
    assert (await record(mail_site, name))["status"] == "Sent"
    assert await mail_queue.flush(ctx, now=later + timedelta(hours=1)) == 0
    assert len(smtp_server.mails) == 1


async def test_a_server_that_stays_away_ends_in_error_after_the_retries(mail_site: Site,
                                                                         smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    smtp_server.stop()
    async with unit_of_work(ctx):
        name = await fw.sendmail(ctx, "ann@example.com", "Never", "x", now=True)
    moment = datetime.now()
    for _ in range(mail_queue.MAX_RETRIES + 1):
        moment += timedelta(hours=1)
        await mail_queue.flush(ctx, now=moment)
    rec = await record(mail_site, name)
    assert rec["status"] == "Error" and rec["retry"] == mail_queue.MAX_RETRIES
    assert "127.0.0.1" in rec["error"]


async def test_a_stale_sending_lease_is_taken_over(mail_site: Site, smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    mail_site.settings = mail_site.settings.model_copy(update={"smtp_url": None})
    name = await fw.sendmail(ctx, "ann@example.com", "Crashed", "A worker died while sending this")
    mail_site.settings = mail_site.settings.model_copy(update={"smtp_url": smtp_server.url})
    coll = store.collection_of(mail_site, "Email Queue")
    lease = (datetime.now() + mail_queue.LEASE).isoformat(sep=" ")
    await coll.update_one({"_id": name}, {"$set": {"status": "Sending", "lease_until": lease}})
    assert await mail_queue.flush(ctx) == 0  # its lease still runs
    assert await mail_queue.flush(ctx, now=datetime.now() + mail_queue.LEASE + timedelta(seconds=1)) == 1
    [mail] = await smtp_server.wait_for(1)
    assert mail.message["Subject"] == "Crashed"


async def test_refused_recipients(mail_site: Site, smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    smtp_server.refuse.add("gone@example.com")
    partly = await fw.sendmail(ctx, ["ann@example.com", "gone@example.com"], "Partly", "x")
    rec = await wait_status(mail_site, partly, "Partially Sent")
    assert {r["recipient"]: r["status"] for r in rec["recipients"]} == {"ann@example.com": "Sent",
                                                                         "gone@example.com": "Error"}
    assert "550" in rec["error"]
    nobody = await fw.sendmail(ctx, ["gone@example.com"], "Nobody", "x")
    rec = await wait_status(mail_site, nobody, "Error")
    assert rec["retry"] == 1 and "550" in rec["error"]  # permanent: no retries


async def test_without_smtp_configuration_mail_stays_queued_with_one_warning(
        site: Site, caplog: pytest.LogCaptureFixture) -> None:
    from engine.mail import account

    account.configured_again(site)
    ctx = site.context("Administrator")
    with caplog.at_level(logging.WARNING, logger="fw.mail"):
        first = await fw.sendmail(ctx, "ann@example.com", "One", "x")
        second = await fw.sendmail(ctx, "bob@example.com", "Two", "x", now=True)
        await asyncio.sleep(0.3)
        await mail_queue.flush(ctx)
    warnings = [r for r in caplog.records if r.name == "fw.mail" and r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "FW_SMTP_URL" in warnings[0].getMessage()
    for name in (first, second):
        rec = await record(site, name)
        assert rec["status"] == "Not Sent" and not rec.get("retry")


async def test_template_renders_args_and_doc_in_a_sandbox(mail_site: Site, smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    async with unit_of_work(ctx):
        await new_doc(ctx, "Email Template", name="Welcome", subject="Hello {{ doc.first_name }}",
                      response="<p>Dear {{ doc.full_name }}, code {{ args.code }} {{ '<b>' }}</p>",
                      use_html=1).insert()
        await new_doc(ctx, "Email Template", name="Broken", subject="x", response="{{ doc.__class__ }}").insert()
        await new_doc(ctx, "Email Template", name="Syntax", subject="x", response="{% if %}").insert()
    await fw.sendmail(ctx, "ann@example.com", "", "", template="Welcome", args={"code": 42},
                      reference_doctype="User", reference_name="Administrator")
    [mail] = await smtp_server.wait_for(1)
    assert mail.message["Subject"] == "Hello Administrator"
    html = mail.body(("html",))
    assert "Dear Administrator, code 42 &lt;b&gt;" in html  # HTML templates escape values
    assert "Dear Administrator, code 42" in mail.body(("plain",))
    for broken in ("Broken", "Syntax"):
        with pytest.raises(exc.ValidationError, match=f"Email Template {broken}"):
            await fw.sendmail(ctx, "ann@example.com", "", "", template=broken,
                              reference_doctype="User", reference_name="Administrator")
    with pytest.raises(exc.DoesNotExistError, match="Email Template Missing"):
        await fw.sendmail(ctx, "ann@example.com", "", "", template="Missing")
    assert await store.collection_of(mail_site, "Email Queue").count_documents({}) == 1


async def test_attachments_by_content_and_by_file(mail_site: Site, smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    async with unit_of_work(ctx):
        file = new_doc(ctx, "File", file_name="report.csv", is_private=1)
        file.flags["content"] = b"a,b\n1,2\n"
        await file.insert()
    await fw.sendmail(ctx, "ann@example.com", "Files", "See attached",
                      attachments=[{"fname": "note.txt", "fcontent": "hello"}, file.name])
    [mail] = await smtp_server.wait_for(1)
    parts = {p.get_filename(): p.get_content() for p in mail.message.iter_attachments()}
    assert parts == {"note.txt": "hello", "report.csv": "a,b\n1,2\n"}
    with pytest.raises(exc.DoesNotExistError, match="File nope not found"):
        await fw.sendmail(ctx, "ann@example.com", "x", "y", attachments=["nope"])


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"recipients": "ann@example.com\r\nBcc: evil@example.com"}, "recipients"),
    ({"recipients": ["ann@example.com\nBcc: evil@example.com"]}, "recipients"),
    ({"recipients": ["not-an-address"]}, "recipients"),
    ({"recipients": ["a@example.com, b@example.com"]}, "recipients"),
    ({"subject": "Hi\r\nBcc: evil@example.com"}, "subject"),
    ({"cc": ["x@example.com>\r\nBcc: y@example.com"]}, "cc"),
    ({"sender": "me@example.com\nBcc: evil@example.com"}, "sender"),
    ({"reply_to": "<script>"}, "reply_to"),
    ({"recipients": []}, "recipients"),
])
async def test_hostile_or_bad_input_is_refused_and_stores_nothing(
        mail_site: Site, smtp_server: SmtpSink, kwargs: dict[str, Any], field: str) -> None:
    ctx: Context = mail_site.context("Administrator")
    call: dict[str, Any] = {"recipients": ["ann@example.com"], "subject": "Hi", "message": "x", **kwargs}
    with pytest.raises(exc.ValidationError) as caught:
        await fw.sendmail(ctx, call.pop("recipients"), call.pop("subject"), call.pop("message"), **call)
    assert caught.value.field == field
    assert await store.collection_of(mail_site, "Email Queue").count_documents({}) == 0


async def test_the_default_outgoing_email_account_wins_over_the_setting(mail_site: Site,
                                                                        smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    mail_site.settings = mail_site.settings.model_copy(update={"smtp_url": "smtp://127.0.0.1:1"})  # nobody there
    async with unit_of_work(ctx):
        for name in ("First", "Second"):
            await new_doc(ctx, "Email Account", email_account_name=name, email_id=f"{name.lower()}@example.com",
                          enable_outgoing=1, default_outgoing=1, smtp_server="127.0.0.1",
                          smtp_port=smtp_server.port).insert()
    defaults = await store.collection_of(mail_site, "Email Account").find({"default_outgoing": 1}).to_list(None)
    assert [d["_id"] for d in defaults] == ["Second"]  # one default: the last one set
    name = await fw.sendmail(ctx, "ann@example.com", "Through the account", "x")
    [mail] = await smtp_server.wait_for(1)
    assert mail.mail_from == "second@example.com" and mail.message["From"] == "second@example.com"
    assert (await wait_status(mail_site, name, "Sent"))["sender"] == "second@example.com"
    with pytest.raises(exc.MandatoryError, match="SMTP Server"):
        await new_doc(ctx, "Email Account", email_account_name="Bad", email_id="bad@example.com",
                      enable_outgoing=1).insert()
    with pytest.raises(exc.ValidationError, match="not a valid email address"):
        await new_doc(ctx, "Email Account", email_account_name="Bad", email_id="bad\r\nBcc: x@example.com",
                      smtp_server="x").insert()
