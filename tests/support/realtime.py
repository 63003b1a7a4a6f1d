"""A realtime publisher that records what it is asked to send, for tests that set it as `site.realtime`."""

from __future__ import annotations

from typing import Any


class Recorder:
    """Always listening; `sent` holds (event, message, room) in the order they were emitted."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any, str]] = []

    def listening(self) -> bool:
        return True

    async def emit(self, event: str, message: Any, room: str) -> None:
        self.sent.append((event, message, room))
