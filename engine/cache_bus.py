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
from typing import TYPE_CHECKING, Any, Literal

import orjson

if TYPE_CHECKING:
    from engine.site import Site

log = logging.getLogger("fw.cache_bus")

Kind = Literal["session", "user", "api_key", "meta"]
KINDS: frozenset[str] = frozenset({"session", "user", "api_key", "meta"})
RECONNECT_MAX_SECONDS = 10.0


def channel_for(site: Site) -> str:
    return f"fw-invalidate-{site.name}"


def sender_id(site: Site) -> str:
    """Who announces: a site skips its own messages (it cleared its caches already)."""
    ident = getattr(site, "_cache_bus_id", None)
    if ident is None:
        ident = site._cache_bus_id = os.urandom(8).hex()  # type: ignore[attr-defined]
    return ident


def drop(site: Site, kind: str, key: str) -> None:
    """Clear this process's cached entries for `key`: a session (by sid hash), a user, an API key."""
    if kind == "session":
        site.sessions.forget(key)
    elif kind == "user":
        site.forget_roles(key)
        site.sessions.forget_user(key)
    elif kind == "api_key":
        site.sessions.forget_api_key(key)
    elif kind == "meta":  # the announcer already applied its own change (MetaRegistry.bump)
        site.meta.mark_stale()


def drop_everything(site: Site) -> None:
    site.forget_roles()
    site.sessions.forget_all()
    site.meta.mark_stale()


async def announce(site: Site, kind: Kind, key: str) -> None:
    """Clear `key` here and, with Redis, in every other process. Never fails the caller: a lost
    announcement leaves the other processes' caches to expire on their own."""
    drop(site, kind, key)
    if not site.settings.redis_url:
        return
    try:
        payload = orjson.dumps({"kind": kind, "key": key, "from": sender_id(site)})
        await _client(site).publish(channel_for(site), payload)
    except Exception as e:  # Redis down: the logout itself still happened
        log.warning("cache invalidation of %s %s not announced: %s", kind, key[:12], e)


def _client(site: Site) -> Any:
    client = getattr(site, "_cache_bus_client", None)
    if client is None:
        import redis.asyncio as aioredis

        client = site._cache_bus_client = aioredis.Redis.from_url(site.settings.redis_url or "")  # type: ignore[attr-defined]
    return client


async def close(site: Site) -> None:
    client = getattr(site, "_cache_bus_client", None)
    if client is not None:
        site._cache_bus_client = None  # type: ignore[attr-defined]
        with contextlib.suppress(Exception):
            await client.aclose()


def apply(site: Site, raw: bytes | str) -> bool:
    """Apply one announcement from the channel; False for our own, malformed or unknown ones."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return False
    if not isinstance(data, dict) or data.get("from") == sender_id(site):
        return False
    kind, key = data.get("kind"), data.get("key")
    if kind not in KINDS or not isinstance(key, str):
        return False
    drop(site, kind, key)
    return True


async def listen(site: Site, ready: asyncio.Event | None = None) -> None:
    """Apply the other processes' announcements until cancelled; reconnects after Redis errors.

    While disconnected an announcement may be missed, so a reconnect starts with empty caches."""
    import redis.asyncio as aioredis

    delay = 0.5
    while True:
        client = aioredis.Redis.from_url(site.settings.redis_url or "")
        pubsub = client.pubsub()
        try:
            await pubsub.subscribe(channel_for(site))
            drop_everything(site)
            delay = 0.5
            if ready is not None:
                ready.set()
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    apply(site, message["data"])
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


def start_listener(site: Site) -> asyncio.Task[None] | None:
    """The listener as a task of the running loop (None without Redis)."""
    if not site.settings.redis_url:
        return None
    return asyncio.get_running_loop().create_task(listen(site), name="fw-cache-bus")
