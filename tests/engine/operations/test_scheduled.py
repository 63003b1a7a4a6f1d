"""Scheduled backups: a core `hourly_long` job on the `long` queue, backing up when FW_BACKUP_FREQUENCY
says one is due and removing the oldest beyond FW_BACKUP_KEEP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.apps.registry import AppRegistry
from engine.jobs import queue, scheduler
from engine.operations import scheduled
from engine.operations.backup import backups_dir
from engine.site import Site

JOB = "engine.operations.scheduled.scheduled_backup"
T0 = datetime(2024, 3, 4, 10, 0, 30)


@pytest.fixture
def configured(site: Site, tmp_path: Path) -> Iterator[Any]:
    """Set the site's backup settings for a test (its data folder a temporary one)."""
    original = site.settings

    def configure(**values: Any) -> None:
        site.settings = original.model_copy(update={"data_dir": tmp_path, **values})

    configure()
    yield configure
    site.settings = original


def _fake_backup(folder: Path, name: str, site: str, created: datetime) -> Path:
    path = folder / name
    path.mkdir(parents=True)
    (path / "fw-backup.json").write_text(json.dumps({"site": site, "created": created.isoformat()}))
    return path


def test_the_core_declares_the_job_hourly_on_the_long_queue(registry: AppRegistry) -> None:
    event = next(e for e in registry.scheduler_events if e.path == JOB)
    assert (event.app, event.frequency, event.queue) == ("fw", "hourly_long", "long")


async def test_the_scheduler_runs_it_on_long_and_it_backs_up_when_due(site: Site, configured: Any) -> None:
    backend = queue.InProcessBackend(site)
    site._jobs_backend = backend  # type: ignore[attr-defined]
    submitted: list[Any] = []
    submit = backend.submit

    async def recording(payload: Any, *, at_front: bool) -> bool:
        submitted.append(payload)
        return await submit(payload, at_front=at_front)

    backend.submit = recording  # type: ignore[method-assign]
    try:
        configured(backup_frequency="off")
        await scheduler.sync_job_types(site, T0)
        await scheduler.tick(site, T0 + timedelta(hours=1))
        await backend.drain()
        ours = [p for p in submitted if p.method == JOB]
        assert [(p.queue, p.timeout) for p in ours] == [("long", 1500)]
        assert not backups_dir(site).exists()  # off: the job ran and did nothing

        configured(backup_frequency="daily")
        await scheduler.tick(site, T0 + timedelta(hours=2))
        await backend.drain()
        made = scheduled.site_backups(backups_dir(site), site.name)
        assert len(made) == 1 and (made[0][1] / site.db.name / "user.bson.gz").is_file()
        await scheduler.tick(site, T0 + timedelta(hours=3))  # an hour later: not due yet
        await backend.drain()
        assert len(scheduled.site_backups(backups_dir(site), site.name)) == 1
    finally:
        site._jobs_backend = None  # type: ignore[attr-defined]
    log = site.db.collection(site.meta.get("Scheduled Job Log").collection)
    statuses = [r["status"] async for r in log.find({"scheduled_job_type": JOB})]
    assert statuses == ["Complete"] * 3


@pytest.mark.parametrize(("frequency", "age", "due"), [
    ("off", None, False), ("hourly", None, True), ("hourly", timedelta(minutes=30), False),
    ("hourly", timedelta(minutes=55), True), ("daily", timedelta(hours=23), False),
    ("daily", timedelta(hours=24), True), ("weekly", timedelta(days=6), False), ("weekly", timedelta(days=7), True),
])
async def test_due_after_the_frequency_since_the_newest_backup(site: Site, configured: Any, frequency: str,
                                                               age: timedelta | None, due: bool) -> None:
    configured(backup_frequency=frequency)
    now = datetime(2024, 3, 4, 10, 0, tzinfo=UTC)
    if age is not None:
        _fake_backup(backups_dir(site), f"{site.name}-old", site.name, now - timedelta(days=30))
        _fake_backup(backups_dir(site), f"{site.name}-newest", site.name, now - age)
    assert scheduled.is_due(site, now) is due


async def test_the_oldest_beyond_the_limit_are_removed(site: Site, configured: Any) -> None:
    configured(backup_frequency="daily", backup_keep=2)
    folder = backups_dir(site)
    start = datetime(2024, 3, 1, tzinfo=UTC)
    old = [_fake_backup(folder, f"{site.name}-{i}", site.name, start + timedelta(days=i)) for i in range(3)]
    other_site = _fake_backup(folder, "elsewhere-0", "elsewhere", start - timedelta(days=9))
    unfinished = folder / f".{site.name}-9.partial"
    unfinished.mkdir()
    path = await scheduled.run_scheduled_backup(site, datetime.now(UTC))
    assert path is not None
    kept = [p for _created, p in scheduled.site_backups(folder, site.name)]
    assert kept == [old[2], path]
    assert other_site.is_dir() and unfinished.is_dir()  # not this site's, or not a backup: never removed
