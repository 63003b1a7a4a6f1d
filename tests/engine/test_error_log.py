"""`log_error` (reference §9.2): an Error Log written outside the failing unit of work, so it
survives the rollback; readable by System Manager over HTTP, not by a plain user."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from engine.context import Context, unit_of_work
from engine.documents.factory import get_doc, new_doc
from engine.error_log import MAX_TEXT, log_error
from engine.jobs.queue import enqueue
from engine.query.listing import count, get_all
from engine.site import Site
from server.app import create_app
from tests.server.conftest import make_user
from tests.server.helpers import ok, refused

ERROR_LOG = "/api/resource/Error Log"


async def _log(ctx: Context, name: str) -> dict[str, object]:
    record = await ctx.db.collection("error_log").find_one({"_id": name})
    assert record is not None, name
    return record


async def test_message_and_references_are_recorded(ctx: Context) -> None:
    name = await log_error(ctx, "Sync failed", "the remote said no", reference_doctype="Test Note",
                           reference_name="N-1")
    record = await _log(ctx, name)
    assert record["method"] == "Sync failed"
    assert record["error"] == "the remote said no"
    assert record["reference_doctype"] == "Test Note" and record["reference_name"] == "N-1"
    assert record["seen"] == 0 and record["owner"] == "Administrator" and record["docstatus"] == 0
    doc = await get_doc(ctx, "Error Log", name)  # a regular document of the core doctype
    assert doc.method == "Sync failed"


async def test_traceback_when_no_message(ctx: Context) -> None:
    def fail() -> None:
        raise KeyError("missing-key-42")

    try:
        fail()
    except KeyError:
        name = await log_error(ctx, "Lookup")
    error = str((await _log(ctx, name))["error"])
    assert error.startswith("Traceback (most recent call last)")
    assert "KeyError: 'missing-key-42'" in error
    assert "in fail" in error


async def test_default_title_and_legacy_argument_order(ctx: Context) -> None:
    assert (await _log(ctx, await log_error(ctx, message="no title given")))["method"] == "Error"
    trace = "Traceback (most recent call last):\n  File x\nValueError: v"
    # Frappe's old order log_error(traceback, title): the multi-line title is the message
    swapped = await _log(ctx, await log_error(ctx, trace, "Import of rows"))
    assert swapped["method"] == "Import of rows" and swapped["error"] == trace
    alone = await _log(ctx, await log_error(ctx, trace))
    assert alone["method"] == "Error" and alone["error"] == trace


async def test_long_texts_are_cut(ctx: Context) -> None:
    record = await _log(ctx, await log_error(ctx, "T" * 500, "x" * (MAX_TEXT + 10)))
    assert len(str(record["method"])) == 140
    assert len(str(record["error"])) == MAX_TEXT


async def test_survives_the_rollback_of_the_failing_unit(ctx: Context) -> None:
    names: list[str] = []
    with pytest.raises(RuntimeError, match="after the insert"):
        async with unit_of_work(ctx):
            note = await new_doc(ctx, "Test Note", title="rolled back").insert()
            try:
                raise RuntimeError("failing after the insert")
            except RuntimeError:
                names.append(await log_error(ctx, "Note job", reference_doctype="Test Note",
                                             reference_name=note.name))
                raise
    assert await count(ctx, "Test Note") == 0  # the unit of work was rolled back ...
    record = await _log(ctx, names[0])  # ... the log was not
    assert "RuntimeError: failing after the insert" in str(record["error"])
    assert record["reference_name"] == note.name


async def test_failed_job_leaves_an_error_log(ctx: Context) -> None:
    with pytest.raises(ValueError, match="job refused doomed"):
        await enqueue(ctx, "fwtest.jobs.create_then_fail", now=True, title="doomed")
    assert await count(ctx, "Test Note") == 0
    logs = await get_all(ctx, "Error Log", fields=["method", "error"])
    assert [row["method"] for row in logs] == ["fwtest.jobs.create_then_fail"]
    assert "ValueError: job refused doomed" in logs[0]["error"]


# -- over HTTP ----------------------------------------------------------------------------------------

@pytest.fixture
async def client(site: Site) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(site.settings, site=site)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
        yield c


async def test_system_manager_reads_error_logs_plain_user_does_not(client: httpx.AsyncClient, ctx: Context) -> None:
    name = await log_error(ctx, "Visible to managers", "details")
    manager = await make_user(ctx, "manager@example.com", ["System Manager"])
    listed = ok(await client.get(ERROR_LOG, params={"fields": '["name", "method"]'}, headers=manager.token))
    assert {"name": name, "method": "Visible to managers"} in listed["data"]
    doc = ok(await client.get(f"{ERROR_LOG}/{name}", headers=manager.token))["data"]
    assert doc["error"] == "details"

    plain = await make_user(ctx, "plain@example.com", [])
    refused(await client.get(ERROR_LOG, headers=plain.token), 403, "PermissionError")
    refused(await client.get(f"{ERROR_LOG}/{name}", headers=plain.token), 403, "PermissionError")
