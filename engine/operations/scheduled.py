"""Scheduled backups: FW_BACKUP_FREQUENCY (off, hourly, daily, weekly) and FW_BACKUP_KEEP.

The core's `hourly_long` scheduler event (engine/core/hooks.py) runs `scheduled_backup` every hour on
the `long` queue; it backs up when the newest backup in FW_DATA_DIR/backups is older than the
frequency, so a changed setting applies from the next hour without a migrate, and a missed run
(the scheduler was down) is made up at the next. Then the oldest backups beyond FW_BACKUP_KEEP
are removed. Backups are encrypted when FW_BACKUP_ENCRYPTION_KEY is set.
"""

from __future__ import annotations

import json
import logging
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from engine.operations.backup import backup_site, backups_dir
from engine.operations.layout import MANIFEST

if TYPE_CHECKING:
    from engine.context import Context
    from engine.site import Site

log = logging.getLogger("fw.backup")
PERIOD = {"hourly": timedelta(hours=1), "daily": timedelta(days=1), "weekly": timedelta(weeks=1)}
# the job runs hourly and a backup takes a while: a backup made a little less than a period ago counts
SLACK = timedelta(minutes=10)


def site_backups(folder: Path, site_name: str) -> list[tuple[datetime, Path]]:
    """The site's complete backups in `folder` (those with a manifest), oldest first."""
    found: list[tuple[datetime, Path]] = []
    if not folder.is_dir():
        return found
    for path in folder.iterdir():
        manifest = path / MANIFEST
        if not (path.is_dir() and path.name.startswith(f"{site_name}-") and manifest.is_file()):
            continue
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
            if data.get("site") != site_name:
                continue
            created = datetime.fromisoformat(data["created"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not a backup fw can read: not one to count, nor to delete
        found.append((created, path))
    return sorted(found)


def prune(folder: Path, site_name: str, keep: int) -> list[Path]:
    """Remove the site's oldest backups beyond `keep`; returns what was removed."""
    backups = site_backups(folder, site_name)
    removed = [path for _created, path in backups[:max(len(backups) - keep, 0)]]
    for path in removed:
        shutil.rmtree(path)
        log.info("removed old backup %s", path)
    return removed


def is_due(site: Site, now: datetime) -> bool:
    frequency = site.settings.backup_frequency
    if frequency == "off":
        return False
    backups = site_backups(backups_dir(site), site.name)
    return not backups or now - backups[-1][0] >= PERIOD[frequency] - SLACK


async def run_scheduled_backup(site: Site, now: datetime | None = None) -> Path | None:
    """Back up if due, then prune; the new backup's folder, or None when none was due."""
    now = now or datetime.now(UTC)
    if not is_due(site, now):
        return None
    key = site.settings.backup_encryption_key
    result = await backup_site(site, encrypt=bool(key), key=key)
    log.info("scheduled backup %s: %s documents, %.1f MB", result.path, result.documents, result.bytes / 1e6)
    prune(backups_dir(site), site.name, site.settings.backup_keep)
    return result.path


async def scheduled_backup(ctx: Context) -> str | None:
    """The scheduler's job (engine/core/hooks.py)."""
    path = await run_scheduled_backup(ctx.site)
    return str(path) if path else None
