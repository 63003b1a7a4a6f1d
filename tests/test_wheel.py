"""fw as a real package: a wheel built from a clean checkout carries everything fw reads at run time
(core doctypes, translations, the reference apps, the Desk's assets once there are some), and,
installed in a fresh virtualenv outside the checkout, it creates and runs a site on the embedded
default: `fw init mysite && cd mysite && fw migrate && fw add-user ...`, and the same with the
reference apps (`fw init --with-demo-apps`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

from engine.mongod import site_mongod
from engine.mongod.embedded import stop_pid
from tests.support.checkout import ROOT, copy_clean_checkout

# the kinds of files the Desk's assets will be (server/desk/static/**): each must reach the wheel
DESK_SAMPLES = ["app.bundle.js", "app.bundle.css", "icons/timeline.svg", "fonts/inter.woff2", "LICENSE",
                "boot.json", "messages.csv", "index.html"]


def _shipped(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


def test_the_wheel_installed_elsewhere_creates_and_runs_a_site(tmp_path: Path) -> None:
    source = tmp_path / "source"
    copy_clean_checkout(source)
    probe = source / "server" / "desk" / "static" / "_wheel_probe"
    for sample in DESK_SAMPLES:
        (probe / sample).parent.mkdir(parents=True, exist_ok=True)
        (probe / sample).write_text("probe\n")
    dist = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = dist.glob("fw-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())

    core = _shipped(ROOT / "engine" / "core" / "doctypes")
    assert len(core) >= 20 and {f"engine/core/doctypes/{n}" for n in core} <= names
    assert {f"engine/translations/{n}" for n in _shipped(ROOT / "engine" / "translations")} <= names
    for app in ("hr", "workforce_scoring"):
        files = _shipped(ROOT / "apps" / app)
        missing = {f"engine/demo_apps/{app}/{n}" for n in files} - names
        assert files and not missing, sorted(missing)
    missing = {f"server/desk/static/_wheel_probe/{s}" for s in DESK_SAMPLES} - names
    assert not missing, sorted(missing)
    # the licence: the file itself and an SPDX expression in the metadata (setuptools' older table form
    # is deprecated, and builds with it stop working in 2027)
    assert "fw-0.1.0.dist-info/licenses/LICENSE" in names
    metadata = zipfile.ZipFile(wheel).read("fw-0.1.0.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in metadata.splitlines()
    stray = sorted(n for n in names if n.split("/", 1)[0] not in ("engine", "server") and ".dist-info/" not in n)
    assert not stray, stray  # no tests, bench, apps/ or doctype_json/ at the top of site-packages

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    installed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
                               capture_output=True, text=True, timeout=900)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    elsewhere = tmp_path / "elsewhere"  # outside the checkout, nothing of it on the path
    elsewhere.mkdir()
    ours = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("FW_") and k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != ours]
    env.update({"PATH": os.pathsep.join([str(venv / "bin"), *path]), "FW_ADMIN_PASSWORD": "wheel-Admin-1",
                "FW_DURABLE_WRITES": "false", "COLUMNS": "300"})

    def sh(script: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=elsewhere, env=env,
                              capture_output=True, text=True, timeout=600)

    try:
        site = sh('fw init mysite && cd mysite && fw migrate && '
                  'fw add-user ops@example.com --password pw-12345678 --role "System Manager" && '
                  'python -c "import engine; print(\'engine from\', engine.__file__)"')
        output = site.stdout + site.stderr
        assert site.returncode == 0, output
        assert f"engine from {venv}" in output and str(ROOT) not in site.stdout, output
        synced = re.search(r"Migrated mysite: .*?(\d+) doctypes synced", output)
        doctypes = [n for n in core if n.endswith(".json")]  # (beside them, core form scripts)
        assert synced and int(synced.group(1)) == len(doctypes), output  # the core doctypes came from the wheel
        assert "Added user ops@example.com with role(s) System Manager" in output, output
        again = sh("cd mysite && fw add-user ops@example.com --password pw-12345678")
        assert again.returncode == 2 and "already exists" in again.stderr, again.stderr  # it was stored

        demo = sh("fw init demo --with-demo-apps && cd demo && fw migrate")
        assert demo.returncode == 0, demo.stdout + demo.stderr
        assert "apps installed: hr, workforce_scoring" in demo.stdout + demo.stderr, demo.stdout + demo.stderr
    finally:
        left_running = []
        for folder in ("mysite", "demo"):  # the last command to leave stopped each site's mongod
            pid = site_mongod.running_pid(elsewhere / folder / ".fw" / "mongo")
            if pid is not None:
                stop_pid(pid)
                left_running.append((folder, pid))
    assert not left_running, left_running
