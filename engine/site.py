"""A site: one database, its meta, and the process-wide app registry. Opened once per process."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from engine import cache_bus, db, embedded, site_mongod
from engine import exceptions as exc
from engine.constants import AUTOMATIC_ROLES
from engine.context import Context
from engine.meta.registry import MetaRegistry
from engine.settings import Settings

if TYPE_CHECKING:
    from engine.registry import AppRegistry

log = logging.getLogger("fw.site")
ROLE_CACHE_SECONDS = 2.0


class Site:
    def __init__(self, settings: Settings, database: db.Database, apps: AppRegistry,
                 mongod: site_mongod.SharedMongod | None = None) -> None:
        self.settings = settings
        self.db = database
        self.apps = apps
        self.meta = MetaRegistry(apps, database, settings.meta_check_interval)
        self.meta.on_bump = self._announce_meta_change
        self.mongod = mongod
        self._roles: dict[str, tuple[float, frozenset[str], str | None]] = {}
        from engine.auth import SessionStore

        self.sessions = SessionStore(self)

    async def _announce_meta_change(self) -> None:
        from engine import cache_bus

        await cache_bus.announce(self, "meta", "")

    @property
    def name(self) -> str:
        return self.db.name

    def context(self, user: str = "Administrator", *, lang: str = "en") -> Context:
        return Context(self, user, lang=lang)

    async def load_roles(self, user: str) -> frozenset[str]:
        """A user's roles with the automatic ones; cached briefly per process, cleared on User save."""
        return (await self.user_info(user))[0]

    async def user_info(self, user: str) -> tuple[frozenset[str], str | None]:
        """(roles, language) of a user, read together and cached for ROLE_CACHE_SECONDS."""
        if user == "Guest":
            return frozenset({"Guest"}), None
        hit = self._roles.get(user)
        if hit and time.monotonic() - hit[0] < ROLE_CACHE_SECONDS:
            return hit[1], hit[2]
        record = await self.db.collection("user").find_one(
            {"_id": user}, {"roles.role": 1, "enabled": 1, "user_type": 1, "language": 1})
        if user == "Administrator":
            names = await self.db.collection("role").distinct("_id")
            roles = frozenset(names) | AUTOMATIC_ROLES | {"System Manager"}
        elif not record or not record.get("enabled", 1):
            roles = frozenset({"Guest"})
        else:
            assigned = frozenset(r["role"] for r in record.get("roles") or [] if r.get("role"))
            if assigned:  # a disabled role is removed from every user
                assigned -= frozenset(await self.db.collection("role").distinct(
                    "_id", {"_id": {"$in": sorted(assigned)}, "disabled": 1}))
            roles = assigned | {"All", "Guest"}
            if record.get("user_type", "System User") == "System User":
                roles |= {"Desk User"}
        language = (record or {}).get("language") or None
        self._roles[user] = (time.monotonic(), roles, language)
        return roles, language

    def forget_roles(self, user: str | None = None) -> None:
        if user is None:
            self._roles.clear()
        else:
            self._roles.pop(user, None)

    async def close_services(self) -> None:
        """Close the job backend and realtime publisher (opened lazily on first use)."""
        backend = getattr(self, "_jobs_backend", None)
        if backend is not None:
            await backend.close()
            self._jobs_backend = None
        publisher = getattr(self, "realtime", None)
        if publisher is not None and hasattr(publisher, "close"):
            await publisher.close()
        self.realtime = None
        await cache_bus.close(self)

    async def close(self) -> None:
        await self.close_services()
        await self.db.close()
        if self.mongod is not None:
            self.mongod.release()  # stops the site's embedded mongod if no other fw process uses it
            self.mongod = None


def connect_database(settings: Settings) -> tuple[db.Database, site_mongod.SharedMongod | None]:
    """The configured database: FW_MONGO_URL, else the site's embedded mongod (started, or shared
    with the site's other fw processes), else (loudly, when this machine has no mongod binary) memory."""
    if settings.memory_backend:
        return db.connect_memory(settings.db_name), None
    if settings.mongo_url:
        return connect(settings, settings.mongo_url), None
    try:
        mongod = site_mongod.attach(settings.data_dir / "mongo", durable=settings.durable_writes)
    except embedded.EmbeddedUnavailable as e:
        log.warning("=" * 72)
        log.warning("EMBEDDED MONGODB UNAVAILABLE: %s", e)
        log.warning("Falling back to the IN-MEMORY backend: NOTHING WILL BE SAVED across restarts,")
        log.warning("and writes are not transactional. Set FW_MONGO_URL for a real database.")
        log.warning("=" * 72)
        return db.connect_memory(settings.db_name), None
    return connect(settings, mongod.url), mongod


def connect(settings: Settings, url: str) -> db.Database:
    """A handle on the MongoDB at `url` with the timeouts of the settings (the URL's own options win)."""
    return db.connect(url, settings.db_name, server_selection_timeout_ms=settings.mongo_server_selection_timeout_ms,
                      retry_budget_ms=settings.mongo_retry_budget_ms)


async def open_site(settings: Settings, apps: AppRegistry | None = None) -> Site:
    """Connect, load apps (unless given), read custom fields. Does not migrate."""
    from engine.loader import registry_from_settings

    registry = apps or registry_from_settings(settings)
    database, mongod = connect_database(settings)
    site = Site(settings, database, registry, mongod)
    try:
        await site.meta.refresh_if_stale()
    except BaseException as e:
        await site.close()
        if db.is_unreachable(e):  # one line, not a driver traceback
            raise exc.ConfigurationError(
                f"Cannot reach MongoDB at {db.redacted(mongod.url if mongod else settings.mongo_url or '')}: "
                f"{str(e).split(',')[0]}. Check FW_MONGO_URL and that the server runs.") from e
        raise
    return site
