"""README.md is the front door: its configuration table names every setting fw reads, and its test
command works on a fresh clone."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from engine.settings import Settings
from tests.support.checkout import copy_clean_checkout

ROOT = Path(__file__).resolve().parents[1]


def test_every_setting_is_in_the_configuration_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `(FW_[A-Z_]+)` \|", table, flags=re.MULTILINE))
    settings = {f"FW_{name.upper()}" for name in Settings.model_fields}
    assert not settings - documented, f"add to README's configuration table: {sorted(settings - documented)}"
    assert not documented - settings, f"README documents settings fw does not read: {sorted(documented - settings)}"


def readme_test_command() -> list[str]:
    """The steps of README's "Test it" command, split at `&&`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Test it", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    return [step.strip() for step in block.strip().split("&&")]


def test_readme_set_up_commands_work_in_a_fresh_clone(tmp_path: Path) -> None:
    """README's test command, run as a new user would (and as .ci/run does): a fresh virtualenv in a
    clean clone, `pip install -e '.[test]'`, pytest. So the README and CI cannot drift apart."""
    steps = readme_test_command()
    assert steps[-1] == "pytest", steps
    set_up = steps[:-1]
    assert any(step.startswith("python3 -m venv ") for step in set_up) and \
        any(step.startswith("pip install -e ") for step in set_up), set_up
    clone = tmp_path / "fw"
    copy_clean_checkout(clone)
    # The whole suite is what this run is already doing; in the new environment a small subset is
    # enough to prove the install works: the `fw` command, the package imported from the clone, the
    # pytest plugins and settings of the test extra, the embedded mongod from its wheel and the fixture
    # app on it. (pip reuses its download cache, so this costs about a minute, not the suite's ten.)
    script = " && ".join([
        *set_up,
        "fw --help >/dev/null",
        "python -c 'import engine; print(\"engine from\", engine.__file__)'",
        "pytest -q -p no:cacheprovider tests/engine/test_smoke.py tests/test_readme.py::"
        "test_every_setting_is_in_the_configuration_table",
    ])
    ours = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("FW_") and k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and p != ours)
    proc = subprocess.run(["bash", "-c", script], cwd=clone, env=env, capture_output=True, text=True, timeout=900)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"README's set-up commands failed in a fresh clone:\n{output[-8000:]}"
    assert f"engine from {clone / 'engine' / '__init__.py'}" in output, output[-3000:]
    assert re.search(r"^2 passed", proc.stdout, flags=re.MULTILINE), output[-3000:]
