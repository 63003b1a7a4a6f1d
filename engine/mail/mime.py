"""Building one outgoing message with Python's `email` package, and refusing what could smuggle
headers: a recipient that is not one address, a subject or address with a line break."""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Iterable
from dataclasses import dataclass
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import formatdate, getaddresses, make_msgid, parseaddr

from engine import exceptions as exc
from engine.translation import _

# an address part a mail server accepts: something@domain.tld, no spaces, no brackets or quotes
_ADDR = re.compile(r"^[^@\s<>\"',;:()\[\]\\]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)+$")
_LINE_BREAK = re.compile(r"[\r\n\x00]")


@dataclass(frozen=True)
class Attachment:
    fname: str
    content: bytes
    content_type: str | None = None


def _no_line_break(value: str, field: str) -> None:
    if _LINE_BREAK.search(value):
        raise exc.ValidationError(_("{0} must not contain a line break", _(field.replace("_", " ").title())),
                                  field=field)


def check_address(value: str, field: str) -> str:
    """One address (`a@b.example` or `Name <a@b.example>`) as given, stripped; refused otherwise."""
    text = str(value).strip()
    _no_line_break(text, field)
    addr = parseaddr(text)[1]
    if not addr or not _ADDR.match(addr) or len(getaddresses([text])) != 1:
        raise exc.ValidationError(_("{0} is not a valid email address", text), field=field)
    return text


def address_list(values: str | Iterable[str] | None, field: str) -> list[str]:
    """A list (or a comma-separated string) of addresses, each checked, duplicates dropped."""
    if values is None:
        return []
    if isinstance(values, str):
        _no_line_break(values, field)
        items = [part for part in (p.strip() for p in values.replace(";", ",").split(",")) if part]
    else:
        items = [str(v) for v in values if v and str(v).strip()]
    out: list[str] = []
    for item in items:
        checked = check_address(item, field)
        if bare(checked) not in {bare(o) for o in out}:
            out.append(checked)
    return out


def bare(address: str) -> str:
    """The address part of `Name <a@b>`, lower-cased: what SMTP's RCPT TO takes."""
    return parseaddr(address)[1].lower()


def check_subject(subject: str) -> str:
    text = str(subject or "")
    _no_line_break(text, "subject")
    return text


def _header_address(value: str) -> Address | str:
    name, addr = parseaddr(value)
    if not name:
        return addr
    user, _at, domain = addr.rpartition("@")
    return Address(display_name=name, username=user, domain=domain)


def build(*, sender: str, recipients: list[str], cc: list[str], subject: str, message: str, html: bool,
          reply_to: str | None, attachments: list[Attachment]) -> EmailMessage:
    """The whole MIME message; bcc is not a header (it is only in the envelope)."""
    msg = EmailMessage()
    msg["From"] = _header_address(sender)
    if recipients:
        msg["To"] = [_header_address(r) for r in recipients]
    if cc:
        msg["Cc"] = [_header_address(r) for r in cc]
    if reply_to:
        msg["Reply-To"] = _header_address(reply_to)
    msg["Subject"] = subject
    msg["Date"] = formatdate(localtime=True)
    msg["Message-ID"] = make_msgid(domain=bare(sender).rpartition("@")[2] or None)
    if html:
        msg.set_content(_text_of(message))
        msg.add_alternative(message, subtype="html")
    else:
        msg.set_content(message)
    for item in attachments:
        kind = item.content_type or mimetypes.guess_type(item.fname)[0] or "application/octet-stream"
        maintype, _slash, subtype = kind.partition("/")
        msg.add_attachment(item.content, maintype=maintype, subtype=subtype or "octet-stream", filename=item.fname)
    return msg


_TAG = re.compile(r"<[^>]+>")


def _text_of(html: str) -> str:
    """A plain-text alternative of an HTML body, for clients that show no HTML."""
    text = re.sub(r"(?i)<br\s*/?>|</p>|</div>|</li>|</h[1-6]>", "\n", html)
    return re.sub(r"\n{3,}", "\n\n", _TAG.sub("", text)).strip() + "\n"
