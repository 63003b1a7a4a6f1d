"""engine/methods/form_load.py at the engine level: v2's one-doctype meta is for logged-in users."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.methods.form_load import meta_for_user


async def test_meta_for_user_is_for_any_logged_in_user(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "User", email="nobody@example.com", first_name="n").insert()
    meta = await meta_for_user(ctx.site.context("nobody@example.com"), "Test Note")  # no role on it
    assert meta["name"] == "Test Note" and any(f["fieldname"] == "title" for f in meta["fields"])
    with pytest.raises(exc.PermissionError, match="log in"):
        await meta_for_user(ctx.site.context("Guest"), "Test Note")
    with pytest.raises(exc.DoesNotExistError):
        await meta_for_user(ctx, "No Such Doctype")
