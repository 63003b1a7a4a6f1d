"""Real processes (business.md §7): a doctype saved in the DocType editor of one `fw serve` is listable
through another `fw serve` on the same database without a restart, and a file dropped into
doctype_json/ and migrated by `fw migrate` reaches both running servers the same way."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from tests.e2e.conftest import FIXTURES, FwServerFactory, login

FULL = {"read": 1, "write": 1, "create": 1, "delete": 1, "report": 1}
WAIT_SECONDS = 30.0


def _site(tmp_path: Path) -> Path:
    """A site folder of its own (the editor writes into its doctype_json/), with the fixture apps."""
    root = tmp_path / "site"
    root.mkdir()
    (root / "apps").symlink_to((FIXTURES / "apps").resolve(), target_is_directory=True)
    (root / "apps.txt").write_text((FIXTURES / "site" / "apps.txt").read_text())
    (root / "doctype_json").mkdir()
    return root


def _eventually(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"not within {WAIT_SECONDS:.0f} s: {what}")


def _listable(client: httpx.Client, doctype: str, name: str) -> bool:
    r = client.get(f"/api/resource/{doctype}", params={"fields": '["name"]'})
    return r.status_code == 200 and {"name": name} in r.json()["data"]


def test_a_doctype_saved_in_one_server_works_in_the_other(fw_servers: FwServerFactory, tmp_path: Path) -> None:
    root = _site(tmp_path)
    editing = fw_servers.start(env={"FW_ROOT_DIR": str(root), "FW_DEVELOPER_MODE": "1"})
    other = fw_servers.start(env={"FW_ROOT_DIR": str(root)})
    with login(editing.url) as a, login(other.url) as b:
        assert b.get("/api/resource/E2E Shelf").status_code == 404
        r = a.post("/api/resource/DocType", json={
            "name": "E2E Shelf", "module": "Library", "autoname": "field:label",
            "fields": [{"fieldname": "label", "fieldtype": "Data", "label": "Label", "reqd": 1, "in_list_view": 1}],
            "permissions": [{"role": "System Manager", **FULL}]})
        assert r.status_code == 200, r.text
        assert json.loads((root / "doctype_json" / "e2e_shelf.json").read_text())["module"] == "Library"
        r = a.post("/api/resource/E2E Shelf", json={"label": "Top"})
        assert r.status_code == 200, r.text
        _eventually(lambda: _listable(b, "E2E Shelf", "Top"), "the other server lists the new doctype")
        r = b.post("/api/resource/E2E Shelf", json={"label": "Bottom"})  # and writes it
        assert r.status_code == 200, r.text
        # the other server runs without developer mode: its DocType form is read-only
        r = b.put("/api/resource/DocType/E2E Shelf", json={"description": "changed"})
        assert r.status_code == 403 and "FW_DEVELOPER_MODE" in r.text, r.text

        # a file dropped into doctype_json/ and migrated by `fw migrate` reaches both running servers
        (root / "doctype_json" / "e2e_crate.json").write_text(json.dumps({
            "doctype": "DocType", "name": "E2E Crate", "module": "Library", "autoname": "field:code",
            "fields": [{"fieldname": "code", "fieldtype": "Data", "label": "Code", "reqd": 1}],
            "permissions": [{"role": "System Manager", **FULL}]}))
        migrate = fw_servers.spawn("migrate", env={"FW_ROOT_DIR": str(root)})
        assert migrate.wait() == 0, migrate.log()[-3000:]
        for client in (a, b):
            _eventually(lambda c=client: c.post("/api/resource/E2E Crate", json={"code": f"C-{id(c)}"}).status_code
                        == 200, "a running server writes the migrated doctype")
