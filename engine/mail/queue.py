"""`sendmail` and the Email Queue: a mail exists exactly when the unit of work that queued it
commits, and leaves exactly once.

- `sendmail` writes an `Email Queue` record (the whole MIME text) in the caller's unit of work and
  enqueues `send_queued` after commit (`enqueue_after_commit`: with Redis through the job outbox, so
  a Redis outage loses nothing); `now=True` sends right after the commit in this process instead.
- A sender first *claims* the record with one atomic update (Not Sent and due, or Sending with an
  expired lease → Sending with a lease of `LEASE` seconds), so two workers never both send it; a
  worker that dies mid-send leaves a lease that expires, and the record is sent again.
- A failure that may pass (connection refused, a 4xx answer) puts it back to Not Sent with
  `send_after` pushed out (1, 2, 4, 8 minutes); after `MAX_RETRIES` tries, or at once on a permanent
  refusal (5xx), it is `Error` with the server's reason. Some recipients refused: Partially Sent.
- `flush`, a core scheduled job every minute, sends whatever is due, so mail queued while SMTP or
  Redis was away goes out once they are back; it sends on FLUSH_CONNECTIONS SMTP connections at
  once, each kept for a run of mails (`smtp.Session`), each mail still claimed on its own.
- Without an SMTP server configured (engine/mail/account.py) nothing is claimed: mail stays Not Sent.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import aiosmtplib

from engine import db
from engine import exceptions as exc
from engine.clock import now_str
from engine.context import unit_of_work
from engine.documents import store
from engine.documents.factory import get_doc, new_doc
from engine.files import storage
from engine.jobs import queue as jobs
from engine.mail import account, mime, smtp, templates
from engine.mail.smtp import SmtpConfig
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.site import Site

log = logging.getLogger("fw.mail")
DOCTYPE = "Email Queue"
LEASE = timedelta(minutes=5)  # longer than any one delivery (aiosmtplib's timeout is 30 s per command)
MAX_RETRIES = 5
BACKOFF = timedelta(minutes=1)  # doubled after each failed try
BATCH = 500  # records one flush looks at
# SMTP connections one flush sends on at once, each for a run of mails: a mail's time is mostly waiting
# (its claim and its outcome are durable MongoDB writes, then the SMTP exchange), so a few lanes send
# several times as many mails per second from one worker; each mail is still claimed on its own
FLUSH_CONNECTIONS = 4
_HTML = re.compile(r"<(html|body|p|div|br|table|a|b|strong|em|i|ul|ol|li|h[1-6]|span)\b[^>]*>", re.I)


def _fmt(moment: datetime) -> str:
    return moment.isoformat(sep=" ", timespec="microseconds")


async def sendmail(ctx: Context, recipients: str | Iterable[str] | None, subject: str = "", message: str = "", *,
                   sender: str | None = None, cc: str | Iterable[str] = (), bcc: str | Iterable[str] = (),
                   reply_to: str | None = None, reference_doctype: str | None = None,
                   reference_name: str | None = None, attachments: Iterable[str | Mapping[str, Any]] = (),
                   template: str | None = None, args: Mapping[str, Any] | None = None,
                   now: bool = False) -> str:
    """Queue one mail in the caller's unit of work (one is opened when there is none); returns the
    Email Queue name. It is sent after the commit, never for a unit that rolls back.

    ```python
    await fw.sendmail(ctx, ["a@example.com"], "Score ready", "<p>Your score is ready.</p>",
                      reference_doctype="Employee Score", reference_name=score.name)
    ```
    `attachments`: File names, or `{"fname": "a.pdf", "fcontent": bytes}`. `template`: an Email
    Template rendered with `args` and `doc` (the referenced document).
    """
    if ctx.flags.get("mute_emails"):  # a Data Import with "Don't Send Emails" (Frappe's flags.mute_emails)
        return ""
    to = mime.address_list(recipients, "recipients")
    cc_list = mime.address_list(cc, "cc")
    bcc_list = mime.address_list(bcc, "bcc")
    if not (to or cc_list or bcc_list):
        raise exc.MandatoryError(_("A mail needs at least one recipient"), field="recipients")
    subject = mime.check_subject(subject)
    reply = mime.check_address(reply_to, "reply_to") if reply_to else None
    async with unit_of_work(ctx):
        html = bool(_HTML.search(message or ""))
        if template:
            doc = None
            if reference_doctype and reference_name:
                doc = (await get_doc(ctx, reference_doctype, reference_name)).as_dict()
            rendered = await templates.render(ctx, template, dict(args or {}), doc)
            subject, message, html = rendered.subject or subject, rendered.message, rendered.html
        sender = mime.check_address(sender, "sender") if sender else await account.default_sender(ctx.site)
        files = [await _attachment(ctx, item) for item in attachments]
        msg = mime.build(sender=sender, recipients=to, cc=cc_list, subject=subject, message=message or "",
                         html=html, reply_to=reply, attachments=files)
        envelope = [mime.bare(a) for a in (*to, *cc_list, *bcc_list)]
        queued = new_doc(ctx, DOCTYPE, subject=subject[:140], sender=sender, status="Not Sent", retry=0,
                         message=msg.as_string(), reference_doctype=reference_doctype,
                         reference_name=reference_name,
                         recipients=[{"recipient": r, "status": "Not Sent"} for r in dict.fromkeys(envelope)])
        await queued.insert(ignore_permissions=True, ignore_links=True)
        name = str(queued.name)
        if now:
            site = ctx.site

            async def send_now() -> None:
                await send_one(site, name)

            ctx.after_commit(send_now)
        else:
            await jobs.enqueue(ctx, send_queued, queue="short", job_name=f"sendmail {name}",
                               enqueue_after_commit=True, name=name)
    return name


async def _attachment(ctx: Context, item: str | Mapping[str, Any]) -> mime.Attachment:
    if isinstance(item, Mapping):
        fname, content = item.get("fname"), item.get("fcontent")
        if not fname or content is None:
            raise exc.ValidationError(_("An attachment needs fname and fcontent"), field="attachments")
        data = content.encode() if isinstance(content, str) else bytes(content)
        return mime.Attachment(str(fname), data)
    meta = ctx.site.meta.get("File")
    record = await store.load(ctx, meta, str(item))
    if record is None:
        raise exc.DoesNotExistError(_("File {0} not found", item), field="attachments")
    if not record.get("content_hash"):
        raise exc.ValidationError(_("File {0} has no stored content to attach", item), field="attachments")
    return mime.Attachment(str(record.get("file_name") or item), await storage.read(ctx, record["content_hash"]),
                           record.get("content_type"))


async def send_queued(ctx: Context, name: str) -> str | None:
    """The job `sendmail` enqueues: send one record if it is still due (see `send_one`)."""
    return await send_one(ctx.site, name)


async def flush(ctx: Context, now: datetime | None = None) -> int:
    """The scheduled job (every minute): send every record that is due; returns how many it sent."""
    site = ctx.site
    config = await account.outgoing(site)
    moment = now or datetime.now()
    stamp = _fmt(moment)
    names = [r["_id"] for r in await store.collection_of(site, DOCTYPE).find(
        _due(stamp), {"_id": 1}).sort("creation", 1).limit(BATCH).to_list(None)]
    if not names:
        return 0
    if config is None:
        account.warn_unconfigured(site)
        return 0
    sent = 0
    waiting = iter(names)  # (shared by the lanes: each name is taken by one of them)

    async def lane() -> None:
        nonlocal sent
        async with smtp.Session(config) as session:  # one connection for the lane (a new one when it drops)
            for name in waiting:
                status = await send_one(site, name, now=moment, config=config, session=session)
                sent += status in ("Sent", "Partially Sent")  # (counted after the await: the lanes interleave)

    failures = [r for r in await asyncio.gather(*(lane() for _ in range(min(FLUSH_CONNECTIONS, len(names)))),
                                                return_exceptions=True) if isinstance(r, BaseException)]
    if failures:  # (MongoDB away: what was sent is recorded; the rest waits for the next flush)
        raise failures[0]
    return sent


def _due(stamp: str) -> dict[str, Any]:
    return {"$or": [
        {"status": "Not Sent", "$or": [{"send_after": {"$in": [None, ""]}}, {"send_after": {"$lte": stamp}}]},
        {"status": "Sending", "lease_until": {"$lte": stamp}},  # its sender died mid-send
    ]}


async def claim(site: Site, name: str, now: datetime) -> dict[str, Any] | None:
    """Take the record for sending (atomically), or None when it is not due or another sender has it."""
    return await store.collection_of(site, DOCTYPE).find_one_and_update(
        {"_id": name, **_due(_fmt(now))}, {"$set": {"status": "Sending", "lease_until": _fmt(now + LEASE)}},
        return_document=db.AFTER)


async def send_one(site: Site, name: str, *, now: datetime | None = None, config: SmtpConfig | None = None,
                   session: smtp.Session | None = None) -> str | None:
    """Send one queued mail if it is due; returns its new status (None: not sent by this call).
    `session`: the SMTP connection of a run of mails (`flush`), else one of its own."""
    config = config or await account.outgoing(site)
    if config is None:
        account.warn_unconfigured(site)
        return None
    moment = now or datetime.now()
    record = await claim(site, name, moment)
    if record is None:
        return None
    pending = [r["recipient"] for r in record.get("recipients") or [] if r.get("status") != "Sent"]
    retry = int(record.get("retry") or 0)
    try:
        sender = mime.bare(record.get("sender") or "")
        delivery = await (session.deliver(sender, pending, record["message"]) if session is not None
                          else smtp.deliver(config, sender, pending, record["message"]))
    except aiosmtplib.SMTPRecipientsRefused as e:
        reasons = {err.recipient: f"{err.code} {err.message}" for err in e.recipients}
        permanent = all(err.code >= 500 for err in e.recipients)
        return await _failed(site, record, retry, "; ".join(f"{k}: {v}" for k, v in reasons.items()),
                             permanent=permanent, moment=moment)
    except aiosmtplib.SMTPResponseException as e:
        return await _failed(site, record, retry, f"{e.code} {e.message}", permanent=e.code >= 500, moment=moment)
    except (aiosmtplib.SMTPException, OSError, TimeoutError) as e:
        return await _failed(site, record, retry, f"{config.describe()}: {type(e).__name__}: {e}",
                             permanent=False, moment=moment)
    rows = []
    for row in record.get("recipients") or []:
        reason = delivery.refused.get(row["recipient"])
        if row["recipient"] in pending:
            row = {**row, "status": "Error" if reason else "Sent", "error": reason}
        rows.append(row)
    status = "Partially Sent" if delivery.refused else "Sent"
    await _finish(site, record, {"status": status, "recipients": rows, "error": "\n".join(
        f"{k}: {v}" for k, v in delivery.refused.items()) or None})
    log.info("mail %s %s to %d recipient(s) through %s", name, status.lower(), len(pending) - len(delivery.refused),
             config.describe())
    return status


async def _failed(site: Site, record: dict[str, Any], retry: int, reason: str, *, permanent: bool,
                  moment: datetime) -> str:
    retry += 1
    if permanent or retry >= MAX_RETRIES:
        log.warning("mail %s not sent (Error after %d tries): %s", record["_id"], retry, reason)
        await _finish(site, record, {"status": "Error", "retry": retry, "error": reason})
        return "Error"
    later = moment + BACKOFF * 2 ** (retry - 1)
    log.warning("mail %s not sent (try %d of %d): %s; next try after %s", record["_id"], retry, MAX_RETRIES,
                reason, _fmt(later))
    await _finish(site, record, {"status": "Not Sent", "retry": retry, "error": reason, "send_after": _fmt(later)})
    return "Not Sent"


async def _finish(site: Site, record: dict[str, Any], values: dict[str, Any]) -> None:
    """Write the outcome, only while this sender still holds the lease it claimed."""
    result = await store.collection_of(site, DOCTYPE).update_one(
        {"_id": record["_id"], "status": "Sending", "lease_until": record["lease_until"]},
        {"$set": {**values, "modified": now_str()}, "$unset": {"lease_until": ""}})
    if not result.matched_count:
        log.warning("mail %s: its lease ran out while sending; another sender may send it again", record["_id"])
