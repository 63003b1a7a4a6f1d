"""Notifications (business.md §2.3): rules that send a mail or a System Notification (a Notification
Log per recipient) when a document is created, saved, submitted or cancelled, when a field changes,
when a hook method runs, or some days before or after a date of the document.

A write of a doctype that has enabled Notifications runs the lifecycle steps `match_notifications`
(before the write) and `queue_notifications` (after it; engine/documents/lifecycle.py; a plan leaves
them out of every other doctype, so they pay nothing), which call `match_operation` and `on_operation`
through the core's doc_events. The request only decides which rules fire (their event, the changed
value, the condition): a save on which none fires queues nothing; one on which some fire queues one
job. When no hook follows the write, the rules are matched before it and the job rides in the
document's own record (`jobs.carry`, with Redis: no transaction, no second write; the relays queue it
within a second or so); otherwise they are matched after the hooks and the job is queued with the
commit (`enqueue_after_commit`: through the job outbox, in the document's transaction). The job
(`run_rules`) renders and sends each rule in its own unit of work, once.
A condition is evaluated by engine/safe_eval.py (no Python `eval`), subject and message by Jinja's
sandbox with `doc` (values escaped in the HTML message) and `_` (in the recipient's language). A rule
that fails (a broken condition, template or recipient) is written to the Error Log under its name;
the save that fired it has already succeeded. Days Before/After run daily (`send_daily`, a core
scheduler event)."""

from __future__ import annotations

import logging
import uuid
import weakref
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from engine import db
from engine import exceptions as exc
from engine.context import Context, run_in_unit_of_work
from engine.documents import store
from engine.documents.docstatus import Action
from engine.documents.factory import get_doc
from engine.documents.lifecycle import name_children
from engine.error_log import log_error
from engine.jobs import outbox
from engine.jobs import queue as jobs
from engine.mail.templates import render_string
from engine.notifications import log, mail
from engine.query import listing
from engine.safe_eval import safe_eval
from engine.site import Site
from engine.translation import _

if TYPE_CHECKING:
    from engine.documents.base import BaseDocument
    from engine.documents.lifecycle import Operation

logger = logging.getLogger("fw.notifications")
DOCTYPE = "Notification"
# the doc_events of an operation (Frappe's names) and the Notification event each one fires
EVENTS_OF: dict[Action, tuple[str, ...]] = {
    Action.INSERT: ("after_insert", "on_update"),
    Action.SAVE: ("on_update", "on_change"),
    Action.SUBMIT: ("on_update", "on_submit", "on_change"),
    Action.UPDATE_AFTER_SUBMIT: ("on_update_after_submit", "on_change"),
    Action.CANCEL: ("on_cancel", "on_change"),
}
FIRES = {"after_insert": "New", "on_update": "Save", "on_submit": "Submit", "on_cancel": "Cancel",
         "on_change": "Value Change"}
# a save made by `set_property_after_alert` fires no Notification (it would fire its own rule again)
QUIET = "in_notification_update"
SENT = "_fw_notification_sent"  # the keys of what the jobs sent (`run_rules`): each rule once per save
SENT_KEPT = timedelta(days=7)


def events_of(op: Operation) -> tuple[str, ...]:
    if op.old_docstatus is None:  # an insert (a submitted one submits too)
        return ("after_insert", "on_update", "on_submit") if op.action is Action.SUBMIT else EVENTS_OF[Action.INSERT]
    return EVENTS_OF[op.action]


async def match_operation(op: Operation) -> None:
    """The core's `fw_notifications_match` handler, before the write of an operation that no hook
    follows (`op.match_early`: the document is written as it stands): the rules that fire on it. Their
    job rides in the write itself, in the document's own record (`jobs.carry`; with Redis): it exists
    exactly when the write does, without a transaction or a second write. `on_operation` then has
    nothing left to do."""
    ctx = op.ctx
    if not op.match_early or ctx.flags.get(QUIET):
        return
    doc = op.doc
    update = op.old_docstatus is not None
    if update:  # (as the write will: new rows get their names, the record its stamps)
        name_children(doc)
    before = doc._stored if update else None
    stamp = {"modified": op.now, "modified_by": ctx.user} if update else None
    names, values = await _matching(ctx, doc, events_of(op), before, stamp)
    op.notifications, op.carried_jobs = names, None  # (a batch may run its steps again: this run decides)
    if names and values is not None:
        carried = jobs.carry(ctx, run_rules, queue="short", job_name=f"notify {doc.doctype} {doc.name}",
                             doctype=doc.doctype, values=values, rules=names, key=uuid.uuid4().hex)
        if carried is None:  # jobs run in this process: after the commit
            await _queue(ctx, doc, names, values)
        else:
            op.carried_jobs = carried


