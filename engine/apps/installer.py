"""Installing apps on a site: required apps first, then the app's `before_install`, fixtures and `after_install`,
all in one unit of work. A failing `after_install` leaves the app not installed (and its fixture
writes rolled back). The site's installed apps are recorded in `_fw_state`."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine import exceptions as exc
from engine.apps import patches
from engine.apps.callables import call_with_supported
from engine.apps.fixtures import import_app_fixtures
from engine.constants import STATE_COLLECTION
from engine.context import unit_of_work

if TYPE_CHECKING:
    from engine.apps.installed import App
    from engine.context import Context
    from engine.site import Site

Progress = Callable[[str], None]


async def installed_apps(site: Site) -> list[str]:
    row = await site.db.collection(STATE_COLLECTION).find_one({"_id": "installed_apps"})
    return list((row or {}).get("apps") or [])


def _app(site: Site, name: str, required_by: str | None = None) -> App:
    for app in site.apps.apps:
        if app.name == name:
            return app
    if required_by:
        raise exc.ConfigurationError(f"App {required_by!r} requires {name!r}, which is not in apps.txt; fetch it "
                                     "with `fw get-app PATH` first")
    raise exc.ConfigurationError(f"App {name!r} is not in apps.txt; fetch it with `fw get-app PATH` first")


async def install_app(site: Site, name: str, progress: Progress | None = None) -> list[str]:
    """Install `name` and, first, any of its required apps not yet installed; returns what was installed."""
    done: list[str] = []
    current = set(await installed_apps(site))

    async def install(app_name: str, chain: tuple[str, ...]) -> None:
        if app_name in current:
            return
        if app_name in chain:
            raise exc.ConfigurationError(f"Cyclic required_apps: {' -> '.join([*chain, app_name])}")
        app = _app(site, app_name, chain[-1] if chain else None)
        for required in app.required_apps:
            await install(required, (*chain, app_name))
        if progress:
            progress(f"installing {app_name}")
        ctx = site.context("Administrator")
        async with unit_of_work(ctx):
            await _run_hooks(ctx, app_name, "before_install")
            await import_app_fixtures(site, app, progress, ctx=ctx)
            await patches.record_all_as_skipped(ctx, app)  # a new install needs none of its data migrations
            await _run_hooks(ctx, app_name, "after_install")
            await site.db.collection(STATE_COLLECTION).update_one(
                {"_id": "installed_apps"}, {"$addToSet": {"apps": app_name}}, upsert=True,
                session=await ctx.write_session())
        current.add(app_name)
        done.append(app_name)

    await install(name, ())
    return done


async def _run_hooks(ctx: Context, app_name: str, key: str) -> None:
    for fn in getattr(ctx.site.apps, key).get(app_name, []):
        try:
            result = call_with_supported(fn, ctx=ctx)
            if inspect.isawaitable(result):
                await result
        except Exception as e:
            detail = e.message if isinstance(e, exc.FwError) else str(e)
            raise exc.ConfigurationError(
                f"{key} of {app_name!r} failed: {type(e).__name__}: {detail}. The app was not installed.") from e


async def install_pending(site: Site, progress: Progress | None = None) -> list[str]:
    """Install every app of apps.txt that this site does not have yet (what `fw serve` does first)."""
    installed: list[str] = []
    for app in site.apps.apps:
        installed += await install_app(site, app.name, progress)
    return installed
