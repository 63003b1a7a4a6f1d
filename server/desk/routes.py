"""The Desk's routes: `/` (to /app or /login; Frappe's legacy `cmd=` calls), `/login`, `/app` and
every `/app/...` path (the shell: the client routes), the Desk's static files, the doctypes' form
and list scripts and the script reports' `<report>.js`.

A Guest asking for an `/app` path is sent to `/login?redirect-to=<path>`; after logging in the
browser goes back there (a path on this site only). A logged-in user without Desk access (a Website
User) gets a page saying so.
"""

from __future__ import annotations

import hashlib
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engine import exceptions as exc
from engine.context import Context
from engine.desk.boot import build_boot
from engine.meta.bundle import script_text
from engine.reports import filters as report_filters
from engine.reports.script_report import check_runnable
from engine.translation import _
from server.context import context_for, negotiate_language, request_caller, site_of
from server.desk import pages, password_pages
from server.desk.assets import IMMUTABLE, LOGIN_ENTRY, PREFIX, REVALIDATE, DeskAssets
from server.multipart import read_form
from server.routes import method
from server.routes.common import run
from server.routes.session import open_session, set_session_cookies

DESK_ROLE = "Desk User"  # every System User holds it (and Administrator)
FAVICON = "images/favicon.svg"
SCRIPT_CACHE = "private, max-age=31536000, immutable"


def desk_assets(request: Request) -> DeskAssets:
    assets: DeskAssets = request.app.state.desk_assets
    if request.app.state.settings.developer_mode:
        assets.refresh_if_changed()
    return assets


def _requested_path(request: Request) -> str:
    """The path and query as the browser sent them (still percent-encoded)."""
    raw = request.scope.get("raw_path") or request.url.path.encode()
    query = request.scope.get("query_string") or b""
    return raw.decode("latin-1") + (f"?{query.decode('latin-1')}" if query else "")


async def root(request: Request) -> Response:
    """`GET /`: to the Desk or the login page. With `cmd` (or any POST): Frappe's legacy method call."""
    if request.method == "POST" or "cmd" in request.query_params:
        return await method.legacy_cmd(request)
    ctx = await context_for(request)
    return pages.redirect("/login" if ctx.user == "Guest" else "/app")


async def app_shell(request: Request) -> Response:
    ctx = await context_for(request)
    if ctx.user == "Guest":
        return pages.redirect(pages.login_url(pages.safe_target(_requested_path(request))))
    assets = desk_assets(request)
    if DESK_ROLE not in await ctx.roles():
        return _no_access(assets, ctx)
    caller = request_caller(request)
    token = await site_of(request).sessions.csrf_token(caller.session) if caller.session is not None else None
    extra = {"assets": {"base": assets.base_url, "version": assets.version}, "realtime": {"path": "/socket.io"},
             "developer_mode": int(request.app.state.settings.developer_mode)}

    async def boot(ctx: Context) -> dict[str, Any]:
        return await build_boot(ctx, csrf_token=token, messages=assets.messages, extra=extra)

    _ctx, payload = await run(request, boot, read_only=True)
    return pages.page("shell.html", {
        "lang": ctx.lang, "title": "fw", "favicon": assets.url(FAVICON),
        "entry": assets.url("js/main.js"), "loading": _("Loading…", lang=ctx.lang),
        "noscript": _("The Desk needs JavaScript: please enable it in your browser.", lang=ctx.lang),
    }, raw={"boot": pages.boot_json(payload), "stylesheets": pages.stylesheet_links(assets.stylesheets()),
            "preloads": pages.preload_links(assets.static_imports("js/main.js"))})


def _no_access(assets: DeskAssets, ctx: Context) -> Response:
    return pages.page("no_access.html", {
        "lang": ctx.lang, "title": _("Not permitted", lang=ctx.lang), "favicon": assets.url(FAVICON),
        "message": _("Your account has no access to the Desk.", lang=ctx.lang),
        "login_label": _("Log in as another user", lang=ctx.lang),
    }, raw={"stylesheets": pages.stylesheet_links(assets.stylesheets())}, status_code=403)


def _login_page(request: Request, lang: str, target: str, *, message: str = "", usr: str = "",
                status_code: int = 200) -> Response:
    assets = desk_assets(request)
    return pages.card_page("login.html", "login", {
        "lang": lang, "title": _("Login", lang=lang), "heading": _("Log in to fw", lang=lang),
        "favicon": assets.url(FAVICON), "entry": assets.url(LOGIN_ENTRY), "target": target,
        "email_label": _("Email", lang=lang), "password_label": _("Password", lang=lang),
        "login_label": _("Login", lang=lang), "busy": _("Logging in…", lang=lang),
        "network_error": _("The server cannot be reached. Check your connection and try again.", lang=lang),
        "missing": _("Enter your email and password", lang=lang), "message": message, "usr": usr,
        "forgot_label": _("Forgot password?", lang=lang),
    }, raw={"stylesheets": pages.stylesheet_links(assets.stylesheets())}, status_code=status_code)


