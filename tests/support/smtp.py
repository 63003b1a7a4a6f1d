"""A real SMTP server for tests: aiosmtpd on a free port, in its own thread, keeping what arrives.

```python
async def test_x(mail_site, smtp_server):      # fixtures in tests/conftest.py
    await fw.sendmail(ctx, ["a@example.com"], "Hi", "Hello")
    [mail] = await smtp_server.wait_for(1)       # mail.rcpt_tos, mail.message["Subject"], mail.body()
```
`stop()` then `start()` reopens it on the same port (an SMTP outage); `refuse` makes it answer
every RCPT with a permanent 550.
"""

from __future__ import annotations

import asyncio
import email
import re
import socket
import threading
import time
from dataclasses import dataclass
from email.message import EmailMessage
from email.policy import default as default_policy

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ReceivedMail:
    mail_from: str
    rcpt_tos: list[str]
    raw: bytes

    @property
    def message(self) -> EmailMessage:
        parsed = email.message_from_bytes(self.raw, policy=default_policy)
        assert isinstance(parsed, EmailMessage)
        return parsed

    def body(self, preference: tuple[str, ...] = ("plain", "html")) -> str:
        part = self.message.get_body(preferencelist=preference)
        assert part is not None, "the mail has no text body"
        return str(part.get_content())  # type: ignore[attr-defined]


class _Handler:
    def __init__(self, sink: SmtpSink) -> None:
        self.sink = sink

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope, address: str,
                          rcpt_options: list[str]) -> str:
        if address in self.sink.refuse or "*" in self.sink.refuse:
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        data = envelope.original_content or b""
        with self.sink.lock:
            self.sink.received.append(ReceivedMail(str(envelope.mail_from), list(envelope.rcpt_tos), data))
        return "250 Message accepted for delivery"


class SmtpSink:
    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.received: list[ReceivedMail] = []
        self.refuse: set[str] = set()
        self.lock = threading.Lock()
        self.controller: Controller | None = None

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def start(self) -> None:
        if self.controller is None:
            self.controller = Controller(_Handler(self), hostname="127.0.0.1", port=self.port)
            self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    def clear(self) -> None:
        with self.lock:
            self.received.clear()
        self.refuse.clear()

    @property
    def mails(self) -> list[ReceivedMail]:
        with self.lock:
            return list(self.received)

    async def wait_for(self, count: int, timeout: float = 10.0) -> list[ReceivedMail]:
        """The first `count` mails, once they arrived; fails after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while len(self.mails) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"expected {count} mail(s) at the SMTP server, got {len(self.mails)}")
            await asyncio.sleep(0.02)
        return self.mails[:count]

    def wait_for_sync(self, count: int, timeout: float = 10.0) -> list[ReceivedMail]:
        """`wait_for` for synchronous tests (the Chromium ones)."""
        deadline = time.monotonic() + timeout
        while len(self.mails) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"expected {count} mail(s) at the SMTP server, got {len(self.mails)}")
            time.sleep(0.05)
        return self.mails[:count]


def mails_to(sink: SmtpSink, address: str) -> list[ReceivedMail]:
    return [m for m in sink.mails if address.lower() in (r.lower() for r in m.rcpt_tos)]


def link_in(mail: ReceivedMail, path: str) -> str:
    """The first URL in the mail's text containing `path` (e.g. "/update-password?key=")."""
    found = re.search(r"https?://[^\s\"'<>]*" + re.escape(path) + r"[^\s\"'<>]*", mail.body())
    assert found, f"no link to {path} in the mail: {mail.body()!r}"
    return found.group(0)

