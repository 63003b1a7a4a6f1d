"""Test harness: one real mongod per session (single-node replica set, temp dir, free port),
one migrated database emptied before each test, and the fixture app `fwtest` loaded once."""

from __future__ import annotations

import shutil
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from engine import db
from engine.apps.loader import registry_from_settings
from engine.apps.registry import AppRegistry
from engine.context import Context
from engine.core.bootstrap import ensure_bootstrap
from engine.migrate import sync_schema
from engine.mongod import embedded
from engine.settings import Settings
from engine.site import Site
from tests.support.jobs import arq_jobs
from tests.support.redis_server import RedisServer, start_redis
from tests.support.smtp import SmtpSink

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES / "apps"))  # the fixture app `fwtest` is importable from test modules
PRESERVED = {"_fw_state", "doctype"}


def make_settings(**overrides: object) -> Settings:
    values: dict[str, object] = {"root_dir": FIXTURES / "site", "admin_password": "admin",
                                 "durable_writes": False, "meta_check_interval": 0.0, "access_log": "off"}
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def mongod() -> Iterator[embedded.EmbeddedMongo]:
    data_dir = Path(tempfile.mkdtemp(prefix="fw-test-mongo-"))
    # test commands: failpoints (e.g. `maxTimeAlwaysTimeOut`) let tests provoke server-side failures
    server = embedded.start(data_dir, durable=False, extra_args=["--setParameter", "enableTestCommands=1"])
    yield server
    server.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def settings(mongod: embedded.EmbeddedMongo) -> Settings:
    return make_settings(mongo_url=mongod.url, db_name="fw_test")


@pytest.fixture(scope="session")
def registry(settings: Settings) -> AppRegistry:
    return registry_from_settings(settings)


@pytest.fixture(scope="session")
async def session_site(settings: Settings, registry: AppRegistry) -> AsyncIterator[Site]:
    database = db.connect(settings.mongo_url or "", settings.db_name)
    await database.drop()
    site = Site(settings, database, registry)
    await sync_schema(site)
    yield site
    # (no drop: the session's mongod and its data directory go right after; a last round trip here
    # only gave a teardown error once, when the driver's pool was reset as the session ended)
    await database.close()


async def empty_database(site: Site) -> None:
    for name in await site.db.handle.list_collection_names():
        if name not in PRESERVED:
            await site.db.collection(name).delete_many({})


@pytest.fixture
async def site(session_site: Site) -> AsyncIterator[Site]:
    """The session's migrated site, emptied and bootstrapped (roles, Administrator, Guest)."""
    await empty_database(session_site)
    session_site.forget_roles()
    await session_site.meta.reload()
    await ensure_bootstrap(session_site)
    yield session_site


@pytest.fixture
def ctx(site: Site) -> Context:
    return site.context("Administrator")


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A private redis-server for the session (never the machine's Redis)."""
    server = start_redis()
    yield server
    server.stop()


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A Redis of the test's own (one it may stop and start: outages)."""
    server = start_redis()
    yield server
    server.stop()


@pytest.fixture
async def redis_site(site: Site, own_redis: RedisServer) -> AsyncIterator[Site]:
    """The test site with its jobs on `own_redis` through arq (the job outbox and its relays)."""
    async with arq_jobs(site, own_redis.url):
        yield site


@pytest.fixture
async def fresh_site(settings: Settings, registry: AppRegistry) -> AsyncIterator[Site]:
    """A brand-new, unmigrated database on the session mongod (for tests of migrate itself)."""
    database = db.connect(settings.mongo_url or "", f"fw_fresh_{uuid.uuid4().hex[:12]}")
    site = Site(settings, database, registry)
    yield site
    # (no drop: the session's mongod and its data directory go right after; a last round trip here
    # only gave a teardown error once, when the driver's pool was reset as the session ended)
    await database.close()


@pytest.fixture
async def memory_site(settings: Settings, registry: AppRegistry) -> AsyncIterator[Site]:
    """A migrated site on the in-memory backend (no transactions)."""
    database = db.connect_memory(f"fw_mem_{uuid.uuid4().hex[:12]}")
    site = Site(settings, database, registry)
    await sync_schema(site)
    await ensure_bootstrap(site)
    yield site
    await database.drop()


@pytest.fixture(scope="session")
def smtp_server() -> Iterator[SmtpSink]:
    """A real SMTP server (aiosmtpd) for the session; `mail_site` points the site at it."""
    sink = SmtpSink()
    sink.start()
    yield sink
    sink.stop()


@pytest.fixture
async def mail_site(site: Site, smtp_server: SmtpSink) -> AsyncIterator[Site]:
    """The test site sending its mail to `smtp_server` (FW_SMTP_URL), which starts empty and running."""
    smtp_server.start()
    smtp_server.clear()
    previous = site.settings
    site.settings = previous.model_copy(update={"smtp_url": smtp_server.url, "mail_sender": "fw <fw@example.com>"})
    yield site
    site.settings = previous
