"""A clean copy of a stored document, to post as a new one (v2's `/document/<dt>/<name>/copy`, after
`frappe.copy_doc`): what a copy must not carry over is decided here, the route only renders it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.context import Context
from engine.meta.schema import DocFieldSchema
from engine.methods import client

# what a copy must not carry over: identity, authorship, state and amendment links (frappe.copy_doc)
COPY_DROPPED = frozenset({"name", "owner", "creation", "modified", "modified_by", "docstatus", "amended_from",
                          "amendment_date"})
# a child row also leaves its parent behind: the new document's insert sets them
COPY_ROW_DROPPED = COPY_DROPPED | {"parent", "parenttype", "parentfield"}


async def copy_doc(ctx: Context, doctype: str, name: str) -> dict[str, Any]:
    """The document as a new one's body: the read right needed (404 or 403 first); no identity,
    authorship, state or amendment link, no `no_copy` field, child rows without their names and
    parents, no nulls, and only the fields the caller may read."""
    doc = await client.load_for(ctx, doctype, name)
    data = await client.readable_dict(ctx, doc, no_nulls=True)
    meta = doc.meta
    out = _without(data, COPY_DROPPED, meta.fields)
    for field in meta.table_fields:
        if field.fieldname in out:
            child_fields = ctx.meta(field.options or "").fields
            out[field.fieldname] = [_without(row, COPY_ROW_DROPPED, child_fields) for row in out[field.fieldname]]
    return out


def _without(data: dict[str, Any], dropped: frozenset[str], fields: Iterable[DocFieldSchema]) -> dict[str, Any]:
    no_copy = {f.fieldname for f in fields if f.no_copy}
    return {k: v for k, v in data.items() if k not in dropped and k not in no_copy}
