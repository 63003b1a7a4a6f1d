"""`create_app(settings)`: the Starlette application. A thin translation layer over the engine."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engine.migrate import migrate
from engine.settings import Settings, get_settings
from engine.site import Site, open_site
from server.responses import json_response

log = logging.getLogger("fw.server")


async def ping(request: Request) -> Response:
    return json_response({"message": "pong"})


def create_app(settings: Settings, *, site: Site | None = None) -> Starlette:
    """Build the app; with `site` given (tests), that site is used and not closed on shutdown."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        own = site is None
        current = site or await open_site(settings)
        try:
            if own:
                report = await migrate(current)
                log.info("migrate: %s", report.summary())
            yield {"site": current}
        finally:
            if own:
                await current.close()

    routes = [
        Route("/api/method/ping", ping, methods=["GET", "POST"]),
        Route("/api/v1/method/ping", ping, methods=["GET", "POST"]),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


def create_app_from_env() -> Starlette:
    return create_app(get_settings())
