"""`fw backup` and `fw restore` as an operator runs them: real `fw` processes against the session's
mongod, each on a temporary root and its own databases."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.mongod import embedded
from tests.engine.test_cli import Bench, make_root


@pytest.fixture
def bench(mongod: embedded.EmbeddedMongo, tmp_path: Path) -> Iterator[Bench]:
    b = Bench(make_root(tmp_path / "root"), mongod.url, f"fw_cli_{secrets.token_hex(4)}")
    try:
        b.fw("migrate")
        b.fw("add-user", "kept@example.com", "--password", "Kept-pw-1", "--role", "System Manager")
        yield b
    finally:
        b.close()


@pytest.mark.parametrize("command", ["backup", "restore"])
def test_help(command: str) -> None:
    result = CliRunner().invoke(main, [command, "--help"], prog_name="fw")
    assert result.exit_code == 0 and f"Usage: fw {command}" in result.output
    assert ("--encrypt" if command == "backup" else "--force") in result.output


def test_backup_then_restore_into_the_same_and_into_a_new_site(bench: Bench, tmp_path: Path) -> None:
    out = bench.fw("backup")
    path = Path(out.stdout.strip().splitlines()[-1])
    assert path.parent == bench.root / ".fw" / "backups" and (path / "fw-backup.json").is_file()
    assert "Backed up" in out.stderr and "documents/s" in out.stderr

    refused = bench.fw("restore", str(path), expect=2)
    assert "holds documents" in refused.stderr and "--force" in refused.stderr
    with bench.db() as client:
        client[bench.db_name]["user"].delete_one({"_id": "kept@example.com"})
    restored = bench.fw("restore", str(path), "--force")
    assert "Restored" in restored.stderr and "migrated" in restored.stderr
    assert bench.find("user", "kept@example.com") is not None

    # a new, empty database: no --force needed
    other = Bench(bench.root, bench.mongo_url, f"fw_cli_{secrets.token_hex(4)}")
    try:
        other.fw("restore", str(path))
        assert other.find("user", "kept@example.com") is not None
    finally:
        other.close()


def test_a_damaged_backup_is_refused_naming_the_file(bench: Bench, tmp_path: Path) -> None:
    path = Path(bench.fw("backup", "--output", str(tmp_path / "elsewhere")).stdout.strip().splitlines()[-1])
    assert path.parent == tmp_path / "elsewhere"
    victim = path / bench.db_name / "user.bson.gz"
    victim.write_bytes(victim.read_bytes()[:-8])
    refused = bench.fw("restore", str(path), "--force", expect=2)
    assert "user.bson.gz does not match its checksum" in refused.stderr.replace("\n", "")
    assert bench.find("user", "kept@example.com") is not None  # untouched

    blocked = tmp_path / "a-file"
    blocked.write_text("")
    failed = bench.fw("backup", "--output", str(blocked / "x"), expect=2)
    assert "Cannot create the backup folder" in failed.stderr


def test_encrypt_generates_the_key_once_and_restore_uses_it(bench: Bench) -> None:
    first = bench.fw("backup", "--encrypt")
    assert "Generated a backup encryption key" in first.stderr and "Keep a copy" in first.stderr
    line = next(ln for ln in (bench.root / ".env").read_text().splitlines() if ln.startswith("FW_BACKUP_"))
    key = line.split("=", 1)[1]
    assert key in first.stderr.replace("\n", "")
    second = bench.fw("backup", "--encrypt")
    assert "Generated" not in second.stderr  # the key comes from .env now
    path = Path(second.stdout.strip().splitlines()[-1])
    assert json.loads((path / "fw-backup.json").read_text())["encrypted"] is True

    bench.extra_env["FW_BACKUP_ENCRYPTION_KEY"] = "A" * 43 + "="  # a key, but not this one
    wrong = bench.fw("restore", str(path), "--force", expect=2)
    assert "not the key" in wrong.stderr
    del bench.extra_env["FW_BACKUP_ENCRYPTION_KEY"]
    assert "Restored" in bench.fw("restore", str(path), "--force").stderr
