"""Comments on documents (Frappe's Comment doctype, desk.md §4's form timeline): whoever may read a
document may comment on it and read its comments; the author alone edits or deletes a comment (a
System Manager may delete any), and only while they may still read the document. The Comment
doctype itself is the System Manager's: users go through these functions, which check the parent.
A deleted document takes its comments with it (`on_delete`, a core `after_delete` hook).
"""

from __future__ import annotations

from typing import Any

from engine import exceptions as exc
from engine import permissions
from engine.context import Context
from engine.documents import store
from engine.documents.base import BaseDocument
from engine.documents.factory import get_doc, new_doc
from engine.query.listing import get_value
from engine.translation import _

COMMENT = "Comment"
MAX_LENGTH = 100_000  # characters of one comment
SHOWN = 100  # the newest, in a form's docinfo
FIELDS = ("name", "creation", "modified", "owner", "comment_type", "comment_email", "comment_by", "content")


def _content(content: Any) -> str:
    if not isinstance(content, str) or not content.strip():
        raise exc.ValidationError(_("A comment needs some text"), field="content")
    if len(content) > MAX_LENGTH:
        raise exc.ValidationError(_("A comment may hold at most {0} characters", MAX_LENGTH), field="content")
    return content


async def _parent_readable(ctx: Context, doctype: str, name: str) -> None:
    ctx.meta(doctype)  # unknown doctype: 404
    parent = await get_doc(ctx, doctype, name)  # unknown document: 404
    await permissions.check_document(ctx, parent, "read")


def as_dict(doc: Any) -> dict[str, Any]:
    return {key: doc.get(key) for key in FIELDS} | {"reference_doctype": doc.get("reference_doctype"),
                                                  "reference_name": doc.get("reference_name")}


async def add(ctx: Context, doctype: str, name: str, content: Any) -> dict[str, Any]:
    text = _content(content)
    await _parent_readable(ctx, doctype, name)
    full_name = await _full_name(ctx)
    comment = new_doc(ctx, COMMENT, comment_type="Comment", reference_doctype=doctype, reference_name=name,
                      comment_email=ctx.user, comment_by=full_name, content=text)
    await comment.insert(ignore_permissions=True)
    return as_dict(comment)


async def _own(ctx: Context, name: str, *, delete: bool = False) -> Any:
    comment = await get_doc(ctx, COMMENT, name)
    await _parent_readable(ctx, comment.get("reference_doctype"), comment.get("reference_name"))
    mine = comment.get("owner") == ctx.user
    if not mine and not (delete and (ctx.is_admin or "System Manager" in await ctx.roles())):
        raise exc.PermissionError(_("Only its author may change a comment"))
    if comment.get("comment_type") != "Comment":
        raise exc.ValidationError(_("Only comments can be changed"))
    return comment


async def update(ctx: Context, name: str, content: Any) -> dict[str, Any]:
    text = _content(content)
    comment = await _own(ctx, name)
    comment.content = text
    await comment.save(ignore_permissions=True)
    return as_dict(comment)


async def delete(ctx: Context, name: str) -> None:
    comment = await _own(ctx, name, delete=True)
    await comment.delete(ignore_permissions=True)


async def for_document(ctx: Context, doctype: str, name: str) -> tuple[list[dict[str, Any]], int]:
    """The newest comments of a document (the caller may read it: the caller checks), and how many."""
    coll = store.collection(ctx, ctx.meta(COMMENT))
    query = {"reference_doctype": doctype, "reference_name": name, "comment_type": "Comment"}
    cursor = coll.find(query, {f: 1 for f in FIELDS if f != "name"}, session=ctx.read_session()).sort(
        [("creation", -1), ("_id", -1)]).limit(SHOWN)
    rows = [{"name": r["_id"], **{f: r.get(f) for f in FIELDS if f != "name"}} async for r in cursor]
    total = await coll.count_documents(query, session=ctx.read_session())
    return rows, total


async def _full_name(ctx: Context) -> str:
    user = await get_value(ctx, "User", ctx.user, ["first_name", "last_name"], as_dict=True)
    if isinstance(user, dict):
        name = " ".join(p for p in (user.get("first_name"), user.get("last_name")) if p)
        if name:
            return name
    return ctx.user


async def delete_for(ctx: Context, doc: BaseDocument) -> int:
    """Delete every Comment on `doc` (of any comment_type), in the caller's unit of work; how many.
    Permissions are not checked again: whoever may delete the document may drop its comments."""
    if doc.doctype == COMMENT or not doc.get("name"):
        return 0
    rows = await store.find(ctx, ctx.meta(COMMENT), {"reference_doctype": doc.doctype, "reference_name": doc.name},
                            projection={"_id": 1})
    for row in rows:
        await (await get_doc(ctx, COMMENT, row["_id"])).delete(ignore_permissions=True)
    return len(rows)


async def on_delete(doc: BaseDocument, method: str) -> None:
    """doc_events["*"]["after_delete"] of the core (engine/core/hooks.py)."""
    await delete_for(doc.ctx, doc)
