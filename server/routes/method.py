"""`/api/method/<dotted.path>`: whitelisted functions, looked up in the registry, never imported.

Which function a path reaches, who may call it with which HTTP method, and how its arguments are
validated is engine/methods/dispatch.py's to decide; this route reads the request and renders the
result (a returned Document as the fields the caller may read, without nulls).
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engine.context import Context
from engine.documents.document import Document
from engine.export.writer import Download
from engine.methods import client, dispatch
from server.allow import refuse_other_methods
from server.multipart import read_form
from server.params import form_dict, urlencoded_fields
from server.routes import files
from server.routes import session as session_routes
from server.routes.common import envelope, file_response, run


async def call_method(request: Request) -> Response:
    path = str(request.path_params["method"]).split("/")[0]
    if path in session_routes.HANDLERS:
        refuse_other_methods(request, path)
        return await session_routes.HANDLERS[path](request)
    if files.is_upload_path(path, frappe_aliases=request.app.state.settings.frappe_aliases):
        return await files.upload_file(request)  # multipart: parsed by its own route, not form_dict
    args = await form_dict(request)

    async def call(ctx: Context) -> Any:
        info = dispatch.resolve(ctx, path, http_method=request.method,
                                frappe_aliases=request.app.state.settings.frappe_aliases)
        result = await dispatch.call_with_arguments(ctx, info, args)
        if isinstance(result, Document):
            result = await client.readable_dict(ctx, result, no_nulls=True)
        return result

    ctx, result = await run(request, call)
    if isinstance(result, Download):
        return file_response(ctx, result)
    # a returned Document was already turned into its no-nulls dict (Frappe's json_handler); plain
    # dicts and lists go out as they are, nulls included (`fw.client.get` keeps them)
    return envelope(ctx, "message", result, include=result is not None)


async def legacy_cmd(request: Request) -> Response:
    """Frappe's `POST /` with `cmd=<method>` (frappe-client logs in this way)."""
    cmd = request.query_params.get("cmd")
    if cmd is None and request.method == "POST":
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype == "application/x-www-form-urlencoded":
            value = (await urlencoded_fields(request)).get("cmd")
        elif ctype == "multipart/form-data":
            form_value = (await read_form(request)).get("cmd")  # an UploadFile is no command
            value = form_value if isinstance(form_value, str) else None
        else:  # a JSON body, as Frappe's form_dict reads it (frappe-js-sdk's forgetPassword posts {"cmd": ...})
            try:
                parsed = orjson.loads(await request.body() or b"null")
            except orjson.JSONDecodeError:
                parsed = None
            value = parsed.get("cmd") if isinstance(parsed, dict) else None
        cmd = value if isinstance(value, str) else None
    if not cmd:
        return Response("fw", media_type="text/plain")
    request.scope["path_params"] = {"method": cmd}
    return await call_method(request)


def routes(prefix: str) -> list[Route]:
    return [Route(f"{prefix}/method/{{method:path}}", call_method, methods=["GET", "POST", "PUT", "DELETE", "PATCH"])]
