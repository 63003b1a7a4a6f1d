"""Sharing documents (Frappe's `frappe.share`) and reading User Permissions, under Frappe's paths.

Only a user who holds `share` on a document (by role or by a share) may share it or take a share
back, and never grant more than they hold: a right is granted only by someone who has it on that
document. A share always grants read.
"""

from __future__ import annotations

from typing import Any

from engine import exceptions as exc
from engine import permissions
from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.core.user_permission import forget_user_access
from engine.documents import store
from engine.documents.document import Document
from engine.documents.factory import get_doc, new_doc
from engine.methods.args import bool_arg
from engine.notifications.log import notify as notify_users
from engine.permissions import user_access
from engine.translation import _

DOCSHARE = "DocShare"
SHARE_FIELDS = ("name", "user", "read", "write", "submit", "share", "everyone", "owner", "creation")


async def _shareable(ctx: Context, doctype: str, name: str) -> Document:
    """The document, once the caller is found to hold `share` on it (403 otherwise)."""
    doc = await get_doc(ctx, doctype, name)
    if not await permissions.has_permission(ctx, doctype, "share", doc):
        raise exc.PermissionError(_("You need the {0} permission on {1} {2} to perform this action",
                                    _("share"), _(doctype), name))
    return doc


async def _existing(ctx: Context, doctype: str, name: str, user: str | None, everyone: bool) -> dict[str, Any] | None:
    query: dict[str, Any] = {"share_doctype": doctype, "share_name": name}
    query |= {"everyone": 1} if everyone else {"user": user, "everyone": {"$in": [0, None]}}
    return await store.find_one(ctx, ctx.meta(DOCSHARE), query, {"_id": 1})


@whitelist(path="fw.share.add", methods=["POST"])
async def add(ctx: Context, doctype: str, name: str, user: str | None = None, read: Any = 1, write: Any = 0,
              submit: Any = 0, share: Any = 0, everyone: Any = 0, notify: Any = 0) -> dict[str, Any]:
    """Share document `name` of `doctype` with `user` (or with everyone), granting read and the rights
    asked for; a second share with the same user updates the first. Answers the DocShare record."""
    doc = await _shareable(ctx, doctype, name)
    everyone_flag = bool_arg(everyone, "everyone")
    if not everyone_flag:
        if not user or not isinstance(user, str):
            raise exc.MandatoryError(_("Choose a user to share with, or share with everyone"), field="user")
        if user in ("Guest", "Administrator") or await store.load(ctx, ctx.meta("User"), user, {"_id": 1}) is None:
            raise exc.LinkValidationError(_("Could not find {0}: {1}", _("User"), user), field="user")
    rights = {"write": bool_arg(write, "write"), "submit": bool_arg(submit, "submit"),
              "share": bool_arg(share, "share")}
    if rights["submit"] and not doc.meta.is_submittable:
        raise exc.ValidationError(_("{0} cannot be submitted: it is not submittable", _(doctype)), field="submit")
    for right, wanted in rights.items():
        if wanted and not await permissions.has_permission(ctx, doctype, right, doc):
            raise exc.PermissionError(_("You cannot grant {0} on {1} {2}: you do not hold it", _(right), _(doctype),
                                        name), field=right)
    found = await _existing(ctx, doctype, name, user, everyone_flag)
    record = await get_doc(ctx, DOCSHARE, found["_id"]) if found else new_doc(
        ctx, DOCSHARE, user=None if everyone_flag else user, share_doctype=doctype, share_name=name,
        everyone=int(everyone_flag))
    record.update({"read": 1, **{right: int(wanted) for right, wanted in rights.items()}})
    await record.save(ignore_permissions=True)
    if bool_arg(notify, "notify") and not everyone_flag and user:  # the bell (and a mail) for who it is shared with
        await notify_users(ctx, [user], type="Share", document_type=doctype, document_name=name,
                           subject=_("{0} shared a document {1} {2} with you", ctx.user, _(doctype), name))
    return record.as_dict()


@whitelist(path="fw.share.remove", methods=["POST"])
async def remove(ctx: Context, doctype: str, name: str, user: str | None = None, everyone: Any = 0) -> None:
    """Take back the share of document `name` with `user` (or with everyone). A user may always give
    up a share of their own."""
    everyone_flag = bool_arg(everyone, "everyone")
    if everyone_flag or user != ctx.user:
        await _shareable(ctx, doctype, name)
    found = await _existing(ctx, doctype, name, user, everyone_flag)
    if found is None:
        raise exc.DoesNotExistError(_("{0} {1} is not shared with {2}", _(doctype), name,
                                      _("everyone") if everyone_flag else user))
    record = await get_doc(ctx, DOCSHARE, found["_id"])
    await record.delete(ignore_permissions=True)


@whitelist(path="fw.share.get_users")
async def get_users(ctx: Context, doctype: str, name: str) -> list[dict[str, Any]]:
    """Who document `name` is shared with, and what each share grants (the caller must read it)."""
    doc = await get_doc(ctx, doctype, name)
    await permissions.check_document(ctx, doc, "read")
    return await shared_with(ctx, doctype, name)


async def shared_with(ctx: Context, doctype: str, name: str) -> list[dict[str, Any]]:
    """The shares of one document, oldest first (the form's docinfo `shared`)."""
    records = await store.find(ctx, ctx.meta(DOCSHARE), {"share_doctype": doctype, "share_name": name},
                               projection={f: 1 for f in SHARE_FIELDS if f != "name"}, sort=[("creation", 1)])
    return [{"name": r["_id"], **{f: r.get(f) for f in SHARE_FIELDS if f != "name"}} for r in records]


async def on_delete(doc: Document, method: str | None = None) -> None:
    """A deleted document takes its shares with it, in the same unit of work (a core `after_delete`)."""
    meta = doc.meta
    if meta.istable or meta.issingle or meta.name == DOCSHARE or not doc.ctx.site.meta.exists(DOCSHARE):
        return
    ctx = doc.ctx
    share_meta = ctx.meta(DOCSHARE)
    found = await store.find(ctx, share_meta, {"share_doctype": meta.name, "share_name": doc.name},
                             projection={"user": 1, "everyone": 1})
    if not found:
        return
    # records, not documents: a share goes with its document, leaving no trace of its own
    await store.delete_many(ctx, share_meta, {"_id": {"$in": [r["_id"] for r in found]}})
    for user in {"" if r.get("everyone") else str(r.get("user") or "") for r in found}:
        forget_user_access(ctx, user)


@whitelist(path="fw.core.doctype.user_permission.user_permission.get_user_permissions")
async def get_user_permissions(ctx: Context, user: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """`{allow: [{doc, is_default, applicable_for}]}` of `user` (the caller's own by default; anyone's
    for a System Manager)."""
    user = user or ctx.user
    if user != ctx.user and not ctx.is_admin and "System Manager" not in await ctx.roles():
        raise exc.PermissionError(_("Only a System Manager may read another user's permissions"), field="user")
    access = await user_access.access_of(ctx.clone(user))
    out: dict[str, list[dict[str, Any]]] = {}
    for allow, entries in (access.entries if access else {}).items():
        out[allow] = [{"doc": e.value, "is_default": int(e.is_default), "applicable_for": e.applicable_for}
                      for e in entries]
    return out

