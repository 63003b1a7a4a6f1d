"""`create_app(settings)`: the Starlette application, a thin translation layer over the engine."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from engine import cache_bus, db
from engine import exceptions as exc
from engine.jobs import outbox
from engine.migrate import migrate
from engine.runtime import tune_gc
from engine.settings import Settings, get_settings
from engine.site import Site
from engine.wiring import open_site
from server import access_log, errors, openapi, realtime
from server.desk import DeskAssets, printview
from server.desk import routes as desk
from server.middleware import EdgeMiddleware
from server.routes import files, method, resource, v2

if TYPE_CHECKING:
    from socketio import AsyncServer

log = logging.getLogger("fw.server")


def create_app(settings: Settings, *, site: Site | None = None) -> Starlette:
    """Build the app. With `site` given (tests), that site is used as is and not closed."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        own = site is None
        current = site or await open_site(settings)
        app.state.site = current
        realtime.attach_publisher(current, sio)
        invalidations = cache_bus.start_listener(current)
        relay = None
        try:
            if own:
                report = await migrate(current)
                log.info("migrate: %s", report.summary())
                tune_gc(settings)  # a process of its own: what it loaded so far lives as long as it does
            relay = outbox.start_relay(current)  # jobs a Redis outage kept in the outbox
            yield {}
        finally:
            await outbox.stop_relay(relay)
            if invalidations is not None:
                invalidations.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await invalidations
            if own:
                await current.close()

    routes: list[BaseRoute] = []
    for prefix in ("/api", "/api/v1"):
        routes += resource.routes(prefix) + method.routes(prefix)
    routes += v2.routes()
    routes.append(Route("/api/openapi.json", openapi.openapi_json, methods=["GET"]))
    routes += files.routes()  # /files/<name>, /private/files/<name>
    routes += desk.routes()  # /, /login, /app/..., /assets/desk/... (before the /assets mount)
    routes += printview.routes()  # /printview
    assets = settings.root_dir / "assets"  # filled by `fw build`
    with contextlib.suppress(OSError):
        assets.mkdir(parents=True, exist_ok=True)
    routes.append(Mount("/assets", app=StaticFiles(directory=assets, check_dir=False), name="assets"))
    # (annotated: `lifespan` above uses it, and mypy cannot infer a name a closure reads before it is bound)
    sio: AsyncServer = realtime.create_realtime(lambda: app.state.site, settings)
    # the edge layer also keeps the access log (None when it is off): outermost but for the proxy headers'
    # layer, it times everything and knows the request id
    middleware = [
        Middleware(EdgeMiddleware, sio=sio, max_bytes=settings.max_body_bytes,
                   log=access_log.for_process(settings.access_log)),
    ]
    if settings.forwarded_allow_ips:
        # before everything else (the access log, the lockout's client address, Secure cookies): a request
        # from a trusted proxy gets the client and scheme it forwarded; from anyone else the headers are
        # ignored (uvicorn's own handling is off in `fw serve`, so FW_FORWARDED_ALLOW_IPS alone decides)
        middleware.insert(0, Middleware(ProxyHeadersMiddleware, trusted_hosts=settings.forwarded_allow_ips))
    if settings.cors_origins:
        middleware.append(Middleware(
            CORSMiddleware, allow_origins=settings.cors_origins, allow_credentials=True, max_age=86400,
            allow_methods=["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"],
            allow_headers=["Authorization", "Content-Type", "X-Frappe-CSRF-Token", "X-Fw-CSRF-Token",
                           "X-Frappe-Site-Name", "X-Request-Id", "Accept-Language"]))
    app: Starlette = Starlette(routes=routes, middleware=middleware, lifespan=lifespan, exception_handlers={
        exc.FwError: errors.handle_fw_error,
        db.DriverError: errors.handle_driver_error,
        HTTPException: errors.handle_http_exception,
        Exception: errors.handle_unexpected,
    })
    app.state.settings = settings
    app.state.sio = sio
    app.state.desk_assets = DeskAssets.load()
    if site is not None:
        app.state.site = site
        realtime.attach_publisher(site, sio)
    return app


def create_app_from_env() -> Starlette:
    return create_app(get_settings())
