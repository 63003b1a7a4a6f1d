"""The README's "Five-minute tour", run as written: `fw migrate`, `fw data-import` of the companies,
branches and employees, `fw execute workforce_scoring.demo.load`, `fw data-import` of the new hires
and `fw start` as real processes on a fresh root whose apps.txt is the repository's (a fresh clone),
then the README's curl block through bash."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.mongod import embedded
from tests.e2e.conftest import ADMIN_PASSWORD, REPO_ROOT, FwServerFactory, free_port, fw_servers  # noqa: F401

README = REPO_ROOT / "README.md"


def tour_blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Five-minute tour", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", section, flags=re.S)


@pytest.fixture
def fresh_root(tmp_path: Path) -> Path:
    """What a fresh clone has: apps.txt and apps/ (nothing built, no data)."""
    root = tmp_path / "clone"
    root.mkdir()
    (root / "apps").symlink_to(REPO_ROOT / "apps")
    shutil.copy(REPO_ROOT / "apps.txt", root / "apps.txt")
    return root


def test_the_repository_installs_the_reference_apps() -> None:
    assert (REPO_ROOT / "apps.txt").read_text().split() == ["hr", "workforce_scoring"]


def test_the_tour(fw_servers: FwServerFactory, fresh_root: Path, mongod: embedded.EmbeddedMongo) -> None:  # noqa: F811
    if shutil.which("curl") is None or shutil.which("bash") is None:
        pytest.fail("the README tour test needs curl and bash on PATH")
    setup, session, spreadsheet = tour_blocks()
    commands = [line.split("#", 1)[0].strip() for line in setup.splitlines()]
    commands = [c for c in commands if c.startswith("fw ")]
    assert commands == [
        "fw migrate", "fw data-import --doctype Company --file apps/hr/demo/companies.csv",
        "fw data-import --doctype Branch --file apps/hr/demo/branches.csv",
        "fw data-import --doctype Employee --file apps/hr/demo/employees.csv",
        "fw execute workforce_scoring.demo.load", "fw start"]
    env = fw_servers.env({"FW_ROOT_DIR": str(fresh_root), "FW_ADMIN_PASSWORD": ADMIN_PASSWORD})
    for command in commands[:-1]:  # (from the site's folder, where apps/ is)
        done = subprocess.run([sys.executable, "-m", "engine.cli", *shlex.split(command)[1:]], env=env,
                              cwd=fresh_root, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{command}:\n{done.stdout}\n{done.stderr}"
        if command.startswith("fw data-import --doctype Employee"):
            assert "200 of 200 documents imported" in done.stderr  # (the console writes to stderr)
    assert json.loads(done.stdout)["employees"] == 200
    again = subprocess.run([sys.executable, "-m", "engine.cli", "execute", "workforce_scoring.demo.load"], env=env,
                           cwd=fw_servers.workdir, capture_output=True, text=True, timeout=300)
    assert again.returncode != 0 and "already loaded" in again.stderr
    # the new hires from the spreadsheet, as the README's third block loads them (from the site's folder)
    command = spreadsheet.split("#", 1)[0].strip()
    assert command.startswith("fw data-import ")
    done = subprocess.run([sys.executable, "-m", "engine.cli", *shlex.split(command)[1:]], env=env, cwd=fresh_root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{command}:\n{done.stdout}\n{done.stderr}"

    port = free_port()
    site = fw_servers.spawn("start", "--port", str(port), env={"FW_ROOT_DIR": str(fresh_root),
                                                               "FW_ADMIN_PASSWORD": ADMIN_PASSWORD})
    site.wait_for_log("Uvicorn running on")
    site.wait_for_log("fw scheduler running")
    script = session.replace("FW=http://127.0.0.1:8000", f"FW=http://127.0.0.1:{port}", 1)
    assert script != session
    shell_env = {**os.environ, "FW_ADMIN_PASSWORD": ADMIN_PASSWORD}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], env=shell_env, cwd=fw_servers.workdir,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    outputs = [json.loads(line) for line in re.findall(r"^\{.*\}$", done.stdout.replace("}{", "}\n{"), flags=re.M)]
    login, employees, delivered, calculated, report = outputs
    assert login["message"] == "Logged In"
    assert len(employees["data"]) == 3 and {"employee_name", "employee_number", "company"} <= set(employees["data"][0])
    assert delivered["message"] == {"status": "partial", "created": 2, "skipped": 1,
                                    "errors": [{"code": "X-9999", "error": "Not found"}]}
    assert calculated["message"]["status"] == "created"
    result = report["message"]
    assert [c["fieldname"] for c in result["columns"]] == ["employee", "value"]
    assert result["result"] and result["chart"]["type"] == "bar"
    assert result["report_summary"][0]["label"] == "Total"
    assert {row["company"] for row in result["result"]} == {"Northwind Logistics"}
    assert site.stop() == 0, site.log()[-4000:]  # Ctrl+C's SIGTERM twin: everything stops cleanly
    assert "| stopped" in site.log()
