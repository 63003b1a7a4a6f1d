"""Fixtures: portable configuration as JSON, one file per hooks.py `fixtures` entry.

Export writes `apps/<app>/fixtures/<scrubbed doctype>.json` with volatile fields stripped and
fails naming any doctype without `module`. Import upserts by name (never delete-and-reinsert),
skips documents that already match (a second import changes nothing), and runs each file in one
unit of work: an invalid document names the file and document and nothing of that file stays.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.clock import now_str
from engine.context import unit_of_work
from engine.documents import store, validation
from engine.documents.factory import get_doc, new_doc
from engine.meta.schema import scrub
from engine.query.listing import get_all

if TYPE_CHECKING:
    from engine.apps.installed import App
    from engine.context import Context
    from engine.documents.document import Document
    from engine.site import Site

VOLATILE = ("modified_by", "creation", "owner", "idx", "lft", "rgt")
CHILD_VOLATILE = ("docstatus", "doctype", "modified", "name", "parent", "parentfield", "parenttype", "owner",
                  "creation", "modified_by", "idx")
COMPARE_SKIP = frozenset({"modified", "modified_by", "owner", "creation", "idx", "doctype"})
Progress = Callable[[str], None]


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0


def _strip(data: dict[str, Any], meta_tables: set[str]) -> dict[str, Any]:
    out = {k: v for k, v in data.items() if k not in VOLATILE and v is not None}
    for table in meta_tables:
        if table in out:
            out[table] = [{k: v for k, v in row.items() if k not in CHILD_VOLATILE and v is not None}
                          for row in out[table]]
    return out


async def export_fixtures(site: Site, app: App, progress: Progress | None = None) -> list[Path]:
    """Write one JSON list per `fixtures` entry of `app`; returns the files written."""
    ctx = site.context("Administrator")
    written: list[Path] = []
    entries = site.apps.fixtures.get(app.name, [])
    for entry in entries:
        meta = ctx.meta(entry["dt"])
        if not meta.module:
            raise exc.ConfigurationError(
                f"Cannot export fixtures of {meta.name!r}: the doctype has no `module` (set it in its JSON)")
    for entry in entries:
        doctype = entry["dt"]
        meta = ctx.meta(doctype)
        if progress:
            progress(f"{app.name}: exporting {doctype}")
        if meta.issingle:  # a Single is exported as its one document (once it was saved)
            names = [doctype] if await store.load(ctx, meta, doctype, {"_id": 1}) is not None else []
        else:
            names = await get_all(ctx, doctype, filters=entry.get("filters"), or_filters=entry.get("or_filters"),
                                  order_by="idx asc, creation asc", pluck="name")
        tables = {t.fieldname for t in meta.table_fields}
        docs = [_strip((await get_doc(ctx, doctype, n)).as_dict(), tables) for n in names]
        folder = app.path / "fixtures"
        folder.mkdir(exist_ok=True)
        path = folder / f"{scrub(doctype)}.json"
        path.write_text(json.dumps(docs, indent=1, sort_keys=True, ensure_ascii=False, default=str) + "\n",
                        encoding="utf-8")
        written.append(path)
    return written


# the site's own customisations (business.md §7), exported where no app can hold them
SITE_FIXTURE_DOCTYPES = ("Custom Field", "Property Setter")


def site_fixtures_dir(site: Site) -> Path:
    """`doctype_json/fixtures/`: the customisations of the modules no installed app owns."""
    return site.settings.doctype_json_dir / "fixtures"


def unowned_modules(site: Site) -> list[str]:
    """Modules no installed app owns: the site's modules (drop-in doctypes) and the core's."""
    apps = site.apps
    owned = {apps.doctypes[n].module for n, app in apps.doctype_app.items() if app is not None}
    return sorted({s.module for s in apps.doctypes.values() if s.module and s.module not in owned})


async def export_site_fixtures(site: Site, progress: Progress | None = None) -> list[Path]:
    """Write `doctype_json/fixtures/<doctype>.json` with the Custom Fields and Property Setters whose
    module no installed app owns (an app exports its own through its `fixtures` hook); `fw migrate`
    imports them again. A doctype with none writes no file (and removes a stale one)."""
    ctx = site.context("Administrator")
    modules = unowned_modules(site)
    folder = site_fixtures_dir(site)
    written: list[Path] = []
    for doctype in SITE_FIXTURE_DOCTYPES:
        if progress:
            progress(f"site: exporting {doctype}")
        names = await get_all(ctx, doctype, filters=[["module", "in", modules]], order_by="creation asc",
                              pluck="name", limit_page_length=0)
        path = folder / f"{scrub(doctype)}.json"
        if not names:
            path.unlink(missing_ok=True)
            continue
        docs = [_strip((await get_doc(ctx, doctype, n)).as_dict(), set()) for n in names]
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(docs, indent=1, sort_keys=True, ensure_ascii=False, default=str) + "\n",
                        encoding="utf-8")
        written.append(path)
    return written


async def import_site_fixtures(site: Site, progress: Progress | None = None) -> ImportReport:
    """`doctype_json/fixtures/*.json` (Custom Fields first: a Property Setter may change one), each file
    in its own unit of work; one ConfigurationError names every file that failed."""
    report = ImportReport()
    failures: list[str] = []
    folder = site_fixtures_dir(site)
    order = {f"{scrub(dt)}.json": i for i, dt in enumerate(SITE_FIXTURE_DOCTYPES)}
    for path in sorted(folder.glob("*.json"), key=lambda p: (order.get(p.name, len(order)), p.name)):
        if progress:
            progress(f"site: importing {path.name}")
        try:
            await import_file(site, path, report)
        except exc.ConfigurationError as e:
            failures.append(e.message)
    if failures:
        raise exc.ConfigurationError("\n".join(failures))
    return report


def _same(have: Any, want: Any) -> bool:
    return bool(have == want or (have in (None, "", 0) and want in (None, "", 0)))


def _differs(ctx: Context, doc: Document, body: dict[str, Any]) -> bool:
    """Whether saving `body` would change `doc`. Only the fields the file names are compared, after
    the file's values got the defaults and type coercion a save would give them (so a hand-written
    fixture without, say, a Check default is not "changed" at every migrate); child tables row by row."""
    candidate = new_doc(ctx, doc.doctype, body)
    now = now_str()
    try:
        validation.apply_defaults(candidate, now=now, today=now[:10])
        validation.coerce_fields(candidate)
    except exc.FwError:
        return True  # the save reports what is wrong
    want, have = candidate.as_dict(), doc.as_dict()
    tables = {t.fieldname for t in doc.meta.table_fields}
    for key in body:
        if key in COMPARE_SKIP or key == "name":
            continue
        if key not in tables:
            if not _same(have.get(key), want.get(key)):
                return True
            continue
        rows_want, rows_have = want.get(key) or [], have.get(key) or []
        if len(rows_want) != len(rows_have):
            return True
        for row_want, row_have in zip(rows_want, rows_have, strict=True):
            if any(not _same(row_have.get(k), v) for k, v in row_want.items() if k not in CHILD_VOLATILE):
                return True
    return False


async def _upsert(ctx: Context, doctype: str, data: dict[str, Any], report: ImportReport) -> None:
    name = data.get("name")
    meta = ctx.meta(doctype)
    body = {k: v for k, v in data.items() if k not in COMPARE_SKIP and k not in ("name", "docstatus")}
    doc = None
    if name:
        try:
            doc = await get_doc(ctx, doctype, name)
        except exc.DoesNotExistError:
            doc = None
    if doc is not None and not doc.is_new():  # an unsaved Single comes back new, not missing
        if not _differs(ctx, doc, body):
            report.unchanged += 1
            return
        doc.update(body)
        await doc.save(ignore_permissions=True, ignore_links=True)
        report.updated.append(f"{doctype} {name}")
    else:
        doc = new_doc(ctx, doctype, body)
        doc.flags["in_fixtures"] = True  # (a fixture's User gets no welcome mail)
        if name:
            doc.name = name
        if int(data.get("docstatus") or 0) == 1 and meta.is_submittable:
            doc.docstatus = 1
        await doc.insert(ignore_permissions=True, ignore_links=True)
        report.created.append(f"{doctype} {doc.name}")


async def import_file(site: Site, path: Path, report: ImportReport, ctx: Context | None = None) -> None:
    try:
        docs = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise exc.ConfigurationError(f"Fixture file {path} is not valid JSON: {e}") from e
    if isinstance(docs, dict):
        docs = [docs]
    if not isinstance(docs, list):
        raise exc.ConfigurationError(f"Fixture file {path} must hold a list of documents")
    ctx = ctx or site.context("Administrator")
    async with unit_of_work(ctx):
        for i, data in enumerate(docs):
            label = f"document #{i + 1}" + (f" ({data.get('name')})" if isinstance(data, dict) else "")
            if not isinstance(data, dict) or not isinstance(data.get("doctype"), str):
                raise exc.ConfigurationError(f"Fixture file {path}, {label}: each document needs a doctype")
            try:
                await _upsert(ctx, data["doctype"], data, report)
            except exc.FwError as e:
                raise exc.ConfigurationError(
                    f"Fixture file {path}, {label}: {type(e).__name__}: {e.message}. Nothing from this file was "
                    "imported; fix the document and migrate again.") from e


async def import_app_fixtures(site: Site, app: App, progress: Progress | None = None,
                              ctx: Context | None = None) -> ImportReport:
    """Every fixture file of the app, in file-name order.

    Without `ctx` each file is its own unit of work: a file that fails leaves nothing behind, the
    other files are still imported, and one ConfigurationError then names every failed file. With
    `ctx` (installing an app) everything joins the caller's unit of work and the first error stops it.
    """
    report = ImportReport()
    failures: list[str] = []
    for path in sorted((app.path / "fixtures").glob("*.json")):
        if progress:
            progress(f"{app.name}: importing {path.name}")
        if ctx is not None:
            await import_file(site, path, report, ctx)
            continue
        try:
            await import_file(site, path, report)
        except exc.ConfigurationError as e:
            failures.append(e.message)
    if failures:
        raise exc.ConfigurationError("\n".join(failures))
    return report
