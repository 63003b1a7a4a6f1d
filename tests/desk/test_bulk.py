"""The list's bulk actions over HTTP (desk.md §3, issue 14 point 3): a workflow action or a delete over
many rows, each row its own unit of work with its own result, so refused rows neither stop nor undo
the others; a batch run as a job reports its progress to its user and ends with `bulk_result`; bad
arguments are refused before any row changes."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from engine.desk import bulk_actions
from engine.site import Site
from tests.apps.conftest import Org, People, call, drain_jobs
from tests.server.conftest import ApiUser
from tests.server.helpers import ok, refused

APPROVE = "fw.model.workflow.bulk_workflow_approval"
DELETE = "fw.desk.reportview.delete_items"
RESOURCE = "/api/resource/Warehouse Violation"


async def violation(client: httpx.AsyncClient, people: People, org: Org, code: str = "E-1001") -> str:
    r = await client.post(RESOURCE, json={"employee": org.emp(code), "date": "2024-03-15",
                                          "violation_type": "Blocked Aisle"}, headers=people.warehouse.token)
    assert r.status_code == 200, r.text
    return str(r.json()["data"]["name"])


async def state(client: httpx.AsyncClient, user: ApiUser, name: str) -> tuple[str, int] | None:
    r = await client.get(f"{RESOURCE}/{name}", headers=user.token)
    if r.status_code == 404:
        return None
    data = r.json()["data"]
    return data["workflow_state"], data["docstatus"]


async def test_workflow_action_row_by_row(client: httpx.AsyncClient, people: People, org: Org) -> None:
    names = [await violation(client, people, org) for _ in range(3)]
    body = ok(await call(client, people.warehouse, APPROVE, doctype="Warehouse Violation", action="Submit for Review",
                         docnames=names[:2]))["message"]
    assert body == {"results": [{"name": names[0], "ok": True}, {"name": names[1], "ok": True}],
                    "succeeded": 2, "failed": 0}
    # the HR Reviewer confirms: a draft (no such transition) and an unknown name fail, the others pass
    body = ok(await call(client, people.hr, APPROVE, doctype="Warehouse Violation", action="Confirm",
                         docnames=[names[0], names[2], "WV-NOPE", names[1]]))["message"]
    assert [(r["name"], r["ok"]) for r in body["results"]] == [(names[0], True), (names[2], False), ("WV-NOPE", False),
                                                               (names[1], True)]
    assert body["results"][1]["exc_type"] == "WorkflowTransitionError" and body["results"][1]["message"]
    assert body["results"][2]["exc_type"] == "DoesNotExistError"
    assert (body["succeeded"], body["failed"]) == (2, 2)
    assert await state(client, people.hr, names[0]) == ("Confirmed", 1)
    assert await state(client, people.hr, names[1]) == ("Confirmed", 1)
    assert await state(client, people.hr, names[2]) == ("Draft", 0)


async def test_a_user_without_the_role_changes_nothing(client: httpx.AsyncClient, people: People, org: Org) -> None:
    names = [await violation(client, people, org) for _ in range(2)]
    body = ok(await call(client, people.ada, APPROVE, doctype="Warehouse Violation", action="Submit for Review",
                         docnames=names))["message"]
    assert body["failed"] == 2 and all(not r["ok"] for r in body["results"])
    assert [await state(client, people.hr, n) for n in names] == [("Draft", 0), ("Draft", 0)]


async def test_delete_row_by_row(client: httpx.AsyncClient, people: People, org: Org, admin: ApiUser) -> None:
    drafts = [await violation(client, people, org) for _ in range(2)]
    submitted = await violation(client, people, org)
    ok(await call(client, people.warehouse, "fw.model.workflow.apply_workflow",
                  doc={"doctype": "Warehouse Violation", "name": submitted}, action="Submit for Review"))
    ok(await call(client, people.hr, "fw.model.workflow.apply_workflow",
                  doc={"doctype": "Warehouse Violation", "name": submitted}, action="Confirm"))
    # an Employee may delete nothing
    body = ok(await call(client, people.ada, DELETE, doctype="Warehouse Violation", items=drafts))["message"]
    assert [r["exc_type"] for r in body["results"]] == ["PermissionError", "PermissionError"]
    # the items as Frappe's client sends them (JSON text); a submitted document cannot be deleted
    body = ok(await call(client, admin, DELETE, doctype="Warehouse Violation",
                         items=json.dumps([drafts[0], submitted, drafts[1]])))["message"]
    assert [(r["name"], r["ok"]) for r in body["results"]] == [(drafts[0], True), (submitted, False), (drafts[1], True)]
    assert await state(client, admin, drafts[0]) is None and await state(client, admin, drafts[1]) is None
    assert await state(client, admin, submitted) == ("Confirmed", 1)


@pytest.mark.parametrize("args, field", [
    ({"items": []}, "names"),
    ({"items": "not json"}, "items"),
    ({"items": {"a": 1}}, "items"),
    ({"items": [None]}, "names"),
    ({"items": [""]}, "names"),
])
async def test_bad_arguments_change_nothing(client: httpx.AsyncClient, admin: ApiUser, args: dict[str, Any],
                                            field: str) -> None:
    body = refused(await call(client, admin, DELETE, doctype="Warehouse Violation", **args), 417)
    assert body["errors"][0].get("field") == field


async def test_unknown_doctype_and_missing_action(client: httpx.AsyncClient, admin: ApiUser) -> None:
    refused(await call(client, admin, DELETE, doctype="No Such Type", items=["x"]), 404)
    refused(await call(client, admin, APPROVE, doctype="Warehouse Violation", action="", docnames=["x"]), 417)


async def test_a_background_batch_reports_progress_and_results(client: httpx.AsyncClient, people: People, org: Org,
                                                               ws: Site) -> None:
    sent: list[tuple[str, Any, str]] = []

    class Recorder:
        def listening(self) -> bool:
            return True

        async def emit(self, event: str, message: Any, room: str) -> None:
            sent.append((event, message, room))

    before = getattr(ws, "realtime", None)
    ws.realtime = Recorder()  # type: ignore[attr-defined]
    try:
        names = [await violation(client, people, org) for _ in range(3)]
        body = ok(await call(client, people.warehouse, APPROVE, doctype="Warehouse Violation",
                             action="Submit for Review", docnames=names, background=1))["message"]
        assert set(body) == {"job_id", "total"} and body["total"] == 3
        await drain_jobs(ws)
    finally:
        ws.realtime = before  # type: ignore[attr-defined]
    progress = [m for e, m, room in sent if e == "progress" and room == f"user:{people.warehouse.email}"]
    assert [m["percent"] for m in progress] == [33.0, 66.0, 100.0]
    assert progress[-1]["description"] == "3 of 3" and "Submit for Review" in progress[-1]["title"]
    results = [m for e, m, room in sent if e == "bulk_result" and room == f"user:{people.warehouse.email}"]
    assert len(results) == 1 and results[0]["succeeded"] == 3 and results[0]["doctype"] == "Warehouse Violation"
    assert [await state(client, people.hr, n) for n in names] == [("Pending", 0)] * 3


async def test_a_large_batch_runs_as_a_job_by_itself(client: httpx.AsyncClient, people: People, org: Org, ws: Site,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bulk_actions, "JOB_THRESHOLD", 2)
    names = [await violation(client, people, org) for _ in range(3)]
    body = ok(await call(client, people.warehouse, APPROVE, doctype="Warehouse Violation",
                         action="Submit for Review", docnames=names))["message"]
    assert set(body) == {"job_id", "total"}
    await drain_jobs(ws)
    assert [await state(client, people.hr, n) for n in names] == [("Pending", 0)] * 3
    # at the threshold: at once, with the rows' results
    body = ok(await call(client, people.hr, APPROVE, doctype="Warehouse Violation", action="Reject",
                         docnames=names[:2]))["message"]
    assert body["succeeded"] == 2
