"""Tree doctypes: `_ancestors` kept on every node; `descendants of` / `ancestors of` queries."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context
from engine.documents.factory import get_doc, new_doc
from engine.query.listing import get_list


async def build(ctx: Context) -> None:
    for name, parent in [("All", None), ("Tools", "All"), ("Hammers", "Tools"), ("Claw", "Hammers"),
                         ("Food", "All"), ("Fruit", "Food")]:
        await new_doc(ctx, "Test Category", category_name=name, parent_test_category=parent).insert()


async def names(ctx: Context, filters: object) -> list[str]:
    return sorted(await get_list(ctx, "Test Category", filters=filters, pluck="name", limit_page_length=0))


async def test_descendants_and_ancestors(ctx: Context) -> None:
    await build(ctx)
    assert await names(ctx, [["name", "descendants of", "Tools"]]) == ["Claw", "Hammers"]
    assert await names(ctx, [["name", "ancestors of", "Claw"]]) == ["All", "Hammers", "Tools"]
    assert await names(ctx, [["name", "not descendants of", "All"]]) == ["All"]
    assert await names(ctx, [["name", "not ancestors of", "Hammers"]]) == ["Claw", "Food", "Fruit", "Hammers"]


async def test_moving_a_subtree_updates_descendants(ctx: Context) -> None:
    await build(ctx)
    hammers = await get_doc(ctx, "Test Category", "Hammers")
    hammers.parent_test_category = "Food"
    await hammers.save()
    assert await names(ctx, [["name", "descendants of", "Food"]]) == ["Claw", "Fruit", "Hammers"]
    assert await names(ctx, [["name", "ancestors of", "Claw"]]) == ["All", "Food", "Hammers"]
    assert await names(ctx, [["name", "descendants of", "Tools"]]) == []


async def test_cycles_are_refused(ctx: Context) -> None:
    await build(ctx)
    tools = await get_doc(ctx, "Test Category", "Tools")
    tools.parent_test_category = "Claw"
    with pytest.raises(exc.ValidationError, match="descendant"):
        await tools.save()
    with pytest.raises(exc.LinkExistsError):
        await (await get_doc(ctx, "Test Category", "Tools")).delete()


async def test_ancestors_of_unknown_node(ctx: Context) -> None:
    await build(ctx)
    with pytest.raises(exc.DoesNotExistError):
        await names(ctx, [["name", "ancestors of", "Nope"]])
