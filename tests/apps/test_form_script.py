"""The Warehouse Violation form script: its rules under `node --test` (with the workflow meta the
server makes from the app's fixtures, so the pill's colours are the list's), and `fw build` serving it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from engine.assets import build
from engine.documents.workflow import style_colour
from engine.site import Site
from server.app import create_app
from tests.conftest import make_settings

REPO = Path(__file__).resolve().parents[2]
SCRIPT_URL = "/assets/workforce_scoring/doctype/warehouse_violation/warehouse_violation.js"


FIXTURES = REPO / "apps" / "workforce_scoring" / "fixtures"


def fixture_workflow() -> dict[str, object]:
    """`__workflow` of Warehouse Violation as the meta carries it (engine.documents.workflow.desk_workflow):
    the fixture workflow's states, each in its Workflow State style's colour."""
    workflow = next(w for w in json.loads((FIXTURES / "workflow.json").read_text())
                    if w["document_type"] == "Warehouse Violation")
    styles = {s["name"]: s.get("style") for s in json.loads((FIXTURES / "workflow_state.json").read_text())}
    states = [{"state": s["state"], "doc_status": int(s.get("doc_status") or 0), "style": styles.get(s["state"]),
               "color": style_colour(styles.get(s["state"]))} for s in workflow["states"]]
    field = workflow.get("workflow_state_field") or "workflow_state"
    return {"name": workflow["name"], "field": field, "states": states}


def test_node_tests_of_the_colour_and_button_rules() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required for the form-script test (install Node.js 20+)")
    env = {**os.environ, "FW_WV_WORKFLOW": json.dumps(fixture_workflow())}
    result = subprocess.run([node, "--test", str(Path(__file__).parent / "js" / "warehouse_violation.test.js")],
                            capture_output=True, text=True, timeout=60, cwd=REPO, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# fail 0" in result.stdout
    assert "# pass 7" in result.stdout, result.stdout[-2000:]


async def test_fw_build_registers_and_serves_the_form_script(tmp_path: Path, site: Site) -> None:
    (tmp_path / "apps").symlink_to(REPO / "apps")
    (tmp_path / "apps.txt").write_text("hr\nworkforce_scoring\n")
    settings = make_settings(root_dir=tmp_path)
    manifest = build(settings)
    assert manifest["doctype_js"]["Warehouse Violation"] == [SCRIPT_URL]
    app = create_app(settings, site=site)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as client:
        r = await client.get(SCRIPT_URL)
    assert r.status_code == 200
    assert r.text == (REPO / "apps" / SCRIPT_URL.removeprefix("/assets/")).read_text()
