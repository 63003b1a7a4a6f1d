"""Renaming a document: a new `_id`, and every Link, Dynamic Link and File attachment that pointed at
the old name re-pointed, all in one unit of work."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import exceptions as exc
from engine import naming, permissions
from engine.context import unit_of_work
from engine.documents import store
from engine.documents.factory import get_doc
from engine.documents.links import linking_paths, reference_paths
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.meta.schema import Meta


async def rename(ctx: Context, doctype: str, old: str, new: str, *, merge: bool = False) -> str:
    meta = ctx.meta(doctype)
    if meta.issingle or meta.istable:
        raise exc.ValidationError(_("{0} documents cannot be renamed", _(doctype)))
    new = naming.validate_name(doctype, new)
    doc = await get_doc(ctx, doctype, old)
    await permissions.check_document(ctx, doc, "write")
    if new == old:
        return new
    async with unit_of_work(ctx):
        exists = await store.load(ctx, meta, new, {"_id": 1}) is not None
        if exists and not merge:
            raise exc.DuplicateEntryError(_("{0} {1} already exists", _(doctype), new))
        record = await store.load(ctx, meta, old)
        assert record is not None
        await store.delete(ctx, meta, old)
        if not exists:
            record["_id"] = new
            for table in meta.table_fields:
                for row in record.get(table.fieldname) or []:
                    row["parent"] = new
            field_rule = meta.autoname.split(":", 1)
            if field_rule[0] == "field" and len(field_rule) == 2:
                record[field_rule[1].strip()] = new
            await store.insert(ctx, meta, record)
        for linker, path in linking_paths(ctx.site.meta, doctype):
            linker_meta = ctx.meta(linker)
            if "." in path:
                table, field = path.split(".", 1)
                await store.update_many(ctx, linker_meta, {path: old}, {"$set": {f"{table}.$[row].{field}": new}},
                                        array_filters=[{f"row.{field}": old}])
            else:
                await store.update_many(ctx, linker_meta, {path: old}, {"$set": {path: new}})
        for linker, doctype_path, name_path in reference_paths(ctx.site.meta):
            await _repoint_reference(ctx, ctx.meta(linker), doctype_path, name_path, doctype, old, new)
        if meta.is_tree:
            await store.update_many(ctx, meta, {"_ancestors": old}, {"$set": {"_ancestors.$[a]": new}},
                                    array_filters=[{"a": old}])
        await store.update_many(ctx, ctx.meta("Version"), {"ref_doctype": doctype, "docname": old},
                                {"$set": {"docname": new}})
    return new


async def _repoint_reference(ctx: Context, linker: Meta, doctype_path: str, name_path: str, doctype: str,
                             old: str, new: str) -> None:
    """Re-point a (doctype, name) pair that names the renamed document; in child rows, only the rows
    whose own pair matches."""
    query = {doctype_path: doctype, name_path: old}
    if "." not in name_path:
        await store.update_many(ctx, linker, query, {"$set": {name_path: new}})
        return
    table, field = name_path.split(".", 1)
    kind = doctype_path.split(".", 1)[1]
    await store.update_many(ctx, linker, {name_path: old}, {"$set": {f"{table}.$[row].{field}": new}},
                            array_filters=[{f"row.{field}": old, f"row.{kind}": doctype}])
