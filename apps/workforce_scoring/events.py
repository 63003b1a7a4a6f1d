"""doc_events handlers (see hooks.py): what other documents' lifecycles mean for scores. The employee
hears of a confirmed violation and of a new monthly score through the app's Notifications
(fixtures/notification.json: bell and mail), not from code."""

from __future__ import annotations

import engine as fw
from workforce_scoring.scoring.calculation import MONTHLY, month_of


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
