"""Assign To (business.md §2.4): a ToDo per assignee of a document, and the document's `_assign`
(a JSON list of the users with an open ToDo on it, in the order they were assigned) kept in step, so
`[["_assign", "like", "%<user>%"]]` finds what is assigned to a user. Only a user who may read the
document can be assigned; the assignee gets a Notification Log (type Assignment) and, with
`notify`, a mail. Cancelling or deleting the document cancels its open ToDos (`on_cancel`,
`on_delete`: core hooks, engine/core/hooks.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from engine import exceptions as exc
from engine import permissions
from engine.context import Context, unit_of_work
from engine.documents import store
from engine.documents.factory import get_doc, new_doc
from engine.notifications import log, mail
from engine.query import listing
from engine.translation import _

if TYPE_CHECKING:
    from engine.documents.base import BaseDocument

TODO = "ToDo"
FIELD = "_assign"
OPEN = "Open"


def users_of(assign_to: Any) -> list[str]:
    """`assign_to` as a list of users: a list, or a JSON string of one (or a single user's name)."""
    value = assign_to
    if isinstance(value, str):
        text = value.strip()
        try:
            value = orjson.loads(text) if text.startswith("[") else [text] if text else []
        except orjson.JSONDecodeError:
            raise exc.DataError(_("Invalid JSON in {0}", "assign_to"), field="assign_to") from None
    if not isinstance(value, list) or not value or not all(isinstance(u, str) and u.strip() for u in value):
        raise exc.DataError(_("{0} must be a list of users", "assign_to"), field="assign_to")
    return list(dict.fromkeys(u.strip() for u in value))


async def _readable_document(ctx: Context, doctype: Any, name: Any) -> BaseDocument:
    if not isinstance(doctype, str) or not isinstance(name, str) or not doctype or not name:
        raise exc.DataError(_("{0} and {1} are required", "doctype", "name"), field="doctype")
    meta = ctx.meta(doctype)  # an unknown doctype: 404
    if meta.issingle or meta.istable:
        raise exc.ValidationError(_("{0} documents cannot be assigned", _(doctype)), field="doctype")
    doc = await get_doc(ctx, doctype, name)  # an unknown document: 404
    await permissions.check_document(ctx, doc, "read")
    return doc


async def open_assignees(ctx: Context, doctype: str, name: str) -> list[str]:
    rows = await listing.get_all(ctx, TODO, fields=["allocated_to"], order_by="creation asc",
                                 filters=[["reference_type", "=", doctype], ["reference_name", "=", name],
                                          ["status", "=", OPEN]])
    return list(dict.fromkeys(r["allocated_to"] for r in rows if r.get("allocated_to")))


async def sync(ctx: Context, doctype: str, name: str) -> list[str]:
    """Write the document's `_assign` from its open ToDos (without touching `modified`, as Frappe)."""
    users = await open_assignees(ctx, doctype, name)
    meta = ctx.meta(doctype)
    if not meta.issingle and not meta.istable:
        await store.update(ctx, meta, name, {FIELD: orjson.dumps(users).decode()})
    return users


async def assignments(ctx: Context, doctype: str, name: str) -> list[dict[str, Any]]:
    """The open ToDos of a document as the Desk's docinfo lists them (`owner` is the assignee)."""
    rows = await listing.get_all(ctx, TODO, fields=["name", "allocated_to", "description", "status"],
                                 order_by="creation asc",
                                 filters=[["reference_type", "=", doctype], ["reference_name", "=", name],
                                          ["status", "=", OPEN]])
    return [{"name": r["name"], "owner": r["allocated_to"], "description": r.get("description"),
             "status": r["status"]} for r in rows if r.get("allocated_to")]


async def group_counts(ctx: Context, doctype: str, filters: Any = None) -> list[dict[str, Any]]:
    """How many of the caller's rows matching `filters` are assigned to each user, the most first (the
    list sidebar's "Assigned To"); only rows with an assignment are read."""
    conditions = list(filters) if isinstance(filters, list) else [[k, "=", v] for k, v in (filters or {}).items()]
    rows = await listing.get_list(ctx, doctype, fields=["name", FIELD], filters=[*conditions, [FIELD, "is", "set"]],
                                  limit_page_length=0)
    counts: dict[str, int] = {}
    for row in rows:
        try:
            users = orjson.loads(row.get(FIELD) or "[]")
        except orjson.JSONDecodeError:
            continue
        for user in users if isinstance(users, list) else []:
            counts[str(user)] = counts.get(str(user), 0) + 1
    return [{"name": user, "count": n} for user, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))][:50]


