"""The `Allow` header of a 405 and of `OPTIONS`: the methods the path is really served with.

Starlette names the methods of the first route whose path matched, which misses the others that
match too (`/login` is two routes) and, for `/api/method/<function>`, lists methods the function
refuses (the route takes them all; the function's `methods` decide, 403 otherwise).
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.routing import Match, Route

from engine.apps import whitelisted

METHOD_PREFIXES = ("/api/method/", "/api/v1/method/", "/api/v2/method/")
# the session functions of the method paths (server/routes/session.py) and the methods they are
# served with; any other method is a 405 (contract §5: `POST` login, `GET|POST` logout)
SESSION_METHODS: dict[str, frozenset[str]] = {
    "login": frozenset({"POST"}), "logout": frozenset({"GET", "POST"}),
    "fw.auth.get_csrf_token": frozenset({"GET"}), "frappe.auth.get_csrf_token": frozenset({"GET"}),
}


def refuse_other_methods(request: Request, name: str) -> None:
    """A 405 (with `Allow`, server/errors.py) for a session function called with another method."""
    methods = SESSION_METHODS[name]
    if request.method not in methods and not (request.method == "HEAD" and "GET" in methods):
        raise HTTPException(405)


def allowed_methods(request: Request) -> list[str]:
    """Methods some route serves the request's path with (OPTIONS included), narrowed to a method
    path's function's own methods; empty when no route has the path."""
    scope = {**request.scope, "method": "GET"}
    methods: set[str] = set()
    for route in request.app.router.routes:
        if isinstance(route, Route) and route.methods and route.matches(scope)[0] is not Match.NONE:
            methods |= route.methods
    if methods:
        narrowed = _function_methods(request)
        if narrowed is not None:
            methods &= narrowed
        methods.add("OPTIONS")
    return sorted(methods)


def _function_methods(request: Request) -> set[str] | None:
    path = request.url.path
    prefix = next((p for p in METHOD_PREFIXES if path.startswith(p)), None)
    if prefix is None:
        return None
    name = path[len(prefix):].split("/")[0]
    if name in SESSION_METHODS:
        return set(SESSION_METHODS[name])
    settings = request.app.state.settings
    if settings.frappe_aliases and name.startswith("frappe."):
        name = "fw." + name[len("frappe."):]
    site = getattr(request.app.state, "site", None)
    if site is not None:
        name = site.apps.override_whitelisted_methods.get(name, name)
    info = whitelisted.lookup(name)
    return set(info.methods) if info is not None else None
