"""A backup on disk: mongodump's directory layout plus fw's manifest.

    <site>-<UTC time>/
        fw-backup.json                          what was backed up, counts, a SHA-256 per file
        <db>/<collection>.bson.gz               the documents: concatenated BSON, gzip
        <db>/<collection>.metadata.json.gz      {"options", "indexes", "uuid", "collectionName", "type"}

exactly what `mongodump --gzip` writes, so `mongorestore --gzip` reads an unencrypted backup. An
encrypted backup's files end in `.enc` (engine/operations/crypto.py) and only `fw restore` reads them.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import hmac
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from engine import exceptions as exc
from engine.db.snapshot import CollectionInfo, extended_json
from engine.operations.crypto import DecryptingReader, EncryptingWriter

MANIFEST = "fw-backup.json"
FORMAT = "fw-backup/1"
COMPRESS_LEVEL = 5  # gzip's 6 costs a fifth more time for 1-2 % smaller files


def data_file(db_name: str, collection: str, encrypted: bool) -> str:
    return f"{db_name}/{collection}.bson.gz" + (".enc" if encrypted else "")


def metadata_file(db_name: str, collection: str, encrypted: bool) -> str:
    return f"{db_name}/{collection}.metadata.json.gz" + (".enc" if encrypted else "")


def metadata_document(info: CollectionInfo) -> str:
    """mongodump's `<collection>.metadata.json`: canonical extended JSON."""
    document: dict[str, Any] = {"options": info.options, "indexes": info.indexes, "collectionName": info.name,
                                "type": "collection"}
    if info.uuid:
        document["uuid"] = info.uuid
    return extended_json(document)


@dataclass
class CollectionEntry:
    """One collection in the manifest."""

    name: str
    count: int
    data: str       # the data file's path inside the backup
    metadata: str   # the metadata file's path inside the backup


@dataclass
class Manifest:
    """`fw-backup.json`."""

    site: str
    database: str
    created: str                     # UTC, ISO 8601
    fw_version: str
    apps: dict[str, str]             # app name -> version
    cluster_time: tuple[int, int] | None
    encrypted: bool
    key_check: str | None
    collections: list[CollectionEntry] = field(default_factory=list)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)  # path -> {"sha256", "bytes"}
    mac: str | None = None  # an encrypted backup's signature of the rest (`manifest_mac`)

    def body(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "site": self.site, "database": self.database, "created": self.created,
            "fw_version": self.fw_version, "apps": self.apps,
            "cluster_time": {"t": self.cluster_time[0], "i": self.cluster_time[1]} if self.cluster_time else None,
            "encrypted": self.encrypted, "key_check": self.key_check,
            "collections": [{"name": c.name, "count": c.count, "data": c.data, "metadata": c.metadata}
                            for c in self.collections],
            "files": self.files,
        }

    def to_json(self, key: bytes | None = None) -> str:
        """The manifest; with the encryption key, signed (`mac`), so that not even a whole file can be
        left out of an encrypted backup unnoticed."""
        body = self.body()
        if key is not None:
            body["mac"] = manifest_mac(key, body)
        return json.dumps(body, indent=1)

    @classmethod
    def read(cls, backup: Path) -> Manifest:
        path = backup / MANIFEST
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            if raw.get("format") != FORMAT:
                raise ValueError(f"format {raw.get('format')!r}, expected {FORMAT!r}")
            stamp = raw.get("cluster_time")
            return cls(
                site=raw["site"], database=raw["database"], created=raw["created"], fw_version=raw["fw_version"],
                apps=dict(raw["apps"]), cluster_time=(stamp["t"], stamp["i"]) if stamp else None,
                encrypted=bool(raw["encrypted"]), key_check=raw.get("key_check"),
                collections=[CollectionEntry(c["name"], int(c["count"]), c["data"], c["metadata"])
                             for c in raw["collections"]],
                files={str(k): dict(v) for k, v in raw["files"].items()}, mac=raw.get("mac"))
        except FileNotFoundError:
            raise exc.ValidationError(f"{backup} is not an fw backup: it has no {MANIFEST}.") from None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise exc.ValidationError(f"{path} is damaged ({e}); restore another backup.") from None


def manifest_mac(key: bytes, body: dict[str, Any]) -> str:
    """HMAC-SHA256 of the manifest's fields (but `mac`), keyed by a key derived from the backup key."""
    mac_key = hmac.new(key, b"fw backup manifest", hashlib.sha256).digest()
    text = json.dumps({k: v for k, v in body.items() if k != "mac"}, sort_keys=True, separators=(",", ":"))
    return hmac.new(mac_key, text.encode(), hashlib.sha256).hexdigest()


class HashingWriter:
    """Writes through to `sink`, hashing and counting what it writes (the file's checksum as stored)."""

    def __init__(self, sink: BinaryIO) -> None:
        self._sink = sink
        self.sha256 = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes) -> int:
        self.sha256.update(data)
        self.size += len(data)
        self._sink.write(data)
        return len(data)

    def flush(self) -> None:
        self._sink.flush()


class BackupFileWriter:
    """One file of a backup: gzip, then encryption when a key is given, then hashing (blocking I/O)."""

    def __init__(self, root: Path, name: str, key: bytes | None) -> None:
        self.name = name
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("wb")
        self._hashing = HashingWriter(self._file)
        self._encrypting = EncryptingWriter(self._hashing, key, name) if key is not None else None  # type: ignore[arg-type]
        self._gzip = gzip.GzipFile(filename="", mode="wb", compresslevel=COMPRESS_LEVEL, mtime=0,
                                   fileobj=self._encrypting or self._hashing)

    def write(self, data: bytes) -> None:
        self._gzip.write(data)

    def close(self) -> dict[str, Any]:
        """Finish the file; its entry for the manifest's `files`."""
        self._gzip.close()
        if self._encrypting is not None:
            self._encrypting.finish()
        self._file.close()
        return {"sha256": self._hashing.sha256.hexdigest(), "bytes": self._hashing.size}

    def abort(self) -> None:
        self._file.close()


@contextlib.contextmanager
def open_backup_file(root: Path, name: str, key: bytes | None) -> Iterator[BinaryIO]:
    """A backup file for reading, decompressed (and decrypted)."""
    with (root / name).open("rb") as raw:
        source: Any = DecryptingReader(raw, key, name) if key is not None else raw
        with gzip.GzipFile(filename="", mode="rb", fileobj=source) as f:
            yield f  # type: ignore[misc]


def file_sha256(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size
