"""`@whitelist`: the registry of functions callable over `/api/method/<dotted.path>`.

Functions register at import time under `module.function` (or an explicit `path`). A request's
method path is looked up here and never imported. After `freeze()` registration raises. Which entry
a request reaches, and the checks on it (Guest, HTTP method), are engine/methods/dispatch.py's.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from engine import exceptions as exc

F = TypeVar("F", bound=Callable[..., Any])
DEFAULT_METHODS = frozenset({"GET", "POST", "PUT", "DELETE"})


@dataclass(frozen=True)
class Whitelisted:
    fn: Callable[..., Any]
    path: str
    allow_guest: bool
    methods: frozenset[str]

    @property
    def takes_ctx(self) -> bool:
        return "ctx" in inspect.signature(self.fn).parameters


_registry: dict[str, Whitelisted] = {}
_frozen = False


def whitelist(fn: F | None = None, *, allow_guest: bool = False, methods: list[str] | None = None,
              path: str | None = None) -> Any:
    """Mark a function (or a document method) as callable over HTTP.

    ```python
    @whitelist(methods=["POST"])
    async def receive_data(ctx: Context, data: list[dict]) -> dict: ...
    ```
    A parameter named `ctx` receives the request's Context and is never taken from the request.
    """

    def register(func: F) -> F:
        info = Whitelisted(func, path or f"{func.__module__}.{func.__qualname__}", allow_guest,
                           frozenset(m.upper() for m in methods) if methods else DEFAULT_METHODS)
        # (ignore: a marker attribute on the user's function object, which mypy types as a plain callable)
        func._fw_whitelisted = info  # type: ignore[attr-defined]
        if "." in func.__qualname__ and path is None:  # a method of a class: reached through its controller
            return func
        if _frozen:
            raise exc.ConfigurationError(
                f"@whitelist on {info.path} after startup; import it from an app module instead")
        _registry[info.path] = info
        return func

    return register(fn) if fn is not None else register


def freeze() -> None:
    global _frozen
    _frozen = True


def unfreeze_for_tests() -> None:
    global _frozen
    _frozen = False


def lookup(path: str) -> Whitelisted | None:
    return _registry.get(path)


def registered() -> dict[str, Whitelisted]:
    return dict(_registry)


def method_info(fn: Any) -> Whitelisted | None:
    """The whitelist entry of a document method, if it carries one."""
    return getattr(fn, "_fw_whitelisted", None)
