"""Changing which doc_events handlers the session site's registry answers, for one test."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.apps.registry import AppRegistry

Handlers = Callable[[str, str], tuple[Any, ...]]


def patch_handlers(monkeypatch: pytest.MonkeyPatch, apps: AppRegistry,
                   handlers: Callable[[Handlers], Handlers]) -> None:
    """`apps.handlers` replaced by `handlers(real)` until the test ends, with what the engine derived
    from the real handlers (the lifecycle's step plans) set aside meanwhile and put back after."""
    real = apps.handlers
    monkeypatch.setattr(apps, "handlers", handlers(real))
    monkeypatch.setattr(apps, "_derived", {})


def hide_handlers(monkeypatch: pytest.MonkeyPatch, apps: AppRegistry, doctypes: set[str]) -> None:
    """No doc_events handlers (the fixture app's `"*"` ones included) for `doctypes` during the test."""
    patch_handlers(monkeypatch, apps, lambda real: lambda doctype, event: () if doctype in doctypes
                   else real(doctype, event))


def patch_controller_hook(monkeypatch: pytest.MonkeyPatch, apps: AppRegistry, controller: type, event: str,
                          method: Callable[..., Any]) -> None:
    """`controller.<event>` set to `method` until the test ends, the registry's derived plans set aside
    meanwhile (they name the hooks each controller has)."""
    monkeypatch.setattr(controller, event, method, raising=False)
    monkeypatch.setattr(apps, "_derived", {})
