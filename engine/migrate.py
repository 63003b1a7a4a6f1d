"""`fw migrate`: sync doctype meta and MongoDB indexes to the JSON definitions, idempotently.

Every index fw manages is named `fw_*`; migrate creates the missing ones and drops `fw_*` indexes
no longer declared. A hash of all definitions is kept, so a migrate with nothing changed costs
one read.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import inspect
import logging
import os
import socket
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from engine import db
from engine import exceptions as exc
from engine.callables import call_with_supported
from engine.clock import now_str
from engine.context import unit_of_work
from engine.meta.record import RECORD_FORMAT, doctype_record, record_hash
from engine.meta.registry import STATE_COLLECTION
from engine.meta.schema import Meta

if TYPE_CHECKING:
    from engine.site import Site

log = logging.getLogger("fw.migrate")
Progress = Callable[[str], None]
LOCK_ID = "migrate_lock"
LOCK_TTL_SECONDS = 30.0
LOCK_POLL_SECONDS = 0.2


@dataclass
class MigrateReport:
    collections_created: list[str] = field(default_factory=list)
    indexes_created: list[str] = field(default_factory=list)
    indexes_dropped: list[str] = field(default_factory=list)
    doctypes_synced: list[str] = field(default_factory=list)
    skipped: bool = False
    hooks_run: list[str] = field(default_factory=list)
    apps_installed: list[str] = field(default_factory=list)
    fixtures_created: list[str] = field(default_factory=list)
    fixtures_updated: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.collections_created or self.indexes_created or self.indexes_dropped
                    or self.doctypes_synced)

    def summary(self) -> str:
        extra = []
        if self.apps_installed:
            extra.append(f"apps installed: {', '.join(self.apps_installed)}")
        if self.fixtures_created or self.fixtures_updated:
            extra.append(f"fixtures: {len(self.fixtures_created)} created, {len(self.fixtures_updated)} updated")
        tail = (" " + "; ".join(extra) + ".") if extra else ""
        if self.skipped:
            return "Nothing changed (definitions unchanged since the last migrate)." + tail
        if not self.changed:
            return "Nothing changed." + tail
        parts = []
        for label, items in (("collections created", self.collections_created),
                             ("indexes created", self.indexes_created),
                             ("indexes dropped", self.indexes_dropped),
                             ("doctypes synced", self.doctypes_synced)):
            if items:
                parts.append(f"{len(items)} {label}")
        return ", ".join(parts) + "." + tail


def desired_indexes(meta: Meta) -> dict[str, tuple[list[tuple[str, int]], dict[str, Any]]]:
    """name -> (keys, options) for every index the doctype needs."""
    wanted: dict[str, tuple[list[tuple[str, int]], dict[str, Any]]] = {}
    sort_field = "_id" if meta.sort_field == "name" else meta.sort_field
    if sort_field != "_id":
        wanted[f"fw_sort_{sort_field}"] = ([(sort_field, 1), ("_id", 1)], {})
    for f in meta.fields:
        if not f.fieldname or not f.has_value:
            continue
        if f.unique:
            # nulls are never stored, so the partial filter lets many documents leave it empty
            wanted[f"fw_unique_{f.fieldname}"] = ([(f.fieldname, 1)], {
                "unique": True, "partialFilterExpression": {f.fieldname: {"$exists": True}}})
        elif f.search_index:
            wanted[f"fw_idx_{f.fieldname}"] = ([(f.fieldname, 1), ("_id", 1)], {})
    for ix in meta.indexes:
        name = ix.name or "fw_" + ("uniq_" if ix.unique else "cidx_") + "_".join(ix.fields)
        if not name.startswith("fw_"):
            name = f"fw_{name}"
        options: dict[str, Any] = {"unique": True} if ix.unique else {}
        if ix.where:
            options["partialFilterExpression"] = {k: {"$eq": v} for k, v in ix.where.items()}
        keys = [("_id" if f == "name" else f, 1) for f in ix.fields]
        if not ix.unique and keys[-1][0] != "_id":
            keys.append(("_id", 1))  # the stable-order tiebreak, so sorted pages come straight from the index
        wanted[name] = (keys, options)
    if meta.is_tree:
        wanted["fw_tree_ancestors"] = ([("_ancestors", 1)], {})
        wanted[f"fw_tree_{meta.nsm_parent_field}"] = ([(meta.nsm_parent_field, 1)], {})
    return wanted


def _definitions_hash(site: Site) -> str:
    payload: dict[str, Any] = {name: site.meta.get(name).as_dict() for name in site.meta.names()}
    payload["\0record_format"] = RECORD_FORMAT  # a new DocType record shape resyncs unchanged definitions
    return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()


async def sync_schema(site: Site, *, force: bool = False, progress: Progress | None = None) -> MigrateReport:
    """Collections, indexes and DocType records; skipped entirely when nothing changed."""
    report = MigrateReport()
    await site.meta.refresh_if_stale()
    digest = _definitions_hash(site)
    state = site.db.collection(STATE_COLLECTION)
    current = await state.find_one({"_id": "schema"})
    if current and current.get("hash") == digest and not force:
        report.skipped = True
        return report
    existing = set(await site.db.handle.list_collection_names())
    names = site.meta.names()
    for i, name in enumerate(names, start=1):
        meta = site.meta.get(name)
        if progress:
            progress(f"[{i}/{len(names)}] {name}")
        if meta.istable:
            continue
        if meta.collection not in existing and await db.create_collection(site.db.handle, meta.collection):
            report.collections_created.append(meta.collection)
        await _sync_indexes(site, meta, report)
    await _sync_doctype_records(site, report)
    await state.update_one({"_id": "schema"}, {"$set": {"hash": digest}}, upsert=True)
    return report


async def sync_doctype(site: Site, doctype: str) -> MigrateReport:
    """Bring one doctype's indexes and DocType record in line with its meta now (after a Custom
    Field change), without waiting for the next migrate."""
    report = MigrateReport()
    meta = site.meta.get(doctype)
    if not meta.istable:
        await _sync_indexes(site, meta, report)
    await _sync_doctype_records(site, report, only=[doctype])
    return report


async def _sync_indexes(site: Site, meta: Meta, report: MigrateReport) -> None:
    coll = site.db.collection(meta.collection)
    present = {ix["name"]: ix for ix in await db.list_indexes(coll)}
    wanted = desired_indexes(meta)
    for name, ix in present.items():
        stale = name.startswith("fw_") and (name not in wanted or not _same_index(ix, *wanted[name]))
        if stale and await db.drop_index(coll, name):
            report.indexes_dropped.append(f"{meta.collection}.{name}")
    present = {ix["name"] for ix in await db.list_indexes(coll)}
    for name, (keys, options) in wanted.items():
        if name not in present:
            with db.translate_errors(meta.name):
                await coll.create_index(keys, name=name, **options)
            report.indexes_created.append(f"{meta.collection}.{name}")


def _same_index(present: dict[str, Any], keys: list[tuple[str, int]], options: dict[str, Any]) -> bool:
    return (list(present.get("key", {}).items()) == keys
            and bool(present.get("unique")) == bool(options.get("unique"))
            and present.get("partialFilterExpression") == options.get("partialFilterExpression"))


async def _sync_doctype_records(site: Site, report: MigrateReport, only: list[str] | None = None) -> None:
    """Keep a DocType record per doctype in Frappe's shape (engine/meta/record.py), rewritten only when
    its definition changed: replaced whole, so a key the definition dropped goes too."""
    coll = site.db.collection("doctype")
    query = {} if only is None else {"_id": {"$in": only}}
    stored = {r["_id"]: r for r in await coll.find(query, {"json_hash": 1, "creation": 1, "owner": 1}).to_list(None)}
    now = now_str()
    for name in site.meta.names() if only is None else only:
        meta = site.meta.get(name)
        digest = record_hash(meta)
        previous = stored.get(name) or {}
        if previous.get("json_hash") == digest:
            continue
        await coll.replace_one({"_id": name}, {
            **stored_record(doctype_record(meta)), "json_hash": digest,
            "owner": previous.get("owner") or "Administrator", "creation": previous.get("creation") or now,
            "modified": now, "modified_by": "Administrator"}, upsert=True)
        report.doctypes_synced.append(name)
    gone = set(stored) - set(site.meta.names())
    if gone and only is None:
        await coll.delete_many({"_id": {"$in": sorted(gone)}, "custom": {"$ne": 1}})


def stored_record(record: dict[str, Any]) -> dict[str, Any]:
    """A client-shaped record as the engine stores documents: `_id` for `name`, no `doctype` keys."""
    out: dict[str, Any] = {"_id": record["name"]}
    for key, value in record.items():
        if key in ("name", "doctype"):
            continue
        if key in ("fields", "permissions"):
            value = [{k: v for k, v in row.items() if k != "doctype"} for row in value]
        out[key] = value
    return out


async def migrate(site: Site, *, force: bool = False, progress: Progress | None = None,
                  install: bool = True) -> MigrateReport:
    """The apps' `before_migrate` hooks, schema sync, the site's bootstrap records, then the apps'
    `after_migrate` hooks (each hook in its own unit of work, as Administrator)."""
    from engine.core.bootstrap import ensure_bootstrap

    site.apps.require_modules("migrate")  # before anything is written
    async with migrate_lock(site):
        ran: list[str] = []
        await _run_hooks(site, site.apps.before_migrate, ran)
        report = await sync_schema(site, force=force, progress=progress)
        await _ensure_internal_indexes(site)
        await ensure_bootstrap(site)
        await _sync_apps(site, report, progress, install=install)
        # fixtures may have added Custom Fields (a meta change): sync again, so the stored definitions
        # hash includes them and the next migrate with nothing changed is skipped
        _merge(report, await sync_schema(site, progress=progress))
        await _run_hooks(site, site.apps.after_migrate, ran)
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
    """Indexes of fw's own collections: sessions expire by TTL; the job outbox is read oldest first."""
    from engine.jobs import outbox

    await outbox.ensure_indexes(site)
    await site.db.collection("_fw_sessions").create_index([("expires_at", 1)], name="fw_ttl", expireAfterSeconds=0)
    await site.db.collection("_fw_sessions").create_index([("user", 1)], name="fw_user")


async def _sync_apps(site: Site, report: MigrateReport, progress: Progress | None, *, install: bool) -> None:
    """Install apps of apps.txt new to this site; re-import the fixtures of the others (upserts that
    skip unchanged documents); Scheduled Job Types and standard Report records follow the hooks."""
    from engine.fixtures import import_app_fixtures
    from engine.installer import install_pending, installed_apps
    from engine.jobs.scheduler import sync_job_types

    already = set(await installed_apps(site))
    if install:
        report.apps_installed = await install_pending(site, progress)
    for app in site.apps.apps:
        if app.name in already:
            fixtures = await import_app_fixtures(site, app, progress)
            report.fixtures_created += fixtures.created
            report.fixtures_updated += fixtures.updated
    await sync_job_types(site)
    await _sync_reports(site)


async def _sync_reports(site: Site) -> None:
    """A Report record per standard app report (is_standard Yes), rewritten only when it changed."""
    coll = site.db.collection("report")
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