async def on_operation(op: Operation) -> None:
    """The core's `fw_notifications` handler, after the write and its hooks: queue one job, with the
    commit, that sends the rules that fire on this operation; a save on which none fires queues
    nothing. (Unless `match_operation` decided before the write.)"""
    ctx = op.ctx
    if op.notifications is not None or ctx.flags.get(QUIET) or ctx.uow is None:
        return
    names = await matching(ctx, op.doc, events_of(op), op.stored_before)
    if names:
        await _queue(ctx, op.doc, names)


async def after_method(doc: BaseDocument, method: str) -> None:
    """A whitelisted document method ran over HTTP (Frappe's `run_method`): the doctype's `Method`
    rules for it, in a job queued with the commit (engine/methods/dispatch.py calls this)."""
    ctx = doc.ctx
    if doc.doctype not in ctx.site.meta.notified or ctx.flags.get(QUIET):
        return
    names = await matching(ctx, doc, (method,), None)
    if names:
        await _queue(ctx, doc, names)


async def matching(ctx: Context, doc: BaseDocument, events: tuple[str, ...], before: Mapping[str, Any] | None
                   ) -> list[str]:
    """The names of the doctype's enabled rules that fire on `events` of `doc`: the event is theirs, the
    watched value changed, the condition holds. A condition that fails to evaluate counts as firing:
    the job evaluates it again and writes the failure to the Error Log under the rule's name."""
    return (await _matching(ctx, doc, events, before, None))[0]


async def _matching(ctx: Context, doc: BaseDocument, events: tuple[str, ...], before: Mapping[str, Any] | None,
                    stamp: Mapping[str, Any] | None) -> tuple[list[str], dict[str, Any] | None]:
    """`matching`, and the document's values the rules saw (None when no rule's event was this one),
    with `stamp` over them (what the write will set)."""
    rules = await rules_of(ctx, doc.doctype)
    if not rules:
        return [], None
    wanted = {FIRES[e] for e in events if e in FIRES and not (e == "on_change" and before is None)}
    values: dict[str, Any] | None = None
    names: list[str] = []
    for rule in rules:
        event = rule.get("event")
        if event == "Method":
            if rule.get("method") not in events:
                continue
        elif event not in wanted:
            continue
        if values is None:
            values = {**doc.as_dict(), **stamp} if stamp else doc.as_dict()
        if event == "Value Change" and not _value_changed(rule, values, before):
            continue
        if _condition_holds(rule, values):
            names.append(str(rule["_id"]))
    return names, values


def _value_changed(rule: Mapping[str, Any], values: Mapping[str, Any], before: Mapping[str, Any] | None) -> bool:
    field = str(rule.get("value_changed") or "")
    return bool(field) and before is not None and before.get(field) != values.get(field)


def _condition_holds(rule: Mapping[str, Any], values: dict[str, Any]) -> bool:
    condition = str(rule.get("condition") or "").strip()
    if not condition:
        return True
    try:
        return bool(safe_eval(condition, {"doc": values}))
    except Exception:  # the job evaluates it again and logs the failure under the rule's name
        return True


async def _queue(ctx: Context, doc: BaseDocument, names: list[str], values: dict[str, Any] | None = None) -> None:
    """One job for the rules `names` that fire on `doc` (its `values`, by default as it stands), queued
    with the unit of work's commit (with Redis through the job outbox, in the same transaction as the
    document, and left to the outbox's relays: the request makes no Redis call, the job starts within
    a second or so)."""
    await jobs.enqueue(ctx, run_rules, queue="short", job_name=f"notify {doc.doctype} {doc.name}",
                       enqueue_after_commit=True, relay_only=True, doctype=doc.doctype,
                       values=doc.as_dict() if values is None else values, rules=names, key=uuid.uuid4().hex)


async def run_rules(ctx: Context, doctype: str, values: dict[str, Any], rules: list[str], key: str) -> int:
    """The job `on_operation` and `after_method` queue: send the rules named `rules` (those still
    enabled) on the document `values`, each in its own unit of work and each once (`key` marks what
    this job sent, so a job run again after its worker died sends only the rest); how many it sent."""
    enabled = {str(rule["_id"]): rule for rule in await rules_of(ctx, doctype)}
    sent = 0
    for name in rules:
        rule = enabled.get(name)
        if rule is not None:
            sent += await evaluate(ctx, rule, values, once=f"{key}:{name}") is True
    return sent


