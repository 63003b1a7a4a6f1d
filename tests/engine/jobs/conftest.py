from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.redis_server import RedisServer, start_redis


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = start_redis()
    yield server
    server.stop()
