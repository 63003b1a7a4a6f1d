"""Login sessions: kept in `_fw_sessions`, keyed by SHA-256 of the cookie value (a leaked database
does not leak live sessions); they survive restarts and slide their expiry on use. Each process
caches sessions and API keys for `CACHE_SECONDS`; changes are announced on the site's cache bus."""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

from engine.cache_bus import CacheBus
from engine.db import Database
from engine.settings import Settings

SESSIONS = "_fw_sessions"
SESSION_TOUCH_SECONDS = 600
CACHE_SECONDS = 2.0


class SessionOwner(Protocol):
    """What a `SessionStore` needs of its site (engine/site.py's `Site`), read at each use."""

    @property
    def db(self) -> Database: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def cache_bus(self) -> CacheBus: ...


@dataclass(frozen=True)
class Session:
    sid_hash: str
    user: str
    expires: float
    csrf_token: str | None = None


def _hash(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


class SessionStore:
    """Sessions in MongoDB, and this process's short caches of sessions and API keys (any worker can
    serve any request). Changes are announced to the other processes (engine/cache_bus.py)."""

    def __init__(self, site: SessionOwner) -> None:
        self.site = site
        self._cache: dict[str, tuple[float, Session]] = {}
        # (api_key, api_secret) -> (when, user): a hit skips the digest and the read
        self.api_keys: dict[tuple[str, str], tuple[float, str]] = {}

    def forget(self, sid_hash: str) -> None:
        self._cache.pop(sid_hash, None)

    def forget_user(self, user: str) -> None:
        """Drop the user's cached sessions and API keys (disabled, deleted, roles changed)."""
        self._cache = {k: v for k, v in self._cache.items() if v[1].user != user}
        self.api_keys = {k: v for k, v in self.api_keys.items() if v[1] != user}

    def forget_api_key(self, api_key: str) -> None:
        self.api_keys = {k: v for k, v in self.api_keys.items() if k[0] != api_key}

    def forget_all(self) -> None:
        self._cache = {}
        self.api_keys = {}

    @property
    def expiry(self) -> int:
        return self.site.settings.session_expiry_seconds

    async def create(self, user: str, ip: str | None) -> str:
        sid = secrets.token_hex(28)  # 56 hex digits, like Frappe's
        now = time.time()
        await self.site.db.collection(SESSIONS).insert_one(
            {
                "_id": _hash(sid),
                "user": user,
                "created": now,
                "last_seen": now,
                "expires": now + self.expiry,
                "ip": ip,
                "expires_at": datetime.now(UTC).replace(tzinfo=None) + timedelta(seconds=self.expiry),
            }
        )
        return sid

    async def resolve(self, sid: str) -> Session | None:
        if not sid or len(sid) > 128 or sid == "Guest":
            return None
        key = _hash(sid)
        now = time.time()
        hit = self._cache.get(key)
        if hit and now - hit[0] < CACHE_SECONDS and hit[1].expires > now:
            return hit[1]
        row = await self.site.db.collection(SESSIONS).find_one({"_id": key})
        if row is None or row["expires"] <= now:
            self._cache.pop(key, None)
            return None
        if now - row.get("last_seen", 0) > SESSION_TOUCH_SECONDS:  # slide the expiry, at most every 10 min
            row["expires"] = now + self.expiry
            await self.site.db.collection(SESSIONS).update_one(
                {"_id": key},
                {
                    "$set": {
                        "last_seen": now,
                        "expires": row["expires"],
                        "expires_at": datetime.now(UTC).replace(tzinfo=None) + timedelta(seconds=self.expiry),
                    }
                },
            )
        session = Session(key, row["user"], row["expires"], row.get("csrf_token"))
        self._cache[key] = (now, session)
        return session

    async def delete(self, sid_hash: str) -> None:
        self.forget(sid_hash)
        await self.site.db.collection(SESSIONS).delete_one({"_id": sid_hash})
        await self.site.cache_bus.announce("session", sid_hash)

    async def delete_user_sessions(self, user: str, *, keep: str | None = None) -> None:
        """End the user's sessions (but `keep`, a session's hash: the one that changed the password)."""
        self.forget_user(user)
        query: dict[str, object] = {"user": user}
        if keep:
            query["_id"] = {"$ne": keep}
        await self.site.db.collection(SESSIONS).delete_many(query)
        await self.site.cache_bus.announce("user", user)

    async def rename_user(self, old: str, new: str) -> None:
        """A renamed user's sessions follow them: none stays under the old name, which a user created
        later under that name would otherwise inherit."""
        self.forget_user(old)
        await self.site.db.collection(SESSIONS).update_many({"user": old}, {"$set": {"user": new}})
        await self.site.cache_bus.announce("user", old)

    async def csrf_token(self, session: Session) -> str:
        """The session's CSRF token, created on first request (the web UI asks for it)."""
        if session.csrf_token:
            return session.csrf_token
        token = secrets.token_hex(16)
        await self.site.db.collection(SESSIONS).update_one({"_id": session.sid_hash}, {"$set": {"csrf_token": token}})
        # a process still caching the session without its token would skip the CSRF check
        await self.site.cache_bus.announce("session", session.sid_hash)
        return token

    async def ensure_indexes(self) -> None:
        """Sessions expire by TTL and are found by user (run by `fw migrate`)."""
        sessions = self.site.db.collection(SESSIONS)
        await sessions.create_index([("expires_at", 1)], name="fw_ttl", expireAfterSeconds=0)
        await sessions.create_index([("user", 1)], name="fw_user")
