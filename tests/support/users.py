"""Users for engine tests: created through the engine by the given context, their roles made as Role
documents when missing; the returned context acts as the new user."""

from __future__ import annotations

from typing import Any

from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc


async def user_context(ctx: Context, email: str, *roles: str, **fields: Any) -> Context:
    async with unit_of_work(ctx):  # (joins the caller's unit of work when there is one)
        for role in roles:
            if await ctx.db.collection("role").find_one({"_id": role}) is None:
                await new_doc(ctx, "Role", role_name=role).insert()
        fields.setdefault("send_welcome_email", 0)  # (tests that want the welcome mail ask for it)
        await new_doc(ctx, "User", email=email, first_name=email.split("@")[0],
                      roles=[{"role": r} for r in roles], **fields).insert()
    ctx.site.forget_roles(email)  # role lists are cached per process for a moment
    return ctx.site.context(email)
