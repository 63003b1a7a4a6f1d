"""The interfaces of the services a `Site` holds (its jobs backend and realtime publisher), so the
container can declare them while their implementations live in the layers above (engine/jobs,
server/realtime.py); and the Redis realtime publisher, which any process may open."""

from __future__ import annotations

from typing import Any, Protocol

from engine.jobs.payload import JobPayload


class JobsBackend(Protocol):
    """Where jobs go: arq on Redis, or tasks of this process (engine/jobs/queue.py)."""

    async def submit(self, payload: JobPayload, *, at_front: bool) -> bool: ...
    async def status(self, job_id: str) -> str | None: ...
    async def owner(self, job_id: str) -> str | None: ...
    async def close(self) -> None: ...


class Publisher(Protocol):
    """Where realtime events go: socket.io rooms of this server, or of every server through Redis."""

    async def emit(self, event: str, message: Any, room: str) -> None: ...

    def listening(self) -> bool:
        """Whether anyone could hear an event now (False lets a write skip building its events)."""
        ...


class RedisPublisher:
    """Write-only socket.io manager on Redis: any process can reach every server's clients."""

    def __init__(self, url: str, channel: str) -> None:
        import socketio  # only processes that publish through Redis load socket.io

        self.manager = socketio.AsyncRedisManager(url, channel=channel, write_only=True)

    async def emit(self, event: str, message: Any, room: str) -> None:
        await self.manager.emit(event, message, room=room, namespace="/")

    def listening(self) -> bool:
        return True  # the listeners are other servers' clients: unknown here

    async def close(self) -> None:
        redis = getattr(self.manager, "redis", None)
        if redis is not None:
            await redis.aclose()
