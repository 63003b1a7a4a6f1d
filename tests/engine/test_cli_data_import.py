"""`fw data-import` as an operator runs it (a real process on a migrated site with cliapp): the progress
and summary on stderr, exit 0 when every row went in; exit 1 with the failed rows' messages (row and
column named) when some did not, the others imported; an update changes only the given columns; a
file that cannot be read exits 2 with its message. Each run is a Data Import record with its per-row
log, as the Desk's form makes one; `--user` imports as that user."""

from __future__ import annotations

import re
from pathlib import Path

from tests.engine.test_cli import Bench, site_bench  # noqa: F401 - the module's fixture


def test_import_then_update(site_bench: Bench, tmp_path: Path) -> None:  # noqa: F811
    good = tmp_path / "things.csv"
    good.write_text("Thing Title,Thing Value,Kind\nImp-1,1,Small\nImp-2,2,Large\n", encoding="utf-8")
    out = site_bench.fw("data-import", "--doctype", "CLI Thing", "--file", str(good))
    assert "2 of 2 documents imported, 0 failed" in out.stderr
    thing = site_bench.find("cli_thing", "Imp-2")
    assert thing is not None and thing["value"] == 2 and thing["kind"] == "Large"

    update = tmp_path / "update.csv"
    update.write_text("ID,Thing Value\nImp-2,20\n", encoding="utf-8")
    site_bench.fw("data-import", "--doctype", "CLI Thing", "--file", str(update), "--type", "update")
    thing = site_bench.find("cli_thing", "Imp-2")
    assert thing is not None and thing["value"] == 20 and thing["kind"] == "Large"


def test_failed_rows_exit_1_with_their_messages(site_bench: Bench, tmp_path: Path) -> None:  # noqa: F811
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("Thing Title,Thing Value,Kind\nMix-1,1,Small\nMix-2,\"1,000\",Small\nMix-3,3,Huge\n",
                     encoding="utf-8")
    out = site_bench.fw("data-import", "--doctype", "CLI Thing", "--file", str(mixed), expect=1)
    assert "1 of 3 documents imported, 2 failed" in out.stderr
    found = re.search(r"its log: Data Import (\S+) \(/app/data-import/", out.stderr)
    assert found is not None, out.stderr
    with site_bench.db() as client:  # the record and its per-row log, as the Desk shows them
        db = client[site_bench.db_name]
        record = db["data_import"].find_one({"_id": found.group(1)})
        assert record is not None and (record["status"], record["reference_doctype"]) == ("Partial Success",
                                                                                          "CLI Thing")
        logs = sorted((log["row_indexes"], log["success"]) for log in db["data_import_log"].find(
            {"data_import": found.group(1)}))
        assert logs == [("[2]", 1), ("[3]", 0), ("[4]", 0)]
    assert "Row 3, column B (Thing Value): 1,000 has a thousands separator" in out.stderr
    assert "Row 4, column C (Kind): Huge is not one of the options: Small, Large" in out.stderr
    assert site_bench.find("cli_thing", "Mix-1") is not None
    assert site_bench.find("cli_thing", "Mix-2") is None and site_bench.find("cli_thing", "Mix-3") is None


def test_import_as_another_user(site_bench: Bench, tmp_path: Path) -> None:  # noqa: F811
    good = tmp_path / "things.csv"
    good.write_text("Thing Title,Thing Value,Kind\nUsr-1,1,Small\n", encoding="utf-8")
    out = site_bench.fw("data-import", "--doctype", "CLI Thing", "--file", str(good), "--user", "nobody@example.com",
                        expect=2)
    assert "--user nobody@example.com: no enabled user of that name" in out.stderr
    assert site_bench.find("cli_thing", "Usr-1") is None


def test_an_unreadable_file_exits_2(site_bench: Bench, tmp_path: Path) -> None:  # noqa: F811
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    out = site_bench.fw("data-import", "--doctype", "CLI Thing", "--file", str(empty), expect=2)
    assert "The file is empty" in out.stderr
    other = tmp_path / "things.pdf"
    other.write_bytes(b"%PDF")
    out = site_bench.fw("data-import", "--doctype", "CLI Thing", "--file", str(other), expect=2)
    assert "Import CSV or Excel (XLSX) files only" in out.stderr
