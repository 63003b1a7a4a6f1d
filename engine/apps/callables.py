"""Dotted paths and hook calls: `resolve_dotted` imports `pkg.module.attr` once, and
`call_with_supported` passes a hook only the keyword arguments it takes (Frappe's convention).

At the bottom of the layers: the app loader, permissions, reports, jobs and migrate all use them.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable
from typing import Any

from engine import exceptions as exc

Handler = Callable[..., Any]


def resolve_dotted(path: Any, where: str) -> Handler:
    """Import `pkg.module.attr`; errors name where the path was written."""
    if not isinstance(path, str) or "." not in path:
        raise exc.ConfigurationError(f"{where}: {path!r} is not a dotted path like 'app.module.function'")
    module_path, attr = path.rsplit(".", 1)
    try:
        module = importlib.import_module(module_path)
    except Exception as e:
        raise exc.ConfigurationError(f"{where}: cannot import {module_path!r} for {path!r}: {e}") from e
    target = getattr(module, attr, None)
    if target is None or not callable(target):
        raise exc.ConfigurationError(f"{where}: {path!r} does not resolve: {module_path!r} has no callable {attr!r}")
    return target


@functools.lru_cache(maxsize=1024)
def _accepted_keywords(fn: Handler) -> frozenset[str] | None:
    """The keyword names `fn` takes, or None when it takes `**kwargs` (inspecting costs microseconds)."""
    params = inspect.signature(fn).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return None
    return frozenset(params)


def call_with_supported(fn: Handler, /, *args: Any, **kwargs: Any) -> Any:
    """Call `fn` with the keyword arguments its signature accepts (Frappe's hook convention)."""
    accepted = _accepted_keywords(fn)
    if accepted is not None:
        kwargs = {k: v for k, v in kwargs.items() if k in accepted}
    return fn(*args, **kwargs)
