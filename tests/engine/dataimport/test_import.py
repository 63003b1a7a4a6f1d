"""Data Import end to end in the engine (business.md §3.1): the preview names every problem before
anything is written; the import writes each document in its own unit of work (a failed row stores
nothing, the others go in), logs each one, retries only the failed rows, updates only the given
columns, submits after import; the `import` right is needed."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.core import data_import as di
from engine.documents.factory import get_doc, new_doc
from engine.mail.queue import sendmail
from engine.query.listing import get_all
from tests.engine.dataimport.helpers import csv_bytes, data_import, xlsx_bytes
from tests.server.conftest import make_user

CUSTOMERS = "ID,Customer Name,Region,Credit Limit\n,Alpha,North,100\n,Beta,South,\"1,500\"\n,Gamma,East,20.5\n"


async def test_preview_names_problems_and_writes_nothing(ctx: Context) -> None:
    doc = await data_import(ctx, "Test Customer", "customers.csv", csv_bytes(CUSTOMERS + ",,West,3\n"))
    preview = await di.get_preview_from_template(ctx, doc.name)
    assert [c["map_to"] for c in preview["columns"]] == ["name", "customer_name", "region", "credit_limit"]
    assert preview["payload_count"] == 4
    assert preview["data"][0] == [2, "", "Alpha", "North", "100"]
    problems = preview["problems"]
    assert any(p.startswith("Row 3, column D (Credit Limit): 1,500 has a thousands separator") for p in problems)
    assert any(p.startswith("Row 5, column B (Customer Name): Customer Name is mandatory") for p in problems)
    assert await get_all(ctx, "Test Customer", pluck="name") == []


async def test_import_inserts_good_rows_logs_bad_ones_and_retries(ctx: Context) -> None:
    doc = await data_import(ctx, "Test Customer", "customers.csv", csv_bytes(CUSTOMERS))
    result = await di.run_data_import(ctx, doc.name)
    assert result == {"status": "Partial Success", "succeeded": 2, "failed": 1}
    assert sorted(await get_all(ctx, "Test Customer", pluck="name")) == ["Alpha", "Gamma"]
    assert (await get_doc(ctx, "Test Customer", "Gamma")).credit_limit == 20.5
    logs = await di.get_import_logs(ctx, doc.name)
    assert [(log["row_indexes"], log["success"], log["docname"]) for log in logs] == [
        ([2], 1, "Alpha"), ([3], 0, None), ([4], 1, "Gamma")]
    assert "Row 3, column D (Credit Limit)" in logs[1]["messages"][0]
    status = await di.get_import_status(ctx, doc.name)
    assert status == {"status": "Partial Success", "total_records": 3, "success": 2, "failed": 1}

    # the user fixes the file; a second start imports only the row that failed
    fixed = await data_import(ctx, "Test Customer", "fixed.csv", csv_bytes(CUSTOMERS.replace('"1,500"', "1500")))
    async with unit_of_work(ctx):
        stored = await get_doc(ctx, "Data Import", doc.name)
        stored.import_file = fixed.import_file
        await stored.save()
    result = await di.run_data_import(ctx, doc.name)
    assert result == {"status": "Success", "succeeded": 1, "failed": 0}
    assert sorted(await get_all(ctx, "Test Customer", pluck="name")) == ["Alpha", "Beta", "Gamma"]
    assert [(log["row_indexes"], log["success"]) for log in await di.get_import_logs(ctx, doc.name)] == [
        ([2], 1), ([3], 1), ([4], 1)]  # in the order of the file
    with pytest.raises(exc.ValidationError):
        await di.form_start_import(ctx, doc.name)  # complete: nothing left to import


async def test_a_row_refused_by_the_lifecycle_stores_nothing(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Alpha").insert()
    doc = await data_import(ctx, "Test Customer", "dupes.csv",
                            csv_bytes("Customer Name,Region\nAlpha,North\nDelta,Locked\nEpsilon,South\n"))
    await make_user(ctx, "importer@example.com", ["System Manager"])  # the Administrator passes every hook
    result = await di.run_data_import(ctx.site.context("importer@example.com"), doc.name)
    assert result["succeeded"] == 1 and result["failed"] == 2  # a duplicate name; a hook's refusal
    assert sorted(await get_all(ctx, "Test Customer", pluck="name")) == ["Alpha", "Epsilon"]
    logs = await di.get_import_logs(ctx, doc.name)
    assert logs[0]["messages"][0].startswith("Row 2")
    assert (await get_doc(ctx, "Test Customer", "Alpha")).region is None  # untouched


async def test_update_changes_only_the_given_columns(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Alpha", region="North", credit_limit=5).insert()
    doc = await data_import(ctx, "Test Customer", "update.xlsx", xlsx_bytes([["ID", "Credit Limit"], ["Alpha", 70]]),
                            import_type="Update Existing Records")
    assert (await di.run_data_import(ctx, doc.name))["status"] == "Success"
    alpha = await get_doc(ctx, "Test Customer", "Alpha")
    assert (alpha.credit_limit, alpha.region) == (70, "North")
    missing = await data_import(ctx, "Test Customer", "update.csv", csv_bytes("ID,Region\nNobody,South\n,East\n"),
                                import_type="Update Existing Records")
    assert (await di.run_data_import(ctx, missing.name))["status"] == "Error"
    messages = [m for log in await di.get_import_logs(ctx, missing.name) for m in log["messages"]]
    assert any("Nobody" in m for m in messages) and any("Row 3: the ID is empty" in m for m in messages)


async def test_links_child_rows_and_submit_after_import(ctx: Context) -> None:
    header = "Title,Status,Customer,Count"
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Known").insert()
    doc = await data_import(ctx, "Test Note", "notes.csv",
                            csv_bytes(f"{header}\nOne,Open,Known,1\nTwo,Open,Unknown,2\nThree,Maybe,,3\n"))
    preview = await di.get_preview_from_template(ctx, doc.name)
    assert any("Row 3, column C (Customer): Test Customer Unknown does not exist" in p for p in preview["problems"])
    assert any("Row 4, column B (Status): Maybe is not one of the options: Open, Closed" in p
               for p in preview["problems"])
    result = await di.run_data_import(ctx, doc.name)
    assert result["succeeded"] == 1
    assert await get_all(ctx, "Test Note", pluck="title") == ["One"]


async def test_the_import_right_is_needed(ctx: Context) -> None:
    doc = await data_import(ctx, "Test Customer", "customers.csv", csv_bytes(CUSTOMERS))
    await make_user(ctx, "reader@example.com", ["Test Reader", "System Manager"])
    reader = ctx.site.context("reader@example.com")
    # System Manager may import Test Customer; a user with only read may not
    await make_user(ctx, "plain@example.com", ["Test Reader"])
    with pytest.raises(exc.PermissionError):
        await di.get_preview_from_template(ctx.site.context("plain@example.com"), doc.name)
    assert (await di.get_preview_from_template(reader, doc.name))["payload_count"] == 3


async def test_mute_emails_reaches_sendmail(ctx: Context) -> None:
    muted = ctx.site.context("Administrator")
    muted.flags["mute_emails"] = True
    assert await sendmail(muted, ["a@example.com"], "Hello", "<p>x</p>") == ""
    assert await get_all(ctx, "Email Queue", pluck="name") == []
    assert await sendmail(ctx, ["a@example.com"], "Hello", "<p>x</p>")  # not muted: queued
    assert len(await get_all(ctx, "Email Queue", pluck="name")) == 1


async def test_a_link_the_user_may_not_read_is_a_problem(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Nord", region="North").insert()
        await new_doc(ctx, "Test Customer", customer_name="Sued", region="South").insert()
    await make_user(ctx, "regional@example.com", ["System Manager", "Test Regional"])  # reads North only
    regional = ctx.site.context("regional@example.com")
    doc = await data_import(ctx, "Test Note", "notes.csv", csv_bytes("Title,Customer\nA,Nord\nB,Sued\n"))
    problems = (await di.get_preview_from_template(regional, doc.name))["problems"]
    assert problems == ["Row 3, column B (Customer): Test Customer Sued does not exist or you may not use it"]
    assert (await di.get_preview_from_template(ctx, doc.name))["problems"] == []  # the Administrator may
