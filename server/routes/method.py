"""`/api/method/<dotted.path>`: whitelisted functions, looked up in the registry, never imported.

Type-annotated parameters are validated and coerced with pydantic (a failure is a 417 naming the
argument); unknown arguments are dropped unless the function takes `**kwargs`; a parameter named
`ctx` receives the request's Context.
"""

from __future__ import annotations

import inspect
import typing
from functools import lru_cache
from typing import Any

import orjson
from pydantic import TypeAdapter
from pydantic import ValidationError as PydanticValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engine import exceptions as exc
from engine import whitelisted
from engine.context import Context
from engine.documents.document import Document
from engine.methods import client
from engine.translation import _
from server.allow import refuse_other_methods
from server.multipart import read_form
from server.params import form_dict, urlencoded_fields
from server.routes import files
from server.routes import session as session_routes
from server.routes.common import envelope, run

RESERVED = frozenset({"ctx", "self", "ignore_permissions", "flags"})


@lru_cache(maxsize=2048)
def _signature(fn: Any) -> tuple[list[inspect.Parameter], dict[str, Any], bool]:
    params = list(inspect.signature(fn).parameters.values())
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # an unresolvable annotation: validate nothing rather than fail every call
        hints = {}
    var_kw = any(p.kind is p.VAR_KEYWORD for p in params)
    return params, hints, var_kw


@lru_cache(maxsize=4096)
def _adapter(annotation: Any) -> TypeAdapter[Any]:
    return TypeAdapter(annotation)


def _validate(path: str, name: str, annotation: Any, value: Any) -> Any:
    if annotation is Any or annotation is inspect.Parameter.empty:
        return value
    try:
        return _adapter(annotation).validate_python(value)
    except PydanticValidationError as e:
        detail = e.errors()[0]["msg"] if e.errors() else str(e)
        raise exc.ArgumentTypeError(_("Argument {0} of {1} is invalid: {2}", name, path, detail), field=name) from None
    except TypeError:  # an annotation pydantic cannot build a validator for
        return value


async def call_with_arguments(ctx: Context, info: whitelisted.Whitelisted, args: dict[str, Any], *,
                              bound: Any = None) -> Any:
    fn = info.fn
    params, hints, var_kw = _signature(fn)
    if bound is not None:
        params = params[1:]
    kwargs: dict[str, Any] = {}
    for p in params:
        if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        if p.name == "ctx":
            kwargs["ctx"] = ctx
        elif p.name in RESERVED:
            continue
        elif p.name in args:
            kwargs[p.name] = _validate(info.path, p.name, hints.get(p.name, Any), args[p.name])
        elif p.default is p.empty:
            raise exc.ArgumentTypeError(_("Missing argument {0} for {1}", p.name, info.path), field=p.name)
    if var_kw:
        known = {p.name for p in params}
        kwargs.update({k: v for k, v in args.items() if k not in known and k not in RESERVED})
    result = fn(bound, **kwargs) if bound is not None else fn(**kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


def resolve(ctx: Context, path: str, *, frappe_aliases: bool | None = None) -> whitelisted.Whitelisted:
    """The whitelisted function for a method path (`frappe.` aliases, then overrides); 403 if none."""
    if frappe_aliases is None:
        frappe_aliases = ctx.site.settings.frappe_aliases
    if frappe_aliases and path.startswith("frappe."):
        path = "fw." + path[len("frappe."):]
    path = ctx.site.apps.override_whitelisted_methods.get(path, path)
    info = whitelisted.lookup(path)
    if info is None:
        raise exc.PermissionError(_("You are not permitted to access this resource: function {0} is not whitelisted",
                                    path[:200]))
    if ctx.user == "Guest" and not info.allow_guest:
        raise exc.PermissionError(_("You are not permitted to access this resource: please log in"))
    return info


async def call_method(request: Request) -> Response:
    path = str(request.path_params["method"]).split("/")[0]
    if path in session_routes.HANDLERS:
        refuse_other_methods(request, path)
        return await session_routes.HANDLERS[path](request)
    if files.is_upload_path(path, frappe_aliases=request.app.state.settings.frappe_aliases):
        return await files.upload_file(request)  # multipart: parsed by its own route, not form_dict
    args = await form_dict(request)

    async def call(ctx: Context) -> Any:
        info = resolve(ctx, path, frappe_aliases=request.app.state.settings.frappe_aliases)
        if request.method not in info.methods:
            raise exc.PermissionError(_("Function {0} does not allow {1}", info.path, request.method))
        result = await call_with_arguments(ctx, info, args)
        if isinstance(result, Document):
            result = await client.readable_dict(ctx, result, no_nulls=True)
        return result

    ctx, result = await run(request, call)
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
