"""`/printview?doctype=D&name=N[&format=F][&letterhead=L]`: a document's print as an HTML page
(engine/printing renders it; this route only reads the query and answers). The page runs no script
(its CSP allows none) and loads images only from this site or `data:`. A Guest is sent to log in;
an error (no right, a failing template) is a page saying so with the error's status."""

from __future__ import annotations

import html

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from engine import exceptions as exc
from engine.context import Context
from engine.printing.page import PrintPage, print_page
from engine.translation import _
from server.context import context_for
from server.desk import pages
from server.errors import status_for
from server.routes.common import run

CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'self'")
HEADERS = {**pages.PAGE_HEADERS, "Content-Security-Policy": CSP, "Cache-Control": "no-store"}


async def printview(request: Request) -> Response:
    ctx = await context_for(request)
    if ctx.user == "Guest":
        return pages.redirect(pages.login_url(pages.safe_target(f"{request.url.path}?{request.url.query}")))
    params = request.query_params

    async def build(ctx: Context) -> PrintPage:
        doctype, name = params.get("doctype"), params.get("name")
        if not doctype or not name:
            raise exc.ValidationError(_("Name the document to print: /printview?doctype=...&name=..."))
        return await print_page(ctx, doctype, name, params.get("format") or None, params.get("letterhead") or None)

    try:
        _ctx, page = await run(request, build, read_only=True)
    except exc.FwError as error:
        text = html.escape(error.message)
        body = (f'<!DOCTYPE html><html lang="{html.escape(ctx.lang)}"><head><meta charset="utf-8">'
                f"<title>{html.escape(_('Cannot print', lang=ctx.lang))}</title></head>"
                f'<body><p role="alert" class="print-error">{text}</p></body></html>')
        return HTMLResponse(body, status_code=status_for(error), headers=HEADERS)
    return HTMLResponse(page.html, headers=HEADERS)


def routes() -> list[Route]:
    return [Route("/printview", printview, methods=["GET"])]
