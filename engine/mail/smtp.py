"""The SMTP side of mail: where to send (`SmtpConfig`, from an Email Account or `FW_SMTP_URL`), one
delivery through aiosmtplib (`deliver`), and a run of deliveries on one connection (`Session`)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from urllib.parse import parse_qs, unquote, urlsplit

import aiosmtplib

from engine import exceptions as exc

CONNECT_TIMEOUT = 30.0  # s for connecting and for each SMTP command
# mails one `Session` sends on a connection before it opens another (servers limit a session's mails,
# e.g. Exchange Online and many relays; a fresh connection before the limit is cheaper than a refusal)
MAILS_PER_CONNECTION = 100
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


@dataclass(frozen=True)
class SmtpConfig:
    host: str
    port: int
    username: str | None = None
    password: str | None = None
    use_tls: bool = False  # STARTTLS after connecting
    use_ssl: bool = False  # TLS from the first byte (SMTPS)
    sender: str | None = None  # the From of mail that names none
    source: str = "FW_SMTP_URL"  # what configured it, for messages

    def describe(self) -> str:
        mode = " (SSL)" if self.use_ssl else " (STARTTLS)" if self.use_tls else ""
        return f"{self.host}:{self.port}{mode} from {self.source}"


def default_port(use_ssl: bool, use_tls: bool) -> int:
    return 465 if use_ssl else 587 if use_tls else 25


def _flag(query: dict[str, list[str]], name: str) -> bool:
    value = (query.get(name) or ["0"])[-1].strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise exc.ConfigurationError(f"FW_SMTP_URL: {name}={value!r} is not 0 or 1")


def parse_smtp_url(url: str, sender: str | None = None) -> SmtpConfig:
    """`smtp://[user:password@]host:port[?tls=1|ssl=1]` (also `smtps://host` for ssl=1)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as e:
        raise exc.ConfigurationError(f"FW_SMTP_URL is not a valid URL: {e}") from None
    if parts.scheme not in ("smtp", "smtps"):
        raise exc.ConfigurationError(
            f"FW_SMTP_URL must start with smtp:// (got {parts.scheme or 'no scheme'!r}), "
            "e.g. smtp://user:password@mail.example.com:587?tls=1")
    if not parts.hostname:
        raise exc.ConfigurationError("FW_SMTP_URL names no host, e.g. smtp://localhost:1025")
    query = parse_qs(parts.query, keep_blank_values=True)
    unknown = set(query) - {"tls", "ssl"}
    if unknown:
        raise exc.ConfigurationError(f"FW_SMTP_URL: unknown option(s) {', '.join(sorted(unknown))} (tls, ssl)")
    use_ssl = _flag(query, "ssl") or parts.scheme == "smtps"
    use_tls = _flag(query, "tls")
    if use_ssl and use_tls:
        raise exc.ConfigurationError("FW_SMTP_URL: choose tls=1 (STARTTLS) or ssl=1 (SMTPS), not both")
    return SmtpConfig(
        host=parts.hostname, port=port or default_port(use_ssl, use_tls),
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password is not None else None,
        use_tls=use_tls, use_ssl=use_ssl, sender=sender)


@dataclass(frozen=True)
class Delivery:
    refused: dict[str, str]  # recipient -> the server's reason


def _client(config: SmtpConfig) -> aiosmtplib.SMTP:
    return aiosmtplib.SMTP(hostname=config.host, port=config.port, username=config.username or None,
                           password=config.password if config.username else None, use_tls=config.use_ssl,
                           start_tls=config.use_tls, timeout=CONNECT_TIMEOUT)


def _delivery(errors: Mapping[str, aiosmtplib.SMTPResponse]) -> Delivery:
    return Delivery({rcpt: f"{code} {text}" for rcpt, (code, text) in errors.items()})


async def deliver(config: SmtpConfig, sender: str, recipients: list[str], message: str | bytes) -> Delivery:
    """Send one message on a connection of its own; raises aiosmtplib's errors (and OSError) when
    nothing was accepted."""
    async with _client(config) as client:
        errors, _response = await client.sendmail(sender, recipients, message)
    return _delivery(errors)


class Session:
    """Deliveries on one SMTP connection, for a run of mails (`engine.mail.queue.flush`): connecting,
    TLS and login once rather than for every mail. Opened at the first delivery; a mail the server
    refuses leaves the connection usable (aiosmtplib resets the envelope); a connection the server
    dropped (or one that sent MAILS_PER_CONNECTION mails) is replaced by a new one.

    A mail whose connection, reused from earlier mails, turns out to be closed before the server
    answered it is sent once more on a fresh connection: a server closes an idle or spent session
    between mails, not inside one, so the mail was not taken (a drop after the end of its data is the
    same risk a single-mail connection has, and the queue treats it the same: a retry later).

    ```python
    async with Session(config) as smtp:
        delivery = await smtp.deliver(sender, recipients, message)
    ```"""

    def __init__(self, config: SmtpConfig) -> None:
        self.config = config
        self._client: aiosmtplib.SMTP | None = None
        self._sent = 0  # mails sent on the current connection
        self.connections = 0  # connections opened (for tests and benchmarks)

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()

    async def _connected(self) -> tuple[aiosmtplib.SMTP, bool]:
        """The open connection (and True: it sent mail before), or a new one (False)."""
        client = self._client
        if client is not None and client.is_connected and self._sent < MAILS_PER_CONNECTION:
            return client, self._sent > 0
        await self.close()
        client = _client(self.config)
        await client.connect()
        self._client, self._sent = client, 0
        self.connections += 1
        return client, False

    async def deliver(self, sender: str, recipients: list[str], message: str | bytes) -> Delivery:
        """`deliver` on this session's connection; raises what `deliver` raises."""
        client, reused = await self._connected()
        try:
            errors, _response = await client.sendmail(sender, recipients, message)
        except (aiosmtplib.SMTPServerDisconnected, ConnectionError) as e:
            await self.close()
            if not reused:
                raise
            client, _reused = await self._connected()  # the server ended the session between mails
            try:
                errors, _response = await client.sendmail(sender, recipients, message)
            except (aiosmtplib.SMTPServerDisconnected, ConnectionError):
                await self.close()
                raise e from None
        except (OSError, TimeoutError, aiosmtplib.SMTPTimeoutError):
            await self.close()  # a connection in an unknown state is not used again
            raise
        self._sent += 1
        return _delivery(errors)

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None and client.is_connected:
            with contextlib.suppress(aiosmtplib.SMTPException, OSError, TimeoutError):
                await client.quit()
        if client is not None:
            client.close()
