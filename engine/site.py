"""The runtime objects every engine function receives: `Site` (one database with its meta, caches
and services, opened once per process by engine/wiring.py) and `Context` (who acts on it, in which
language, inside which unit of work; engine/context.py runs units of work and binds contexts).

Both live here because each names the other: a site makes contexts, a context belongs to a site.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson

from engine import db
from engine import exceptions as exc
from engine.cache_bus import CacheBus
from engine.constants import AUTOMATIC_ROLES
from engine.meta.registry import MetaRegistry
from engine.mongod import site_mongod
from engine.services import JobsBackend, Publisher, RedisPublisher
from engine.sessions import SessionStore
from engine.settings import Settings

if TYPE_CHECKING:
    from engine.apps.registry import AppRegistry
    from engine.meta.schema import Meta

log = logging.getLogger("fw.site")
log_realtime = logging.getLogger("fw.realtime")
ROLE_CACHE_SECONDS = 2.0
# what an answer holds besides its document: Frappe's envelope, the `doctype` key, a short message
ANSWER_SLACK = 1024
_pending: set[asyncio.Task[None]] = set()  # realtime events sent in the background, kept until sent


class Site:
    """One database with its meta, caches and services, shared by every request and job of the
    process. engine/wiring.py opens it; the services opened on first use (jobs backend, realtime
    publisher, cache-bus client) are declared here and closed by `close_services`."""

    def __init__(self, settings: Settings, database: db.Database, apps: AppRegistry,
                 mongod: site_mongod.SharedMongod | None = None) -> None:
        self.settings = settings
        self.db = database
        self.apps = apps
        self.mongod = mongod
        self.meta = MetaRegistry(apps, database, settings.meta_check_interval)
        self._roles: dict[str, tuple[float, frozenset[str], str | None]] = {}
        # engine/permissions/user_access.py and shares.py: per user, (read at, value) of their User
        # Permissions and of the documents shared with them, dropped with the user's roles
        self.user_access: dict[str, dict[Any, tuple[float, Any]]] = {}
        self.cache_bus = CacheBus(database.name, lambda: self.settings.redis_url)
        self.sessions = SessionStore(self)
        self.cache_bus.on_drop.append(self._drop_cached)
        self.cache_bus.on_reset.append(self._drop_all_cached)
        self.meta.on_bump = self._announce_meta_change
        # opened on first use by engine/jobs/queue.py, engine/realtime.py (or server/realtime.py), engine/auth.py
        self._jobs_backend: JobsBackend | None = None
        self.realtime: Publisher | None = None
        self._auth_secret: bytes | None = None
        # engine/documents/concurrency.py: (doctype, name) -> the lock a save without `modified` takes
        # (one table per site, and so per event loop; an entry disappears once nobody holds its lock)
        self.document_turns: weakref.WeakValueDictionary[tuple[str, str], asyncio.Lock] = weakref.WeakValueDictionary()

    async def _announce_meta_change(self) -> None:
        await self.cache_bus.announce("meta", "")

    def _drop_cached(self, kind: str, key: str) -> None:
        if kind == "session":
            self.sessions.forget(key)
        elif kind == "user":
            self.forget_roles(key)
            self.sessions.forget_user(key)
        elif kind == "api_key":
            self.sessions.forget_api_key(key)
        elif kind == "meta":  # the announcer already applied its own change (MetaRegistry.bump)
            self.meta.mark_stale()
        elif kind == "all":
            self._drop_all_cached()

    def _drop_all_cached(self) -> None:
        self.forget_roles()
        self.sessions.forget_all()
        self.meta.mark_stale()

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
        record = await self._records("User").find_one(
            {"_id": user}, {"roles.role": 1, "enabled": 1, "user_type": 1, "language": 1})
        if user == "Administrator":
            names = await self._records("Role").distinct("_id")
            roles = frozenset(names) | AUTOMATIC_ROLES | {"System Manager"}
        elif not record or not record.get("enabled", 1):
            roles = frozenset({"Guest"})
        else:
            assigned = frozenset(r["role"] for r in record.get("roles") or [] if r.get("role"))
            if assigned:  # a disabled role is removed from every user
                assigned -= frozenset(await self._records("Role").distinct(
                    "_id", {"_id": {"$in": sorted(assigned)}, "disabled": 1}))
            roles = assigned | {"All", "Guest"}
            if record.get("user_type", "System User") == "System User":
                roles |= {"Desk User"}
        language = (record or {}).get("language") or None
        self._roles[user] = (time.monotonic(), roles, language)
        return roles, language

    def _records(self, doctype: str) -> Any:
        """The collection of a core doctype's records, named by its meta (the site sits below
        engine/documents/store.py, which serves every other reader)."""
        return self.db.collection(self.meta.get(doctype).collection)

    def forget_roles(self, user: str | None = None) -> None:
        """Drop what is cached of `user` (roles, User Permissions, shares); of everyone for None or ""
        (a share with everyone changed)."""
        if not user:
            self._roles.clear()
            self.user_access.clear()
        else:
            self._roles.pop(user, None)
            self.user_access.pop(user, None)

    def publisher(self) -> Publisher | None:
        """Where realtime events go: the server's own socket.io (set by server/realtime.py), else with
        FW_REDIS_URL every server's through Redis, else nowhere."""
        if self.realtime is None and self.settings.redis_url:
            self.realtime = RedisPublisher(self.settings.redis_url, f"fw-realtime-{self.name}")
        return self.realtime

    async def emit(self, event: str, message: Any, room: str) -> None:
        """Send a realtime event now. Best effort: a failure is logged, never raised to the publisher."""
        publisher = self.publisher()
        if publisher is None:
            return
        try:
            await publisher.emit(event, message, room)
        except Exception:  # realtime is best effort: never fail the request that published
            log_realtime.exception("realtime emit of %s to %s failed", event, room)

    async def close_services(self) -> None:
        """Close the job backend and realtime publisher (opened lazily on first use)."""
        backend = self._jobs_backend
        if backend is not None:
            await backend.close()
            self._jobs_backend = None
        publisher = self.realtime
        if publisher is not None and hasattr(publisher, "close"):
            await publisher.close()
        self.realtime = None
        await self.cache_bus.close()

    async def close(self) -> None:
        await self.close_services()
        await self.db.close()
        if self.mongod is not None:
            self.mongod.release()  # stops the site's embedded mongod if no other fw process uses it
            self.mongod = None


