"""Back-links: a document that others link to cannot be deleted, nor cancelled while submitted
documents link to it (Frappe's LinkExistsError)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import exceptions as exc
from engine.documents import store
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument
    from engine.meta.registry import MetaRegistry

IGNORED_LINKERS = frozenset({"Version", "Error Log", "Deleted Document", "Scheduled Job Log"})


def linking_paths(registry: MetaRegistry, doctype: str) -> list[tuple[str, str]]:
    """(doctype, field path) pairs whose Link fields point at `doctype`; child rows as `table.field`."""
    paths: list[tuple[str, str]] = []
    for name in registry.names():
        meta = registry.get(name)
        if meta.istable or name in IGNORED_LINKERS:
            continue
        for f in meta.link_fields:
            if f.options == doctype and not (name == doctype and f.fieldname == "amended_from"):
                paths.append((name, f.fieldname))
        for table in meta.table_fields:
            child = registry.get(table.options or "")
            for f in child.link_fields:
                if f.options == doctype:
                    paths.append((name, f"{table.fieldname}.{f.fieldname}"))
    return paths


# (doctype, doctype field, name field) pairs that name a document without a Dynamic Link field:
# a File's attachment (Frappe's rename_doc updates it by hand too)
REFERENCE_PAIRS = (("File", "attached_to_doctype", "attached_to_name"),)


def reference_paths(registry: MetaRegistry) -> list[tuple[str, str, str]]:
    """(doctype, doctype-field path, name-field path) of every Dynamic Link (child rows as
    `table.field`) and of REFERENCE_PAIRS: where a document is named together with its doctype."""
    paths: list[tuple[str, str, str]] = [p for p in REFERENCE_PAIRS if p[0] in registry.names()]
    for name in registry.names():
        meta = registry.get(name)
        if meta.istable or name in IGNORED_LINKERS:
            continue
        for f in meta.fields:
            if f.fieldtype == "Dynamic Link" and f.options:
                paths.append((name, f.options, f.fieldname))
        for table in meta.table_fields:
            for f in registry.get(table.options or "").fields:
                if f.fieldtype == "Dynamic Link" and f.options:
                    paths.append((name, f"{table.fieldname}.{f.options}", f"{table.fieldname}.{f.fieldname}"))
    return paths


async def check_no_links(ctx: Context, doc: BaseDocument, *, submitted_only: bool) -> None:
    for linker, path in linking_paths(ctx.site.meta, doc.doctype):
        meta = ctx.meta(linker)
        query: dict[str, object] = {path: doc.name}
        if submitted_only:
            query["docstatus"] = 1
        else:
            query["docstatus"] = {"$ne": 2}
        if linker == doc.doctype:
            query["_id"] = {"$ne": doc.name}
        hit = await store.find_one(ctx, meta, query, {"_id": 1})
        if hit is not None:
            raise exc.LinkExistsError(_("Cannot delete or cancel because {0} {1} is linked with {2} {3}",
                                        _(doc.doctype), doc.name, _(linker), hit["_id"]))
