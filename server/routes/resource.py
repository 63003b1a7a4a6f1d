"""`/api/resource/<doctype>[/<name>]` (also under `/api/v1`): Frappe's v1 resource API."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engine.context import Context
from engine.documents.document import Document
from engine.methods import client, dispatch
from engine.methods import expand as expansion
from server.params import form_dict
from server.routes import writes
from server.routes.common import envelope, run

LIST_PARAMS = ("fields", "filters", "or_filters", "order_by", "limit_start", "limit_page_length", "limit",
               "group_by", "as_dict", "expand")


def _doctype(request: Request) -> str:
    return str(request.path_params["doctype"])


async def list_docs(request: Request) -> Response:
    args = await form_dict(request)
    params = {k: args[k] for k in LIST_PARAMS if k in args}

    async def call(ctx: Context) -> list[Any]:
        return await client.list_rows(ctx, _doctype(request), drop_nulls=True, **params)

    ctx, rows = await run(request, call, read_only=True)
    return envelope(ctx, "data", rows)


async def create_doc(request: Request) -> Response:
    ctx, doc = await writes.create(request, no_nulls=True)
    return envelope(ctx, "data", doc)


async def read_doc(request: Request) -> Response:
    args = await form_dict(request)
    if args.get("run_method"):
        return await run_doc_method(request)

    async def call(ctx: Context) -> dict[str, Any]:
        doc = await client.load_for(ctx, _doctype(request), request.path_params["name"])
        data = await client.readable_dict(ctx, doc, no_nulls=True)
        if args:  # (most reads carry no arguments at all)
            await expansion.expand_single(ctx, doc.meta, data, expand=args.get("expand"),
                                          expand_links=args.get("expand_links"), no_nulls=True)
        return data

    ctx, doc = await run(request, call, read_only=True)
    return envelope(ctx, "data", doc)


async def update_doc(request: Request) -> Response:
    ctx, doc = await writes.update(request, no_nulls=True)
    return envelope(ctx, "data", doc)


async def delete_doc(request: Request) -> Response:
    async def call(ctx: Context) -> None:
        await client.delete(ctx, _doctype(request), request.path_params["name"])

    ctx, _result = await run(request, call)
    return envelope(ctx, "data", "ok", status=202)


async def run_doc_method(request: Request) -> Response:
    """POST (or GET) with `run_method`: a whitelisted method of the document's controller (the checks
    are engine/methods/dispatch.py's); a returned Document is rendered as the caller may read it."""
    args = dict(await form_dict(request))
    method_name = str(args.pop("run_method", ""))

    async def call(ctx: Context) -> Any:
        _doc, result = await dispatch.run_doc_method(ctx, request.method, _doctype(request),
                                                     request.path_params["name"], method_name, args)
        return result

    ctx, result = await run(request, call)
    if isinstance(result, Document):
        result = await client.readable_dict(ctx, result, no_nulls=True)
    return envelope(ctx, "data", result)


async def _collection(request: Request) -> Response:
    # (the scope read directly: `request.method` goes through a property and `typing.cast`)
    return await (create_doc if request.scope["method"] == "POST" else list_docs)(request)


_DOCUMENT_HANDLERS = {"GET": read_doc, "HEAD": read_doc, "PUT": update_doc, "DELETE": delete_doc,
                      "POST": run_doc_method}


async def _document(request: Request) -> Response:
    return await _DOCUMENT_HANDLERS[request.scope["method"]](request)


def routes(prefix: str) -> list[Route]:
    # one route per path, so a wrong method gets 405 with the full `Allow` list
    return [
        Route(f"{prefix}/resource/{{doctype}}", _collection, methods=["GET", "POST"]),
        Route(f"{prefix}/resource/{{doctype}}/{{name:path}}", _document, methods=["GET", "PUT", "DELETE", "POST"]),
    ]
