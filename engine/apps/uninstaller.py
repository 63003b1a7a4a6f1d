"""Uninstalling an app from a site (Frappe's `remove_app`): its doctypes' records and collections, the
Custom Fields and Property Setters on them (and those of its modules), the records its fixture files
hold, its Scheduled Job Types, Reports and Module Defs, and its entry among the installed apps. The
records go for good (no Deleted Documents: `fw uninstall-app` takes a backup first). `plan` says what
would go without changing anything (`--dry-run`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.apps.installer import installed_apps
from engine.constants import STATE_COLLECTION
from engine.context import unit_of_work
from engine.documents import store

if TYPE_CHECKING:
    from engine.apps.installed import App
    from engine.site import Site

Progress = Callable[[str], None]


@dataclass
class UninstallPlan:
    app: str
    doctypes: dict[str, int] = field(default_factory=dict)  # doctype -> records (0 for a child doctype)
    # doctype -> names of the records that go with the app (Custom Field, Property Setter, fixtures, ...)
    records: dict[str, list[str]] = field(default_factory=dict)

    def lines(self) -> list[str]:
        out = [f"{doctype}: the doctype and its {count:,} records" for doctype, count in self.doctypes.items()]
        out += [f"{doctype}: {', '.join(names)}" for doctype, names in self.records.items() if names]
        return out


def _app(site: Site, name: str) -> App:
    for app in site.apps.apps:
        if app.name == name:
            return app
    raise exc.ConfigurationError(f"App {name!r} is not in apps.txt, so fw does not know what it installed; "
                                 "put it back in apps.txt (and apps/) to uninstall it")


def _fixture_names(app: App) -> dict[str, list[str]]:
    """doctype -> names of the records the app's fixture files hold."""
    out: dict[str, list[str]] = {}
    for path in sorted((app.path / "fixtures").glob("*.json")):
        try:
            rows = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as e:
            raise exc.ConfigurationError(f"{path} is not valid JSON ({e}); fix it to uninstall the app") from e
        for row in rows if isinstance(rows, list) else []:
            if isinstance(row, dict) and row.get("doctype") and row.get("name"):
                out.setdefault(str(row["doctype"]), []).append(str(row["name"]))
    return out


async def _names(site: Site, doctype: str, filter: dict[str, Any]) -> list[str]:
    return sorted([row["_id"] async for row in store.collection_of(site, doctype).find(filter, {"_id": 1})])


async def plan(site: Site, name: str) -> UninstallPlan:
    app = _app(site, name)
    if name not in await installed_apps(site):
        raise exc.ConfigurationError(f"App {name!r} is not installed on this site")
    dependants = [a.name for a in site.apps.apps if name in a.required_apps]
    if dependants:
        raise exc.ConfigurationError(f"App {name!r} is required by {', '.join(dependants)}; uninstall "
                                     f"{'that' if len(dependants) == 1 else 'those'} first")
    result = UninstallPlan(name)
    doctypes = sorted(dt for dt, owner in site.apps.doctype_app.items() if owner == name)
    modules = sorted({str(module) for dt in doctypes if (module := site.meta.get(dt).module)})
    for doctype in doctypes:
        meta = site.meta.get(doctype)
        result.doctypes[doctype] = 0 if meta.istable else await store.collection_of(site, doctype).count_documents({})
    mine = {"$in": doctypes}
    in_modules = {"$in": modules}
    result.records["Custom Field"] = await _names(site, "Custom Field", {"$or": [{"dt": mine}, {"module": in_modules}]})
    result.records["Property Setter"] = await _names(
        site, "Property Setter", {"$or": [{"doc_type": mine}, {"module": in_modules}]})
    result.records["Scheduled Job Type"] = await _names(site, "Scheduled Job Type", {"app": name})
    result.records["Report"] = await _names(site, "Report", {"$or": [{"module": in_modules}, {"ref_doctype": mine}]})
    result.records["Module Def"] = await _names(site, "Module Def", {"$or": [{"app_name": name}, {"_id": in_modules}]})
    for doctype, names in _fixture_names(app).items():
        if doctype in result.doctypes or not site.meta.exists(doctype):
            continue  # (a doctype of the app goes whole)
        stored = await _names(site, doctype, {"_id": {"$in": names}})
        result.records[doctype] = sorted(set(result.records.get(doctype, [])) | set(stored))
    return result


async def uninstall(site: Site, what: UninstallPlan, progress: Progress | None = None) -> None:
    """Remove what `plan` found. The records go in one transaction; dropping the collections (which
    MongoDB does not do inside one) and forgetting the app follow; every process then re-reads the meta."""
    ctx = site.context("Administrator")
    async with unit_of_work(ctx):
        for doctype, names in what.records.items():
            if names:
                if progress:
                    progress(f"removing {len(names)} {doctype}")
                await store.collection(ctx, ctx.meta(doctype)).delete_many(
                    {"_id": {"$in": names}}, session=await ctx.write_session())
        await store.collection(ctx, ctx.meta("DocType")).delete_many(
            {"_id": {"$in": list(what.doctypes)}}, session=await ctx.write_session())
        await site.db.collection(STATE_COLLECTION).update_one(
            {"_id": "installed_apps"}, {"$pull": {"apps": what.app}}, session=await ctx.write_session())
    for doctype in what.doctypes:
        if not site.meta.get(doctype).istable:
            if progress:
                progress(f"dropping {doctype}")
            await store.collection_of(site, doctype).drop()
    await site.meta.bump()
