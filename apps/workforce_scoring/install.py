"""after_install and after_migrate (see hooks.py): what the app needs on every site.

Both are idempotent: they create only what is missing, so a migrate never undoes a change an
administrator made (edited thresholds stay as they are).
"""

from __future__ import annotations

import engine as fw
from workforce_scoring.constants import ROLES, SCORING_SETTINGS
from workforce_scoring.scoring.levels import DEFAULT_THRESHOLDS


async def after_install(ctx: fw.Context) -> None:
    await ensure_defaults(ctx)


async def after_migrate(ctx: fw.Context) -> None:
    await ensure_defaults(ctx)


async def ensure_defaults(ctx: fw.Context) -> None:
    for role in ROLES:  # also shipped as fixtures; created here too so the app works without them
        if not await fw.exists(ctx, "Role", role):
            await fw.new_doc(ctx, "Role", role_name=role, desk_access=1).insert(ignore_permissions=True)
    settings = await fw.get_doc(ctx, SCORING_SETTINGS)
    if settings.is_new():
        for band in DEFAULT_THRESHOLDS:
            settings.append("thresholds", {"level": band.level, "min_pph": band.min_pph, "max_pph": band.max_pph})
        await settings.insert(ignore_permissions=True)
