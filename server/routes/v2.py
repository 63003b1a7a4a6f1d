"""`/api/v2`: Frappe's v2 REST API (frappe/api/v2.py, v15), on the same engine calls as v1.

Differences from v1 that clients see: the result is always in `data` (methods too, not `message`);
documents keep their null fields (Frappe's `as_dict()`); lists page with `start`/`limit` and say
`has_next_page`; msgprints come as a plain `messages` list; a document method also returns the
document in `docs`; errors are `{"errors": [...]}` (built in server/errors.py, chosen by path).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engine import exceptions as exc
from engine.apps import whitelisted
from engine.context import Context
from engine.documents.document import Document
from engine.export.writer import Download
from engine.methods import client, copies, dispatch, form_load
from engine.methods import expand as expansion
from engine.methods.args import whole_arg
from engine.translation import _
from server.allow import refuse_other_methods
from server.context import context_for, request_caller, site_of
from server.params import form_dict
from server.responses import json_response
from server.routes import files, writes
from server.routes import session as session_routes
from server.routes.common import RESERVED_KEYS, file_response, run

PREFIX = "/api/v2"
DEFAULT_LIMIT = 20
ANY_METHOD = ["GET", "POST", "PUT", "DELETE", "PATCH"]


def respond(ctx: Context, data: Any = None, *, has_data: bool = True, status: int = 200,
            **extra: Any) -> Response:
    """The v2 success envelope: `data` (left out for a None method result, as Frappe does), any extra
    keys (`has_next_page`, `docs`), and the request's msgprints as a plain `messages` list."""
    body: dict[str, Any] = {"data": data} if has_data else {}
    if ctx.response:  # top-level keys a function set (Frappe sends all of `frappe.response`)
        body.update((k, v) for k, v in ctx.response.items() if k not in V2_RESERVED_KEYS)
    body.update(extra)
    if ctx.messages:
        body["messages"] = list(ctx.messages)
    return json_response(body, status, max_bytes=ctx.site.settings.max_response_bytes)


# keys `ctx.response` cannot set (a route's own extra keys, `has_next_page` and `docs`, override it)
V2_RESERVED_KEYS = RESERVED_KEYS | {"messages"}


def _doctype(request: Request) -> str:
    return str(request.path_params["doctype"])


def _http_method(request: Request) -> str:
    return "GET" if request.method == "HEAD" else request.method  # HEAD runs what GET runs


# -- documents ---------------------------------------------------------------------------------------

async def list_docs(request: Request) -> Response:
    args = await form_dict(request)
    start = whole_arg(args.get("start"), "start", 0)
    limit = whole_arg(args.get("limit"), "limit", DEFAULT_LIMIT)

    async def call(ctx: Context) -> tuple[list[Any], bool]:
        cap = ctx.site.settings.max_page_length
        length = (cap if limit == 0 else min(limit, cap)) if cap else limit
        # v1's listing, with the page capped here: a full page asks one row more to know what follows
        rows = await client.list_rows(
            ctx, _doctype(request), fields=args.get("fields"), filters=args.get("filters"),
            or_filters=args.get("or_filters"), order_by=args.get("order_by"), group_by=args.get("group_by"),
            limit_start=start, limit_page_length=length + 1 if length else 0, as_dict=args.get("as_dict", True),
            expand=args.get("expand"), capped=False)
        has_next = bool(length) and len(rows) > length
        return (rows[:length] if has_next else rows), has_next

    ctx, (rows, has_next) = await run(request, call, read_only=True)
    return respond(ctx, rows, has_next_page=has_next)


async def create_doc(request: Request) -> Response:
    ctx, doc = await writes.create(request, no_nulls=False)
    return respond(ctx, doc)


async def read_doc(request: Request) -> Response:
    args = await form_dict(request)

    async def call(ctx: Context) -> dict[str, Any]:
        doc = await client.load_for(ctx, _doctype(request), request.path_params["name"])
        data = await client.readable_dict(ctx, doc)
        if args:
            await expansion.expand_single(ctx, doc.meta, data, expand=args.get("expand"),
                                          expand_links=args.get("expand_links"), no_nulls=False)
        return data

    ctx, doc = await run(request, call, read_only=True)
    return respond(ctx, doc)


async def update_doc(request: Request) -> Response:
    """PUT and PATCH: v1's top-level merge."""
    ctx, doc = await writes.update(request, no_nulls=False)
    return respond(ctx, doc)


async def delete_doc(request: Request) -> Response:
    async def call(ctx: Context) -> None:
        await client.delete(ctx, _doctype(request), request.path_params["name"])

    ctx, _result = await run(request, call)
    return respond(ctx, "ok", status=202)


async def doc_method(request: Request) -> Response:
    """A whitelisted controller method; the document as it stands afterwards goes in `docs`."""
    args = dict(await form_dict(request))

    async def call(ctx: Context) -> tuple[Any, dict[str, Any]]:
        doc, result = await dispatch.run_doc_method(ctx, _http_method(request), _doctype(request),
                                                    request.path_params["name"], request.path_params["method"], args)
        if isinstance(result, Document):
            result = await client.readable_dict(ctx, result)
        return result, await client.readable_dict(ctx, doc)

    ctx, (result, doc) = await run(request, call)
    return respond(ctx, result, has_data=result is not None, docs=[doc])


