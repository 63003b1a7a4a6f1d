"""engine/query `list_pages` (keyset paging, as the list export reads): the pages of any sort, ties
and nulls (and "" beside null) included, hold exactly the rows of one unpaged `get_list` in the same
order, under the same row rules; and the finds it sends skip nothing (MongoDB's profiler: no `skip`,
and with an index on the sort each page examines its own rows only)."""

from __future__ import annotations

from typing import Any

import pytest

from engine import exceptions as exc
from engine.context import Context
from engine.query.compile import compile_after
from engine.query.listing import get_list, list_pages
from tests.support.profiler import profiled_finds
from tests.support.users import user_context

DOCTYPE = "Test Note"  # sort_field: creation desc (index creation, _id)
ROWS = 61
PAGE = 7
FIELDS = ["name", "title", "region", "priority", "due", "owner"]

_MISSING = object()


def _record(i: int) -> dict[str, Any]:
    """Ties in every sort field, and null, a missing key and "" among the values."""
    region = ["North", None, "", "South", _MISSING, "North"][i % 6]
    priority = [1, None, 2, _MISSING, 1][i % 5]
    due = [f"2024-01-{1 + i % 3:02d}", None][i % 4 == 0]
    record = {"_id": f"N-{(i * 37) % ROWS:03d}", "title": f"note {i % 10}", "docstatus": 0, "idx": 0,
              "owner": ["Administrator", "owner@example.com"][i % 2], "modified_by": "Administrator",
              "creation": f"2024-01-01 00:00:{i % 4:02d}.000000", "modified": "2024-01-01 00:00:00.000000",
              "region": region, "priority": priority, "due": due}
    return {k: v for k, v in record.items() if v is not _MISSING}


@pytest.fixture
async def notes(ctx: Context) -> None:
    """Written straight into the collection: the order of what is stored, not the lifecycle, is under test."""
    await ctx.site.db.collection(ctx.meta(DOCTYPE).collection).insert_many([_record(i) for i in range(ROWS)])




async def _paged(ctx: Context, **kwargs: Any) -> list[list[Any]]:
    return [page async for page in list_pages(ctx, DOCTYPE, page_length=PAGE, **kwargs)]


ORDERS = [None, "region asc", "region desc", "priority desc, region asc", "due asc, priority asc",
          "due desc, title desc", "title asc, region desc, priority desc", "name desc", "creation asc"]


@pytest.mark.usefixtures("notes")
@pytest.mark.parametrize("order_by", ORDERS)
async def test_the_pages_are_one_unpaged_get_list(ctx: Context, order_by: str | None) -> None:
    whole = await get_list(ctx, DOCTYPE, fields=FIELDS, order_by=order_by, limit_page_length=0)
    assert len(whole) == ROWS
    pages = await _paged(ctx, fields=FIELDS, order_by=order_by)
    assert [len(p) for p in pages] == [PAGE] * (ROWS // PAGE) + [ROWS % PAGE]
    assert [row for page in pages for row in page] == whole
    listed = await _paged(ctx, fields=FIELDS, order_by=order_by, as_dict=False)
    assert [row for page in listed for row in page] == [[r[f] for f in FIELDS] for r in whole]


@pytest.mark.usefixtures("notes")
async def test_a_filter_and_an_exact_multiple_of_the_page(ctx: Context) -> None:
    filters = [["owner", "=", "owner@example.com"]]
    whole = await get_list(ctx, DOCTYPE, fields=FIELDS, filters=filters, order_by="region desc", limit_page_length=0)
    assert len(whole) == 30
    for length in (1, 5, 30, 31):  # the last page full, or one past the end
        pages = [p async for p in list_pages(ctx, DOCTYPE, fields=FIELDS, filters=filters, order_by="region desc",
                                             page_length=length)]
        assert [row for page in pages for row in page] == whole
        assert all(pages)  # no empty page after an exactly full one


@pytest.mark.usefixtures("notes")
async def test_row_rules_apply_to_every_page(ctx: Context) -> None:
    owner = await user_context(ctx, "owner@example.com", "Test Owner")  # if_owner: own notes only
    whole = await get_list(owner, DOCTYPE, fields=FIELDS, order_by="priority asc", limit_page_length=0)
    assert len(whole) == 30 and {r["owner"] for r in whole} == {"owner@example.com"}
    pages = await _paged(owner, fields=FIELDS, order_by="priority asc")
    assert [row for page in pages for row in page] == whole
    reader = await user_context(ctx, "nobody@example.com")
    with pytest.raises(exc.PermissionError):
        await _paged(reader, fields=FIELDS)


@pytest.mark.usefixtures("notes")
async def test_aggregates_and_bad_arguments_are_refused(ctx: Context) -> None:
    with pytest.raises(exc.DataError):
        await _paged(ctx, fields=["count(*)"])
    with pytest.raises(exc.DataError):
        [p async for p in list_pages(ctx, DOCTYPE, page_length=0)]
    with pytest.raises(exc.DataError):
        await _paged(ctx, fields=FIELDS, order_by="secret desc")


def test_after_a_null_in_each_direction() -> None:
    """The branches `compile_after` gives: null first ascending, last descending; "" is not null."""
    asc = [("region", 1), ("_id", 1)]
    assert compile_after(asc, {"region": None, "_id": "A"}) == {"$or": [
        {"region": {"$ne": None}}, {"region": {"$eq": None}, "_id": {"$gt": "A"}}]}
    assert compile_after(asc, {"region": "", "_id": "A"})["$or"][0] == {"region": {"$gt": ""}}
    desc = [("region", -1), ("_id", -1)]
    assert compile_after(desc, {"_id": "A"}) == {"region": {"$eq": None}, "_id": {"$lt": "A"}}
    assert compile_after(desc, {"region": "N", "_id": "A"}, {"owner": "x"}) == {"$and": [{"owner": "x"}, {"$or": [
        {"$or": [{"region": {"$lt": "N"}}, {"region": {"$eq": None}}]},
        {"region": {"$eq": "N"}, "_id": {"$lt": "A"}}]}]}


@pytest.mark.usefixtures("notes")
@pytest.mark.parametrize("order_by", [None, "region desc"])
async def test_no_page_skips(ctx: Context, order_by: str | None) -> None:
    async def run() -> None:
        assert sum(len(p) for p in await _paged(ctx, fields=FIELDS, order_by=order_by)) == ROWS

    finds = await profiled_finds(ctx, ctx.meta(DOCTYPE).collection, run)
    assert len(finds) == ROWS // PAGE + 1
    assert not any(entry["command"].get("skip") for entry in finds)
    if order_by is None:  # the sort index serves the order: each page reads its own rows, not those before it
        for entry in finds:
            assert not entry.get("hasSortStage"), entry["planSummary"]
            # (the merge of the OR branches' index scans reads ahead a little; an offset would read
            # every row before the page again: 56 for the last)
            assert entry["docsExamined"] <= 2 * PAGE, (entry["docsExamined"], entry["planSummary"])
