"""`fw backup`: the site's whole database at one cluster time, in mongodump's layout (layout.py).

Everything but the login sessions is backed up: documents, the files' contents (they live in
`_fw_file_contents` / `_fw_file_chunks`), users with their password hashes, API keys, naming-series
counters, `_fw_state` (the site secret that API secrets are digested with). The backup is written
under a temporary name and renamed when complete, so a backup that looks complete is complete.
Memory holds one driver batch and one encryption chunk, whatever the site's size.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from engine import exceptions as exc
from engine.db import snapshot
from engine.operations.crypto import key_check, parse_key
from engine.operations.layout import (
    BackupFileWriter,
    CollectionEntry,
    Manifest,
    data_file,
    metadata_document,
    metadata_file,
)
from engine.sessions import SESSIONS

if TYPE_CHECKING:
    from engine.apps.installed import App
    from engine.site import Site

EXCLUDED = (SESSIONS,)  # a restored site starts with nobody logged in
BATCH = 2000
# collection, documents written so far, documents in the site (estimated before the snapshot)
BackupProgress = Callable[[str, int, int], None]


@dataclass
class BackupResult:
    path: Path
    manifest: Manifest
    documents: int
    bytes: int
    seconds: float


def backups_dir(site: Site) -> Path:
    """Where backups go by default: FW_DATA_DIR/backups."""
    return site.settings.data_dir / "backups"


def fw_version() -> str:
    try:
        return importlib.metadata.version("fw")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _app_version(app: App) -> str:
    """hooks.py's `app_version`, else the package's `__version__` (as `fw new-app` writes it), else ""."""
    version = getattr(app.hooks, "app_version", None)
    if version is None:
        version = getattr(sys.modules.get(app.name), "__version__", "")
    return str(version)


def _target(parent: Path, site_name: str, moment: datetime) -> Path:
    base = f"{site_name}-{moment.strftime('%Y-%m-%d_%H%M%S')}"
    target, n = parent / base, 1
    while target.exists() or (parent / f".{target.name}.partial").exists():
        n += 1
        target = parent / f"{base}-{n}"
    return target


async def backup_site(site: Site, *, output_dir: Path | None = None, encrypt: bool = False,
                      key: str | None = None, progress: BackupProgress | None = None) -> BackupResult:
    """Back the site up into a new folder under `output_dir` (default FW_DATA_DIR/backups).

    `encrypt`: with `key` (FW_BACKUP_ENCRYPTION_KEY's form), else the setting; ConfigurationError
    without either. A folder that cannot be written, or a full disk, is a ConfigurationError naming
    the folder, and no partial backup is left behind."""
    started = time.monotonic()
    if not site.db.transactional:
        raise exc.ConfigurationError("A backup needs a real MongoDB (a replica set): the in-memory backend has no "
                                     "snapshot reads, and keeps nothing to back up. Set FW_MONGO_URL or use the "
                                     "embedded mongod.")
    key_bytes: bytes | None = None
    if encrypt:
        text = key or site.settings.backup_encryption_key
        if not text:
            raise exc.ConfigurationError("No backup encryption key: set FW_BACKUP_ENCRYPTION_KEY, or run "
                                         "`fw backup --encrypt` once to generate one.")
        key_bytes = parse_key(text)
    parent = output_dir or backups_dir(site)
    moment = datetime.now(UTC)
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise exc.ConfigurationError(f"Cannot create the backup folder {parent}: {e.strerror or e}; choose "
                                     "another with --output.") from e
    target = _target(parent, site.name, moment)
    partial = parent / f".{target.name}.partial"
    manifest = Manifest(site=site.name, database=site.db.name, created=moment.isoformat(timespec="seconds"),
                        fw_version=fw_version(), apps={a.name: _app_version(a) for a in site.apps.apps},
                        cluster_time=None, encrypted=encrypt, key_check=key_check(key_bytes) if key_bytes else None)
    try:
        partial.mkdir()
        documents = await _write_collections(site, partial, manifest, key_bytes, progress)
        (partial / "fw-backup.json").write_text(manifest.to_json(key_bytes), encoding="utf-8")
        partial.rename(target)
    except OSError as e:
        shutil.rmtree(partial, ignore_errors=True)
        raise exc.ConfigurationError(f"Cannot write the backup to {parent}: {e.strerror or e}; free some space "
                                     "or choose another folder with --output, then run it again.") from e
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    size = sum(int(f["bytes"]) for f in manifest.files.values())
    return BackupResult(target, manifest, documents, size, time.monotonic() - started)


async def _write_collections(site: Site, root: Path, manifest: Manifest, key: bytes | None,
                             progress: BackupProgress | None) -> int:
    database = site.db
    collections = await snapshot.describe_collections(database, exclude=EXCLUDED)
    total = sum([await database.handle[c.name].estimated_document_count() for c in collections])
    done = 0
    async with snapshot.snapshot_reader(database) as reader:
        for info in collections:
            count = 0
            name = data_file(database.name, info.name, key is not None)
            writer = await asyncio.to_thread(BackupFileWriter, root, name, key)
            pending: asyncio.Future[None] | None = None  # one batch is compressed while the next is read
            try:
                async for batch in reader.raw_batches(info.name, BATCH):
                    if pending is not None:
                        await pending
                    pending = asyncio.ensure_future(asyncio.to_thread(writer.write, batch))
                    n = snapshot.count_documents(batch)
                    count += n
                    done += n
                    if progress is not None:
                        progress(info.name, done, max(total, done))
                if pending is not None:
                    await pending
                manifest.files[name] = await asyncio.to_thread(writer.close)
            except BaseException:
                if pending is not None and not pending.done():
                    with contextlib.suppress(BaseException):
                        await pending  # the file is closed only once its writing thread is done
                writer.abort()
                raise
            meta_name = metadata_file(database.name, info.name, key is not None)
            meta_writer = BackupFileWriter(root, meta_name, key)
            try:
                meta_writer.write(metadata_document(info).encode())
                manifest.files[meta_name] = meta_writer.close()
            except BaseException:
                meta_writer.abort()
                raise
            manifest.collections.append(CollectionEntry(info.name, count, name, meta_name))
            if manifest.cluster_time is None:
                manifest.cluster_time = reader.cluster_time
            if progress is not None:
                progress(info.name, done, max(total, done))
    return done