async def add(ctx: Context, doctype: Any, name: Any, assign_to: Any, description: str | None = None,
              date: str | None = None, priority: str | None = None, notify: Any = 0) -> list[dict[str, Any]]:
    """Assign the document to each user of `assign_to` not already assigned; the open assignments."""
    users = users_of(assign_to)
    doc = await _readable_document(ctx, doctype, name)
    doctype, name = doc.doctype, str(doc.name)
    known = {r["name"]: r for r in await listing.get_all(ctx, "User", fields=["name", "enabled", "full_name"],
                                                          filters=[["name", "in", users]])}
    for user in users:
        record = known.get(user)
        if record is None or not record.get("enabled") or user == "Guest":
            raise exc.ValidationError(_("{0} is not an enabled user", user), field="assign_to")
        if not await permissions.has_permission(ctx.clone(user), doctype, "read", doc):
            raise exc.ValidationError(_("{0} may not read {1} {2}, so it cannot be assigned to them", user,
                                        _(doctype), name), field="assign_to")
    text = description or _("Assignment for {0} {1}", _(doctype), name)
    async with unit_of_work(ctx):
        already = set(await open_assignees(ctx, doctype, name))
        added = [u for u in users if u not in already]
        for user in added:
            todo = new_doc(ctx, TODO, allocated_to=user, description=text, reference_type=doctype,
                           reference_name=name, assigned_by=ctx.user, date=date or None,
                           priority=priority or "Medium", status=OPEN)
            await todo.insert(ignore_permissions=True)
        await sync(ctx, doctype, name)
        others = [u for u in added if u != ctx.user]  # no news for assigning oneself
        if others:
            subject = _("{0} assigned a new task {1} {2} to you", await _full_name(ctx, ctx.user), _(doctype),
                        _title(doc))
            await log.notify(ctx, others, type="Assignment", subject=subject, document_type=doctype,
                             document_name=name, email_content=text)
            if _truthy(notify):
                for user in others:
                    await mail.send(ctx, [user], subject, text, reference_doctype=doctype, reference_name=name)
        if already.intersection(users):
            ctx.msgprint(_("Already assigned to {0}", ", ".join(sorted(already.intersection(users)))))
    return await assignments(ctx, doctype, name)


async def remove(ctx: Context, doctype: Any, name: Any, assign_to: Any) -> list[dict[str, Any]]:
    """Cancel the user's open ToDo on the document; the open assignments that remain."""
    users = users_of(assign_to)
    doc = await _readable_document(ctx, doctype, name)
    doctype, name = doc.doctype, str(doc.name)
    async with unit_of_work(ctx):
        meta = ctx.meta(TODO)
        changed = await store.update_many(ctx, meta, {"reference_type": doctype, "reference_name": name,
                                                      "status": OPEN, "allocated_to": {"$in": users}},
                                          {"$set": {"status": "Cancelled"}})
        if not changed:
            raise exc.DoesNotExistError(_("{0} is not assigned to {1} {2}", ", ".join(users), _(doctype), name))
        await sync(ctx, doctype, name)
    return await assignments(ctx, doctype, name)


async def close_for(ctx: Context, doctype: str, name: str) -> None:
    """Cancel the open ToDos of a document that was cancelled or deleted."""
    if doctype == TODO:
        return
    await store.update_many(ctx, ctx.meta(TODO), {"reference_type": doctype, "reference_name": name,
                                                  "status": OPEN}, {"$set": {"status": "Cancelled"}})


async def on_cancel(doc: BaseDocument, event: str) -> None:
    """doc_events["*"]["on_cancel"] of the core: the cancelled document's ToDos are cancelled with it."""
    await close_for(doc.ctx, doc.doctype, str(doc.name))
    if doc.get(FIELD) not in (None, "[]"):
        await sync(doc.ctx, doc.doctype, str(doc.name))


async def on_delete(doc: BaseDocument, event: str) -> None:
    """doc_events["*"]["after_delete"] of the core: a deleted document's ToDos are cancelled."""
    await close_for(doc.ctx, doc.doctype, str(doc.name))


def _title(doc: BaseDocument) -> str:
    field = doc.meta.title_field
    value = doc.get(field) if field else None
    return str(value or doc.name)


async def _full_name(ctx: Context, user: str) -> str:
    return str(await listing.get_value(ctx, "User", user, "full_name") or user)


def _truthy(value: Any) -> bool:
    return str(value).strip().lower() not in ("", "0", "false", "none", "no")
