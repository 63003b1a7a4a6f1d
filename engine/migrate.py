"""`fw migrate`: the schema sync (engine/schema_sync.py: collections, `fw_*` indexes, DocType
records), then bootstrap, apps to install, fixtures, Scheduled Job Types, Report records and the
`before_migrate`/`after_migrate` hooks, under a lock; idempotent, and one read when nothing changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import socket
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from engine import db
from engine import exceptions as exc
from engine.apps import patches
from engine.apps.callables import call_with_supported
from engine.apps.fixtures import import_app_fixtures, import_site_fixtures
from engine.apps.installer import install_pending, installed_apps
from engine.clock import now_str
from engine.constants import STATE_COLLECTION
from engine.context import unit_of_work
from engine.core.bootstrap import ensure_bootstrap
from engine.documents import store
from engine.jobs import outbox
from engine.jobs.scheduler import sync_job_types
from engine.notifications import alerts

# the schema sync is a layer below (engine/schema_sync.py, which the controllers use); re-exported
from engine.schema_sync import MigrateReport as MigrateReport
from engine.schema_sync import desired_indexes as desired_indexes
from engine.schema_sync import stored_record as stored_record
from engine.schema_sync import sync_doctype as sync_doctype
from engine.schema_sync import sync_schema as sync_schema
from engine.schema_sync import sync_site_modules

if TYPE_CHECKING:
    from engine.site import Site

log = logging.getLogger("fw.migrate")
Progress = Callable[[str], None]
LOCK_ID = "migrate_lock"
LOCK_TTL_SECONDS = 30.0
LOCK_POLL_SECONDS = 0.2


async def migrate(site: Site, *, force: bool = False, progress: Progress | None = None,
                  install: bool = True) -> MigrateReport:
    """The apps' `before_migrate` hooks, schema sync, the site's bootstrap records, then the apps'
    `after_migrate` hooks (each hook in its own unit of work, as Administrator)."""
    site.apps.require_modules("migrate")  # before anything is written
    async with migrate_lock(site):
        ran: list[str] = []
        await _run_hooks(site, site.apps.before_migrate, ran)
        already = await installed_apps(site)  # (an app installed by this migrate runs none of its patches)
        patches_run = await patches.run_pending(site, patches.PRE, already, progress)
        report = await sync_schema(site, force=force, progress=progress)
        await _ensure_internal_indexes(site)
        await ensure_bootstrap(site)
        await sync_site_modules(site, site.apps.site_doctypes)
        report.patches_run = patches_run + await patches.run_pending(site, patches.POST, already, progress)
        await _sync_apps(site, report, progress, install=install)
        # fixtures may have added Custom Fields (a meta change): sync again, so the stored definitions
        # hash includes them and the next migrate with nothing changed is skipped
        _merge(report, await sync_schema(site, progress=progress))
        await _run_hooks(site, site.apps.after_migrate, ran)
        if report.changed:  # every running process re-reads the definitions (a new doctype_json/ file)
            await site.meta.bump()
    report.hooks_run = ran
    return report


def _merge(report: MigrateReport, later: MigrateReport) -> None:
    report.skipped = report.skipped and later.skipped
    for name in ("collections_created", "indexes_created", "indexes_dropped", "doctypes_synced"):
        getattr(report, name).extend(getattr(later, name))


@contextlib.asynccontextmanager
async def migrate_lock(site: Site, *, ttl: float = LOCK_TTL_SECONDS) -> AsyncIterator[None]:
    """One migrate at a time per database, across processes (`fw serve --workers N` migrates in
    every worker, and `fw migrate` may run beside a server): the others wait, then find nothing to
    do. The lock is a `_fw_state` record kept alive while held; a crashed holder's lock expires."""
    state = site.db.collection(STATE_COLLECTION)
    owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex}"
    waited = False
    while True:
        now = time.time()
        try:
            with db.translate_errors():
                held = await state.find_one_and_update(
                    {"_id": LOCK_ID, "$or": [{"expires": {"$lt": now}}, {"owner": owner}]},
                    {"$set": {"owner": owner, "expires": now + ttl}}, upsert=True, return_document=db.AFTER)
        except exc.DuplicateEntryError:  # held by another process: the upsert found no free lock
            held = None
        if held and held.get("owner") == owner:
            break
        if not waited:
            log.info("another process is migrating this database; waiting for it to finish")
            waited = True
        await asyncio.sleep(LOCK_POLL_SECONDS)

    async def keep_alive() -> None:
        while True:
            await asyncio.sleep(ttl / 3)
            await state.update_one({"_id": LOCK_ID, "owner": owner}, {"$set": {"expires": time.time() + ttl}})

    heartbeat = asyncio.create_task(keep_alive())
    try:
        yield
    finally:
        heartbeat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await heartbeat
        await state.delete_one({"_id": LOCK_ID, "owner": owner})


async def _run_hooks(site: Site, hooks: list[tuple[str, Callable[..., Any]]], ran: list[str]) -> None:
    for app, fn in hooks:
        ctx = site.context("Administrator")
        async with unit_of_work(ctx):
            result = call_with_supported(fn, ctx=ctx)
            if inspect.isawaitable(result):
                await result
        ran.append(f"{app}: {getattr(fn, '__qualname__', fn)}")


async def _ensure_internal_indexes(site: Site) -> None:
    """Indexes of fw's own collections: sessions and the Notifications' sent keys expire by TTL; the
    job outbox is read oldest first."""
    await outbox.ensure_indexes(site)
    await alerts.ensure_indexes(site)
    await site.sessions.ensure_indexes()


async def _sync_apps(site: Site, report: MigrateReport, progress: Progress | None, *, install: bool) -> None:
    """Install apps of apps.txt new to this site; re-import the fixtures of the others (upserts that
    skip unchanged documents); Scheduled Job Types and standard Report records follow the hooks."""
    already = set(await installed_apps(site))
    if install:
        report.apps_installed = await install_pending(site, progress)
    for app in site.apps.apps:
        if app.name in already:
            fixtures = await import_app_fixtures(site, app, progress)
            report.fixtures_created += fixtures.created
            report.fixtures_updated += fixtures.updated
    site_fixtures = await import_site_fixtures(site, progress)
    report.fixtures_created += site_fixtures.created
    report.fixtures_updated += site_fixtures.updated
    await sync_job_types(site)
    await _sync_reports(site)


async def _sync_reports(site: Site) -> None:
    """A Report record per standard app report (is_standard Yes), rewritten only when it changed."""
    coll = store.collection_of(site, "Report")
    now = now_str()
    for report in site.apps.reports.values():
        roles = [{"name": f"{report.name}-{i}", "role": role, "idx": i, "parent": report.name, "parentfield": "roles",
                  "parenttype": "Report", "docstatus": 0} for i, role in enumerate(report.roles, start=1)]
        record = {"report_name": report.name, "ref_doctype": report.ref_doctype, "report_type": report.report_type,
                  "is_standard": "Yes", "module": report.module, "roles": roles,
                  "add_total_row": int(bool(report.definition.get("add_total_row")))}
        record = {k: v for k, v in record.items() if v is not None}
        stored = await coll.find_one({"_id": report.name})
        if stored and all(stored.get(k) == v for k, v in record.items()):
            continue
        await coll.update_one({"_id": report.name}, {
            "$set": {**record, "modified": now, "modified_by": "Administrator"},
            # `disabled` is the operator's switch: set from the JSON once, never reset by a migrate
            "$setOnInsert": {"creation": now, "owner": "Administrator", "docstatus": 0, "idx": 0,
                             "disabled": int(bool(report.definition.get("disabled")))}}, upsert=True)
