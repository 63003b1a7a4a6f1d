"""engine/query/listing.py: parsed and compiled list queries are remembered per meta, and what is
remembered never changes an answer (permissions, readable fields, errors and their order)."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context
from engine.documents.factory import new_doc
from engine.query import listing
from engine.query.listing import count, get_list
from tests.support.users import user_context

FILTERS = '[["status","=","Open"],["count",">=",2]]'


async def notes(ctx: Context) -> None:
    for i, status in enumerate(["Open", "Open", "Closed", "Open"]):
        await new_doc(ctx, "Test Note", title=f"n{i}", status=status, count=i, reviewer_note=f"r{i}").insert()


async def test_the_same_query_is_parsed_once(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    await notes(ctx)
    ctx.meta("Test Note").query_plans.clear()
    calls: list[object] = []
    parse = listing.parse_filters
    monkeypatch.setattr(listing, "parse_filters", lambda *a, **k: calls.append(a) or parse(*a, **k))
    first = await get_list(ctx, "Test Note", filters=FILTERS, fields='["title","count"]', order_by="count desc")
    again = await get_list(ctx, "Test Note", filters=FILTERS, fields='["title","count"]', order_by="count desc")
    assert first == again == [{"title": "n3", "count": 3}]
    assert len(calls) == 1
    assert await count(ctx, "Test Note", FILTERS) == 1  # count shares the filter plan
    assert len(calls) == 1
    # the same filters as Python objects: another key, the same answer
    assert await get_list(ctx, "Test Note", filters=[["status", "=", "Open"], ["count", ">=", 2]],
                          fields=["title", "count"], order_by="count desc") == first
    assert len(calls) == 2


async def test_values_that_are_not_json_are_never_remembered(ctx: Context) -> None:
    class Tag(str):  # a str subclass passes the filter checks, but its JSON would hide its type
        pass

    await new_doc(ctx, "Test Note", title="tagged", region="North").insert()
    plans = ctx.meta("Test Note").query_plans
    plans.clear()
    rows = await get_list(ctx, "Test Note", filters={"region": Tag("North")}, fields=["title"])
    assert rows == [{"title": "tagged"}]
    assert [key for key in plans if key[0] == "filter"] == []


async def test_a_remembered_filter_still_gets_each_users_row_conditions(ctx: Context) -> None:
    await notes(ctx)
    owner = await user_context(ctx, "owner@example.com", "Test Owner")
    await new_doc(owner, "Test Note", title="mine", status="Open", count=5).insert()
    ctx.meta("Test Note").query_plans.clear()
    everyone = await get_list(ctx, "Test Note", filters=FILTERS, fields=["title"], order_by="title asc")
    only_mine = await get_list(owner, "Test Note", filters=FILTERS, fields=["title"], order_by="title asc")
    everyone_again = await get_list(ctx, "Test Note", filters=FILTERS, fields=["title"], order_by="title asc")
    assert everyone == everyone_again == [{"title": "mine"}, {"title": "n3"}]
    assert only_mine == [{"title": "mine"}]


async def test_readable_fields_are_part_of_the_key(ctx: Context) -> None:
    await notes(ctx)
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    ctx.meta("Test Note").query_plans.clear()
    rows = await get_list(ctx, "Test Note", filters=FILTERS, fields=["title", "reviewer_note"])
    assert rows == [{"title": "n3", "reviewer_note": "r3"}]
    for _ in range(2):  # refused the first time and, from the remembered plan, the second time too
        with pytest.raises(exc.DataError, match="reviewer_note"):
            await get_list(reader, "Test Note", filters=FILTERS, fields=["title", "reviewer_note"])
        with pytest.raises(exc.DataError, match="reviewer_note"):
            await get_list(reader, "Test Note", filters=[["reviewer_note", "=", "r3"]])
    assert await get_list(reader, "Test Note", filters=FILTERS, fields=["title"]) == [{"title": "n3"}]


async def test_permission_errors_still_come_before_value_errors(ctx: Context) -> None:
    nobody = await user_context(ctx, "nobody@example.com")
    bad_value = [["count", ">", "many"]]
    for _ in range(2):
        with pytest.raises(exc.PermissionError):
            await get_list(nobody, "Test Note", filters=bad_value)
    with pytest.raises(exc.DataError, match="count"):
        await get_list(ctx, "Test Note", filters=bad_value)


async def test_the_plans_of_one_doctype_are_bounded(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listing, "PLANS_PER_DOCTYPE", 5)
    plans = ctx.meta("Test Note").query_plans
    plans.clear()
    for i in range(12):
        assert await get_list(ctx, "Test Note", filters={"count": i}) == []
        assert len(plans) <= 5


async def test_null_values_are_dropped_from_plain_and_child_columns(ctx: Context) -> None:
    await new_doc(ctx, "Test Note", title="bare").insert()
    rows = await get_list(ctx, "Test Note", fields=["title", "region", "name"], drop_nulls=True)
    assert list(rows[0]) == ["title", "name"]
    rows = await get_list(ctx, "Test Note", fields=["title", "region"], drop_nulls=False)
    assert rows == [{"title": "bare", "region": None}]
    grouped = await get_list(ctx, "Test Note", fields=["region", "count(*) as n"], group_by="region",
                             drop_nulls=True)
    assert grouped == [{"n": 1}]
