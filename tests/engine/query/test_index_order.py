"""engine/query (order_by's `_id` tie-breaker) and engine/migrate (indexes that end in `_id`): a list
whose filter and sort an index covers gets its order from that index, tie-breaker included — no
blocking SORT stage in mongod. Read from MongoDB's profiler, which records the plan the server used."""

from __future__ import annotations

from typing import Any

import pytest

from engine.context import Context
from engine.query.listing import get_list
from tests.support.profiler import profiled_finds

DOCTYPE = "Warehouse Violation"  # index [employee, date] and sort_field date DESC in its JSON


@pytest.fixture
async def violations(ctx: Context) -> None:
    """Documents written straight into the collection: the plan, not the lifecycle, is under test."""
    meta = ctx.meta(DOCTYPE)
    rows = [{"_id": f"WV-{i:04d}", "employee": f"E{i % 5}", "company": "C", "date": f"2024-01-{1 + i % 28:02d}",
             "penalty_points": float(i % 7), "docstatus": 0, "owner": "Administrator",
             "creation": "2024-01-01 00:00:00.000000", "modified": f"2024-01-01 00:00:{i % 60:02d}.000000"}
            for i in range(400)]
    await ctx.site.db.collection(meta.collection).insert_many(rows)


async def plans_of(ctx: Context, run: Any) -> list[dict[str, Any]]:
    """The profiler's entries for the finds `run` sends to the doctype's collection."""
    entries = await profiled_finds(ctx, ctx.meta(DOCTYPE).collection, run)
    assert entries, "the profiler saw no find"
    return entries


@pytest.mark.usefixtures("violations")
@pytest.mark.parametrize("order_by", ["date desc", "date asc", None])
async def test_an_index_that_covers_filter_and_sort_gives_the_order(ctx: Context, order_by: str | None) -> None:
    async def run() -> None:
        rows = await get_list(ctx, DOCTYPE, filters=[["employee", "=", "E1"], ["date", ">", "2024-01-05"]],
                              fields=["*"], order_by=order_by, limit_page_length=20)
        dates = [(r["date"], r["name"]) for r in rows]
        assert dates == sorted(dates, reverse=order_by != "date asc") and len(rows) == 20

    for entry in await plans_of(ctx, run):
        assert not entry.get("hasSortStage"), entry["planSummary"]
        assert entry["planSummary"] == "IXSCAN { employee: 1, date: 1, _id: 1 }"


@pytest.mark.usefixtures("violations")
async def test_the_doctypes_default_sort_is_served_by_its_sort_index(ctx: Context) -> None:
    async def run() -> None:
        rows = await get_list(ctx, DOCTYPE, fields=["name", "date"], limit_page_length=20)
        assert [r["date"] for r in rows] == sorted((r["date"] for r in rows), reverse=True)

    for entry in await plans_of(ctx, run):
        assert not entry.get("hasSortStage"), entry["planSummary"]
        assert entry["planSummary"] == "IXSCAN { date: 1, _id: 1 }"


@pytest.mark.usefixtures("violations")
async def test_a_sort_no_index_serves_is_seen_as_a_blocking_sort(ctx: Context) -> None:
    """The probe can fail: a sort on an unindexed field shows up as a SORT stage."""
    async def run() -> None:
        await get_list(ctx, DOCTYPE, filters={"employee": "E1"}, fields=["name"], order_by="penalty_points desc")

    assert all(entry.get("hasSortStage") for entry in await plans_of(ctx, run))
