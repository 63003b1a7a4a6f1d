"""Schema sync: doctype meta to MongoDB collections, `fw_*` indexes and DocType records, idempotently.

Every index fw manages is named `fw_*`; the sync creates the missing ones and drops `fw_*` indexes
no longer declared. A hash of all definitions is kept, so a sync with nothing changed costs one
read. `fw migrate` (engine/migrate.py) runs it first; the Custom Field and Workflow controllers run
`sync_doctype` for the one doctype they changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from engine import db
from engine.apps.site_doctypes import site_modules
from engine.clock import now_str
from engine.constants import STATE_COLLECTION
from engine.documents import store
from engine.meta.record import RECORD_FORMAT, doctype_record, record_hash
from engine.meta.schema import Meta

if TYPE_CHECKING:
    from engine.site import Context, Site

Progress = Callable[[str], None]


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
    patches_run: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.collections_created or self.indexes_created or self.indexes_dropped
                    or self.doctypes_synced)

    def summary(self) -> str:
        extra = []
        if self.apps_installed:
            extra.append(f"apps installed: {', '.join(self.apps_installed)}")
        if self.patches_run:
            extra.append(f"patches run: {', '.join(self.patches_run)}")
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
            options["partialFilterExpression"] = {  # `{"$exists": true}` as written, a plain value as `$eq`
                k: v if isinstance(v, dict) else {"$eq": v} for k, v in ix.where.items()}
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


async def apply_definition(site: Site, doctype: str) -> MigrateReport:
    """A doctype whose JSON was just written (the DocType editor): every process re-reads the
    definitions (the meta bump, announced on the cache bus), then its collection, indexes, DocType
    record and site module are made as `fw migrate` makes them, so its list and form work at once."""
    await site.meta.bump()
    report = MigrateReport()
    meta = site.meta.get(doctype)
    if not meta.istable:
        existing = set(await site.db.handle.list_collection_names())
        if meta.collection not in existing and await db.create_collection(site.db.handle, meta.collection):
            report.collections_created.append(meta.collection)
    await sync_doctype(site, doctype)
    await sync_site_modules(site, [doctype])
    return report


async def sync_site_modules(site: Site, doctypes: list[str]) -> None:
    """A `Module Def` (custom: 1) per module of these drop-in doctypes that no app owns; never deleted
    (a module left without doctypes is harmless, and an operator may have edited it)."""
    coll = store.collection_of(site, "Module Def")
    now = now_str()
    for module in site_modules(site.apps, [d for d in doctypes if d in site.apps.site_doctypes]):
        await coll.update_one({"_id": module}, {"$setOnInsert": {
            "module_name": module, "custom": 1, "creation": now, "modified": now, "owner": "Administrator",
            "modified_by": "Administrator", "docstatus": 0, "idx": 0}}, upsert=True)


@dataclass(frozen=True)
class _ResyncAfterCommit:
    """Once the unit commits: the meta re-read in every process (the cache bus), and the DocType
    records and indexes of `doctypes` that still exist rewritten. Equal ones queued in one unit are
    one: a save that writes several definition records resyncs once."""

    site: Site
    doctypes: tuple[str, ...]

    async def __call__(self) -> None:
        await self.site.meta.bump()
        for doctype in dict.fromkeys(self.doctypes):
            if self.site.meta.exists(doctype):
                await sync_doctype(self.site, doctype)


def resync_after_commit(ctx: Context, *doctypes: str | None) -> None:
    """After a change to a record the meta is built from (Custom Field, Property Setter, Workflow):
    bring every process's meta and the changed doctypes' DocType records and indexes in line once
    the unit of work commits, once per unit however many records it changed."""
    callback = _ResyncAfterCommit(ctx.site, tuple(d for d in doctypes if d))
    if ctx.uow is None or callback not in ctx.uow.after_commit:
        ctx.after_commit(callback)


async def _sync_indexes(site: Site, meta: Meta, report: MigrateReport) -> None:
    coll = store.collection_of(site, meta.name)
    present = {ix["name"]: ix for ix in await db.list_indexes(coll)}
    wanted = desired_indexes(meta)
    for name, ix in present.items():
        stale = name.startswith("fw_") and (name not in wanted or not _same_index(ix, *wanted[name]))
        if stale and await db.drop_index(coll, name):
            report.indexes_dropped.append(f"{meta.collection}.{name}")
    present_names = {ix["name"] for ix in await db.list_indexes(coll)}
    for name, (keys, options) in wanted.items():
        if name not in present_names:
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
    coll = store.collection_of(site, "DocType")
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
