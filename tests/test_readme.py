"""README.md is the front door: its configuration table names every setting fw reads."""

from __future__ import annotations

import re
from pathlib import Path

from engine.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def test_every_setting_is_in_the_configuration_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `(FW_[A-Z_]+)` \|", table, flags=re.MULTILINE))
    settings = {f"FW_{name.upper()}" for name in Settings.model_fields}
    assert not settings - documented, f"add to README's configuration table: {sorted(settings - documented)}"
    assert not documented - settings, f"README documents settings fw does not read: {sorted(documented - settings)}"