# the enabled rules of each doctype, per site, read again whenever the meta registry reloads (a saved
# or deleted Notification bumps the meta: engine/core/notification.py), which makes `notified` anew
_rules: weakref.WeakKeyDictionary[Site, tuple[frozenset[str], dict[str, list[dict[str, Any]]]]] = (
    weakref.WeakKeyDictionary())


async def rules_of(ctx: Context, doctype: str) -> list[dict[str, Any]]:
    loaded = ctx.site.meta.notified
    kept = _rules.get(ctx.site)
    if kept is None or kept[0] is not loaded:
        kept = _rules[ctx.site] = (loaded, {})
    rules = kept[1].get(doctype)
    if rules is None:
        rules = kept[1][doctype] = await store.find(ctx, ctx.meta(DOCTYPE), {"document_type": doctype, "enabled": 1},
                                                    sort=[("creation", 1)])
    return rules


async def evaluate(ctx: Context, rule: Mapping[str, Any], values: dict[str, Any], *, once: str | None = None
                   ) -> bool | None:
    """Check the rule's condition on the document `values` and send it; False when it failed (the
    failure is in the Error Log, naming the Notification). `once`: a key written in the rule's unit of
    work with what it sends; a key written already means it was sent, and it is not sent again (None)."""
    name = str(rule.get("_id"))
    own = ctx.site.context(ctx.user, lang=ctx.lang)  # a unit of work of its own, whatever the caller's

    async def run() -> None:
        if once is not None:
            await _first_time(own, once)
        await send(own, rule, values)

    try:
        await run_in_unit_of_work(own, run)
        return True
    except _SentAlready:
        return None
    except Exception as e:
        logger.warning("Notification %s failed on %s %s: %s", name, values.get("doctype"), values.get("name"), e)
        try:
            await log_error(ctx, _("Notification {0} failed", name), None, "Notification", name)
        except Exception:  # the Error Log itself unavailable: the log line above remains
            logger.exception("Error Log for Notification %s not written", name)
        return False


class _SentAlready(Exception):
    """The rule was sent for this key already (by an earlier run of the job, or one running beside it)."""


async def _first_time(ctx: Context, key: str) -> None:
    """Write `key` into the unit of work's transaction; `_SentAlready` when it is written (committed)
    already (the unit then rolls back)."""
    collection = ctx.db.collection(SENT)
    session = await ctx.write_session()
    try:
        with db.translate_errors():
            await collection.insert_one({"_id": key, "created": datetime.now(UTC)}, session=session)
    except exc.DuplicateEntryError:
        raise _SentAlready(key) from None


async def ensure_indexes(site: Site) -> None:
    """The sent keys are kept a week (no job runs again later than that); the doctypes with enabled
    rules carry jobs in their records (registered when a rule is saved; again here, for a site
    restored or upgraded)."""
    await site.db.collection(SENT).create_index([("created", 1)], name="fw_expires",
                                                expireAfterSeconds=int(SENT_KEPT.total_seconds()))
    for doctype in sorted(site.meta.notified):
        if site.meta.exists(doctype):
            await outbox.register_carrier(site, site.meta.get(doctype).collection)


async def send(ctx: Context, rule: Mapping[str, Any], values: dict[str, Any]) -> None:
    condition = str(rule.get("condition") or "").strip()
    if condition and not safe_eval(condition, {"doc": values}):
        return
    users, addresses, cc = await recipients(ctx, rule, values)
    doctype, docname = str(values.get("doctype")), str(values.get("name"))
    if rule.get("channel") == "System Notification" or rule.get("send_system_notification"):
        for lang, group in (await _by_language(ctx, users)).items():
            subject, message = render(rule, values, lang)
            await log.notify(ctx, group, type="Alert", subject=subject, document_type=doctype,
                             document_name=docname, from_user=ctx.user, email_content=message)
    if rule.get("channel") != "System Notification":
        targets = [*users, *addresses]
        for lang, group in (await _by_language(ctx, targets)).items():
            subject, message = render(rule, values, lang)
            await mail.send(ctx, group, subject, message, cc=cc, reference_doctype=doctype,
                            reference_name=docname)
            cc = []  # the copies go out once
    await _set_property(ctx, rule, doctype, docname)


def render(rule: Mapping[str, Any], values: dict[str, Any], lang: str) -> tuple[str, str]:
    """The rule's subject (plain text on one line) and message (HTML, the document's values escaped)."""
    what = _("Notification {0}", rule.get("_id"))

    def translate(text: Any, *args: Any) -> str:
        return _(str(text), *args, lang=lang)

    names = {"doc": values, "_": translate}
    subject = render_string(str(rule.get("subject") or ""), names, what=what)
    message = render_string(str(rule.get("message") or ""), names, html=True, what=what)
    return " ".join(subject.split()), message


