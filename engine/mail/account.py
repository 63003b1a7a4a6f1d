"""Where outgoing mail goes: the default outgoing Email Account, else `FW_SMTP_URL` (with
`FW_MAIL_SENDER`), else nowhere (mail stays queued, with one warning per process and site)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from engine import auth
from engine.core import passwords
from engine.documents import store
from engine.mail.smtp import SmtpConfig, default_port, parse_smtp_url

if TYPE_CHECKING:
    from engine.site import Site

log = logging.getLogger("fw.mail")
DOCTYPE = "Email Account"
FALLBACK_SENDER = "noreply@localhost"
_warned: set[str] = set()


async def outgoing(site: Site) -> SmtpConfig | None:
    """The SMTP server to send through now, or None when none is configured."""
    record = await store.collection_of(site, DOCTYPE).find_one(
        {"enable_outgoing": 1, "default_outgoing": 1}, sort=[("modified", -1)])
    if record is not None and record.get("smtp_server"):
        password = None
        if record.get("password"):
            password = passwords.decrypt(await auth.site_secret(site), record["password"])
            if password is None:
                log.error("Email Account %s: its password cannot be decrypted with this site's key "
                          "(FW_SECRET_KEY changed?); set the password again", record["_id"])
        use_ssl, use_tls = bool(record.get("use_ssl")), bool(record.get("use_tls"))
        return SmtpConfig(
            host=record["smtp_server"], port=int(record.get("smtp_port") or default_port(use_ssl, use_tls)),
            username=(record.get("login_id") or record.get("email_id")) if password else None, password=password,
            use_tls=use_tls, use_ssl=use_ssl, sender=record.get("email_id"),
            source=f"Email Account {record['_id']}")
    if site.settings.smtp_url:
        return parse_smtp_url(site.settings.smtp_url, site.settings.mail_sender)
    return None


async def default_sender(site: Site) -> str:
    """The From of mail that names none (no password is decrypted for it: `sendmail` runs in requests)."""
    record = await store.collection_of(site, DOCTYPE).find_one(
        {"enable_outgoing": 1, "default_outgoing": 1, "smtp_server": {"$nin": [None, ""]}}, {"email_id": 1},
        sort=[("modified", -1)])
    return (record or {}).get("email_id") or site.settings.mail_sender or FALLBACK_SENDER


def warn_unconfigured(site: Site) -> None:
    """The one warning about mail that cannot leave (per process and site)."""
    if site.name in _warned:
        return
    _warned.add(site.name)
    log.warning("mail is queued but not sent: no SMTP server is configured for site %s. Set FW_SMTP_URL "
                "(e.g. smtp://localhost:1025) or create a default outgoing Email Account; queued mail goes "
                "out at the next minute's flush after that", site.name)


def configured_again(site: Site) -> None:
    _warned.discard(site.name)
