"""The Desk's form loaders under Frappe's paths (`frappe.desk.form.load`): a doctype's meta bundle
and one document with its docinfo. As in Frappe, the payload goes in top-level response keys
(`docs`, `docinfo`, `user_settings`, `parent_dt`) set through `ctx.response`, not in `message`.
v2's `/doctype/<dt>/meta` answers one doctype's meta (`meta_for_user`) in `data`.
"""

from __future__ import annotations

from typing import Any

from engine import exceptions as exc
from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.desk.user_settings import stored_text
from engine.meta.bundle import doctype_meta, meta_bundle, parent_doctype
from engine.methods.args import bool_arg
from engine.methods.client import load_for, readable_dict
from engine.methods.docinfo import docinfo
from engine.translation import _


@whitelist(path="fw.desk.form.load.getdoctype")
async def getdoctype(ctx: Context, doctype: str, with_parent: Any = False,
                     cached_timestamp: str | None = None) -> str | None:
    """A doctype's meta and its child tables' metas in `docs` ("use_cache" when the caller's copy is current).

    `with_parent` (the report builder's call for a child table) loads the bundle of the first doctype
    holding such a table instead, named in `parent_dt`. `cached_timestamp` is the `modified` of the
    caller's cached meta: when it is still the doctype's, `message` is "use_cache" and `docs` is left out.
    """
    # only a child table has a parent, so an unknown doctype still gets its 404 from meta_bundle
    parent = parent_doctype(ctx, doctype) if bool_arg(with_parent, "with_parent") else None
    docs = await meta_bundle(ctx, parent or doctype)
    if parent:
        ctx.response["parent_dt"] = parent
    ctx.response["user_settings"] = await stored_text(ctx, parent or doctype)  # JSON text, as Frappe sends it
    if cached_timestamp and docs[0].get("modified") == cached_timestamp:
        return "use_cache"
    ctx.response["docs"] = docs
    return None


async def meta_for_user(ctx: Context, doctype: str) -> dict[str, Any]:
    """One doctype as the Desk reads it (v2's `/doctype/<dt>/meta`), for any logged-in user (Frappe:
    role "All"), as getdoctype is: a Guest is refused. Unknown doctype: 404."""
    if ctx.user == "Guest":
        raise exc.PermissionError(_("You are not permitted to access this resource: please log in"))
    return await doctype_meta(ctx, doctype)


@whitelist(path="fw.desk.form.load.getdoc")
async def getdoc(ctx: Context, doctype: str, name: str) -> None:
    """One document for a form in `docs` (as the caller may read it, nulls left out) and `docinfo`.

    Needs read permission on the document (row conditions included); a missing document is a 404.
    `docinfo` (engine.methods.docinfo): the caller's `permissions` on it (each right, 0/1),
    `attachments`, the `versions` it may read, `user_info`, and Frappe's other keys empty.
    """
    doc = await load_for(ctx, doctype, name, "read")
    ctx.response["docs"] = [await readable_dict(ctx, doc, no_nulls=True)]
    ctx.response["docinfo"] = await docinfo(ctx, doc)


@whitelist(path="fw.desk.form.load.get_docinfo")
async def get_docinfo(ctx: Context, doctype: str, name: str) -> None:
    """The form's `docinfo` alone (the Desk reloads it after an attachment or a save), in the
    top-level `docinfo` key. Needs read permission on the document."""
    doc = await load_for(ctx, doctype, name, "read")
    ctx.response["docinfo"] = await docinfo(ctx, doc)
