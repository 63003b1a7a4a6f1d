"""Apps written into temporary folders by the registry, fixture and installer tests, and the
registries and sites built from them, without disturbing the session's registry.

`engine.apps.loader.build_registry` is process-global in two ways: it clears and reloads the translation
catalogs, and it freezes the whitelist. `temp_registry` restores both at once (the session's apps keep
their translations, and can still register their functions if their registry is built later);
`forget_apps` drops the temporary packages from `sys.modules` and `sys.path` afterwards, so another
test may reuse a name.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from engine import db, translation
from engine.apps import whitelisted
from engine.apps.loader import build_registry
from engine.apps.registry import AppRegistry
from engine.core.bootstrap import ensure_bootstrap
from engine.migrate import sync_schema
from engine.settings import Settings
from engine.site import Site
from tests.engine.cli_apps import write_files

FULL = {"read": 1, "write": 1, "create": 1, "delete": 1, "report": 1, "export": 1, "import": 1}


def doctype_json(name: str, fields: list[dict[str, Any]], *, module: str | None = "Temp App",
                 **extra: Any) -> str:
    data: dict[str, Any] = {"doctype": "DocType", "name": name, "fields": fields}
    if module:
        data["module"] = module
    if not extra.get("istable"):
        data["permissions"] = [{"role": "System Manager", **FULL}]
    data.update(extra)
    return json.dumps(data, indent=1)


def write_app(apps_dir: Path, name: str, hooks: str, files: dict[str, str] | None = None) -> Path:
    """A package `apps_dir/name` with hooks.py and `files` (relative paths → text)."""
    app = apps_dir / name
    write_files(app, {"__init__.py": "", "hooks.py": f'app_name = "{name}"\napp_title = "{name}"\n' + hooks,
                      **(files or {})})
    return app


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def temp_registry(apps_dir: Path, names: list[str], site_doctypes: Path | None = None) -> AppRegistry:
    """`build_registry` for temporary apps (and a temporary doctype_json/ folder); the process's
    translation catalogs are left as they were."""
    saved = {lang: dict(table) for lang, table in translation._catalogs.items()}
    was_frozen = whitelisted._frozen
    try:
        return build_registry(apps_dir, names, site_doctypes)
    finally:
        translation._catalogs.clear()
        translation._catalogs.update(saved)
        if not was_frozen:  # the session's registry is not built yet: its apps still register functions
            whitelisted.unfreeze_for_tests()


def forget_apps(apps_dir: Path, names: list[str]) -> None:
    for module in list(sys.modules):
        if module.split(".", 1)[0] in names:
            del sys.modules[module]
    resolved = str(apps_dir.resolve())
    while resolved in sys.path:
        sys.path.remove(resolved)


@asynccontextmanager
async def temp_site(settings: Settings, registry: AppRegistry, prefix: str = "fw_tmp") -> AsyncIterator[Site]:
    """A fresh database with the registry's schema and the bootstrap records; dropped afterwards."""
    database = db.connect(settings.mongo_url or "", f"{prefix}_{uuid.uuid4().hex[:10]}")
    site = Site(settings, database, registry)
    try:
        await sync_schema(site)
        await ensure_bootstrap(site)
        yield site
    finally:
        await database.drop()
        await database.close()


async def reset_site(site: Site) -> None:
    """Empty every collection but the schema state, then bootstrap again (like the `site` fixture)."""
    for name in await site.db.handle.list_collection_names():
        if name not in ("_fw_state", "doctype"):
            await site.db.collection(name).delete_many({})
    await site.db.collection("_fw_state").delete_one({"_id": "installed_apps"})
    site.forget_roles()
    await site.meta.reload()
    await ensure_bootstrap(site)
