"""The password pages: `/forgot-password` (an Email field and Send: the server mails a link) and
`/update-password?key=...` (New Password, Confirm Password, Update). Both call the whitelisted methods
of engine/methods/password.py from js/password.js; the key is checked when the form is sent."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engine.translation import _
from server.context import context_for
from server.desk import pages

ENTRY = "js/password.js"
FAVICON = "images/favicon.svg"
MAX_KEY_LENGTH = 200


def _common(request: Request, lang: str) -> tuple[dict[str, str], dict[str, str]]:
    assets = request.app.state.desk_assets
    values = {
        "lang": lang, "favicon": assets.url(FAVICON), "entry": assets.url(ENTRY),
        "network_error": _("The server cannot be reached. Check your connection and try again.", lang=lang),
        "back_label": _("Back to login", lang=lang),
    }
    return values, {"stylesheets": pages.stylesheet_links(assets.stylesheets())}


async def forgot_password(request: Request) -> Response:
    ctx = await context_for(request)
    values, raw = _common(request, ctx.lang)
    values.update({
        "title": _("Forgot password?", lang=ctx.lang), "heading": _("Forgot password?", lang=ctx.lang),
        "email_label": _("Email", lang=ctx.lang), "send_label": _("Send", lang=ctx.lang),
        "busy": _("Sending…", lang=ctx.lang), "missing": _("Enter the email address of your account", lang=ctx.lang),
    })
    return pages.card_page("forgot_password.html", "forgot", values, raw=raw)


async def update_password(request: Request) -> Response:
    ctx = await context_for(request)
    key = request.query_params.get("key") or ""
    values, raw = _common(request, ctx.lang)
    values.update({
        "title": _("Set a new password", lang=ctx.lang), "heading": _("Set a new password", lang=ctx.lang),
        "key": key[:MAX_KEY_LENGTH], "new_label": _("New Password", lang=ctx.lang),
        "confirm_label": _("Confirm Password", lang=ctx.lang), "update_label": _("Update", lang=ctx.lang),
        "busy": _("Saving…", lang=ctx.lang), "missing": _("Enter a new password", lang=ctx.lang),
        "mismatch": _("The two passwords differ", lang=ctx.lang),
        "done": _("Your password is set. Taking you to the login page…", lang=ctx.lang),
        "message": "" if key else _("This page needs the link from your mail.", lang=ctx.lang),
    })
    return pages.card_page("update_password.html", "update", values, raw=raw)


def routes() -> list[Route]:
    return [
        Route("/forgot-password", forgot_password, methods=["GET"]),
        Route("/update-password", update_password, methods=["GET"]),
    ]
