"""Cross-process cache invalidation over Redis pub/sub.

Every process keeps short caches (`CACHE_SECONDS`, `ROLE_CACHE_SECONDS`): sessions and API keys
(`site.sessions`), users' roles (`Site.user_info`) and doctype meta (its version is read at most
once a second). A logout, a key rotation, a CSRF token, a disabled user, changed roles or a changed
Custom Field or Workflow clears this process's cache at once and, with FW_REDIS_URL, is announced
on `fw-invalidate-<site>` so every other process clears its own within milliseconds,
not at the end of the cache's life. Without Redis there is one process to tell (jobs run inside
`fw serve`); several `--workers` without Redis keep the caches' short life as the bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from typing import Any, Literal, Protocol

import orjson

log = logging.getLogger("fw.cache_bus")

Kind = Literal["session", "user", "api_key", "meta", "all"]  # "all": every cache (`fw clear-cache`)
KINDS: frozenset[str] = frozenset({"session", "user", "api_key", "meta", "all"})
RECONNECT_MAX_SECONDS = 10.0


class CacheBus:
    """One site's invalidation channel in this process. It knows no cache: the `Site` that owns it
    subscribes the functions that clear its caches (`on_drop`, `on_reset`)."""

    def __init__(self, site_name: str, redis_url: Callable[[], str | None]) -> None:
        self.channel = f"fw-invalidate-{site_name}"
        self._redis_url = redis_url  # read at each use: the owner's settings may be replaced
        # who announces: a process skips its own messages (it cleared its caches already)
        self.sender_id = os.urandom(8).hex()
        self.on_drop: list[Callable[[str, str], None]] = []
        self.on_reset: list[Callable[[], None]] = []
        self._client: Any = None

    def drop(self, kind: str, key: str) -> None:
        """Clear this process's cached entries for `key`: a session (by sid hash), a user, an API key."""
        for clear in self.on_drop:
            clear(kind, key)

    def drop_everything(self) -> None:
        for reset in self.on_reset:
            reset()

    async def announce(self, kind: Kind, key: str) -> None:
        """Clear `key` here and, with Redis, in every other process. Never fails the caller: a lost
        announcement leaves the other processes' caches to expire on their own."""
        self.drop(kind, key)
        if not self._redis_url():
            return
        try:
            payload = orjson.dumps({"kind": kind, "key": key, "from": self.sender_id})
            await self._redis().publish(self.channel, payload)
        except Exception as e:  # Redis down: the logout itself still happened
            log.warning("cache invalidation of %s %s not announced: %s", kind, key[:12], e)

    def _redis(self) -> Any:
        if self._client is None:
            import redis.asyncio as aioredis  # only processes with FW_REDIS_URL load the client

            self._client = aioredis.Redis.from_url(self._redis_url() or "")
        return self._client

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.aclose()

    def apply(self, raw: bytes | str) -> bool:
        """Apply one announcement from the channel; False for our own, malformed or unknown ones."""
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return False
        if not isinstance(data, dict) or data.get("from") == self.sender_id:
            return False
        kind, key = data.get("kind"), data.get("key")
        if kind not in KINDS or not isinstance(key, str):
            return False
        self.drop(kind, key)
        return True

    async def listen(self, ready: asyncio.Event | None = None) -> None:
        """Apply the other processes' announcements until cancelled; reconnects after Redis errors.

        While disconnected an announcement may be missed, so a reconnect starts with empty caches."""
        import redis.asyncio as aioredis

        delay = 0.5
        while True:
            client = aioredis.Redis.from_url(self._redis_url() or "")
            pubsub = client.pubsub()
            try:
                await pubsub.subscribe(self.channel)
                self.drop_everything()
                delay = 0.5
                if ready is not None:
                    ready.set()
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        self.apply(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("cache invalidation listener lost Redis (%s); retrying in %.1f s", e, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RECONNECT_MAX_SECONDS)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                with contextlib.suppress(Exception):
                    await client.aclose()

    def start_listener(self) -> asyncio.Task[None] | None:
        """The listener as a task of the running loop (None without Redis)."""
        if not self._redis_url():
            return None
        return asyncio.get_running_loop().create_task(self.listen(), name="fw-cache-bus")


# The functions below take what owns a bus (a `Site`), so callers need not reach into it.


class HasBus(Protocol):
    @property
    def cache_bus(self) -> CacheBus: ...


def channel_for(site: HasBus) -> str:
    return site.cache_bus.channel


def sender_id(site: HasBus) -> str:
    return site.cache_bus.sender_id


def drop(site: HasBus, kind: str, key: str) -> None:
    site.cache_bus.drop(kind, key)


def drop_everything(site: HasBus) -> None:
    site.cache_bus.drop_everything()


async def announce(site: HasBus, kind: Kind, key: str) -> None:
    await site.cache_bus.announce(kind, key)


async def close(site: HasBus) -> None:
    await site.cache_bus.close()


def apply(site: HasBus, raw: bytes | str) -> bool:
    return site.cache_bus.apply(raw)


async def listen(site: HasBus, ready: asyncio.Event | None = None) -> None:
    await site.cache_bus.listen(ready)


def start_listener(site: HasBus) -> asyncio.Task[None] | None:
    return site.cache_bus.start_listener()
