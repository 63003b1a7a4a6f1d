"""doc_events handlers (see hooks.py): what other documents' lifecycles mean for scores."""

from __future__ import annotations

from typing import Any

import engine as fw
from workforce_scoring.constants import EMPLOYEE
from workforce_scoring.scoring.calculation import MONTHLY, month_of

LEVEL_INDICATORS = {"needs_improvement": "red", "average": "orange", "good": "green", "excellent": "green"}


async def recalculate_for_violation(doc: fw.Document, method: str) -> None:
    """Warehouse Violation on_submit / on_cancel: the month's penalty points changed, so its score
    is recalculated in a background job, once this transaction has committed (the job must see the
    violation's new state). A submitted score stays as it is. Code that recalculates by itself
    afterwards (a bulk load) sets `doc.flags["skip_recalculation"]`."""
    if not doc.employee or not doc.date or doc.flags.get("skip_recalculation"):
        return
    await fw.enqueue(doc.ctx, "workforce_scoring.tasks.recalculate_employee", queue="long", timeout=600,
                     enqueue_after_commit=True, employee=doc.employee, period_type=MONTHLY,
                     period_value=month_of(str(doc.date)))


async def notify_employee(doc: fw.Document, method: str) -> None:
    """Employee Score after_insert: tell the employee (in their language) their new score."""
    user = await fw.get_value(doc.ctx, EMPLOYEE, doc.employee, "user_id")
    if not user:
        return
    _roles, lang = await doc.ctx.site.user_info(user)
    lang = lang or "en"
    level = doc.level or ""
    message: dict[str, Any] = {
        "message": fw._("Your score for {0} is {1} ({2})", doc.period_value or doc.date or "", _number(doc.value),
                        level_label(level, lang), lang=lang),
        "title": fw._("New Employee Score", lang=lang),
        "indicator": LEVEL_INDICATORS.get(level, "blue"),
    }
    await fw.publish_realtime(doc.ctx, "msgprint", message, user=user, after_commit=True)


def level_label(level: str, lang: str) -> str:
    labels = {"needs_improvement": fw._("Needs Improvement", lang=lang), "average": fw._("Average", lang=lang),
              "good": fw._("Good", lang=lang), "excellent": fw._("Excellent", lang=lang)}
    return labels.get(level, level)


def _number(value: float | None) -> str:
    return f"{value or 0:g}"
