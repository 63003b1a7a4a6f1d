"""Workflow `send_email_alert` (business.md §2.3): after a transition, the users who may act on the
new state (a role allowed on one of its transitions, and read access to the document) get a
Notification Log and a mail, in the transition's unit of work; the user who moved it does not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import permissions
from engine.context import Context
from engine.documents import store
from engine.notifications import log, mail
from engine.translation import _

if TYPE_CHECKING:
    from engine.documents.base import BaseDocument
    from engine.meta.workflows import WorkflowDef


def sends_alert(wf: WorkflowDef) -> bool:
    return bool(wf.records and wf.records[0].get("send_email_alert"))


async def next_actors(ctx: Context, doc: BaseDocument, wf: WorkflowDef, state: str) -> list[str]:
    """Enabled users other than the caller holding a role allowed on a transition from `state`, who may
    read `doc`."""
    roles = sorted({t.allowed for t in wf.transitions if t.state == state and t.allowed})
    if not roles:
        return []
    rows = await store.find(ctx, ctx.meta("User"), {"roles.role": {"$in": roles}, "enabled": 1},
                            projection={"_id": 1}, sort=[("_id", 1)])
    users = [str(r["_id"]) for r in rows if r["_id"] not in (ctx.user, "Guest")]
    return [u for u in users if await permissions.has_permission(ctx.clone(u), doc.doctype, "read", doc)]


async def alert(ctx: Context, doc: BaseDocument, wf: WorkflowDef, state: str) -> list[str]:
    """Tell the next actors that `doc` reached `state`; the users told."""
    users = await next_actors(ctx, doc, wf, state)
    if not users:
        return []
    actions = sorted({t.action for t in wf.transitions if t.state == state})
    title = doc.get(doc.meta.title_field) if doc.meta.title_field else None
    subject = _("{0} {1} is {2}: your action is needed", _(doc.doctype), title or doc.name, _(state))
    message = _("Possible actions: {0}", ", ".join(_(a) for a in actions)) if actions else subject
    await log.notify(ctx, users, type="Alert", subject=subject, document_type=doc.doctype,
                     document_name=str(doc.name), email_content=message)
    await mail.send(ctx, users, subject, message, reference_doctype=doc.doctype, reference_name=str(doc.name))
    return users
