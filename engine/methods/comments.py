"""Comments under Frappe's paths (`frappe.desk.form.utils.add_comment` / `update_comment`) and fw's
`delete_comment`; engine/desk/comments.py has the rules (the parent document's read permission; the
author edits and deletes their own)."""

from __future__ import annotations

from typing import Any

from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.desk import comments


@whitelist(path="fw.desk.form.utils.add_comment", methods=["POST"])
async def add_comment(ctx: Context, reference_doctype: str, reference_name: str, content: str,
                      comment_email: str | None = None, comment_by: str | None = None) -> dict[str, Any]:
    """Comment on a document the caller may read; the new Comment. `comment_email`/`comment_by` are
    accepted for Frappe's clients and ignored: a comment is always the caller's."""
    return await comments.add(ctx, reference_doctype, reference_name, content)


@whitelist(path="fw.desk.form.utils.update_comment", methods=["POST", "PUT"])
async def update_comment(ctx: Context, name: str, content: str) -> dict[str, Any]:
    """Change the text of one's own comment; the Comment as saved."""
    return await comments.update(ctx, name, content)


@whitelist(path="fw.desk.form.utils.delete_comment", methods=["POST", "DELETE"])
async def delete_comment(ctx: Context, name: str) -> None:
    """Delete one's own comment (a System Manager: any)."""
    await comments.delete(ctx, name)
