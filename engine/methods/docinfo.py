"""A form's `docinfo` (Frappe's `frappe.desk.form.load.get_docinfo`): what the Desk shows around a
document. fw keeps attachments (File), assignments (open ToDos), versions (Version, for
`track_changes` doctypes), comments (engine/desk/comments.py: the newest, with `total_comments`) and the
caller's rights; shares (DocShare); Frappe's other keys (tags...) are sent empty, so a Desk that reads
them finds what it expects.

Versions are cut to what the caller may read: a change to a field above the caller's permlevels,
or to a table it may not read, is left out (Frappe sends every change to everyone who can open the
form), and a version left with nothing is dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from engine import permissions
from engine.desk import assign_to
from engine.desk.comments import for_document
from engine.documents import store
from engine.meta.schema import RIGHTS
from engine.methods.share import shared_with

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.document import Document

SUBMIT_RIGHTS = frozenset({"submit", "cancel", "amend"})
VERSIONS_SHOWN = 10  # the newest ones, as Frappe's timeline loads them
ATTACHMENTS_SHOWN = 500
VERSION_PARTS = ("changed", "added", "removed", "row_changed")
# Frappe's docinfo keys that fw has nothing for yet: present, empty
EMPTY: dict[str, Any] = {
    "comments": [], "total_comments": 0, "communications": [], "automated_messages": [], "assignments": [],
    "assignment_logs": [], "attachment_logs": [], "shared": [], "share_logs": [], "info_logs": [],
    "like_logs": [], "workflow_logs": [], "views": [], "energy_point_logs": [], "milestones": [],
    "additional_timeline_content": [], "tags": "", "is_document_followed": 0, "document_email": None,
}


async def docinfo(ctx: Context, doc: Document) -> dict[str, Any]:
    versions = await readable_versions(ctx, doc)
    comments, total_comments = await for_document(ctx, doc.doctype, str(doc.name))
    attachments = await attached_files(ctx, doc)
    shared = await shared_with(ctx, doc.doctype, str(doc.name))
    users = {doc.get("owner"), doc.get("modified_by"), *(v["owner"] for v in versions),
             *(s["user"] for s in shared)} - {None}
    return {
        **EMPTY,
        "doctype": doc.doctype, "name": doc.name,
        "permissions": await doc_permissions(ctx, doc),
        "attachments": attachments,
        "versions": versions,
        "comments": comments, "total_comments": total_comments,
        "shared": shared,
        "assignments": await assign_to.assignments(ctx, doc.doctype, str(doc.name)),
        "user_info": await user_info(ctx, users | {c["owner"] for c in comments if c.get("owner")}),
    }


async def doc_permissions(ctx: Context, doc: Document) -> dict[str, int]:
    """Every right (Frappe's `get_doc_permissions`) as 0/1. A right no role grants costs nothing; a
    granted one re-checks `if_owner`, row conditions and `has_permission` hooks for that right."""
    submittable = doc.meta.is_submittable  # Frappe drops these rights of other doctypes, even for Administrator
    return {right: int((submittable or right not in SUBMIT_RIGHTS)
                       and await permissions.has_permission(ctx, doc.doctype, right, doc)) for right in RIGHTS}


async def attached_files(ctx: Context, doc: Document) -> list[dict[str, Any]]:
    """The Files attached to the document, oldest first (whoever may read a document may read its
    attachments: the File rule grants it)."""
    cursor = store.collection(ctx, ctx.meta("File")).find(
        {"attached_to_doctype": doc.doctype, "attached_to_name": doc.name},
        {"file_name": 1, "file_url": 1, "is_private": 1, "file_size": 1, "creation": 1, "owner": 1},
        session=ctx.read_session()).sort([("creation", 1), ("_id", 1)]).limit(ATTACHMENTS_SHOWN)
    return [{"name": r["_id"], "file_name": r.get("file_name"), "file_url": r.get("file_url"),
             "is_private": r.get("is_private", 0), "file_size": r.get("file_size"), "owner": r.get("owner"),
             "creation": r.get("creation")} async for r in cursor]


async def readable_versions(ctx: Context, doc: Document) -> list[dict[str, Any]]:
    """The newest Version records of the document, `data` as JSON text (as Frappe sends it)."""
    if not doc.meta.track_changes:
        return []
    readable = await permissions.readable_fields(ctx, doc.meta)
    rows = await permissions.readable_row_fields(ctx, doc.meta)
    cursor = store.collection(ctx, ctx.meta("Version")).find(
        {"ref_doctype": doc.doctype, "docname": doc.name}, {"data": 1, "owner": 1, "creation": 1},
        session=ctx.read_session()).sort([("creation", -1), ("_id", -1)]).limit(VERSIONS_SHOWN)
    out = []
    async for record in cursor:
        data = _visible(record.get("data") or {}, readable, rows)
        if data:
            out.append({"name": record["_id"], "owner": record.get("owner"), "creation": record.get("creation"),
                        "data": orjson.dumps(data).decode()})
    return out


def _visible(data: dict[str, Any], readable: frozenset[str] | None,
             rows: dict[str, frozenset[str]]) -> dict[str, Any] | None:
    """The version's data without changes to unreadable fields, nor to unreadable child-row fields
    (`rows`: the readable row fields of tables that hide some); None when nothing is left."""
    if readable is None:
        return data
    kept = {k: v for k, v in data.items() if k not in VERSION_PARTS}
    for part in VERSION_PARTS:
        if part in data:
            kept[part] = [_visible_entry(part, entry, rows) for entry in data[part] or [] if entry
                          and entry[0] in readable]
            kept[part] = [entry for entry in kept[part] if entry is not None]
    if not any(kept.get(k) for k in ("created", "docstatus", *VERSION_PARTS)):
        return None
    return kept


def _visible_entry(part: str, entry: list[Any], rows: dict[str, frozenset[str]]) -> list[Any] | None:
    """One `added`/`removed` ([table, row]) or `row_changed` ([table, idx, name, [[field, old, new]...]])
    entry without the row fields its table hides; None when a row change is left with none."""
    fields = rows.get(entry[0]) if part != "changed" else None
    if fields is None:
        return entry
    if part == "row_changed":
        changes = [change for change in entry[3] if change and change[0] in fields]
        return [*entry[:3], changes] if changes else None
    return [entry[0], permissions.without_hidden_row_fields(entry[1], fields)]


async def user_info(ctx: Context, users: set[str]) -> dict[str, dict[str, Any]]:
    """Full names of the users the form mentions (Frappe's `docinfo.user_info`)."""
    if not users:
        return {}
    found = {r["_id"]: r async for r in store.collection(ctx, ctx.meta("User")).find(
        {"_id": {"$in": sorted(users)}}, {"full_name": 1, "first_name": 1, "email": 1},
        session=ctx.read_session())}
    info = {}
    for user in sorted(users):
        record = found.get(user, {})
        info[user] = {"name": user, "fullname": record.get("full_name") or record.get("first_name") or user,
                      "email": record.get("email") or user, "image": None}
    return info
