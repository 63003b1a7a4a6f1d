"""Script reports (contract §2.2 `fw.desk.query_report.run`, §4; interface spec "Script report"):
access by report role and `report` permission, the caller's row permissions, Frappe's column
string form, sync and async `execute`, and the standard Report record written by migrate."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engine import exceptions as exc
from engine.apps.registry import AppRegistry
from engine.context import Context, bind, unit_of_work
from engine.documents.factory import get_doc, new_doc
from engine.methods.desk import run_report
from engine.migrate import migrate
from engine.reports.script_report import ReportDef, run
from engine.site import Site
from tests.support.users import user_context

REPORT = "Test Note Summary"


async def make_note(ctx: Context, title: str, count: int = 0, status: str = "Open") -> str:
    async with unit_of_work(ctx):
        return str((await new_doc(ctx, "Test Note", title=title, count=count, status=status).insert()).name)


def report_def(execute: Any, **overrides: Any) -> ReportDef:
    values: dict[str, Any] = {"name": "Inline Report", "ref_doctype": "Test Note", "report_type": "Script Report",
                              "roles": (), "module": "FW Test", "app": "fwtest", "execute": execute,
                              "definition": {}}
    values.update(overrides)
    return ReportDef(**values)


# -- the registry and the response shape ----------------------------------------------------------

def test_fixture_app_report_is_registered(registry: AppRegistry) -> None:
    report = registry.reports[REPORT]
    assert report.ref_doctype == "Test Note"
    assert report.report_type == "Script Report"
    assert report.app == "fwtest"
    assert set(report.roles) == {"Test Reader", "Test Report Owner", "Test Reviewer"}
    assert callable(report.execute)


async def test_run_answers_frappe_shape(ctx: Context) -> None:
    await make_note(ctx, "alpha", 3)
    await make_note(ctx, "beta", 7)
    result = await run_report(ctx, REPORT, filters='{"status": "Open"}')
    assert {"result", "columns", "message", "chart", "report_summary", "skip_total_row", "status",
            "execution_time", "add_total_row"} <= set(result)
    assert result["message"] is None
    assert result["add_total_row"] is False and result["skip_total_row"] == 0
    assert [row["title"] for row in result["result"]] == ["beta", "alpha"]
    assert set(result["result"][0]) == {"note", "title", "count"}  # list rows become dicts in column order
    assert result["result"][0]["count"] == 7
    assert result["chart"]["type"] == "bar"
    assert result["chart"]["data"]["labels"] == ["beta", "alpha"]
    assert result["report_summary"] == [{"value": 2, "label": "Total", "datatype": "Int", "indicator": "Blue"}]
    assert isinstance(result["execution_time"], float)


async def test_filters_reach_execute(ctx: Context) -> None:
    await make_note(ctx, "open one")
    await make_note(ctx, "closed one", status="Closed")
    closed = await run_report(ctx, REPORT, filters={"status": "Closed"})
    assert [row["title"] for row in closed["result"]] == ["closed one"]
    everything = await run_report(ctx, REPORT)
    assert len(everything["result"]) == 2


async def test_no_data_gives_no_chart_and_empty_summary(ctx: Context) -> None:
    result = await run_report(ctx, REPORT)
    assert result["result"] == []
    assert result["chart"] is None
    assert result["report_summary"] == []


async def test_string_columns_are_expanded(ctx: Context) -> None:
    columns = (await run_report(ctx, REPORT))["columns"]
    assert columns[0] == {"label": "Note", "fieldname": "note", "fieldtype": "Link", "options": "Test Note",
                          "width": 140}
    assert columns[1] == {"fieldname": "title", "label": "Title", "fieldtype": "Data", "width": 200}
    assert columns[2] == {"label": "Count", "fieldname": "count", "fieldtype": "Int", "width": 80}


async def test_column_string_forms(ctx: Context) -> None:
    def execute(filters: Any) -> Any:
        return (["ID:Link/ToDo:90", "Priority::60", "Plain", "Grand Total:Currency", {"label": "Posting Date"}],
                [["T-1", 2, "x", 1.5, "2026-01-01"]])

    result = await run(ctx, report_def(execute), {})
    assert result["columns"] == [
        {"label": "ID", "fieldname": "id", "fieldtype": "Link", "options": "ToDo", "width": 90},
        {"label": "Priority", "fieldname": "priority", "fieldtype": "Data", "width": 60},
        {"label": "Plain", "fieldname": "plain", "fieldtype": "Data"},
        {"label": "Grand Total", "fieldname": "grand_total", "fieldtype": "Currency"},
        {"label": "Posting Date", "fieldname": "posting_date"},  # a dict without fieldname gets scrub(label)
    ]
    assert result["result"] == [{"id": "T-1", "priority": 2, "plain": "x", "grand_total": 1.5,
                                 "posting_date": "2026-01-01"}]


async def test_sync_execute_without_ctx_and_short_result(ctx: Context) -> None:
    seen: list[Any] = []

    def execute(filters: Any) -> Any:
        seen.append(filters)
        return [{"fieldname": "value", "label": "Value", "fieldtype": "Float"}], [{"value": filters.period}]

    result = await run(ctx, report_def(execute), {"period": "2026-03"})
    assert seen[0]["period"] == "2026-03" and seen[0].period == "2026-03"  # attribute access, like frappe._dict
    assert seen[0].missing is None
    assert result["result"] == [{"value": "2026-03"}]
    assert result["message"] is None and result["chart"] is None and result["report_summary"] is None


async def test_async_execute_receives_callers_ctx(ctx: Context) -> None:
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    users: list[str] = []

    async def execute(filters: Any, ctx: Context) -> Any:
        users.append(ctx.user)
        return ["User::100"], [[ctx.user]], "a message", None, []

    result = await run(reader, report_def(execute), None)
    assert users == ["reader@example.com"]
    assert result["result"] == [{"user": "reader@example.com"}]
    assert result["message"] == "a message"


async def test_execute_must_return_a_sequence(ctx: Context) -> None:
    with pytest.raises(exc.ConfigurationError, match="execute"):
        await run(ctx, report_def(lambda filters: "nonsense"), {})


async def test_add_total_row(ctx: Context) -> None:
    def execute(filters: Any) -> Any:
        return (["Item::100", "Qty:Int:60", "Amount:Currency:90", "Share:Percent:60", "Note::80"],
                [["a", 2, 10.5, 40, "x"], {"item": "b", "qty": 3, "amount": 4.5, "share": 60, "note": None}])

    result = await run(ctx, report_def(execute, definition={"add_total_row": 1}), {})
    assert result["add_total_row"] is True
    assert result["result"][-1] == ["Total", 5.0, 15.0, 50.0, ""]  # Frappe appends the total as a list
    assert len(result["result"]) == 3
    with bind(ctx.site.context("Administrator", lang="de")):
        german = await run(ctx, report_def(execute, definition={"add_total_row": 1}), {})
    assert german["result"][-1][0] == "Gesamt"

    def skipping(filters: Any) -> Any:
        return ["Qty:Int:60"], [[1]], None, None, None, True  # the sixth element: skip_total_row

    skipped = await run(ctx, report_def(skipping, definition={"add_total_row": 1}), {})
    assert skipped["result"] == [{"qty": 1}] and skipped["skip_total_row"] == 1
    empty = await run(ctx, report_def(lambda filters: (["Qty:Int:60"], []), definition={"add_total_row": 1}), {})
    assert empty["result"] == []  # nothing to total
    plain = await run(ctx, report_def(execute), {})
    assert plain["add_total_row"] is False and len(plain["result"]) == 2


# -- access ---------------------------------------------------------------------------------------

async def test_unknown_report_is_not_found(ctx: Context) -> None:
    with pytest.raises(exc.DoesNotExistError, match="No Such Report"):
        await run_report(ctx, "No Such Report")


async def test_report_role_and_report_permission_are_both_needed(ctx: Context) -> None:
    await make_note(ctx, "n1")
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    assert len((await run_report(reader, REPORT))["result"]) == 1

    # a report role, but no `report` right on Test Note (Test Reviewer may only read)
    reviewer = await user_context(ctx, "reviewer@example.com", "Test Reviewer")
    with pytest.raises(exc.PermissionError, match="report permission on Test Note"):
        await run_report(reviewer, REPORT)

    # the `report` right on Test Note (System Manager has it), but none of the report's roles
    manager = await user_context(ctx, "manager@example.com", "System Manager")
    with pytest.raises(exc.PermissionError, match="access to report Test Note Summary"):
        await run_report(manager, REPORT)

    nobody = await user_context(ctx, "nobody@example.com")
    with pytest.raises(exc.PermissionError):
        await run_report(nobody, REPORT)


async def test_report_without_roles_is_open_to_anyone_with_report_right(ctx: Context) -> None:
    manager = await user_context(ctx, "manager@example.com", "System Manager")
    result = await run(manager, report_def(lambda filters: (["X::10"], [[1]])), {})
    assert result["result"] == [{"x": 1}]
    plain = await user_context(ctx, "plain@example.com")
    with pytest.raises(exc.PermissionError):
        await run(plain, report_def(lambda filters: (["X::10"], [[1]])), {})


async def test_rows_obey_the_callers_row_permissions(ctx: Context) -> None:
    # Test Owner may create notes; both roles read (and report on) only the notes the user owns
    mine = await user_context(ctx, "mine@example.com", "Test Owner", "Test Report Owner")
    theirs = await user_context(ctx, "theirs@example.com", "Test Owner", "Test Report Owner")
    await make_note(ctx, "admin note")
    async with unit_of_work(mine):
        await new_doc(mine, "Test Note", title="my note", count=1).insert()
    async with unit_of_work(theirs):
        await new_doc(theirs, "Test Note", title="their note", count=2).insert()

    assert [r["title"] for r in (await run_report(mine, REPORT))["result"]] == ["my note"]
    assert [r["title"] for r in (await run_report(theirs, REPORT))["result"]] == ["their note"]
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    assert {r["title"] for r in (await run_report(reader, REPORT))["result"]} == {
        "admin note", "my note", "their note"}
    summary = (await run_report(mine, REPORT))["report_summary"]
    assert summary[0]["value"] == 1


async def test_messages_are_translated(ctx: Context) -> None:
    german = ctx.site.context("Administrator", lang="de")
    with bind(german), pytest.raises(exc.DoesNotExistError) as err:
        await run_report(german, "No Such Report")
    assert err.value.message == "Bericht No Such Report nicht gefunden"
    nobody = await user_context(ctx, "nobody@example.com")
    nobody.lang = "de-AT"
    with bind(nobody), pytest.raises(exc.PermissionError) as err:
        await run_report(nobody, REPORT)
    assert err.value.message == "Sie haben keinen Zugriff auf den Bericht Test Note Summary"


# -- the standard Report record ---------------------------------------------------------------------



async def migrate_with_report_roles(site: Site, *roles: str) -> Site:
    """Migrate a copy of `site` whose app declares the report with other roles."""
    changed = dataclasses.replace(site.apps.reports[REPORT], roles=roles)
    apps = dataclasses.replace(site.apps, reports={**site.apps.reports, REPORT: changed})
    resynced = Site(site.settings, site.db, apps)
    await migrate(resynced)
    return resynced


async def test_migrate_writes_standard_report_record(fresh_site: Site) -> None:
    await migrate(fresh_site)
    ctx = fresh_site.context("Administrator")
    record = await get_doc(ctx, "Report", REPORT)
    assert record.is_standard == "Yes"
    assert record.ref_doctype == "Test Note"
    assert record.report_type == "Script Report"
    assert record.module == "FW Test"
    assert sorted(row.role for row in record.roles) == ["Test Reader", "Test Report Owner", "Test Reviewer"]
    first_modified = record.modified

    await migrate(fresh_site)  # unchanged: not rewritten
    assert (await get_doc(ctx, "Report", REPORT)).modified == first_modified

    resynced = await migrate_with_report_roles(fresh_site, "Test Reader")
    again = await get_doc(resynced.context("Administrator"), "Report", REPORT)
    assert [row.role for row in again.roles] == ["Test Reader"]


async def test_a_disabled_report_is_refused_and_migrate_keeps_it_disabled(fresh_site: Site) -> None:
    await migrate(fresh_site)
    ctx = fresh_site.context("Administrator")
    assert (await run_report(ctx, REPORT))["result"] == []
    # the operator's switch (the fixture roles are not installed here, so the record is set directly)
    await ctx.db.collection("report").update_one({"_id": REPORT}, {"$set": {"disabled": 1}})
    with pytest.raises(exc.ValidationError, match="Report Test Note Summary is disabled"):
        await run_report(ctx, REPORT)

    # a later migrate that rewrites the record (its roles changed) leaves the operator's switch alone
    resynced = await migrate_with_report_roles(fresh_site, "Test Reader")
    again = await get_doc(resynced.context("Administrator"), "Report", REPORT)
    assert [row.role for row in again.roles] == ["Test Reader"]
    assert again.disabled == 1
    with pytest.raises(exc.ValidationError, match="disabled"):
        await run_report(resynced.context("Administrator"), REPORT)
