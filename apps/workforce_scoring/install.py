"""after_install and after_migrate (see hooks.py): what the app needs on every site.

Both are idempotent: they create only what is missing, so a migrate never undoes a change an
administrator made (edited thresholds stay as they are).
"""

from __future__ import annotations

import engine as fw
from workforce_scoring.constants import EMPLOYEE_SCORE, ROLES, SCORING_SETTINGS
from workforce_scoring.scoring import service
from workforce_scoring.scoring.calculation import PERIOD_TYPES
from workforce_scoring.scoring.levels import DEFAULT_THRESHOLDS

KEY_BATCH = 500


async def after_install(ctx: fw.Context) -> None:
    await ensure_defaults(ctx)


async def after_migrate(ctx: fw.Context) -> None:
    await ensure_defaults(ctx)
    await key_period_scores(ctx)


async def ensure_defaults(ctx: fw.Context) -> None:
    for role in ROLES:  # also shipped as fixtures; created here too so the app works without them
        if not await fw.exists(ctx, "Role", role):
            await fw.new_doc(ctx, "Role", role_name=role, desk_access=1).insert(ignore_permissions=True)
    settings = await fw.get_doc(ctx, SCORING_SETTINGS)
    if settings.is_new():
        for band in DEFAULT_THRESHOLDS:
            settings.append("thresholds", {"level": band.level, "min_pph": band.min_pph, "max_pph": band.max_pph})
        await settings.insert(ignore_permissions=True)


async def key_period_scores(ctx: fw.Context) -> int:
    """Give `period_key` to the period scores stored before the field existed, so its unique index
    covers them too; returns how many got it. Of two such scores of one period (stored before the
    index could refuse the second) only the oldest gets it, and the other stays as it is."""
    rows = await fw.get_all(ctx, EMPLOYEE_SCORE, fields=["name", "employee", "period_type", "period_value"],
                            filters=[[service.PERIOD_KEY, "is", "not set"], ["period_type", "in", list(PERIOD_TYPES)],
                                     ["docstatus", "!=", 2]], order_by="creation asc")
    keys = {row["name"]: service.period_key(row["employee"], row["period_type"], row["period_value"]) for row in rows}
    taken = set(await fw.get_all(ctx, EMPLOYEE_SCORE, pluck=service.PERIOD_KEY, filters=[
        [service.PERIOD_KEY, "in", sorted({key for key in keys.values() if key})]])) if keys else set()
    keyed = 0
    for name, key in keys.items():
        if key is None or key in taken:
            continue
        taken.add(key)
        # a stored value, not an edit: written straight to the document, no hooks, `modified` kept
        await (await fw.get_doc(ctx, EMPLOYEE_SCORE, name)).db_set(service.PERIOD_KEY, key, update_modified=False)
        keyed += 1
        if keyed % KEY_BATCH == 0:
            await ctx.commit()
    await ctx.commit()
    return keyed
