"""Data migrations (Frappe's patches.txt and Patch Log): each app lists dotted paths in `patches.txt`,
under `[pre_model_sync]` (run before the schema sync) or `[post_model_sync]` (after; a file without
sections is all post). `fw migrate` runs every patch not yet in `Patch Log`, in order, each in its own
unit of work with its Patch Log record, so a failing patch leaves nothing and runs again next time.
An app installed after its patches were written needs none of them: installing records them (skipped).
"""

from __future__ import annotations

import importlib
import inspect
import logging
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.apps.callables import call_with_supported, resolve_dotted
from engine.clock import now_str
from engine.context import unit_of_work
from engine.documents import naming, store

if TYPE_CHECKING:
    from engine.apps.installed import App
    from engine.context import Context
    from engine.site import Site

log = logging.getLogger("fw.patches")
Progress = Callable[[str], None]
PATCH_LOG = "Patch Log"
PRE, POST = "pre_model_sync", "post_model_sync"
PATCHES_TXT = "patches.txt"


@dataclass(frozen=True)
class Patch:
    app: str
    path: str  # the dotted path, as written in patches.txt (Patch Log's `patch`)
    stage: str  # PRE or POST


def read_patches_txt(text: str, where: str) -> list[tuple[str, str]]:
    """(stage, dotted path) per line, in order; blank lines and `#` comments are ignored."""
    stage = POST
    out: list[tuple[str, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            stage = line[1:-1].strip()
            if stage not in (PRE, POST):
                raise exc.ConfigurationError(
                    f"{where}:{number}: unknown section {line}; use [{PRE}] or [{POST}]")
            continue
        if " " in line or not all(part.isidentifier() for part in line.split(".")):
            raise exc.ConfigurationError(
                f"{where}:{number}: {line!r} is not a dotted path like 'myapp.patches.v1_0.rename_status'")
        out.append((stage, line))
    return out


def app_patches(app: App) -> list[Patch]:
    path = app.path / PATCHES_TXT
    if not path.is_file():
        return []
    return [Patch(app.name, dotted, stage)
            for stage, dotted in read_patches_txt(path.read_text(encoding="utf-8"), str(path))]


def resolve(path: str) -> Callable[..., Any]:
    """`module.path` names the module's `execute`; `module.path.function` a function of a module."""
    try:
        module = importlib.import_module(path)
    except ModuleNotFoundError as e:
        if e.name is None or not path.startswith(e.name):  # the module exists but imports something missing
            raise exc.ConfigurationError(f"Patch {path}: importing it failed: {e}") from e
        module = None
    except Exception as e:
        raise exc.ConfigurationError(f"Patch {path}: importing it failed: {type(e).__name__}: {e}") from e
    if module is None:
        return resolve_dotted(path, f"Patch {path}")
    execute = getattr(module, "execute", None)
    if not callable(execute):
        raise exc.ConfigurationError(f"Patch {path}: the module has no execute(ctx) function")
    return execute


async def logged(site: Site) -> set[str]:
    """The patches Patch Log holds (run, or recorded as skipped)."""
    coll = store.collection_of(site, PATCH_LOG)
    return {row["patch"] async for row in coll.find({}, {"patch": 1}) if row.get("patch")}


async def _record(ctx: Context, path: str, *, skipped: bool = False) -> None:
    now = now_str()
    await store.insert(ctx, ctx.meta(PATCH_LOG), {
        "_id": naming.hash_name(), "patch": path, "skipped": int(skipped), "owner": ctx.user, "modified_by": ctx.user,
        "creation": now, "modified": now, "docstatus": 0, "idx": 0})


async def run_one(site: Site, path: str, progress: Progress | None = None) -> None:
    """Run one patch in its own unit of work, as Administrator, recording it in Patch Log there. A
    patch that raises leaves nothing (its writes and its record roll back)."""
    if progress:
        progress(f"patch {path}")
    fn = resolve(path)
    ctx = site.context("Administrator")
    try:
        async with unit_of_work(ctx):
            result = call_with_supported(fn, ctx=ctx)
            if inspect.isawaitable(result):
                await result
            await _record(ctx, path)
    except Exception as e:
        log.error("patch %s failed:\n%s", path, traceback.format_exc())
        detail = e.message if isinstance(e, exc.FwError) else str(e)
        raise exc.ConfigurationError(
            f"Patch {path} failed: {type(e).__name__}: {detail}. Nothing of it was kept; fix it and run "
            "`fw migrate` again (it runs this patch again, and the ones after it).") from e
    log.info("patch %s done", path)


async def run_pending(site: Site, stage: str, apps: Iterable[str], progress: Progress | None = None) -> list[str]:
    """Run the patches of `stage` of the installed `apps` not yet in Patch Log, in order (apps in
    required_apps order, each app's patches as listed); returns what ran."""
    wanted = set(apps)
    pending = [p for app in site.apps.apps if app.name in wanted for p in app_patches(app) if p.stage == stage]
    if not pending:
        return []
    done = await logged(site)
    ran: list[str] = []
    for patch in pending:
        if patch.path in done:
            continue
        await run_one(site, patch.path, progress)
        done.add(patch.path)
        ran.append(patch.path)
    return ran


async def record_all_as_skipped(ctx: Context, app: App) -> None:
    """An app being installed needs none of its patches: record them (inside the install's unit of work)."""
    patches = app_patches(app)
    if not patches:
        return
    done = await logged(ctx.site)
    for patch in patches:
        if patch.path not in done:
            await _record(ctx, patch.path, skipped=True)
            done.add(patch.path)
