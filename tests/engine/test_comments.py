"""Comments in the engine: a deleted document takes its comments with it (the core `after_delete`
hook, engine/core/hooks.py), in the same unit of work, and leaves other documents' comments alone."""

from __future__ import annotations

import pytest

from engine.context import Context, unit_of_work
from engine.desk import comments
from engine.documents.factory import get_doc, new_doc


async def stored(ctx: Context) -> set[tuple[str, str]]:
    coll = ctx.db.collection(ctx.meta("Comment").collection)
    return {(r["reference_name"], r["content"]) async for r in coll.find({"reference_doctype": "Test Note"})}


async def test_deleting_a_document_deletes_its_comments_in_the_same_unit_of_work(ctx: Context) -> None:
    doomed = await new_doc(ctx, "Test Note", title="doomed").insert()
    kept = await new_doc(ctx, "Test Note", title="kept").insert()
    await comments.add(ctx, "Test Note", str(doomed.name), "first")
    await comments.add(ctx, "Test Note", str(doomed.name), "second")
    await comments.add(ctx, "Test Note", str(kept.name), "stays")
    everything = {(doomed.name, "first"), (doomed.name, "second"), (kept.name, "stays")}
    assert await stored(ctx) == everything
    with pytest.raises(RuntimeError):  # a unit of work that fails after the delete keeps the comments
        async with unit_of_work(ctx):
            await (await get_doc(ctx, "Test Note", doomed.name)).delete()
            raise RuntimeError("later failure")
    assert await stored(ctx) == everything
    await (await get_doc(ctx, "Test Note", doomed.name)).delete()
    assert await stored(ctx) == {(kept.name, "stays")}
    assert await comments.for_document(ctx, "Test Note", str(doomed.name)) == ([], 0)
