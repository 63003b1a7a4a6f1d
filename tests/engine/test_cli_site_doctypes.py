"""`fw migrate` on a site folder with drop-in doctypes (business.md §7), as a real `fw` process: a bad
file stops it naming the file and the field with nothing written; fixed, the doctype is migrated in
its site module; a field dropped from the file leaves the stored values alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.engine.temp_apps import FULL
from tests.engine.test_cli import Bench, bench  # noqa: F401  (a fixture)

FIELDS: list[dict[str, Any]] = [
    {"fieldname": "title", "fieldtype": "Data", "label": "Title", "reqd": 1},
    {"fieldname": "budget", "fieldtype": "Currency", "label": "Budget"},
]


def write(folder: Path, name: str, fields: list[dict[str, Any]]) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / f"{name.lower().replace(' ', '_')}.json"
    path.write_text(json.dumps({"doctype": "DocType", "name": name, "module": "Site Work", "fields": fields,
                                "permissions": [{"role": "System Manager", **FULL}]}), encoding="utf-8")
    return path


def test_fw_migrate_loads_the_sites_doctype_json(bench: Bench) -> None:  # noqa: F811
    folder = bench.root / "doctype_json"
    write(folder, "Cli Project", FIELDS)
    bad = write(folder, "Cli Bad", [{"fieldname": "size", "fieldtype": "Huge"}])
    out = bench.fw("migrate", expect=2)
    said = out.stderr.replace("\n", " ")
    assert "Invalid doctype file(s) in doctype_json/ (nothing was migrated" in said
    assert "cli_bad.json: field 'size': unknown fieldtype 'Huge'" in said and "Traceback" not in out.stderr
    assert "cli_project.json" not in said
    with bench.db() as client:
        database = client[bench.db_name]
        assert "cli_project" not in database.list_collection_names()  # nothing of that migrate
        assert database["doctype"].find_one({"_id": "Cli Project"}) is None
        assert database["_fw_state"].find_one({"_id": "schema"}) is None

    bad.unlink()
    bench.fw("migrate")
    with bench.db() as client:
        database = client[bench.db_name]
        assert "cli_project" in database.list_collection_names()
        record = database["doctype"].find_one({"_id": "Cli Project"})
        assert record is not None and record["module"] == "Site Work"
        module = database["module_def"].find_one({"_id": "Site Work"})
        assert module is not None and module["custom"] == 1
        database["cli_project"].insert_one({"_id": "P-1", "title": "Roof", "budget": 1200.0, "docstatus": 0})

    write(folder, "Cli Project", FIELDS[:1])  # `budget` removed from the file
    bench.fw("migrate")
    with bench.db() as client:
        database = client[bench.db_name]
        record = database["doctype"].find_one({"_id": "Cli Project"})
        assert record is not None and [f["fieldname"] for f in record["fields"]] == ["title"]
        stored = database["cli_project"].find_one({"_id": "P-1"})
        assert stored is not None and stored["budget"] == 1200.0
