"""`fw restore`'s engine side: a round trip through a backup gives back every document, index, file,
password, API key and naming-series counter; a damaged backup or a site holding documents is refused
before anything is touched."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import bson
import pytest

from engine import auth
from engine import exceptions as exc
from engine.apps.registry import AppRegistry
from engine.constants import STATE_COLLECTION
from engine.context import unit_of_work
from engine.documents.factory import new_doc
from engine.files import storage
from engine.migrate import LOCK_ID, migrate
from engine.operations.backup import backup_site
from engine.operations.restore import documents_held, restore_site, verify_backup
from engine.settings import Settings
from engine.site import Site
from tests.engine.operations.support import FILE_BYTES, PASSWORD, other_site, populate, raw_database


async def test_a_round_trip_gives_back_the_whole_site(site: Site, settings: Settings, registry: AppRegistry,
                                                     tmp_path: Path) -> None:
    ctx = site.context()
    await migrate(site)  # the restore migrates: the site backed up is a migrated one too
    made = await populate(ctx)
    before = await raw_database(site)
    result = await backup_site(site, output_dir=tmp_path)
    async with other_site(settings, registry, f"fw_restore_{uuid.uuid4().hex[:8]}") as target:
        restored = await restore_site(target, result.path)
        assert restored.documents == result.documents > 0
        after = await raw_database(target)
        # every collection, document for document, byte for byte, and every index
        assert sorted(after) == sorted(before)
        resynced = target.meta.get("Scheduled Job Type").collection
        for name in before:
            assert after[name]["indexes"] == before[name]["indexes"], name
            if name == resynced:  # the restore's migrate syncs the job types from the hooks: it stamps `modified`
                assert _without(after[name]["documents"], "modified") == _without(before[name]["documents"],
                                                                                   "modified")
            else:
                assert after[name]["documents"] == before[name]["documents"], name
        # and it works: the password, the API key (digested with the restored site secret), the file's
        # content, the naming series going on where it was
        assert await auth.login(target, "kept@example.com", PASSWORD, None) == "kept@example.com"
        assert await auth.user_for_api_key(target, made["api_key"], made["api_secret"], None) == "kept@example.com"
        target_ctx = target.context()
        assert await storage.read(target_ctx, made["content_hash"]) == FILE_BYTES
        async with unit_of_work(target_ctx):
            later = await new_doc(target_ctx, "Test Series", label="after the restore").insert()
        async with unit_of_work(ctx):
            expected = await new_doc(ctx, "Test Series", label="after the restore").insert()
        assert later.name == expected.name


def _without(documents: dict[str, bytes], key: str) -> dict[str, dict[str, Any]]:
    return {name: {k: v for k, v in bson.decode(raw).items() if k != key} for name, raw in documents.items()}


async def test_a_site_holding_documents_is_refused_without_force(site: Site, tmp_path: Path) -> None:
    ctx = site.context()
    assert await documents_held(site) == {}  # a migrated, bootstrapped site holds nothing of its own
    await populate(ctx)
    result = await backup_site(site, output_dir=tmp_path)
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Note", title="written after the backup").insert()
    before = await raw_database(site)
    with pytest.raises(exc.ValidationError) as refused:
        await restore_site(site, result.path)
    assert "holds documents" in refused.value.message and "--force" in refused.value.message
    assert await raw_database(site) == before  # nothing touched
    await restore_site(site, result.path, force=True)
    notes = [d async for d in site.db.collection(site.meta.get("Test Note").collection).find({})]
    assert [n["title"] for n in notes] == ["a note to keep"]


@pytest.mark.parametrize("damage", ["flip", "truncate", "delete", "manifest"])
async def test_a_damaged_backup_is_refused_naming_the_file(site: Site, settings: Settings, registry: AppRegistry,
                                                          tmp_path: Path, damage: str) -> None:
    await populate(site.context())
    result = await backup_site(site, output_dir=tmp_path)
    victim = next(p for p in result.path.rglob("*.bson.gz") if "_fw_file_chunks" in p.name)
    if damage == "flip":
        data = bytearray(victim.read_bytes())
        data[len(data) // 2] ^= 0x01
        victim.write_bytes(bytes(data))
    elif damage == "truncate":
        victim.write_bytes(victim.read_bytes()[:-100])
    elif damage == "delete":
        victim.unlink()
    else:
        manifest = result.path / "fw-backup.json"
        manifest.write_text(manifest.read_text()[:-20])
    with pytest.raises(exc.ValidationError) as refused:
        verify_backup(result.path)
    named = "fw-backup.json" if damage == "manifest" else victim.name
    assert named in refused.value.message
    async with other_site(settings, registry, f"fw_restore_{uuid.uuid4().hex[:8]}") as target:
        with pytest.raises(exc.ValidationError):
            await restore_site(target, result.path)
        assert await target.db.handle.list_collection_names() == []  # refused before touching the site


async def test_a_backup_taken_during_a_migrate_restores_without_waiting_for_its_lock(
        site: Site, settings: Settings, registry: AppRegistry, tmp_path: Path) -> None:
    state = site.db.collection(STATE_COLLECTION)
    await state.insert_one({"_id": LOCK_ID, "owner": "another process", "expires": time.time() + 3600})
    try:
        result = await backup_site(site, output_dir=tmp_path)
    finally:
        await state.delete_one({"_id": LOCK_ID})
    async with other_site(settings, registry, f"fw_restore_{uuid.uuid4().hex[:8]}") as target:
        await asyncio.wait_for(restore_site(target, result.path), 60)  # the lock would hold it for an hour
        assert await target.db.collection(STATE_COLLECTION).find_one({"_id": LOCK_ID}) is None
