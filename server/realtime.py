"""Socket.IO at `/socket.io` (python-socketio). Connections authenticate with the `sid` cookie or
an `Authorization` header; Guests are refused. Every socket joins `user:<user>` (system users also
`all`); `doc:`/`doctype:` rooms are joined on request, only with read permission (a user who reads
only some rows of a doctype joins its restricted room, whose `list_update`s name no record)."""

from __future__ import annotations

import logging
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlsplit

import socketio

from engine import exceptions as exc
from engine.context import Context
from engine.documents.factory import get_doc
from engine.permissions import check_document, has_permission, reads_every_row
from engine.realtime import doctype_room
from engine.site import Site

log = logging.getLogger("fw.realtime")


class LocalPublisher:
    def __init__(self, sio: socketio.AsyncServer) -> None:
        self.sio = sio

    def listening(self) -> bool:
        return bool(self.sio.manager.rooms.get("/"))  # any client of this server in any room

    async def emit(self, event: str, message: Any, room: str) -> None:
        # most writes' events go to rooms nobody here has joined: those are not encoded at all (the
        # manager's room table read directly: `get_participants` is a generator, made per event)
        if not self.sio.manager.rooms.get("/", {}).get(room):
            return
        await self.sio.emit(event, message, room=room)


async def _user_from_environ(site: Site, environ: dict[str, Any], auth_data: Any) -> str | None:
    headers = {k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")}
    header = headers.get("authorization")
    if not header and isinstance(auth_data, dict):
        header = auth_data.get("authorization")
    if header:
        from server.context import header_user

        client = (environ.get("asgi.scope") or {}).get("client")  # (engineio's REMOTE_ADDR is a placeholder)
        try:  # with the client's address, so failed keys count towards its lockout as over HTTP
            return await header_user(site, header, client[0] if client else None)
        except exc.FwError:
            return None
    cookie = SimpleCookie()
    cookie.load(headers.get("cookie", ""))
    sid = cookie["sid"].value if "sid" in cookie else None
    session = await site.sessions.resolve(sid) if sid else None
    return session.user if session else None


def origin_check(cors_origins: list[str]) -> Any:
    """Browsers' `Origin` must name this server's own host (as Frappe's socket server requires) or
    one of FW_CORS_ORIGINS; clients that send no Origin (not browsers) are let through. Without the
    check any web page could open a socket with a visitor's `sid` cookie."""

    def allowed(origin: str | None, environ: dict[str, Any]) -> bool:
        if not origin:
            return True
        if "*" in cors_origins or origin in cors_origins:
            return True
        netloc = urlsplit(origin).netloc.lower()
        hosts = {environ.get("HTTP_HOST", "")} | {
            h.strip() for h in environ.get("HTTP_X_FORWARDED_HOST", "").split(",") if h.strip()}
        return bool(netloc) and netloc in {h.lower() for h in hosts}

    return allowed


def create_realtime(site_getter: Any, settings: Any) -> socketio.AsyncServer:
    manager = None
    if settings.redis_url:
        manager = socketio.AsyncRedisManager(settings.redis_url, channel=f"fw-realtime-{settings.db_name}")
    sio = socketio.AsyncServer(async_mode="asgi", client_manager=manager,
                               cors_allowed_origins=origin_check(list(settings.cors_origins or [])), logger=False,
                               engineio_logger=False)

    @sio.event
    async def connect(sid: str, environ: dict[str, Any], auth_data: Any = None) -> None:
        site: Site = site_getter()
        user = await _user_from_environ(site, environ, auth_data)
        if not user or user == "Guest":
            raise socketio.exceptions.ConnectionRefusedError("authentication required")
        roles, _lang = await site.user_info(user)
        await sio.save_session(sid, {"user": user})
        await sio.enter_room(sid, f"user:{user}")
        if "Desk User" in roles or user == "Administrator":
            await sio.enter_room(sid, "all")

    async def _ctx(sid: str) -> Context:
        session = await sio.get_session(sid)
        return Context(site_getter(), session["user"])

    @sio.event
    async def doctype_subscribe(sid: str, doctype: Any) -> bool:
        ctx = await _ctx(sid)
        if not isinstance(doctype, str) or not ctx.site.meta.exists(doctype) \
                or not await has_permission(ctx, doctype, "read"):
            return False
        await sio.enter_room(sid, doctype_room(doctype, every_row=await reads_every_row(ctx, doctype)))
        return True

    @sio.event
    async def doctype_unsubscribe(sid: str, doctype: Any) -> None:
        if isinstance(doctype, str):
            for every_row in (True, False):
                await sio.leave_room(sid, doctype_room(doctype, every_row=every_row))

    @sio.event
    async def doc_subscribe(sid: str, doctype: Any, docname: Any = None) -> bool:
        ctx = await _ctx(sid)
        if not isinstance(doctype, str) or not isinstance(docname, str) or not ctx.site.meta.exists(doctype):
            return False
        try:
            await check_document(ctx, await get_doc(ctx, doctype, docname), "read")
        except exc.FwError:
            return False
        await sio.enter_room(sid, f"doc:{doctype}/{docname}")
        return True

    @sio.event
    async def doc_unsubscribe(sid: str, doctype: Any, docname: Any = None) -> None:
        await sio.leave_room(sid, f"doc:{doctype}/{docname}")

    @sio.event
    async def ping(sid: str, *args: Any) -> str:
        return "pong"

    return sio


def attach_publisher(site: Site, sio: socketio.AsyncServer) -> None:
    """Without Redis, the engine publishes straight to this process's socket.io server."""
    if not site.settings.redis_url:
        site.realtime = LocalPublisher(sio)
