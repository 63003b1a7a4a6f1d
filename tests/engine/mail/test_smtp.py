"""FW_SMTP_URL: the URL's parts, TLS (STARTTLS) and SSL options, default ports, and clear refusals."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.mail.smtp import SmtpConfig, parse_smtp_url


@pytest.mark.parametrize(("url", "expected"), [
    ("smtp://localhost:1025", SmtpConfig("localhost", 1025)),
    ("smtp://mail.example.com", SmtpConfig("mail.example.com", 25)),
    ("smtp://u:p@mail.example.com:587?tls=1", SmtpConfig("mail.example.com", 587, "u", "p", use_tls=True)),
    ("smtp://mail.example.com?tls=1", SmtpConfig("mail.example.com", 587, use_tls=True)),
    ("smtp://mail.example.com?ssl=1", SmtpConfig("mail.example.com", 465, use_ssl=True)),
    ("smtp://mail.example.com:2465?ssl=true", SmtpConfig("mail.example.com", 2465, use_ssl=True)),
    ("smtps://mail.example.com", SmtpConfig("mail.example.com", 465, use_ssl=True)),
    ("smtp://mail.example.com:25?tls=0&ssl=0", SmtpConfig("mail.example.com", 25)),
    # a password with reserved characters is percent-encoded in the URL
    ("smtp://me%40example.com:p%40ss%3Aw%2Fd@mail.example.com:587?tls=1",
     SmtpConfig("mail.example.com", 587, "me@example.com", "p@ss:w/d", use_tls=True)),
])
def test_parsed(url: str, expected: SmtpConfig) -> None:
    assert parse_smtp_url(url) == expected


def test_the_sender_travels_with_it() -> None:
    assert parse_smtp_url("smtp://localhost:25", "ERP <erp@example.com>").sender == "ERP <erp@example.com>"


@pytest.mark.parametrize(("url", "message"), [
    ("http://mail.example.com", "must start with smtp://"),
    ("mail.example.com:25", "must start with smtp://"),
    ("smtp://:25", "names no host"),
    ("smtp://mail.example.com:99999", "not a valid URL"),
    ("smtp://mail.example.com?tls=1&ssl=1", "not both"),
    ("smtp://mail.example.com?tls=maybe", "tls='maybe' is not 0 or 1"),
    ("smtp://mail.example.com?starttls=1", "unknown option(s) starttls"),
])
def test_refused_with_what_to_fix(url: str, message: str) -> None:
    with pytest.raises(exc.ConfigurationError, match="FW_SMTP_URL") as caught:
        parse_smtp_url(url)
    assert message in str(caught.value.message)