async def copy_doc(request: Request) -> Response:
    """A clean copy to post as a new document (engine/methods/copies.py decides what it leaves out)."""
    async def call(ctx: Context) -> dict[str, Any]:
        return await copies.copy_doc(ctx, _doctype(request), request.path_params["name"])

    ctx, doc = await run(request, call, read_only=True)
    return respond(ctx, doc)


async def count(request: Request) -> Response:
    """`/doctype/<dt>/count`: the rows the caller may read that match `filters` / `or_filters`
    (engine/methods/client.count_rows)."""
    args = await form_dict(request)

    async def call(ctx: Context) -> int:
        return await client.count_rows(ctx, _doctype(request), args.get("filters"), args.get("or_filters"))

    ctx, total = await run(request, call, read_only=True)
    return respond(ctx, total)


async def meta(request: Request) -> Response:
    """`/doctype/<dt>/meta`: the doctype as the Desk reads it (fields, permissions, form scripts'
    sources are not in it: `getdoctype` sends those), for any logged-in user."""
    async def call(ctx: Context) -> dict[str, Any]:
        return await form_load.meta_for_user(ctx, _doctype(request))

    ctx, body = await run(request, call, read_only=True)
    return respond(ctx, body)


async def _collection(request: Request) -> Response:
    return await (create_doc if request.method == "POST" else list_docs)(request)


_DOCUMENT_HANDLERS = {"GET": read_doc, "HEAD": read_doc, "PUT": update_doc, "PATCH": update_doc,
                      "DELETE": delete_doc}


async def _document(request: Request) -> Response:
    return await _DOCUMENT_HANDLERS[request.method](request)


# -- methods -----------------------------------------------------------------------------------------

async def call_method(request: Request) -> Response:
    """`/method/<dotted.path>`: v1's registry lookup and argument handling, the result in `data`."""
    path = str(request.path_params["method"])
    special = SESSION_HANDLERS.get(path)
    if special is not None:
        refuse_other_methods(request, path)
        return await special(request)
    if files.is_upload_path(path, frappe_aliases=request.app.state.settings.frappe_aliases):
        return await files.upload_file(request, lambda ctx, doc: respond(ctx, doc))
    return await _call_whitelisted(request, lambda ctx, http_method: dispatch.resolve(
        ctx, path, http_method=http_method, frappe_aliases=request.app.state.settings.frappe_aliases))


async def call_doctype_method(request: Request) -> Response:
    """`/method/<doctype>/<method>`: a function whitelisted in the doctype's controller module
    (engine/methods/dispatch.py finds it)."""
    doctype, name = _doctype(request), str(request.path_params["method"])
    return await _call_whitelisted(request, lambda ctx, http_method: dispatch.resolve_in_doctype(
        ctx, doctype, name, http_method=http_method))


async def _call_whitelisted(request: Request,
                            find: Callable[[Context, str], whitelisted.Whitelisted]) -> Response:
    """Call what `find` resolves for the request's HTTP method; a returned Document is rendered with
    its nulls, as v2 sends documents."""
    args = await form_dict(request)
    http_method = _http_method(request)

    async def call(ctx: Context) -> Any:
        info = find(ctx, http_method)
        result = await dispatch.call_with_arguments(ctx, info, args)
        if isinstance(result, Document):
            result = await client.readable_dict(ctx, result)
        return result

    ctx, result = await run(request, call)
    if isinstance(result, Download):
        return file_response(ctx, result)
    return respond(ctx, result, has_data=result is not None)


async def csrf_token(request: Request) -> Response:
    """The cookie session's CSRF token, in `data` (v1 answers it in `message`)."""
    ctx = await context_for(request)
    session = request_caller(request).session
    if session is None:
        raise exc.PermissionError(_("A CSRF token needs a logged-in session"))
    return respond(ctx, await site_of(request).sessions.csrf_token(session))


# login answers as v1's does (Frappe's login manager writes its keys into the v2 response too);
# logout answers `{}` (its endpoint returns None)
SESSION_HANDLERS = {
    "login": session_routes.login,
    "logout": session_routes.logout,
    "fw.auth.get_csrf_token": csrf_token,
    "frappe.auth.get_csrf_token": csrf_token,
}


def routes(prefix: str = PREFIX) -> list[Route]:
    # one route per path shape, so a wrong method gets 405 with the full `Allow` list; the `/copy` and
    # `/method/<m>` routes come before the plain document route, whose `name` may contain `/`
    return [
        Route(f"{prefix}/document/{{doctype}}", _collection, methods=["GET", "POST"]),
        Route(f"{prefix}/document/{{doctype}}/{{name:path}}/copy", copy_doc, methods=["GET"]),
        Route(f"{prefix}/document/{{doctype}}/{{name:path}}/method/{{method}}", doc_method, methods=["GET", "POST"]),
        Route(f"{prefix}/document/{{doctype}}/{{name:path}}", _document, methods=["GET", "PUT", "PATCH", "DELETE"]),
        Route(f"{prefix}/doctype/{{doctype}}/count", count, methods=["GET"]),
        Route(f"{prefix}/doctype/{{doctype}}/meta", meta, methods=["GET"]),
        Route(f"{prefix}/method/{{method}}", call_method, methods=ANY_METHOD),
        Route(f"{prefix}/method/{{doctype}}/{{method}}", call_doctype_method, methods=ANY_METHOD),
    ]
