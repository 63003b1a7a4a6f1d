"""Renaming a document: a new `_id`, and every Link, Dynamic Link and File attachment that pointed at
the old name re-pointed, all in one unit of work.

Rules (Frappe's `rename_doc`/`validate_rename`):
- renaming needs `write` on the doctype (not only a document-level right such as the core rule that
  lets a user edit their own User record) and `write` on the document;
- merging (`merge=True`) needs an existing target the caller may `write`, and `delete` on the old
  document, which is then deleted through the delete lifecycle (`on_trash`, `after_delete`, ...)
  once everything that named it points at the target;
- the standard users (`Administrator`, `Guest`) and the core roles are never renamed, and nothing is
  renamed to them or merged into them;
- with a `field:<f>` naming rule the new name must be a valid value of `<f>` (a User's is an email).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import exceptions as exc
from engine import permissions
from engine.constants import CORE_ROLES, STANDARD_USERS
from engine.context import unit_of_work
from engine.documents import lifecycle, naming, store
from engine.documents.factory import get_doc
from engine.documents.links import linking_paths, reference_paths
from engine.meta import fieldtypes
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.meta.schema import DocFieldSchema, Meta

# names that are never renamed, nor renamed to or merged into: code and bootstrap rely on them
STANDARD_NAMES: dict[str, tuple[str, ...]] = {"User": STANDARD_USERS, "Role": CORE_ROLES}


async def rename(ctx: Context, doctype: str, old: str, new: str, *, merge: bool = False) -> str:
    meta = ctx.meta(doctype)
    if meta.issingle or meta.istable:
        raise exc.ValidationError(_("{0} documents cannot be renamed", _(doctype)))
    new = naming.validate_name(doctype, new)
    doc = await get_doc(ctx, doctype, old)
    await permissions.check_doctype(ctx, doctype, "write")
    await permissions.check_document(ctx, doc, "write")
    _refuse_standard_names(doctype, old, new)
    name_field = _name_field(meta)
    if name_field is not None and new != old:
        new = str(fieldtypes.coerce_value(name_field, new, doctype=doctype))
    if new == old:
        return new
    async with unit_of_work(ctx):
        exists = await store.load(ctx, meta, new, {"_id": 1}) is not None
        if exists and not merge:
            raise exc.DuplicateEntryError(_("{0} {1} already exists", _(doctype), new))
        if merge:
            if not exists:
                raise exc.ValidationError(_("{0} {1} does not exist, select a new target to merge", _(doctype), new))
            await permissions.check_document(ctx, await get_doc(ctx, doctype, new), "write")
            await permissions.check_document(ctx, doc, "delete")  # the merge deletes the old document
        else:
            record = await store.load(ctx, meta, old)
            assert record is not None
            await store.delete(ctx, meta, old)
            record["_id"] = new
            for table in meta.table_fields:
                for row in record.get(table.fieldname) or []:
                    row["parent"] = new
            if name_field is not None:
                record[name_field.fieldname] = new
            await store.insert(ctx, meta, record)
        for linker, path in linking_paths(ctx.site.meta, doctype):
            linker_meta = ctx.meta(linker)
            if "." in path:
                table_name, column = path.split(".", 1)
                await store.update_many(ctx, linker_meta, {path: old}, {"$set": {f"{table_name}.$[row].{column}": new}},
                                        array_filters=[{f"row.{column}": old}])
            else:
                await store.update_many(ctx, linker_meta, {path: old}, {"$set": {path: new}})
        for linker, doctype_path, name_path in reference_paths(ctx.site.meta):
            await _repoint_reference(ctx, ctx.meta(linker), doctype_path, name_path, doctype, old, new)
        if meta.is_tree:
            await store.update_many(ctx, meta, {"_ancestors": old}, {"$set": {"_ancestors.$[a]": new}},
                                    array_filters=[{"a": old}])
        await store.update_many(ctx, ctx.meta("Version"), {"ref_doctype": doctype, "docname": old},
                                {"$set": {"docname": new}})
        if merge:  # nothing names the old document any more: delete it as a delete request would
            await lifecycle.delete(doc)
        elif doctype == "User":
            await _repoint_user_stamps(ctx, old, new)
            sessions = ctx.site.sessions  # the user's sessions follow them once the rename is committed
            ctx.after_commit(lambda: sessions.rename_user(old, new))
    return new


async def _repoint_user_stamps(ctx: Context, old: str, new: str) -> None:
    """`owner` and `modified_by` of every record (child rows too) follow a renamed user, as in Frappe:
    `if_owner` rights go with the user, and nobody later created under the old name inherits them."""
    for doctype in ctx.site.meta.names():
        meta = ctx.meta(doctype)
        if meta.istable:
            continue  # child rows live in their parents' records (below)
        for field in ("owner", "modified_by"):
            await store.update_many(ctx, meta, {field: old}, {"$set": {field: new}})
            for table in meta.table_fields:
                await store.update_many(ctx, meta, {f"{table.fieldname}.{field}": old},
                                        {"$set": {f"{table.fieldname}.$[row].{field}": new}},
                                        array_filters=[{f"row.{field}": old}])


def _refuse_standard_names(doctype: str, old: str, new: str) -> None:
    standard = STANDARD_NAMES.get(doctype, ())
    if old in standard:
        if doctype == "User":
            raise exc.ValidationError(_("User {0} cannot be renamed", old))
        raise exc.ValidationError(_("Standard roles cannot be renamed"))
    if new in standard:
        raise exc.ValidationError(_("Cannot rename or merge into the standard {0} {1}", _(doctype), new))


def _name_field(meta: Meta) -> DocFieldSchema | None:
    """The field a `field:<f>` naming rule copies the name from (it follows a rename)."""
    rule = meta.autoname.split(":", 1)
    if rule[0] != "field" or len(rule) != 2:
        return None
    return meta.get_field(rule[1].strip())


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
