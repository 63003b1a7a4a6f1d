"""Encrypted backups: the chunked AES-GCM stream refuses altered, reordered, truncated, moved or
wrongly keyed data, and an encrypted backup restores only with its key."""

from __future__ import annotations

import base64
import io
import json
import os
import uuid
from pathlib import Path

import pytest

from engine import exceptions as exc
from engine.apps.registry import AppRegistry
from engine.operations import crypto
from engine.operations.backup import backup_site
from engine.operations.keys import ensure_key
from engine.operations.restore import restore_site, verify_backup
from engine.settings import Settings
from engine.site import Site
from tests.engine.operations.support import other_site, populate, raw_database

KEY = crypto.parse_key(crypto.new_key())


def _encrypt(data: bytes, name: str = "db/x.bson.gz.enc", key: bytes = KEY) -> bytes:
    sink = io.BytesIO()
    writer = crypto.EncryptingWriter(sink, key, name)
    for start in range(0, len(data), 1000):
        writer.write(data[start:start + 1000])
    writer.finish()
    return sink.getvalue()


def _decrypt(blob: bytes, name: str = "db/x.bson.gz.enc", key: bytes = KEY) -> bytes:
    return crypto.DecryptingReader(io.BytesIO(blob), key, name).read()


def _chunks(blob: bytes) -> tuple[bytes, list[bytes]]:
    head, rest = blob[:len(crypto.MAGIC) + crypto.PREFIX_BYTES], blob[len(crypto.MAGIC) + crypto.PREFIX_BYTES:]
    chunks = []
    while rest:
        size = int.from_bytes(rest[:4], "big") + 4
        chunks.append(rest[:size])
        rest = rest[size:]
    return head, chunks


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(crypto, "CHUNK", 4096)


def test_a_stream_of_many_chunks_decrypts_to_what_was_written(small_chunks: None) -> None:
    data = os.urandom(4096 * 5 + 123)
    blob = _encrypt(data)
    assert blob.startswith(crypto.MAGIC) and data[:64] not in blob
    assert len(_chunks(blob)[1]) == 6
    assert _decrypt(blob) == data
    assert _decrypt(_encrypt(b"")) == b""


@pytest.mark.parametrize("damage", ["reorder", "drop_last", "cut", "flip", "append", "other_file", "wrong_key"])
def test_any_change_to_a_stream_is_refused(small_chunks: None, damage: str) -> None:
    blob = _encrypt(os.urandom(4096 * 4 + 10))
    head, chunks = _chunks(blob)
    name, key = "db/x.bson.gz.enc", KEY
    if damage == "reorder":
        chunks[0], chunks[1] = chunks[1], chunks[0]
    elif damage == "drop_last":
        chunks = chunks[:-1]
    elif damage == "cut":
        chunks[-1] = chunks[-1][:-5]
    elif damage == "flip":
        chunks[1] = chunks[1][:10] + bytes([chunks[1][10] ^ 1]) + chunks[1][11:]
    elif damage == "append":
        chunks.append(chunks[0])
    elif damage == "other_file":
        name = "db/y.bson.gz.enc"  # a file moved to another collection's place
    else:
        key = crypto.parse_key(crypto.new_key())
    with pytest.raises(crypto.BackupFileError) as refused:
        _decrypt(head + b"".join(chunks), name, key)
    assert name in str(refused.value)


def test_a_key_that_is_not_one_is_told() -> None:
    for text in ("", "short", base64.urlsafe_b64encode(b"x" * 31).decode()):
        with pytest.raises(exc.ConfigurationError) as refused:
            crypto.parse_key(text)
        assert "FW_BACKUP_ENCRYPTION_KEY" in refused.value.message


def test_the_key_is_generated_once_into_the_env_file(settings: Settings, tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("FW_DB_NAME=x")  # (no final newline)
    key, written = ensure_key(settings, env)
    assert written == env and len(crypto.parse_key(key)) == 32
    assert env.read_text().splitlines()[0] == "FW_DB_NAME=x"
    assert env.read_text().splitlines()[-1] == f"FW_BACKUP_ENCRYPTION_KEY={key}"
    # a process that did not read that .env is told so, never given a second key
    with pytest.raises(exc.ConfigurationError):
        ensure_key(settings, env)
    # one that read it gets the same key, and nothing is written
    configured = settings.model_copy(update={"backup_encryption_key": key})
    assert ensure_key(configured, env) == (key, None)
    fresh = tmp_path / "new.env"
    ensure_key(settings, fresh)
    assert fresh.stat().st_mode & 0o777 == 0o600  # a new .env holding a key is the owner's only


async def test_an_encrypted_backup_restores_with_its_key_only(site: Site, settings: Settings, registry: AppRegistry,
                                                              tmp_path: Path) -> None:
    await populate(site.context())
    key = crypto.new_key()
    result = await backup_site(site, output_dir=tmp_path, encrypt=True, key=key)
    files = [p for p in result.path.rglob("*") if p.is_file() and p.name != "fw-backup.json"]
    assert files and all(p.name.endswith(".gz.enc") and p.read_bytes().startswith(crypto.MAGIC) for p in files)
    assert b"kept@example.com" not in b"".join(p.read_bytes() for p in files)
    async with other_site(settings, registry, f"fw_restore_{uuid.uuid4().hex[:8]}") as target:
        with pytest.raises(exc.ConfigurationError) as refused:
            await restore_site(target, result.path)
        assert "encrypted" in refused.value.message
        with pytest.raises(exc.ConfigurationError) as refused:
            await restore_site(target, result.path, key=crypto.new_key())
        assert "not the key" in refused.value.message
        assert await target.db.handle.list_collection_names() == []
        await restore_site(target, result.path, key=key)
        restored = await raw_database(target)
        users = target.meta.get("User").collection
        assert restored[users]["documents"] == (await raw_database(site))[users]["documents"]


async def test_an_encrypted_backup_missing_a_whole_collection_is_refused(site: Site, tmp_path: Path) -> None:
    await populate(site.context())
    key = crypto.new_key()
    result = await backup_site(site, output_dir=tmp_path, encrypt=True, key=key)
    manifest_path = result.path / "fw-backup.json"
    manifest = json.loads(manifest_path.read_text())
    assert len(manifest["mac"]) == 64
    dropped = next(c for c in manifest["collections"] if c["name"] == "user")
    manifest["collections"].remove(dropped)
    for name in (dropped["data"], dropped["metadata"]):
        del manifest["files"][name]
        (result.path / name).unlink()
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(exc.ValidationError) as refused:
        verify_backup(result.path, key)
    assert "fw-backup.json was altered" in refused.value.message
