"""Who is calling: `Authorization` (token / Basic API key), else the `sid` session cookie, else
Guest. Builds the engine `Context` for the request; the engine never sees the request itself."""

from __future__ import annotations

import base64
import binascii
import hmac
from dataclasses import dataclass

from starlette.requests import Request
from starlette.types import Scope

from engine import auth
from engine import exceptions as exc
from engine.context import Context, read_with_retry
from engine.site import Site
from engine.translation import _, languages
from server.params import client_ip, csrf_form_token, form_dict, raw_header

UNSAFE = frozenset({"POST", "PUT", "DELETE", "PATCH"})
CSRF_HEADERS = ("x-frappe-csrf-token", "x-fw-csrf-token")
GUEST_ONLY = frozenset({"Guest"})


@dataclass
class Caller:
    user: str
    session: auth.Session | None = None
    session_expired: bool = False
    via_header: bool = False


# where the request's Context and Caller are kept, in the ASGI scope (cheaper than `request.state`,
# whose missing attributes cost a raised AttributeError)
_CTX, _CALLER = "fw.ctx", "fw.caller"


def site_of(request: Request) -> Site:
    # (Starlette's `State` answers through `__getattr__`, after a failed lookup: about 1 µs a read)
    return request.app.state._state["site"]


def request_context(request: Request) -> Context | None:
    """The request's Context once `context_for` built it (error responses read its language and messages)."""
    return request.scope.get(_CTX)


def scope_user(scope: Scope) -> str | None:
    """The user a request was authenticated as, once `context_for` ran (for the access log)."""
    caller = scope.get(_CALLER)
    return caller.user if caller is not None else None


def request_caller(request: Request) -> Caller:
    """Who is calling (after `context_for`): the user, and the cookie session if there is one."""
    return request.scope[_CALLER]


async def header_user(site: Site, header: str, ip: str | None) -> str:
    """The user an `Authorization: token|Basic` header authenticates (also the realtime server's check)."""
    scheme, _sep, value = header.strip().partition(" ")
    scheme = scheme.lower()
    value = value.strip()
    if scheme == "token":
        key, sep, secret = value.partition(":")
        if not sep:
            raise exc.CSRFTokenError(_("Invalid Authorization header: expected token <api_key>:<api_secret>"))
    elif scheme == "basic":
        try:
            decoded = base64.b64decode(value, validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            raise exc.CSRFTokenError(_("Invalid Authorization header: bad base64")) from None
        key, sep, secret = decoded.partition(":")
        if not sep:
            raise exc.CSRFTokenError(_("Invalid Authorization header: expected base64(<api_key>:<api_secret>)"))
    else:
        raise exc.AuthenticationError(_("Unsupported Authorization scheme {0}", scheme[:20]))
    return await auth.user_for_api_key(site, key, secret, ip)


async def identify(request: Request, site: Site) -> Caller:
    header = raw_header(request, b"authorization")
    if header:  # header auth wins and is CSRF-exempt, even with a stale desk cookie present
        return Caller(await header_user(site, header, client_ip(request)), via_header=True)
    sid = request.cookies.get("sid")
    if not sid and request.method in ("GET", "HEAD"):
        sid = request.query_params.get("sid")
    if not sid or sid == "Guest":
        return Caller("Guest")
    session = await site.sessions.resolve(sid)
    if session is None:
        return Caller("Guest", session_expired=True)
    if request.method in UNSAFE and session.csrf_token:
        sent = next((request.headers[h] for h in CSRF_HEADERS if h in request.headers), None)
        if sent is None:
            await form_dict(request)
            sent = csrf_form_token(request)
        if not isinstance(sent, str) or not hmac.compare_digest(sent.encode(), session.csrf_token.encode()):
            raise exc.CSRFTokenError(_("Invalid Request: missing or wrong CSRF token"))
    return Caller(session.user, session=session)


def negotiate_language(accept: str | None, user_language: str | None) -> str:
    """The user's language, else Accept-Language (exact, then parent), else English."""
    if user_language:
        return user_language.lower()
    if not accept:
        return "en"
    available = set(languages()) | {"en"}
    for tag in _accept_languages(accept or ""):
        if tag in available:
            return tag
        parent = tag.split("-", 1)[0]
        if parent in available:
            return parent
    return "en"


def _accept_languages(header: str) -> list[str]:
    entries: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")[:20]):
        lang, _sep, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if lang and lang != "*":
            entries.append((-quality, i, lang.strip().lower().replace("_", "-")))
    return [lang for _q, _i, lang in sorted(entries)]


async def context_for(request: Request) -> Context:
    """The request's Context (also kept in the ASGI scope for error responses)."""
    scope = request.scope
    existing = scope.get(_CTX)
    if existing is not None:
        return existing
    site = site_of(request)

    async def who() -> tuple[Caller, frozenset[str], str | None]:
        found = await identify(request, site)
        await site.meta.refresh_if_stale()  # another process's Custom Field: at most one tiny read a second
        return found, *await site.user_info(found.user)

    # read again while the database fails over, as the request's unit of work will be
    caller, roles, language = await read_with_retry(site.db, who)
    if caller.user != "Guest" and roles == GUEST_ONLY:  # the user was disabled or deleted
        caller = Caller("Guest", session_expired=caller.session is not None)
    scope[_CALLER] = caller
    ctx = Context(site, caller.user, lang=negotiate_language(raw_header(request, b"accept-language"), language),
                  roles=roles)
    settings = request.app.state._state["settings"]
    ctx.query_timeout_ms = settings.query_timeout_ms or None
    ctx.response_limit = settings.max_response_bytes
    ctx.client_ip = client_ip(request)
    ctx.session_id = caller.session.sid_hash if caller.session is not None else None
    ctx.url_root = f"{request.url.scheme}://{request.url.netloc}"
    scope[_CTX] = ctx
    return ctx
