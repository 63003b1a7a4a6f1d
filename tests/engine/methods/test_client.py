"""engine/methods/client.py at the engine level: `count_rows`, v2's count."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.methods.client import count_rows


async def test_count_rows_counts_what_the_caller_may_read(ctx: Context) -> None:
    async with unit_of_work(ctx):
        for title in ("a", "b", "c"):
            await new_doc(ctx, "Test Note", title=title).insert()
        await new_doc(ctx, "User", email="nobody@example.com", first_name="n").insert()
    assert await count_rows(ctx, "Test Note") == 3
    assert await count_rows(ctx, "Test Note", '{"title": "a"}') == 1  # JSON text, as a request sends it
    assert await count_rows(ctx, "Test Note", None, [["title", "=", "a"], ["title", "=", "b"]]) == 2
    with pytest.raises(exc.PermissionError):
        await count_rows(ctx.site.context("nobody@example.com"), "Test Note")
    with pytest.raises(exc.DataError, match="single or child"):
        await count_rows(ctx, "Test Settings")
    with pytest.raises(exc.DataError, match="single or child"):
        await count_rows(ctx, "Test Order Item")
    with pytest.raises(exc.DataError) as raised:
        await count_rows(ctx, "Test Note", "{not json")
    assert raised.value.field == "filters"
    with pytest.raises(exc.DoesNotExistError):
        await count_rows(ctx, "No Such Doctype")
