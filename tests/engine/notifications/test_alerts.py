"""Notifications: rules matched in the request and sent by a job queued with the document's commit
(System Notification and Email), by event, condition and recipients; a broken rule is logged and
never breaks the save; doctypes without a rule keep their plans (and fast paths) as they were."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents import direct_create, lifecycle
from engine.documents.factory import get_doc, new_doc
from engine.methods import dispatch
from engine.notifications import alerts
from engine.query import listing
from engine.site import Site
from tests.support.jobs import jobs_done
from tests.support.smtp import SmtpSink
from tests.support.users import user_context


async def rule(ctx: Context, name: str, **fields: Any) -> None:
    values: dict[str, Any] = {"document_type": "Test Note", "channel": "System Notification", "event": "New",
                              "subject": "{{ doc.title }} is new", "message": "<p>{{ doc.body }}</p>"}
    values.update(fields)
    await new_doc(ctx, "Notification", name=name, **values).insert()


async def logs(ctx: Context, **filters: Any) -> list[dict[str, Any]]:
    """The Notification Logs once the jobs queued so far have run (they write them)."""
    await jobs_done(ctx.site)
    return await listing.get_all(ctx, "Notification Log", fields=["for_user", "subject", "email_content", "type",
                                                                   "document_name"],
                                 filters=[[k, "=", v] for k, v in filters.items()], order_by="for_user asc")


async def test_a_system_notification_reaches_recipients_by_field_and_role_when_its_condition_holds(
        ctx: Context) -> None:
    ada = await user_context(ctx, "ada@example.com", "Test Reader")
    rev = await user_context(ctx, "rev@example.com", "Test Reviewer")
    await rule(ctx, "New note", condition='doc.status == "Open"',
               recipients=[{"receiver_by_document_field": "email"}, {"receiver_by_role": "Test Reviewer"},
                           {"receiver_by_role": "Test Reader", "condition": "doc.count > 5"}])
    async with unit_of_work(ctx):
        note = await new_doc(ctx, "Test Note", title="Crate <b>", body="<script>x</script>", status="Open",
                             email=ada.user, count=1).insert()
        assert await logs(ctx) == []  # only after the commit
    assert await logs(ctx) == [
        {"for_user": ada.user, "subject": "Crate <b> is new", "type": "Alert", "document_name": note.name,
         "email_content": "<p>&lt;script&gt;x&lt;/script&gt;</p>"},
        {"for_user": rev.user, "subject": "Crate <b> is new", "type": "Alert", "document_name": note.name,
         "email_content": "<p>&lt;script&gt;x&lt;/script&gt;</p>"}]
    await new_doc(ctx, "Test Note", title="Closed one", status="Closed", email=ada.user).insert()
    assert len(await logs(ctx)) == 2  # the condition did not hold


async def test_save_submit_cancel_and_value_change_fire_their_rules_only(ctx: Context) -> None:
    await rule(ctx, "Saved", event="Save", subject="saved {{ doc.title }}",
               recipients=[{"receiver_by_role": "System Manager"}])
    await rule(ctx, "Status moved", event="Value Change", value_changed="status", subject="status {{ doc.status }}",
               recipients=[{"receiver_by_role": "System Manager"}])
    note = await new_doc(ctx, "Test Note", title="A", status="Open").insert()  # Save fires on insert too (Frappe)
    assert [r["subject"] for r in await logs(ctx)] == ["saved A"]
    note.title = "B"
    await note.save()  # status unchanged: no Value Change
    assert sorted(r["subject"] for r in await logs(ctx)) == ["saved A", "saved B"]
    note.status = "Closed"
    await note.save()
    assert sorted(r["subject"] for r in await logs(ctx)) == ["saved A", "saved B", "saved B", "status Closed"]


async def test_a_broken_rule_is_logged_with_its_name_and_the_save_stands(ctx: Context) -> None:
    await rule(ctx, "Broken", condition="doc.count > 'x'", recipients=[{"receiver_by_role": "System Manager"}])
    await rule(ctx, "Fine", recipients=[{"receiver_by_role": "System Manager"}])
    note = await new_doc(ctx, "Test Note", title="Still saved", count=3).insert()
    assert (await get_doc(ctx, "Test Note", note.name)).title == "Still saved"
    await jobs_done(ctx.site)
    errors = await listing.get_all(ctx, "Error Log", fields=["method", "reference_name", "error"])
    assert [(e["method"], e["reference_name"]) for e in errors] == [("Notification Broken failed", "Broken")]
    assert "TypeError" in errors[0]["error"]
    assert [r["subject"] for r in await logs(ctx)] == ["Still saved is new"]  # the other rule still ran


async def test_set_property_after_alert_and_days_after(ctx: Context) -> None:
    await rule(ctx, "Mark done", set_property_after_alert="is_done", property_value="1",
               recipients=[{"receiver_by_role": "System Manager"}])
    note = await new_doc(ctx, "Test Note", title="Mark me").insert()
    await jobs_done(ctx.site)
    assert (await get_doc(ctx, "Test Note", note.name)).is_done == 1
    assert len(await logs(ctx)) == 1  # the property's own save fired nothing
    await rule(ctx, "Overdue", event="Days After", date_changed="due", days_in_advance=2,
               subject="{{ doc.title }} is overdue", recipients=[{"receiver_by_role": "System Manager"}])
    await new_doc(ctx, "Test Note", title="Late", due="2030-01-01").insert()
    await new_doc(ctx, "Test Note", title="Not yet", due="2030-01-02").insert()
    assert await alerts.send_daily(ctx, date(2030, 1, 3)) == 1
    assert "Late is overdue" in [r["subject"] for r in await logs(ctx)]
    assert "Not yet is overdue" not in [r["subject"] for r in await logs(ctx)]


async def test_only_doctypes_with_an_enabled_rule_take_the_notification_step(ctx: Context, site: Site) -> None:
    def steps() -> tuple[Any, ...]:
        meta = site.meta.get("Test Note")
        return lifecycle.plan_for(site.apps, site.apps.controller("Test Note"), meta, lifecycle.SAVE).steps

    assert lifecycle.queue_notifications not in steps()
    await rule(ctx, "On", recipients=[{"receiver_by_role": "System Manager"}])
    assert lifecycle.queue_notifications in steps()
    doc = await get_doc(ctx, "Notification", "On")
    doc.enabled = 0
    await doc.save()
    assert lifecycle.queue_notifications not in steps()
    # the fast paths' one rule sees the step: a doctype with a rule is created through the lifecycle
    meta = site.meta.get("Test Review")
    assert lifecycle.queue_notifications not in lifecycle.plan_for(site.apps, site.apps.controller("Test Review"),
                                                                   meta, lifecycle.INSERT).steps
    await rule(ctx, "Review", document_type="Test Review", subject="new review", message="")
    meta = site.meta.get("Test Review")
    assert lifecycle.queue_notifications in lifecycle.plan_for(site.apps, site.apps.controller("Test Review"),
                                                               meta, lifecycle.INSERT).steps
    assert not direct_create.qualifies(ctx, meta)


@pytest.mark.parametrize(("fields", "field"), [
    ({"condition": "doc.status =="}, "condition"),
    ({"subject": "{{ doc.title "}, "subject"),
    ({"event": "Value Change", "value_changed": "nope"}, "value_changed"),
    ({"event": "Days Before", "date_changed": "title"}, "date_changed"),
    ({"event": "Method"}, "method"),
    ({"document_type": "Nope"}, "document_type"),
    ({"set_property_after_alert": "nope"}, "set_property_after_alert"),
    ({"recipients": [{"receiver_by_document_field": "nope"}]}, "receiver_by_document_field"),
])
async def test_a_bad_rule_is_refused_naming_the_field(ctx: Context, fields: dict[str, Any], field: str) -> None:
    with pytest.raises((exc.ValidationError, exc.LinkValidationError)) as refused:
        await rule(ctx, "Bad", **fields)
    assert refused.value.field == field
    assert await listing.count(ctx, "Notification") == 0


async def test_an_email_notification_is_mailed_after_the_commit(mail_site: Site, smtp_server: SmtpSink) -> None:
    ctx = mail_site.context("Administrator")
    ada = await user_context(ctx, "ada@example.com", "Test Reader")
    await rule(ctx, "Mail", channel="Email", subject="Note {{ doc.title }}",
               recipients=[{"receiver_by_document_field": "email", "cc": "boss@example.com"}])
    await new_doc(ctx, "Test Note", title="Crates", body="<b>&</b>", email=ada.user).insert()
    [mail] = await smtp_server.wait_for(1)
    assert sorted(mail.rcpt_tos) == ["ada@example.com", "boss@example.com"]
    assert mail.message["Subject"] == "Note Crates"
    assert "&lt;b&gt;&amp;&lt;/b&gt;" in mail.body(("html",))


async def test_a_method_rule_fires_when_its_document_method_runs_over_http(ctx: Context, site: Site) -> None:
    await rule(ctx, "Bumped", event="Method", method="bump", subject="{{ doc.title }} bumped to {{ doc.count }}",
               recipients=[{"receiver_by_role": "System Manager"}])
    note = await new_doc(ctx, "Test Note", title="Counter", count=1).insert()
    assert await logs(ctx) == []  # New and Save are not its events
    async with unit_of_work(ctx):
        await dispatch.run_doc_method(ctx, "POST", "Test Note", note.name, "bump", {"by": 2})
    assert [r["subject"] for r in await logs(ctx)] == ["Counter bumped to 3"]
