"""Login and logout: the `sid` cookie (HttpOnly, SameSite=Lax, Secure under https) and Frappe's
informational cookies."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from engine import auth
from engine.context import Context, bind
from engine.translation import _
from server.context import context_for, negotiate_language, request_caller, site_of
from server.params import client_ip, form_dict
from server.responses import json_response

INFO_COOKIES = ("system_user", "full_name", "user_id", "user_image", "user_lang")


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


@dataclass(frozen=True)
class LoggedIn:
    """A session just opened for `user` (the Desk's login page shares it with the login method)."""

    user: str
    sid: str
    full_name: str
    system_user: bool

    @property
    def body(self) -> dict[str, str]:
        """Frappe's login answer."""
        return {"message": "Logged In" if self.system_user else "No App",
                "home_page": "/app" if self.system_user else "/me", "full_name": self.full_name}


async def open_session(request: Request, usr: object, pwd: object) -> LoggedIn:
    """Check the credentials (lockout included) and open a session; raises AuthenticationError & co.,
    whose messages are in the language the browser asks for."""
    site = site_of(request)
    guest = Context(site, "Guest", lang=negotiate_language(request.headers.get("accept-language"), None))
    with bind(guest):
        user = await auth.login(site, usr, pwd, client_ip(request))
    sid = await site.sessions.create(user, client_ip(request))
    full_name, system_user = await auth.login_profile(site, user)
    return LoggedIn(user, sid, full_name, system_user)


def set_session_cookies(request: Request, response: Response, session: LoggedIn) -> None:
    max_age = site_of(request).settings.session_expiry_seconds
    response.set_cookie("sid", session.sid, max_age=max_age, httponly=True, samesite="lax", secure=_secure(request))
    for name, value in (("system_user", "yes" if session.system_user else "no"),
                        ("full_name", quote(session.full_name)), ("user_id", quote(session.user)),
                        ("user_image", "")):
        response.set_cookie(name, value, samesite="lax", secure=_secure(request))


async def login(request: Request) -> Response:
    args = await form_dict(request)
    session = await open_session(request, args.get("usr"), args.get("pwd"))
    response = json_response(session.body)
    set_session_cookies(request, response, session)
    return response


async def logout(request: Request) -> Response:
    ctx = await context_for(request)
    caller = request_caller(request)
    if caller.session is not None:
        await site_of(request).sessions.delete(caller.session.sid_hash)
    response = json_response({})
    for name in ("sid", *INFO_COOKIES):
        response.delete_cookie(name, samesite="lax", secure=_secure(request))
    with bind(ctx):
        return response


async def csrf_token(request: Request) -> Response:
    """A CSRF token bound to the cookie session (the web UI fetches it once and sends it back)."""
    ctx = await context_for(request)
    caller = request_caller(request)
    if caller.session is None:
        from engine import exceptions as exc

        raise exc.PermissionError(_("A CSRF token needs a logged-in session"))
    token = await site_of(request).sessions.csrf_token(caller.session)
    with bind(ctx):
        return json_response({"message": token})


HANDLERS: dict[str, Callable[[Request], Awaitable[Response]]] = {
    "login": login,
    "logout": logout,
    "fw.auth.get_csrf_token": csrf_token,
    "frappe.auth.get_csrf_token": csrf_token,
}


