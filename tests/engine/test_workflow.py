"""Workflows: transitions by role and condition, docstatus mapping, self-approval, and saves that
change the state outside a transition."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents.factory import get_doc, new_doc
from engine.documents.workflow import apply_workflow, get_transitions
from tests.support.users import user_context


async def user(ctx: Context, email: str, *roles: str) -> Context:
    """A user with `roles` and Test Reader (workflow actions need read access)."""
    return await user_context(ctx, email, *roles, "Test Reader")


@pytest.fixture
async def order_workflow(ctx: Context) -> None:
    async with unit_of_work(ctx):
        for role in ("Test Reader", "Test Clerk", "Test Approver"):
            await new_doc(ctx, "Role", role_name=role).insert()
        await new_doc(ctx, "Workflow", workflow_name="Order Approval", document_type="Test Order", is_active=1,
                      states=[{"state": "Draft", "doc_status": "0"}, {"state": "Pending", "doc_status": "0"},
                              {"state": "Approved", "doc_status": "1", "update_field": "status",
                               "update_value": "Open"},
                              {"state": "Cancelled", "doc_status": "2"}],
                      transitions=[
                          {"state": "Draft", "action": "Submit for Approval", "next_state": "Pending",
                           "allowed": "Test Clerk", "condition": "doc.total > 0"},
                          {"state": "Pending", "action": "Approve", "next_state": "Approved",
                           "allowed": "Test Approver", "allow_self_approval": 0},
                          {"state": "Pending", "action": "Reject", "next_state": "Draft", "allowed": "Test Approver"},
                          {"state": "Approved", "action": "Cancel", "next_state": "Cancelled",
                           "allowed": "Test Approver"}]).insert()
    assert ctx.site.meta.workflows["Test Order"].field == "workflow_state"


async def make_order(ctx: Context, rate: float = 2.0):
    await new_doc(ctx, "Test Customer", customer_name=f"C{rate}").insert()
    return await new_doc(ctx, "Test Order", customer=f"C{rate}", posting_date="2026-01-01",
                         items=[{"item": "a", "qty": 1, "rate": rate}]).insert()


async def test_new_document_starts_in_first_state(ctx: Context, order_workflow: None) -> None:
    order = await make_order(ctx)
    assert order.workflow_state == "Draft"
    assert "workflow_state" in ctx.meta("Test Order").by_name
    for name in ("Draft", "Pending", "Approved", "Cancelled"):  # created by the Workflow controller
        assert await get_doc(ctx, "Workflow State", name)
    assert await get_doc(ctx, "Workflow Action Master", "Approve")


async def test_transitions_by_role_condition_and_docstatus(ctx: Context, order_workflow: None) -> None:
    clerk = await user(ctx, "clerk@example.com", "Test Clerk")
    approver = await user(ctx, "approver@example.com", "Test Approver")
    order = await make_order(ctx)
    doc = await get_doc(clerk, "Test Order", order.name)
    assert [t["action"] for t in await get_transitions(clerk, doc)] == ["Submit for Approval"]
    assert await get_transitions(approver, await get_doc(approver, "Test Order", order.name)) == []
    with pytest.raises(exc.WorkflowTransitionError, match="Not a valid Workflow Action"):
        await apply_workflow(approver, await get_doc(approver, "Test Order", order.name), "Submit for Approval")
    doc = await apply_workflow(clerk, doc, "Submit for Approval")  # clerks have no write right: not needed
    assert (doc.workflow_state, doc.docstatus) == ("Pending", 0)
    doc = await apply_workflow(approver, await get_doc(approver, "Test Order", order.name), "Approve")
    stored = await get_doc(ctx, "Test Order", order.name)
    assert (stored.workflow_state, stored.docstatus, stored.status) == ("Approved", 1, "Open")
    await apply_workflow(approver, stored, "Cancel")
    stored = await get_doc(ctx, "Test Order", order.name)
    assert (stored.workflow_state, stored.docstatus) == ("Cancelled", 2)


async def test_condition_blocks_transition(ctx: Context, order_workflow: None) -> None:
    clerk = await user(ctx, "clerk@example.com", "Test Clerk")
    order = await make_order(ctx, rate=0)
    doc = await get_doc(clerk, "Test Order", order.name)
    assert await get_transitions(clerk, doc) == []
    with pytest.raises(exc.WorkflowTransitionError):
        await apply_workflow(clerk, doc, "Submit for Approval")


async def test_self_approval_refused(ctx: Context, order_workflow: None) -> None:
    both = await user(ctx, "both@example.com", "Test Clerk", "Test Approver", "System Manager")
    order = await make_order(both)
    doc = await apply_workflow(both, await get_doc(both, "Test Order", order.name), "Submit for Approval")
    with pytest.raises(exc.WorkflowTransitionError, match="Self approval"):
        await apply_workflow(both, doc, "Approve")


async def test_direct_state_change_outside_transitions_is_refused(ctx: Context, order_workflow: None) -> None:
    order = await make_order(ctx)
    doc = await get_doc(ctx, "Test Order", order.name)
    doc.workflow_state = "Approved"
    with pytest.raises(exc.WorkflowTransitionError) as err:
        await doc.save()
    assert err.value.field == "workflow_state"
    assert (await get_doc(ctx, "Test Order", order.name)).workflow_state == "Draft"
    clerk = await user(ctx, "clerk2@example.com", "Test Clerk", "System Manager")
    with pytest.raises(exc.WorkflowTransitionError, match="must start in state Draft"):
        await new_doc(clerk, "Test Order", customer=order.customer, posting_date="2026-01-01",
                      workflow_state="Pending").insert()


async def test_submit_without_state_moves_to_first_matching_state(ctx: Context, order_workflow: None) -> None:
    order = await make_order(ctx)
    await order.submit()
    assert (await get_doc(ctx, "Test Order", order.name)).workflow_state == "Approved"


async def test_illegal_docstatus_move_refused(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Workflow", workflow_name="Back", document_type="Test Order", is_active=1,
                      states=[{"state": "Done", "doc_status": "1"}, {"state": "Open", "doc_status": "0"}],
                      transitions=[{"state": "Done", "action": "Reopen", "next_state": "Open",
                                    "allowed": "System Manager"}]).insert()
    order = await make_order(ctx)
    await order.submit()
    doc = await get_doc(ctx, "Test Order", order.name)
    assert doc.workflow_state == "Done"
    with pytest.raises(exc.WorkflowTransitionError, match="Illegal Document Status"):
        await apply_workflow(ctx, doc, "Reopen")


async def test_invalid_workflow_definition(ctx: Context) -> None:
    with pytest.raises(exc.ValidationError, match="not one of the workflow's states"):
        await new_doc(ctx, "Workflow", workflow_name="Bad", document_type="Test Order",
                      states=[{"state": "A", "doc_status": "0"}],
                      transitions=[{"state": "A", "action": "Go", "next_state": "Z", "allowed": "All"}]).insert()
    with pytest.raises(exc.ValidationError, match="not submittable"):
        await new_doc(ctx, "Workflow", workflow_name="Bad2", document_type="Test Note",
                      states=[{"state": "A", "doc_status": "1"}]).insert()


async def test_a_submitted_state_moves_to_another_submitted_state(ctx: Context) -> None:
    """1 → 1 is an update after submit: the implicit state field must be allowed to change then."""
    async with unit_of_work(ctx):
        await new_doc(ctx, "Role", role_name="Test Approver").insert()
        await new_doc(ctx, "Workflow", workflow_name="Order Review", document_type="Test Order", is_active=1,
                      states=[{"state": "Draft", "doc_status": "0"}, {"state": "Approved", "doc_status": "1"},
                              {"state": "Disputed", "doc_status": "1"}],
                      transitions=[{"state": "Draft", "action": "Approve", "next_state": "Approved",
                                    "allowed": "Test Approver"},
                                   {"state": "Approved", "action": "Dispute", "next_state": "Disputed",
                                    "allowed": "Test Approver"}]).insert()
    assert ctx.meta("Test Order").by_name["workflow_state"].allow_on_submit
    order = await make_order(ctx)
    doc = await apply_workflow(ctx, order, "Approve")
    doc = await apply_workflow(ctx, doc, "Dispute")
    stored = await get_doc(ctx, "Test Order", order.name)
    assert (stored.workflow_state, stored.docstatus) == ("Disputed", 1)
