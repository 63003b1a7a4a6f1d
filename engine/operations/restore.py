"""`fw restore`: check a backup whole, then replace the site's database with it and migrate.

Nothing is touched before the checks pass: every file against its SHA-256 in `fw-backup.json`, the
encryption key against the manifest's fingerprint, and the site: one that holds documents is
refused unless `force`. Then every collection is dropped and the backup's collections are created
with their options, their documents and their indexes, and `migrate` brings the schema to the apps
installed now. Processes that have the site open (`fw serve`, workers) keep caches of the replaced
database: stop them first and start them after.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, BinaryIO

import bson
from bson.errors import InvalidBSON
from bson.raw_bson import RawBSONDocument

from engine import exceptions as exc
from engine.constants import STANDARD_USERS, STATE_COLLECTION
from engine.db import snapshot
from engine.migrate import LOCK_ID, migrate
from engine.operations.crypto import BackupFileError, key_check, parse_key
from engine.operations.layout import Manifest, file_sha256, manifest_mac, open_backup_file

if TYPE_CHECKING:
    from engine.site import Site

# what a freshly migrated site holds already: these do not make a site "hold documents"
MIGRATE_WRITES = ("DocType", "Role", "Module Def", "Scheduled Job Type", "Report")
BATCH_DOCUMENTS = 1000
BATCH_BYTES = 8 << 20
RestoreProgress = Callable[[str, int, int], None]


@dataclass
class RestoreResult:
    manifest: Manifest
    documents: int
    seconds: float
    migrate_seconds: float  # of `seconds`, the migrate at the end


def verify_backup(path: Path, key: str | None = None) -> Manifest:
    """The backup's manifest, once every file matches it (ValidationError naming the first that does not;
    ConfigurationError for a missing or wrong key)."""
    if not path.is_dir():
        raise exc.ValidationError(f"{path} is not a backup folder (fw backup writes one folder per backup).")
    manifest = Manifest.read(path)
    if manifest.encrypted:
        if not key:
            raise exc.ConfigurationError(f"{path} is encrypted: set FW_BACKUP_ENCRYPTION_KEY to the key of the "
                                         "site that made it (printed when it was generated, kept in its .env).")
        key_bytes = parse_key(key)
        if key_check(key_bytes) != manifest.key_check:
            raise exc.ConfigurationError(f"FW_BACKUP_ENCRYPTION_KEY is not the key {path} was encrypted with.")
        if manifest.mac is None or not hmac.compare_digest(manifest.mac, manifest_mac(key_bytes, manifest.body())):
            raise exc.ValidationError(f"{path / 'fw-backup.json'} was altered (its signature does not match). "
                                      "Restore another backup.")
    for entry in manifest.collections:
        for name in (entry.data, entry.metadata):
            if name not in manifest.files:
                raise exc.ValidationError(f"{path / 'fw-backup.json'} lists {name} without its checksum; "
                                          "the manifest was altered. Restore another backup.")
    for name, expected in manifest.files.items():
        relative = PurePosixPath(name)
        if relative.is_absolute() or ".." in relative.parts:
            raise exc.ValidationError(f"{path / 'fw-backup.json'} names a file outside the backup: {name}")
        file = path / relative
        if not file.is_file():
            raise exc.ValidationError(f"{file} is missing: the backup is incomplete. Restore another backup.")
        digest, size = file_sha256(file)
        if digest != expected.get("sha256") or size != expected.get("bytes"):
            raise exc.ValidationError(f"{file} does not match its checksum in fw-backup.json: it was altered or "
                                      "cut short. Restore another backup.")
    return manifest


async def documents_held(site: Site) -> dict[str, int]:
    """Collection -> documents, for what a site holds beyond a freshly migrated site (empty: nothing)."""
    skip = set()
    for doctype in MIGRATE_WRITES:
        if doctype in site.apps.doctypes:
            skip.add(site.meta.get(doctype).collection)
    users = site.meta.get("User").collection
    held = {}
    for name in await snapshot.collection_names(site.db):
        if name.startswith("_") or name in skip:  # fw's private collections (state, counters, sessions, ...)
            continue
        query = {"_id": {"$nin": list(STANDARD_USERS)}} if name == users else {}
        count = await site.db.handle[name].count_documents(query, limit=1000)
        if count:
            held[name] = count
    return held


async def restore_site(site: Site, path: Path, *, force: bool = False, key: str | None = None,
                       progress: RestoreProgress | None = None) -> RestoreResult:
    """Replace the site's database with the backup at `path`, then migrate (see the module's docstring)."""
    started = time.monotonic()
    if site.db.backend != "mongo":
        raise exc.ConfigurationError("fw restore needs a real MongoDB; the in-memory backend keeps nothing.")
    manifest = await asyncio.to_thread(verify_backup, path, key or site.settings.backup_encryption_key)
    key_bytes = parse_key(key or site.settings.backup_encryption_key or "") if manifest.encrypted else None
    held = await documents_held(site)
    if held and not force:
        sample = ", ".join(f"{name} ({count})" for name, count in list(held.items())[:3])
        raise exc.ValidationError(
            f"Site {site.name} holds documents ({sample}); a restore replaces all of them. Run `fw backup` first "
            f"if you may need them, then `fw restore {path} --force`.")
    for name in await snapshot.collection_names(site.db):
        await snapshot.drop_collection(site.db, name)
    total = sum(entry.count for entry in manifest.collections)
    done = 0
    for entry in manifest.collections:
        metadata = await asyncio.to_thread(_read_metadata, path, entry.metadata, key_bytes)
        await snapshot.create_collection(site.db, entry.name, dict(metadata.get("options") or {}))
        with _backup_file(path, entry.data, key_bytes) as source:
            documents = _batches(source)
            # the next batch is read and decompressed while this one is inserted
            upcoming = asyncio.ensure_future(asyncio.to_thread(_next, documents))
            try:
                while batch := await upcoming:
                    upcoming = asyncio.ensure_future(asyncio.to_thread(_next, documents))
                    await snapshot.insert_raw(site.db, entry.name, batch)
                    done += len(batch)
                    if progress is not None:
                        progress(entry.name, done, total)
            finally:
                if not upcoming.done():
                    with contextlib.suppress(BaseException):
                        await upcoming  # the file is closed only once its reading thread is done
        await snapshot.create_indexes(site.db, entry.name, list(metadata.get("indexes") or []))
        if progress is not None:
            progress(entry.name, done, total)
    # a backup taken during a migrate holds its lock: the migrate below must not wait for it to expire
    await site.db.collection(STATE_COLLECTION).delete_one({"_id": LOCK_ID})
    site.forget_roles()
    site.sessions.forget_all()
    await site.meta.reload()
    migrating = time.monotonic()
    await migrate(site)
    return RestoreResult(manifest, done, time.monotonic() - started, time.monotonic() - migrating)


@contextlib.contextmanager
def _backup_file(root: Path, name: str, key: bytes | None) -> Iterator[BinaryIO]:
    """A backup file, readable; a decryption failure or a damaged gzip names the file."""
    try:
        with open_backup_file(root, name, key) as f:
            yield f
    except (BackupFileError, OSError, EOFError, InvalidBSON) as e:
        raise exc.ValidationError(f"{root / name} cannot be read ({e}); the site is partly restored: restore "
                                  "another backup with --force.") from e


def _read_metadata(root: Path, name: str, key: bytes | None) -> dict[str, Any]:
    with _backup_file(root, name, key) as f:
        value = snapshot.from_extended_json(f.read())
    if not isinstance(value, dict):
        raise exc.ValidationError(f"{root / name} is not a collection's metadata.")
    return value


def _next(batches: Iterator[list[RawBSONDocument]]) -> list[RawBSONDocument]:
    return next(batches, [])


def _batches(source: BinaryIO) -> Iterator[list[RawBSONDocument]]:
    """The file's documents, a bounded list at a time."""
    batch: list[RawBSONDocument] = []
    size = 0
    for document in bson.decode_file_iter(source, codec_options=snapshot.RAW):
        batch.append(document)
        size += len(document.raw)
        if len(batch) >= BATCH_DOCUMENTS or size >= BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch
