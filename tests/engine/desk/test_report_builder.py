"""The report view's data (engine/desk/report_builder.py through fw.desk.reportview.*): picked
columns incl. child-table fields, sort and filters, group-by with count / sum / average run by
get_list's aggregation pipeline with the caller's permissions; bad input named; saved reports
shared by role."""

from __future__ import annotations

from typing import Any

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.desk import report_builder
from engine.documents.factory import new_doc
from engine.methods import report_builder as methods


async def _notes(ctx: Context, *rows: dict[str, Any]) -> None:
    async with unit_of_work(ctx):
        for row in rows:
            await new_doc(ctx, "Test Note", **row).insert()


async def _user(ctx: Context, email: str, roles: list[str]) -> Context:
    async with unit_of_work(ctx):
        for role in roles:
            if not await ctx.db.collection("role").find_one({"_id": role}):
                await new_doc(ctx, "Role", role_name=role).insert()
        await new_doc(ctx, "User", email=email, first_name="U", roles=[{"role": r} for r in roles]).insert()
    return ctx.site.context(email)


NOTES = [{"title": "a", "status": "Open", "count": 2, "amount": 10.0},
         {"title": "b", "status": "Open", "count": 4, "amount": 5.5},
         {"title": "c", "status": "Closed", "count": 9, "amount": 1.0}]


async def test_columns_sort_filters_and_paging(ctx: Context) -> None:
    await _notes(ctx, *NOTES)
    got = await report_builder.get(ctx, "Test Note", fields=["title", "count", "status"], order_by="count desc",
                                   filters=[["status", "=", "Open"]])
    assert got == {"keys": ["title", "count", "status"], "values": [["b", 4, "Open"], ["a", 2, "Open"]]}
    page = await report_builder.get(ctx, "Test Note", fields=["title"], order_by="title asc", start=1, page_length=1)
    assert page["values"] == [["b"]]


async def test_child_table_fields(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="ACME").insert()
        await new_doc(ctx, "Test Order", customer="ACME", posting_date="2026-01-02",
                      items=[{"item": "Bolt", "qty": 3}, {"item": "Nut", "qty": 5}]).insert()
    got = await report_builder.get(ctx, "Test Order", fields=["name", "customer", "items.item", "items.qty"])
    assert got["keys"] == ["name", "customer", "items.item", "items.qty"]
    assert got["values"][0][1:] == ["ACME", ["Bolt", "Nut"], [3, 5]]


async def test_group_by_count_sum_and_average(ctx: Context) -> None:
    await _notes(ctx, *NOTES)
    counted = await report_builder.get(ctx, "Test Note", group_by="status")
    assert counted == {"keys": ["status", "count"], "values": [["Open", 2], ["Closed", 1]]}
    summed = await report_builder.get(ctx, "Test Note", group_by="status", aggregate_function="sum",
                                      aggregate_on_field="count")
    assert summed["keys"] == ["status", "count", "_aggregate_column"]
    assert sorted(summed["values"]) == [["Closed", 1, 9], ["Open", 2, 6]]
    assert summed["values"][0][0] == "Closed"  # the largest sum first
    averaged = await report_builder.get(ctx, "Test Note", group_by="status", aggregate_function="avg",
                                        aggregate_on_field="amount", filters=[["status", "=", "Open"]])
    assert averaged["values"] == [["Open", 2, 7.75]]


@pytest.mark.parametrize(("args", "error", "named"), [
    ({"group_by": "nonexistent"}, exc.DataError, "nonexistent"),
    ({"group_by": "status", "aggregate_function": "sum", "aggregate_on_field": "title"}, exc.DataError, "title"),
    ({"group_by": "status", "aggregate_function": "median", "aggregate_on_field": "count"}, exc.DataError, "median"),
    ({"group_by": "status", "aggregate_function": "sum", "aggregate_on_field": "nope"}, exc.DataError, "nope"),
    ({"group_by": {"$ne": 1}}, exc.DataError, "group_by"),
])
async def test_bad_input_is_named(ctx: Context, args: dict[str, Any], error: type[Exception], named: str) -> None:
    await _notes(ctx, *NOTES)
    with pytest.raises(error) as caught:
        await report_builder.get(ctx, "Test Note", **args)
    assert named in str(caught.value.message if isinstance(caught.value, exc.FwError) else caught.value)


async def test_permissions_apply(ctx: Context) -> None:
    await _notes(ctx, *NOTES)
    reader = await _user(ctx, "reader@example.com", ["Test Reader"])
    with pytest.raises(exc.PermissionError, match="reviewer_note"):
        await report_builder.get(reader, "Test Note", group_by="reviewer_note")
    owner = await _user(ctx, "owner@example.com", ["Test Owner"])
    async with unit_of_work(owner):
        await new_doc(owner, "Test Note", title="mine", status="Open", count=1).insert()
    assert (await report_builder.get(owner, "Test Note", group_by="status"))["values"] == [["Open", 1]]
    stranger = await _user(ctx, "stranger@example.com", ["Test Category Reader"])
    with pytest.raises(exc.PermissionError):
        await report_builder.get(stranger, "Test Note", fields=["title"])


async def test_save_share_and_open(ctx: Context) -> None:
    settings = {"fields": ["title", "count"], "filters": [["status", "=", "Open"]], "order_by": "count desc",
                "group_by": "status", "aggregate_function": "sum", "aggregate_on_field": "count"}
    reader = await _user(ctx, "reader@example.com", ["Test Reader"])
    await _user(ctx, "owner@example.com", ["Test Owner"])
    assert await methods.save_report(ctx, "Open notes", "Test Note", settings, ["Test Reader"]) == "Open notes"
    await methods.save_report(ctx, "Private", "Test Note", {"fields": ["title"]}, ["Test Owner"])
    assert await methods.get_reports(reader, "Test Note") == [{"name": "Open notes"}]
    opened = await methods.get_report(reader, "Open notes")
    assert opened["ref_doctype"] == "Test Note" and opened["json"]["aggregate_on_field"] == "count"
    with pytest.raises(exc.PermissionError, match="Private"):
        await methods.get_report(reader, "Private")
    with pytest.raises(exc.DataError, match="title"):  # what cannot run is not saved
        await methods.save_report(ctx, "Bad", "Test Note", {"group_by": "status", "aggregate_function": "sum",
                                                            "aggregate_on_field": "title"})
    with pytest.raises(exc.DuplicateEntryError):
        await methods.save_report(ctx, "Open notes", "Test Order", {"fields": ["name"]})
    await methods.save_report(ctx, "Open notes", "Test Note", {"fields": ["title"]}, [])
    assert {"name": "Open notes"} in await methods.get_reports(reader, "Test Note")


async def test_equal_groups_come_in_the_order_of_their_value(ctx: Context) -> None:
    """Two reads of the same data list the groups alike (the Desk's table and an API client agree)."""
    await _notes(ctx, {"title": "x", "status": "Open", "count": 1}, {"title": "y", "status": "Closed", "count": 1})
    got = await report_builder.get(ctx, "Test Note", group_by="status", aggregate_function="sum",
                                   aggregate_on_field="count")
    assert got["values"] == [["Closed", 1, 1], ["Open", 1, 1]]
