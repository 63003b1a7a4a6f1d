"""engine/cache_bus.py: a logout, a key rotation or a role change in one process clears the other
processes' caches within milliseconds (two `Site` objects on one database stand for two processes)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import orjson
import pytest

from engine import auth, cache_bus
from engine import exceptions as exc
from engine.context import unit_of_work
from engine.documents.factory import get_doc, new_doc
from engine.site import Site
from tests.support.custom_fields import drop_custom_fields
from tests.support.redis_server import RedisServer

USER = "bus@example.com"


async def eventually(check: Callable[[], Awaitable[bool]], within: float = 1.0) -> float:
    """Seconds until `check()` held; fails after `within` (well under the caches' 2 s life)."""
    started = time.monotonic()
    while not await check():
        assert time.monotonic() - started < within, "the other process still serves its cached entry"
        await asyncio.sleep(0.01)
    return time.monotonic() - started


@pytest.fixture
async def two_processes(site: Site, redis_server: RedisServer) -> AsyncIterator[tuple[Site, Site]]:
    settings = site.settings.model_copy(update={"redis_url": redis_server.url, "db_name": f"bus{time.time_ns()}"})
    first, second = Site(settings, site.db, site.apps), Site(settings, site.db, site.apps)
    ctx = first.context()
    async with unit_of_work(ctx):
        if not await ctx.db.collection("role").find_one({"_id": "Test Reader"}):
            await new_doc(ctx, "Role", role_name="Test Reader").insert()
        await new_doc(ctx, "User", email=USER, first_name="Bus", roles=[{"role": "Test Reader"}]).insert()
    ready = asyncio.Event()
    listener = asyncio.create_task(cache_bus.listen(second, ready))
    await asyncio.wait_for(ready.wait(), 10)
    yield first, second
    listener.cancel()
    with pytest.raises(asyncio.CancelledError):
        await listener
    await first.close_services()  # the bus clients, and the realtime publisher the saves opened
    await second.close_services()


async def test_a_logout_reaches_the_other_process(two_processes: tuple[Site, Site]) -> None:
    first, second = two_processes
    sid = await first.sessions.create(USER, None)
    session = await second.sessions.resolve(sid)
    assert session is not None and session.user == USER  # now cached by the second process
    await first.sessions.delete(session.sid_hash)

    async def gone() -> bool:
        return await second.sessions.resolve(sid) is None

    await eventually(gone)


async def test_a_rotated_api_secret_stops_working_everywhere(two_processes: tuple[Site, Site]) -> None:
    first, second = two_processes
    old = await auth.generate_keys_for(first, USER)
    assert await auth.user_for_api_key(second, old["api_key"], old["api_secret"], None) == USER  # cached
    new = await auth.generate_keys_for(first, USER)
    assert new["api_key"] == old["api_key"] and new["api_secret"] != old["api_secret"]

    async def refused() -> bool:
        try:
            await auth.user_for_api_key(second, old["api_key"], old["api_secret"], None)
        except exc.AuthenticationError:
            return True
        return False

    await eventually(refused)
    assert await auth.user_for_api_key(second, new["api_key"], new["api_secret"], None) == USER


async def test_changed_roles_and_a_disabled_user_reach_the_other_process(two_processes: tuple[Site, Site]) -> None:
    first, second = two_processes
    sid = await first.sessions.create(USER, None)
    assert "Test Reader" in (await second.user_info(USER))[0]
    assert await second.sessions.resolve(sid) is not None
    ctx = first.context()
    async with unit_of_work(ctx):
        user = await get_doc(ctx, "User", USER)
        user.roles = []
        await user.save()

    async def reader_role_gone() -> bool:
        return "Test Reader" not in (await second.user_info(USER))[0]

    await eventually(reader_role_gone)
    async with unit_of_work(ctx):
        user = await get_doc(ctx, "User", USER)
        user.enabled = 0
        await user.save()

    async def session_ended() -> bool:
        return await second.sessions.resolve(sid) is None

    await eventually(session_ended)


async def test_a_custom_field_reaches_the_other_process_at_once(two_processes: tuple[Site, Site]) -> None:
    first, second = two_processes
    for one in (first, second):  # an hour between version checks: only the announcement can tell
        one.meta.check_interval = 3600
        await one.meta.refresh_if_stale()
    assert "bus_field" not in second.meta.get("Test Note").by_name
    ctx = first.context()
    try:
        async with unit_of_work(ctx):
            await new_doc(ctx, "Custom Field", dt="Test Note", fieldname="bus_field", fieldtype="Data",
                          label="Bus Field").insert()
        assert "bus_field" in first.meta.get("Test Note").by_name

        async def seen() -> bool:
            await second.meta.refresh_if_stale()
            return "bus_field" in second.meta.get("Test Note").by_name

        await eventually(seen)
    finally:  # the session site's DocType record back as it was
        await drop_custom_fields(first, ["Test Note"])


def message(**fields: Any) -> bytes:
    return orjson.dumps({"kind": "session", "key": "abc", "from": "another-process"} | fields)


def test_only_well_formed_announcements_of_others_are_applied(site: Site) -> None:
    assert cache_bus.apply(site, message())
    assert cache_bus.apply(site, message(kind="user"))
    assert not cache_bus.apply(site, message(**{"from": cache_bus.sender_id(site)}))  # our own: already applied
    assert not cache_bus.apply(site, message(kind="everything"))
    assert not cache_bus.apply(site, message(key=["a"]))
    assert not cache_bus.apply(site, b"not json")
    assert not cache_bus.apply(site, b"[1, 2]")


async def test_without_redis_announcing_clears_this_process_only(site: Site) -> None:
    site.sessions.forget_all()  # the shared site may cache other tests' keys
    site.sessions.api_keys[("k", "s")] = (time.time(), USER)
    site.sessions.api_keys[("other", "s")] = (time.time(), "someone@example.com")
    await cache_bus.announce(site, "user", USER)
    assert list(site.sessions.api_keys) == [("other", "s")]
    await cache_bus.announce(site, "api_key", "other")
    assert site.sessions.api_keys == {}
    assert cache_bus.start_listener(site) is None


async def test_redis_being_down_fails_neither_the_announcer_nor_the_listener(site: Site) -> None:
    dead = site.settings.model_copy(update={"redis_url": "redis://127.0.0.1:9/0"})  # nothing listens on port 9
    down = Site(dead, site.db, site.apps)
    await cache_bus.announce(down, "session", "abc")  # logged, not raised
    listener = cache_bus.start_listener(down)
    assert listener is not None
    await asyncio.sleep(0.3)
    assert not listener.done()  # still retrying
    listener.cancel()
    with pytest.raises(asyncio.CancelledError):
        await listener
    await down.close_services()
