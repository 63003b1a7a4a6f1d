"""Workflow `send_email_alert`: a transition tells the users who may act on the new state (a role
allowed on one of its transitions, read access) with a Notification Log and a mail; without the
flag, nobody hears of it."""

from __future__ import annotations

from engine.context import Context
from engine.documents.factory import get_doc
from engine.documents.workflow import apply_workflow
from engine.query import listing
from engine.site import Site
from tests.engine.test_workflow import make_order, order_workflow, user  # noqa: F401  (the fixture)
from tests.support.smtp import SmtpSink


async def _alerting(ctx: Context) -> None:
    workflow = await get_doc(ctx, "Workflow", "Order Approval")
    workflow.send_email_alert = 1
    await workflow.save()


async def test_a_transition_alerts_who_may_act_next(mail_site: Site, smtp_server: SmtpSink,
                                                    order_workflow: None) -> None:  # noqa: F811
    ctx = mail_site.context("Administrator")
    await _alerting(ctx)
    clerk = await user(ctx, "clerk@example.com", "Test Clerk")
    await user(ctx, "approver@example.com", "Test Approver")
    await user(ctx, "bystander@example.com")  # may read, may not act on Pending
    order = await make_order(ctx)
    await apply_workflow(clerk, await get_doc(clerk, "Test Order", order.name), "Submit for Approval")
    logs = await listing.get_all(ctx, "Notification Log", fields=["for_user", "from_user", "subject", "document_name"])
    assert logs == [{"for_user": "approver@example.com", "from_user": "clerk@example.com",
                     "subject": f"Test Order {order.name} is Pending: your action is needed",
                     "document_name": order.name}]
    [mail] = await smtp_server.wait_for(1)
    assert mail.rcpt_tos == ["approver@example.com"]
    assert "Approve, Reject" in mail.body()


async def test_without_send_email_alert_nobody_is_told(ctx: Context, order_workflow: None) -> None:  # noqa: F811
    clerk = await user(ctx, "clerk@example.com", "Test Clerk")
    await user(ctx, "approver@example.com", "Test Approver")
    order = await make_order(ctx)
    await apply_workflow(clerk, await get_doc(clerk, "Test Order", order.name), "Submit for Approval")
    assert await listing.count(ctx, "Notification Log") == 0
