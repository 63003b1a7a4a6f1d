"""Creating and updating one document: one implementation for v1 (`/api/resource`) and v2
(`/api/v2/document`), which differ only in their envelope and in leaving out null fields (v1)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from engine.context import Context
from engine.methods import client
from server.params import document_body
from server.routes.common import run


async def create(request: Request, *, no_nulls: bool) -> tuple[Context, dict[str, Any]]:
    """POST: the body is the new document; answers it as the caller may read it."""
    data = await document_body(request)
    doctype = str(request.path_params["doctype"])

    async def call(ctx: Context) -> dict[str, Any]:
        ctx.single_operation = True  # this request writes one document and nothing else
        return await client.create(ctx, doctype, data, no_nulls=no_nulls)

    return await run(request, call)


async def update(request: Request, *, no_nulls: bool) -> tuple[Context, dict[str, Any]]:
    """PUT (and v2's PATCH): the body's fields merged into the stored document, top level."""
    data = await document_body(request)
    doctype, name = str(request.path_params["doctype"]), request.path_params["name"]

    async def call(ctx: Context) -> dict[str, Any]:
        ctx.single_operation = True  # this request writes one document and nothing else
        doc = await client.update(ctx, doctype, name, data)
        return await client.readable_dict(ctx, doc, no_nulls=no_nulls)

    return await run(request, call)