async def recipients(ctx: Context, rule: Mapping[str, Any], values: dict[str, Any]
                     ) -> tuple[list[str], list[str], list[str]]:
    """(users, other addresses, cc) of the rule for this document, each once."""
    users: list[str] = []
    addresses: list[str] = []
    cc: list[str] = []
    for row in rule.get("recipients") or []:
        row_condition = str(row.get("condition") or "").strip()
        if row_condition and not safe_eval(row_condition, {"doc": values}):
            continue
        for value in _field_values(values, str(row.get("receiver_by_document_field") or "")):
            (addresses if "@" in value and not await _is_user(ctx, value) else users).append(value)
        role = row.get("receiver_by_role")
        if role:
            users.extend(await users_with_role(ctx, str(role)))
        cc.extend(a for a in str(row.get("cc") or "").replace(",", "\n").split() if a)
    return list(dict.fromkeys(users)), list(dict.fromkeys(addresses)), list(dict.fromkeys(cc))


def _field_values(values: Mapping[str, Any], spec: str) -> list[str]:
    """The value of `field`, or of `field,table` in every row of the table (Frappe's form)."""
    spec = spec.strip()
    if not spec:
        return []
    field, _sep, table = (part.strip() for part in spec.partition(","))
    found = [row.get(field) for row in values.get(table) or [] if isinstance(row, Mapping)] if table else [
        values.get(field)]
    return [str(v).strip() for v in found if isinstance(v, str) and v.strip()]


async def _is_user(ctx: Context, value: str) -> bool:
    return await store.find_one(ctx, ctx.meta("User"), {"_id": value}, {"_id": 1}) is not None


async def users_with_role(ctx: Context, role: str) -> list[str]:
    rows = await store.find(ctx, ctx.meta("User"), {"roles.role": role, "enabled": 1}, projection={"_id": 1},
                            sort=[("_id", 1)])
    return [str(r["_id"]) for r in rows if r["_id"] not in ("Guest",)]


async def _by_language(ctx: Context, targets: list[str]) -> dict[str, list[str]]:
    """Recipients grouped by their language (a user's own, else the acting context's)."""
    groups: dict[str, list[str]] = {}
    for target in targets:
        lang = ctx.lang
        if "@" not in target or await _is_user(ctx, target):
            lang = (await ctx.site.user_info(target))[1] or ctx.lang
        groups.setdefault(lang, []).append(target)
    return groups


async def _set_property(ctx: Context, rule: Mapping[str, Any], doctype: str, docname: str) -> None:
    field = rule.get("set_property_after_alert")
    if not field:
        return
    quiet = ctx.clone()
    quiet.flags = {**ctx.flags, QUIET: True}
    doc = await get_doc(quiet, doctype, docname)
    definition = doc.meta.get_field(str(field))
    if definition is None:
        raise exc.ValidationError(_("Field {0} does not exist in {1}", field, doctype),
                                  field="set_property_after_alert")
    if int(doc.get("docstatus") or 0) == 1 and not definition.allow_on_submit:
        return  # a submitted document keeps its values (Frappe's rule)
    doc.set(str(field), rule.get("property_value"))
    await doc.save(ignore_permissions=True)


async def send_daily(ctx: Context, today: date | None = None) -> int:
    """The core's daily job: Days Before and Days After rules on the documents whose date is due
    today; how many documents were notified."""
    today = today or date.today()
    rules = await store.find(ctx, ctx.meta(DOCTYPE), {"event": {"$in": ["Days Before", "Days After"]},
                                                      "enabled": 1}, sort=[("creation", 1)])
    sent = 0
    for rule in rules:
        doctype, field = rule.get("document_type"), rule.get("date_changed")
        if not doctype or not field or not ctx.site.meta.exists(str(doctype)):
            continue
        days = int(rule.get("days_in_advance") or 0)
        due = today + timedelta(days=days if rule["event"] == "Days Before" else -days)
        day = due.isoformat()
        names = await listing.get_all(ctx, str(doctype), pluck="name",
                                      filters=[[field, ">=", day], [field, "<", (due + timedelta(days=1)).isoformat()]])
        for name in names:
            try:
                values = (await get_doc(ctx, str(doctype), str(name))).as_dict()
            except exc.DoesNotExistError:
                continue
            sent += await evaluate(ctx, rule, values) is True
    return sent