async def login_page(request: Request) -> Response:
    """`GET /login`: the form; a user already logged in to the Desk goes straight to the target."""
    ctx = await context_for(request)
    target = pages.safe_target(request.query_params.get("redirect-to"))
    if ctx.user != "Guest" and DESK_ROLE in await ctx.roles():
        return pages.redirect(target)
    return _login_page(request, ctx.lang, target)


async def login_submit(request: Request) -> Response:
    """`POST /login`: the form posted without JavaScript (the page's script normally logs in through
    `/api/method/login`): on success to the target, else the form again with the server's message."""
    form = await read_form(request)
    lang = negotiate_language(request.headers.get("accept-language"), None)
    target = pages.safe_target(_text(form.get("redirect-to")))
    usr = _text(form.get("usr"))
    try:
        session = await open_session(request, usr, _text(form.get("pwd")))
    except exc.FwError as error:
        status = 429 if isinstance(error, exc.TooManyRequestsError) else 401
        return _login_page(request, lang, target, message=error.message, usr=usr[:320], status_code=status)
    response = pages.redirect(target if session.system_user else "/login")
    response.status_code = 303
    set_session_cookies(request, response, session)
    return response


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


async def static_asset(request: Request) -> Response:
    assets = desk_assets(request)
    asset = assets.files.get(request.path_params["path"])
    if asset is None:
        raise exc.DoesNotExistError(_("Not found: {0}", request.url.path))
    cache = IMMUTABLE if request.path_params["version"] == assets.version else REVALIDATE
    headers = {"ETag": asset.etag, "Cache-Control": cache, "X-Content-Type-Options": "nosniff",
               "Vary": "Accept-Encoding"}
    if request.headers.get("if-none-match") == asset.etag:
        return Response(status_code=304, headers=headers)
    body = asset.body
    if asset.gzipped is not None and "gzip" in request.headers.get("accept-encoding", ""):
        body = asset.gzipped
        headers["Content-Encoding"] = "gzip"
    return Response(body, headers=headers, media_type=asset.content_type)


async def form_script(request: Request) -> Response:
    return await doctype_script(request, "form")


async def list_script(request: Request) -> Response:
    return await doctype_script(request, "list")


async def doctype_script(request: Request, kind: str) -> Response:
    """A doctype's form or list script (the `__js` / `__list_js` of its meta), for logged-in users."""
    doctype = request.path_params["doctype"]

    async def read(ctx: Context) -> str:
        if ctx.user == "Guest":
            raise exc.PermissionError(_("You are not permitted to access this resource: please log in"))
        ctx.meta(doctype)  # an unknown doctype is a 404
        text = script_text(ctx, doctype, kind)
        if text is None:
            raise exc.DoesNotExistError(_("{0} has no {1} script", doctype, kind))
        return text

    _ctx, text = await run(request, read, read_only=True)
    return _script_response(request, text)


async def report_script(request: Request) -> Response:
    """A script report's `<report>.js` (`get_script`'s `script_url`), for users who may run the report."""
    name = request.path_params["report"]

    async def read(ctx: Context) -> str:
        report = ctx.site.apps.reports.get(name)
        if report is None:
            raise exc.DoesNotExistError(_("Report {0} not found", name))
        await check_runnable(ctx, report)
        text = report_filters.script_text(report.script_path)
        if text is None:
            raise exc.DoesNotExistError(_("Report {0} has no script", name))
        return text

    _ctx, text = await run(request, read, read_only=True)
    return _script_response(request, text)


def _script_response(request: Request, text: str) -> Response:
    version = hashlib.sha256(text.encode()).hexdigest()[:16]
    headers = {"ETag": f'"{version}"', "X-Content-Type-Options": "nosniff",
               "Cache-Control": SCRIPT_CACHE if request.query_params.get("v") == version else REVALIDATE}
    if request.headers.get("if-none-match") == headers["ETag"]:
        return Response(status_code=304, headers=headers)
    return Response(text, headers=headers, media_type="text/javascript; charset=utf-8")


def routes() -> list[Route]:
    return [
        Route("/", root, methods=["GET", "POST"]),
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login_submit, methods=["POST"]),
        *password_pages.routes(),
        Route("/app", app_shell, methods=["GET"]),
        Route("/app/{path:path}", app_shell, methods=["GET"]),
        Route(f"{PREFIX}/form-script/{{doctype}}.js", form_script, methods=["GET"]),
        Route(f"{PREFIX}/list-script/{{doctype}}.js", list_script, methods=["GET"]),
        Route(f"{PREFIX}/report-script/{{report}}.js", report_script, methods=["GET"]),
        Route(f"{PREFIX}/{{version}}/{{path:path}}", static_asset, methods=["GET"]),
    ]
