"""The composition root: connect the database (the configured MongoDB, the site's shared embedded
mongod, or memory), load the apps and open the `Site`. The CLI, the server, the worker and the
scheduler open sites only through here."""

from __future__ import annotations

import logging

from engine import db
from engine import exceptions as exc
from engine.apps.loader import registry_from_settings
from engine.apps.registry import AppRegistry
from engine.mongod import embedded, site_mongod
from engine.settings import Settings
from engine.site import Site

log = logging.getLogger("fw.site")


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
    return db.connect(
        url,
        settings.db_name,
        server_selection_timeout_ms=settings.mongo_server_selection_timeout_ms,
        retry_budget_ms=settings.mongo_retry_budget_ms,
    )


async def open_site(settings: Settings, apps: AppRegistry | None = None) -> Site:
    """Connect, load apps (unless given), read custom fields. Does not migrate."""
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
                f"{str(e).split(',')[0]}. Check FW_MONGO_URL and that the server runs."
            ) from e
        raise
    return site
