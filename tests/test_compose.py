"""docker-compose.yml: the services operators need, and a file `docker-compose config` accepts."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"


def test_services() -> None:
    services = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]
    assert {"mongo", "redis", "web", "worker", "scheduler"} <= set(services), sorted(services)
    command = services["mongo"]["command"]
    assert "--replSet" in (command if isinstance(command, str) else " ".join(command))
    for name in ("web", "worker", "scheduler"):
        env = services[name]["environment"]
        assert "replicaSet=" in env["FW_MONGO_URL"] and env["FW_REDIS_URL"].startswith("redis://"), name


def test_docker_compose_config_is_valid() -> None:
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.fail("the `docker-compose` command is missing: install it (Debian/Ubuntu: "
                    "`apt-get install -y docker-compose`; .ci/run does this when run as root)")
    proc = subprocess.run([binary, "-f", str(COMPOSE), "config", "-q"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
