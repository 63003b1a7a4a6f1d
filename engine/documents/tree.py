"""Tree doctypes: each document stores `_ancestors` (root first), so `descendants of` is one
indexed equality match and moving a subtree is one update of its descendants."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import exceptions as exc
from engine.documents import store
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument


async def ancestors_of(ctx: Context, doctype: str, name: str) -> list[str]:
    """The ancestors of `name`, root first (DoesNotExistError if it does not exist)."""
    meta = ctx.meta(doctype)
    record = await store.load(ctx, meta, name, {"_ancestors": 1})
    if record is None:
        raise exc.DoesNotExistError(_("{0} {1} not found", _(doctype), name))
    return list(record.get("_ancestors") or [])


async def ancestors_for(ctx: Context, doc: BaseDocument) -> list[str]:
    parent = doc.get(doc.meta.nsm_parent_field)
    if not parent:
        return []
    if parent == doc.name:
        raise exc.ValidationError(_("{0} cannot be its own parent", doc.name), field=doc.meta.nsm_parent_field)
    return [*await ancestors_of(ctx, doc.doctype, parent), parent]


async def move(ctx: Context, doc: BaseDocument) -> list[str]:
    """New `_ancestors` for a document whose parent changed; re-roots its descendants too."""
    new = await ancestors_for(ctx, doc)
    if doc.name in new:
        raise exc.ValidationError(_("{0} cannot be moved under its own descendant", doc.name),
                                  field=doc.meta.nsm_parent_field)
    prefix = [*new, doc.name]
    pipeline = [{"$set": {"_ancestors": {"$concatArrays": [
        prefix, {"$slice": ["$_ancestors", {"$add": [{"$indexOfArray": ["$_ancestors", doc.name]}, 1]}, 100_000]},
    ]}}}]
    await store.update_many(ctx, doc.meta, {"_ancestors": doc.name}, pipeline)
    return new
