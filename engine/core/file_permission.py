"""Who may see and change a File record: its row rule, applied by the permission component
(`engine.permissions`) to single documents, lists and counts alike.

- a System Manager (and Administrator): every File;
- the File's owner: their own Files;
- anyone else: a File attached to a document they may read (to change or delete it: a document
  they may write), as in Frappe's `file.has_permission`;
- creating a File attached to a document needs write permission on that document.

A public file's *content* is readable by anyone at its `/files/` URL; the *record* follows this
rule. For lists the rule becomes a filter: owner, or attached to a doctype the user may read in
full, or attached to one of the (few) documents of a row-restricted doctype the user may read.
`has_permission` hooks of the attached doctype are judged for single Files only (lists of any
doctype apply row conditions, not hooks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine import permissions
from engine.documents import store
from engine.documents.factory import get_doc
from engine.query import listing
from engine.query.ast import And, Cond, Node, Op, Or

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument
    from engine.meta.schema import Meta

MANAGER = "System Manager"
READ_RIGHTS = frozenset({"read", "select", "report", "export", "print", "email", "share"})


async def has_permission(ctx: Context, doc: BaseDocument, ptype: str) -> bool:
    if MANAGER in await ctx.roles():
        return True
    target = (doc.get("attached_to_doctype"), doc.get("attached_to_name"))
    if doc.is_new():
        return await _may_attach(ctx, *target)
    stored = (doc.stored_value("attached_to_doctype"), doc.stored_value("attached_to_name"))
    mine = doc.stored_value("owner") == ctx.user
    if ptype in READ_RIGHTS:
        return mine or await _can(ctx, *stored, "read")
    if not (mine or await _can(ctx, *stored, "write")):
        return False
    # moving a File onto another document needs write permission there too
    return target == stored or await _may_attach(ctx, *target)


async def _may_attach(ctx: Context, doctype: Any, name: Any) -> bool:
    """Write permission on the document a new File is attached to. A target that does not exist is
    left to the File's validation, which names what is wrong (a 417, not a 403)."""
    if not doctype or not name or not isinstance(doctype, str) or not ctx.site.meta.exists(doctype):
        return True
    meta = ctx.meta(doctype)
    if meta.istable or meta.name == "File":
        return True
    if not meta.issingle and await store.load(ctx, meta, str(name), {"_id": 1}) is None:
        return True
    return await _can(ctx, doctype, name, "write")


async def _can(ctx: Context, doctype: Any, name: Any, ptype: str) -> bool:
    """Whether the user holds `ptype` on the stored document `doctype`/`name`."""
    if not doctype or not name or doctype == "File" or not ctx.site.meta.exists(doctype):
        return False
    if ctx.meta(doctype).istable:
        return False
    try:
        target = await get_doc(ctx, doctype, str(name))
    except exc.DoesNotExistError:
        return False
    return await permissions.has_permission(ctx, doctype, ptype, target)


async def query_conditions(ctx: Context, meta: Meta) -> Node | None:
    """The rule as a filter on File lists and counts (None: no restriction)."""
    if MANAGER in await ctx.roles():
        return None
    files = store.collection(ctx, meta)
    session = ctx.read_session()
    options: list[Node] = [Cond("owner", Op.EQ, ctx.user)]
    whole: list[str] = []
    for doctype in sorted(d for d in await files.distinct("attached_to_doctype", session=session)
                          if isinstance(d, str)):
        if doctype == "File" or not ctx.site.meta.exists(doctype):
            continue
        target = ctx.meta(doctype)
        if target.istable or not await permissions.has_permission(ctx, doctype, "read"):
            continue
        restriction = None if target.issingle else await permissions.row_filter(ctx, target)
        if restriction is None:
            whole.append(doctype)
            continue
        attached = [n for n in await files.distinct("attached_to_name", {"attached_to_doctype": doctype},
                                                   session=session) if isinstance(n, str)]
        readable = await listing.get_list(ctx, doctype, filters=[["name", "in", attached]], pluck="name",
                                          limit_page_length=0) if attached else []
        if readable:
            options.append(And((Cond("attached_to_doctype", Op.EQ, doctype),
                                Cond("attached_to_name", Op.IN, tuple(readable)))))
    if whole:
        options.append(Cond("attached_to_doctype", Op.IN, tuple(whole)))
    return options[0] if len(options) == 1 else Or(tuple(options))
