"""`fw execute` and `fw export-fixtures`: site-level operator commands."""

from __future__ import annotations

import inspect
import json
from typing import Any

import click

from engine.commands._base import console, fail, opened_site, run, status
from engine.settings import Settings


def _jsonable(value: Any) -> Any:
    if hasattr(value, "as_dict") and callable(value.as_dict):
        return value.as_dict()
    return value


@click.command("execute")
@click.argument("dotted_path", metavar="DOTTED.PATH")
@click.option("--kwargs", "kwargs_json", default="{}", show_default=True,
              help='Keyword arguments as a JSON object, e.g. \'{"employee": "HR-EMP-00001"}\'.')
@click.option("--user", default="Administrator", show_default=True, help="Run as this user.")
def execute(dotted_path: str, kwargs_json: str, user: str) -> None:
    """Run the function DOTTED.PATH in a site context and commit; print its result as JSON.

    The function gets `ctx` if it takes that parameter; it may be async. Any error rolls back
    everything it wrote.
    """
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.apps.callables import call_with_supported, resolve_dotted
    from engine.context import unit_of_work
    from engine.documents import store

    try:
        kwargs = json.loads(kwargs_json)
    except ValueError as e:
        fail(f"--kwargs is not valid JSON ({e}); pass an object like '{{\"name\": \"x\"}}'.")
    if not isinstance(kwargs, dict):
        fail("--kwargs must be a JSON object (keyword arguments), e.g. '{\"name\": \"x\"}'.")
    if "ctx" in kwargs:
        fail("--kwargs cannot set `ctx`; the function gets the site context itself.")

    async def go(settings: Settings) -> Any:
        async with opened_site(settings) as site:
            fn = resolve_dotted(dotted_path, "fw execute")
            params = inspect.signature(fn).parameters
            try:
                inspect.signature(fn).bind(**({"ctx": None} if "ctx" in params else {}), **kwargs)
            except TypeError as e:
                fail(f"{dotted_path} does not accept these arguments: {e}")
            if user != "Administrator" and not await store.collection_of(site, "User").find_one(
                    {"_id": user}, {"_id": 1}):
                fail(f"User {user!r} does not exist (create it with `fw add-user`).")
            ctx = site.context(user)
            async with unit_of_work(ctx):
                result = call_with_supported(fn, ctx=ctx, **kwargs)
                if inspect.isawaitable(result):
                    result = await result
            for message in ctx.messages:
                console.print(f"[blue]msgprint:[/blue] {message.get('message')}")
            return _jsonable(result)

    result = run(go)
    click.echo(json.dumps(result, indent=1, default=str, ensure_ascii=False))


@click.command("export-fixtures")
@click.option("--app", "app_name", help="Only this app (default: every installed app with fixtures).")
def export_fixtures(app_name: str | None) -> None:
    """Write apps/<app>/fixtures/<doctype>.json for each entry of the app's `fixtures` hook, and
    doctype_json/fixtures/ with the Custom Fields and Property Setters of modules no app owns."""
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.apps.fixtures import export_fixtures as export
    from engine.apps.fixtures import export_site_fixtures

    async def go(settings: Settings) -> list[str]:
        async with opened_site(settings) as site:
            apps = site.apps.apps
            if app_name is not None:
                apps = [a for a in apps if a.name == app_name]
                if not apps:
                    fail(f"App {app_name!r} is not installed (not in {settings.apps_txt}).")
            else:
                apps = [a for a in apps if site.apps.fixtures.get(a.name)]
            # check every doctype first, so a failure writes nothing: the framework's own, the exported
            # apps' and the doctypes their fixtures name
            names = {app.name for app in apps}
            site.apps.require_modules("export fixtures", [
                *(n for n, owner in site.apps.doctype_app.items() if owner is None or owner in names),
                *(entry["dt"] for app in apps for entry in site.apps.fixtures.get(app.name, []))])
            written: list[str] = []
            with status("Exporting fixtures") as progress:
                for app in apps:
                    written += [str(p) for p in await export(site, app, progress)]
                if app_name is None:
                    written += [str(p) for p in await export_site_fixtures(site, progress)]
            return written

    written = run(go)
    for path in written:
        console.print(f"[green]Wrote[/green] {path}")
    if not written:
        console.print("No fixtures to export (no app declares `fixtures` in hooks.py, and the site has no "
                      "Custom Fields or Property Setters of its own modules).")
