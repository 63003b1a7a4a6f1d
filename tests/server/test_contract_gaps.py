"""Contract rows found open while running fw as a new user would (tests/CONTRACT_COVERAGE.md, "§3"):
an amendment created over the resource API is named `<name>-1`, `-2`, ... (contract §3); a new
document of a doctype with a workflow starts in the workflow's first state for everyone,
Administrator included. (The `module` rule at migrate and export-fixtures is in
tests/engine/test_cli.py and tests/engine/test_migrate.py.)"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents.factory import get_doc, new_doc
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import ok, refused

ORDER = "/api/resource/Test Order"
ORDER_V2 = "/api/v2/document/Test Order"
PAYMENT = "/api/resource/Test Payment"


async def _cancelled(ctx: Context, doctype: str = "Test Order", **values: Any) -> str:
    async with unit_of_work(ctx):
        if doctype == "Test Order" and not await ctx.db.collection("test_customer").find_one({"_id": "Acme"}):
            await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
        doc = await new_doc(ctx, doctype, **(values or {"customer": "Acme", "posting_date": "2024-05-01"})).insert()
    await doc.submit()
    await doc.cancel()
    return str(doc.name)


def _order_body(**extra: Any) -> dict[str, Any]:
    return {"customer": "Acme", "posting_date": "2024-06-01", "items": [{"item": "A", "qty": 1, "rate": 2}], **extra}


async def test_amending_over_the_resource_api_names_dash_1_then_dash_2(client: httpx.AsyncClient, admin: ApiUser,
                                                                       ctx: Context) -> None:
    original = await _cancelled(ctx)
    first = ok(await client.post(ORDER, json=_order_body(amended_from=original), headers=admin.token))["data"]
    assert (first["name"], first["amended_from"], first["docstatus"]) == (f"{original}-1", original, 0)
    for docstatus in (1, 2):  # submit, then cancel the amendment, over the API
        ok(await client.put(f"{ORDER}/{first['name']}", json={"docstatus": docstatus}, headers=admin.token))
    second = ok(await client.post(ORDER, json=_order_body(amended_from=first["name"]), headers=admin.token))["data"]
    assert (second["name"], second["amended_from"]) == (f"{original}-2", first["name"])
    # v2 too, and a user with the `amend` right (System Manager on Test Order), not only Administrator
    manager = await make_user(ctx, "amender@example.com", ["System Manager"])
    other = await _cancelled(ctx)
    made = ok(await client.post(ORDER_V2, json=_order_body(amended_from=other), headers=manager.token))["data"]
    assert made["name"] == f"{other}-1" and made["amended_from"] == other and made["owner"] == manager.email


async def test_amending_what_cannot_be_amended_is_refused(client: httpx.AsyncClient, admin: ApiUser,
                                                          ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
        draft = await new_doc(ctx, "Test Order", customer="Acme", posting_date="2024-05-01").insert()
    before = await ctx.db.collection("test_order").count_documents({})
    body = refused(await client.post(ORDER, json=_order_body(amended_from=draft.name), headers=admin.token),
                   417, "DocstatusTransitionError")
    assert body["errors"][0]["field"] == "amended_from"
    refused(await client.post(ORDER, json=_order_body(amended_from="TO-MISSING"), headers=admin.token),
            417, "LinkValidationError")
    assert await ctx.db.collection("test_order").count_documents({}) == before
    # Test Payment grants System Manager create, submit and cancel, but not amend
    order = str(draft.name)
    payment = await _cancelled(ctx, "Test Payment", order=order, amount=5)
    clerk = await make_user(ctx, "no-amend@example.com", ["System Manager"])
    refused(await client.post(PAYMENT, json={"order": order, "amount": 5, "amended_from": payment},
                              headers=clerk.token), 403, "PermissionError")
    assert ok(await client.post(PAYMENT, json={"order": order, "amount": 5}, headers=clerk.token))  # create is fine
    assert await ctx.db.collection("test_payment").count_documents({"amended_from": payment}) == 0


@pytest.fixture
async def order_workflow(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Role", role_name="Test Clerk").insert()
        await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
        await new_doc(ctx, "Workflow", workflow_name="Gap Flow", document_type="Test Order", is_active=1,
                      states=[{"state": "Draft", "doc_status": "0"}, {"state": "Checked", "doc_status": "0"},
                              {"state": "Approved", "doc_status": "1"}],
                      transitions=[{"state": "Draft", "action": "Check", "next_state": "Checked",
                                    "allowed": "Test Clerk"}]).insert()


async def test_a_new_document_starts_in_the_first_state_for_everyone(client: httpx.AsyncClient, admin: ApiUser,
                                                                     ctx: Context, order_workflow: None) -> None:
    made = ok(await client.post(ORDER, json=_order_body(), headers=admin.token))["data"]
    assert made["workflow_state"] == "Draft"
    assert ok(await client.post(ORDER, json=_order_body(workflow_state="Draft"), headers=admin.token))
    before = await ctx.db.collection("test_order").count_documents({})
    for state in ("Checked", "Approved"):  # Administrator may not skip the workflow either
        body = refused(await client.post(ORDER, json=_order_body(workflow_state=state), headers=admin.token),
                       417, "WorkflowTransitionError")
        assert body["errors"][0]["field"] == "workflow_state"
        refused(await client.post(ORDER_V2, json=_order_body(workflow_state=state), headers=admin.token), 417)
    assert await ctx.db.collection("test_order").count_documents({}) == before
    with pytest.raises(exc.WorkflowTransitionError, match="must start in state Draft"):  # and in the engine
        await new_doc(ctx, "Test Order", customer="Acme", posting_date="2024-05-01", workflow_state="Checked").insert()
    # the workflow's way there still works for Administrator
    doc = await get_doc(ctx, "Test Order", made["name"])
    doc.workflow_state = "Checked"
    await doc.save()
    assert (await get_doc(ctx, "Test Order", made["name"])).workflow_state == "Checked"
