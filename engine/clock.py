"""The engine's clock: timestamps in Frappe's wire format (`YYYY-MM-DD HH:MM:SS.ffffff`, local time),
which sort as text in MongoDB."""

from __future__ import annotations

from datetime import datetime


def now_str() -> str:
    """The current moment as stored in `creation`, `modified` and Datetime fields."""
    return datetime.now().isoformat(sep=" ", timespec="microseconds")
