"""Installed apps: `apps.txt`, `required_apps` order, and importing each app package once."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from engine import exceptions as exc


@dataclass(frozen=True)
class App:
    name: str
    path: Path
    hooks: ModuleType

    @property
    def required_apps(self) -> list[str]:
        return list(getattr(self.hooks, "required_apps", []) or [])

    @property
    def title(self) -> str:
        return str(getattr(self.hooks, "app_title", self.name))


def read_apps_txt(path: Path) -> list[str]:
    """App names listed one per line; blank lines and `#` comments are ignored."""
    if not path.exists():
        return []
    names: list[str] = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and line not in names:
            names.append(line)
    return names


def _import_hooks(name: str, apps_dir: Path) -> App:
    path = apps_dir / name
    if not (path / "hooks.py").exists():
        raise exc.ConfigurationError(
            f"App {name!r} is listed in apps.txt but {path / 'hooks.py'} does not exist "
            f"(fetch it with `fw get-app PATH` or remove it from apps.txt)")
    try:
        hooks = importlib.import_module(f"{name}.hooks")
    except Exception as e:
        raise exc.ConfigurationError(f"App {name!r}: importing {path / 'hooks.py'} failed: {e}") from e
    return App(name, path, hooks)


def ensure_on_path(apps_dir: Path) -> None:
    resolved = str(apps_dir.resolve())
    if resolved not in sys.path:
        sys.path.insert(0, resolved)


def load_apps(apps_dir: Path, names: list[str]) -> list[App]:
    """Import the apps' hooks and order them so every app comes after its `required_apps`."""
    ensure_on_path(apps_dir)
    apps = {n: _import_hooks(n, apps_dir) for n in names}
    ordered: list[App] = []
    state: dict[str, str] = {}

    def visit(name: str, chain: list[str]) -> None:
        if state.get(name) == "done":
            return
        if state.get(name) == "visiting":
            raise exc.ConfigurationError(f"Cyclic required_apps: {' -> '.join([*chain, name])}")
        if name not in apps:
            raise exc.ConfigurationError(
                f"App {chain[-1]!r} requires {name!r}, which is not installed (add it to apps.txt)")
        state[name] = "visiting"
        for req in apps[name].required_apps:
            visit(req, [*chain, name])
        state[name] = "done"
        ordered.append(apps[name])

    for n in names:
        visit(n, [])
    return ordered


def import_app_modules(app: App) -> list[ModuleType]:
    """Import every module of the app once, so its `@whitelist` functions register at startup."""
    modules: list[ModuleType] = []
    package = importlib.import_module(app.name)
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{app.name}."):
        leaf = info.name.rsplit(".", 1)[-1]
        if leaf.startswith("test_") or leaf in ("tests", "conftest") or ".tests." in info.name:
            continue
        try:
            modules.append(importlib.import_module(info.name))
        except Exception as e:
            raise exc.ConfigurationError(f"App {app.name!r}: importing module {info.name} failed: {e}") from e
    return modules