class Context:
    """The acting user, site, language and unit of work of one request, job or command."""

    def __init__(self, site: Site, user: str = "Administrator", *, lang: str = "en",
                 roles: frozenset[str] | None = None) -> None:
        self.site = site
        self.user = user
        self.lang = lang
        self.uow: db.UnitOfWork | None = None
        self.messages: list[dict[str, Any]] = []
        # extra top-level keys of the HTTP response body, beside `message` (Frappe's `frappe.response`:
        # the Desk loaders send `docs`, `docinfo`, `user_settings` there); ignored outside HTTP
        self.response: dict[str, Any] = {}
        self._roles = roles
        self.flags: dict[str, Any] = {}  # apps' own per-context values (Frappe's frappe.flags)
        # the caller writes one document and nothing else in this unit of work (the HTTP create and
        # update routes), so a write with no hooks after it may skip the transaction
        self.single_operation = False
        # how long one list, count or aggregate query may run (ms; None: no limit). HTTP requests set
        # it from FW_QUERY_TIMEOUT_MS; jobs and commands run unbounded
        self.query_timeout_ms: int | None = None
        # the largest answer the caller takes (bytes; None: no limit). HTTP requests set it from
        # FW_MAX_RESPONSE_BYTES: a write that would skip the transaction first makes sure its answer fits
        # (`answer_room`), since an answer refused after such a write could not undo it
        self.response_limit: int | None = None
        # locks held until the outermost unit of work ends (committed or rolled back); None outside one
        self.unit_locks: list[asyncio.Lock] | None = None
        # what an HTTP request tells of its caller (None outside one): the client's address (rate limits),
        # the hash of its session (a password change ends the user's *other* sessions) and the URL it
        # came to (links in mails when FW_SITE_URL is unset)
        self.client_ip: str | None = None
        self.session_id: str | None = None
        self.url_root: str | None = None

    @property
    def db(self) -> db.Database:
        return self.site.db

    def answer_room(self) -> int | None:
        """The bytes of JSON a document in this request's answer may take under `response_limit`, once
        the envelope and what the request already put in it (messages, extra keys) are counted; None
        without a limit."""
        if self.response_limit is None:
            return None
        used = ANSWER_SLACK
        if self.messages:  # (v1 encodes them twice)
            used += 2 * len(orjson.dumps(self.messages, default=str))
        if self.response:
            used += len(orjson.dumps(self.response, default=str))
        return self.response_limit - used

    def meta(self, doctype: str) -> Meta:
        return self.site.meta.get(doctype)

    async def roles(self) -> frozenset[str]:
        """The user's roles, including the automatic ones; read once per context."""
        if self._roles is None:
            self._roles = await self.site.load_roles(self.user)
        return self._roles

    @property
    def is_admin(self) -> bool:
        return self.user == "Administrator"

    def clone(self, user: str | None = None) -> Context:
        """A context for another user on the same site and unit of work (switching user safely)."""
        other = Context(self.site, user or self.user, lang=self.lang,
                        roles=self._roles if user in (None, self.user) else None)
        other.uow = self.uow
        other.unit_locks = self.unit_locks
        other.query_timeout_ms = self.query_timeout_ms
        other.response_limit = self.response_limit
        other.messages = self.messages
        other.response = self.response
        return other

    # -- transactions -------------------------------------------------------------------------

    async def write_session(self, *, final: bool = False) -> Any:
        return await self.uow.write_session(final=final) if self.uow else None

    def read_session(self) -> Any:
        return self.uow.read_session() if self.uow else None

    def after_commit(self, callback: Callable[[], Awaitable[None] | None]) -> None:
        """Run `callback` once the current unit of work commits; dropped on rollback."""
        if self.uow is None:
            raise exc.ConfigurationError("after_commit needs an active unit of work")
        self.uow.after_commit.append(callback)

    async def commit(self) -> None:
        """Commit what the unit of work wrote so far; later writes open a new transaction."""
        if self.uow is not None:
            await self.uow.commit()

    async def rollback(self) -> None:
        if self.uow is not None:
            await self.uow.rollback()

    # -- user feedback ------------------------------------------------------------------------

    def msgprint(self, message: str, *, title: str | None = None, indicator: str | None = None,
                 alert: bool = False, realtime: bool = False, **extra: Any) -> None:
        """A message for the user: in the response (`_server_messages`), or with `realtime=True`
        as a socket.io `msgprint` event to room `user:<user>` (after the commit, when in a unit of
        work; dropped on rollback)."""
        entry: dict[str, Any] = {"message": message}
        if title:
            entry["title"] = title
        if indicator:
            entry["indicator"] = indicator
        if alert:
            entry["alert"] = 1
        entry.update(extra)
        if realtime:
            self.emit_soon("msgprint", entry, f"user:{self.user}")
            return
        self.messages.append(entry)

    def emit_soon(self, event: str, message: Any, room: str) -> None:
        """A realtime event from synchronous code: after the commit inside a unit of work (dropped on
        rollback), else right away in the background."""
        site = self.site
        if self.uow is not None:
            async def later() -> None:
                await site.emit(event, message, room)

            self.after_commit(later)
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a thread without an event loop: the publisher belongs to another loop
            log.warning("realtime %s to %s dropped: published outside the event loop and a unit of work", event, room)
            return
        task = loop.create_task(site.emit(event, message, room))
        _pending.add(task)
        task.add_done_callback(_pending.discard)
