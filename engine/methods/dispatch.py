"""Which whitelisted function or document method a call reaches, and the call itself: the one place
that decides it, for `/api/method/<path>` (v1 and v2), v2's `/method/<doctype>/<fn>`, v1's
`run_method`, v2's `/document/<dt>/<name>/method/<m>` and search_link's custom `query`.

Every check is here, as Frappe's `is_whitelisted` and `run_doc_method` make them: the function is in
the registry (after Frappe's `frappe.` aliases and the apps' `override_whitelisted_methods`) or is a
controller method carrying `@whitelist`; a Guest reaches only `allow_guest` ones; the HTTP method is
one the function allows; a document method needs the read right on the document for a GET and the
write right otherwise. Arguments are validated against the function's annotations (pydantic, a
failure is an ArgumentTypeError naming the argument); `ctx` is the caller's Context, and the reserved
names are never taken from a request. The caller (a route) only says which HTTP method it serves.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from pydantic import TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from engine import exceptions as exc
from engine.apps import whitelisted
from engine.context import Context
from engine.documents.document import Document
from engine.meta.schema import scrub
from engine.methods import client
from engine.notifications import alerts
from engine.site import Site
from engine.translation import _

# parameters a request never fills: the caller's Context, the bound document, and what would lift checks
RESERVED = frozenset({"ctx", "self", "ignore_permissions", "flags"})
# submit and cancel are Document's own whitelisted methods; only a submittable doctype offers them
SUBMITTABLE_ONLY = frozenset({"submit", "cancel"})


# -- functions by path ------------------------------------------------------------------------------

def resolve(ctx: Context, path: str, *, http_method: str | None = None,
            frappe_aliases: bool | None = None) -> whitelisted.Whitelisted:
    """The whitelisted function a method path names (`frappe.` aliases, then the apps' overrides),
    checked for the caller and, when given, `http_method`; 403 otherwise. `frappe_aliases` defaults to
    the site's setting."""
    if frappe_aliases is None:
        frappe_aliases = ctx.site.settings.frappe_aliases
    if frappe_aliases and path.startswith("frappe."):
        path = "fw." + path[len("frappe."):]
    path = ctx.site.apps.override_whitelisted_methods.get(path, path)
    info = whitelisted.lookup(path)
    if info is None:
        raise exc.PermissionError(_("You are not permitted to access this resource: function {0} is not whitelisted",
                                    path[:200]))
    _check_guest(ctx, info)
    if http_method is not None and http_method not in info.methods:
        raise exc.PermissionError(_("Function {0} does not allow {1}", info.path, http_method))
    return info


def resolve_in_doctype(ctx: Context, doctype: str, name: str, *,
                       http_method: str | None = None) -> whitelisted.Whitelisted:
    """v2's `/method/<doctype>/<name>`: a function whitelisted in one of the doctype's modules
    (`doctype_modules`), found in the registry under that module's path, never imported from the
    caller's string. Unknown doctype: 404; nothing whitelisted there: 403."""
    meta = ctx.meta(doctype)
    if name.isidentifier():  # one plain name: no dotted walk into other modules
        overrides = ctx.site.apps.override_whitelisted_methods
        for module in doctype_modules(ctx.site, meta.name):
            path = f"{module}.{name}"
            if whitelisted.lookup(path) is not None or path in overrides:
                return resolve(ctx, path, http_method=http_method, frappe_aliases=False)
    raise exc.PermissionError(_("You are not permitted to access this resource: function {0} is not whitelisted",
                                f"{meta.name}/{name[:80]}"))


def doctype_modules(site: Site, doctype: str) -> list[str]:
    """Where `/method/<doctype>/<fn>` looks: the controller's module, and for the framework's own
    doctypes Frappe's `frappe.core.doctype.<dt>.<dt>` path in its `fw.` spelling (e.g. `User`'s
    `generate_keys`)."""
    modules = []
    controller = site.apps.controllers.get(doctype)
    if controller is not None:
        modules.append(controller.__module__)
    if site.apps.doctype_app.get(doctype) is None:
        modules.append(f"fw.core.doctype.{scrub(doctype)}.{scrub(doctype)}")
    return modules


# -- document methods -------------------------------------------------------------------------------

def right_for(http_method: str) -> str:
    """The right on the document a document method needs: read for a GET, write for anything else
    (a method that submits or cancels is then refused by the lifecycle without those rights)."""
    return "read" if http_method == "GET" else "write"


def method_of(controller: type, method_name: str) -> tuple[Callable[..., Any], whitelisted.Whitelisted] | None:
    """(function, whitelist entry) of a controller's method carrying `@whitelist`; None for any other
    name, private ones (`_load`, `__init__`) included."""
    if not method_name or method_name.startswith("_"):
        return None
    fn = getattr(controller, method_name, None)
    info = whitelisted.method_info(fn)
    return None if fn is None or info is None else (fn, info)


def document_methods(controller: type, submittable: bool) -> list[tuple[str, Any, whitelisted.Whitelisted]]:
    """(name, function, whitelist entry) of the methods a controller offers (`submit` and `cancel`
    only on a submittable doctype; called on another, they reach the lifecycle, which refuses them)."""
    out = []
    for attr in sorted(dir(controller)):
        if attr in SUBMITTABLE_ONLY and not submittable:
            continue
        found = method_of(controller, attr)
        if found is not None:
            out.append((attr, *found))
    return out


async def doc_method(ctx: Context, http_method: str, doctype: str, name: str,
                     method_name: str) -> tuple[Document, whitelisted.Whitelisted]:
    """The stored document (loaded with the right `http_method` needs: 404 or 403 first) and the
    whitelisted method of its controller the caller may run with `http_method`; 403 otherwise."""
    doc = await client.load_for(ctx, doctype, name, right_for(http_method))
    found = method_of(type(doc), method_name)
    if found is None:
        raise exc.PermissionError(_("Method {0} is not whitelisted on {1}", method_name[:80], _(doc.doctype)))
    info = found[1]
    _check_guest(ctx, info)
    if http_method not in info.methods:
        raise exc.PermissionError(_("Method {0} does not allow {1}", method_name, http_method))
    return doc, info


async def run_doc_method(ctx: Context, http_method: str, doctype: str, name: str, method_name: str,
                         args: dict[str, Any]) -> tuple[Document, Any]:
    """Run a document method (`doc_method`'s checks) with the request's arguments. Returns the
    document as it stands after the call, and the method's result."""
    doc, info = await doc_method(ctx, http_method, doctype, name, method_name)
    result = await call_with_arguments(ctx, info, args, bound=doc)
    await alerts.after_method(doc, method_name)  # the doctype's Notifications on this Method
    return doc, result


def _check_guest(ctx: Context, info: whitelisted.Whitelisted) -> None:
    if ctx.user == "Guest" and not info.allow_guest:
        raise exc.PermissionError(_("You are not permitted to access this resource: please log in"))


# -- arguments --------------------------------------------------------------------------------------

async def call_with_arguments(ctx: Context, info: whitelisted.Whitelisted, args: dict[str, Any], *,
                              bound: Any = None) -> Any:
    """Call `info`'s function (a method of `bound`, when given) with the request's arguments: the
    annotated ones validated and coerced, unknown ones dropped unless it takes `**kwargs`, a missing
    required one an ArgumentTypeError naming it."""
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
