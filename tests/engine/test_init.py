"""`fw init PATH [--with-demo-apps]`: a site folder (apps.txt, apps/, doctype_json/, .env), in-process with click's
CliRunner. (tests/test_wheel.py runs it from an installed wheel, where the reference apps come from
the package; here, from a source checkout, they come from its apps/.)"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from engine.apps.installed import read_apps_txt
from engine.cli import main
from engine.commands.init import db_name_for, demo_apps_dir

REPO = Path(__file__).resolve().parents[2]


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def test_a_plain_site_folder(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["init", str(tmp_path / "my.site")], prog_name="fw")
    assert result.exit_code == 0, result.output
    site = tmp_path / "my.site"
    assert sorted(p.name for p in site.iterdir()) == [".env", "apps", "apps.txt", "doctype_json"]
    assert [p.name for p in (site / "doctype_json").iterdir()] == ["README.md"]  # no doctype yet
    assert (site / "doctype_json" / "README.md").read_text() == (REPO / "doctype_json" / "README.md").read_text()
    assert not any((site / "apps").iterdir()) and read_apps_txt(site / "apps.txt") == []
    env = (site / ".env").read_text()
    assert "\nFW_DB_NAME=my_site\n" in env  # a folder name MongoDB accepts as a database name
    assert all(line.startswith("#") for line in env.splitlines() if line.startswith(("FW_ADMIN", "# FW_", "FW_MONGO")))
    assert "cd " in result.output and "fw start" in result.output


def test_with_the_reference_apps(tmp_path: Path) -> None:
    assert demo_apps_dir() == REPO / "apps"  # a checkout: its apps/ (a wheel carries engine/demo_apps/)
    result = CliRunner().invoke(main, ["init", str(tmp_path / "demo"), "--with-demo-apps"], prog_name="fw")
    assert result.exit_code == 0, result.output
    site = tmp_path / "demo"
    assert read_apps_txt(site / "apps.txt") == ["hr", "workforce_scoring"]
    for app in ("hr", "workforce_scoring"):
        assert _files(site / "apps" / app) == _files(REPO / "apps" / app)


def test_an_existing_folder_with_content_is_refused(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    result = CliRunner().invoke(main, ["init", str(tmp_path / "taken")], prog_name="fw")
    assert result.exit_code == 2
    assert "already exists and is not empty" in result.output
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert CliRunner().invoke(main, ["init", str(empty)], prog_name="fw").exit_code == 0  # an empty one is fine


def test_database_names() -> None:
    assert db_name_for(Path("/srv/Acme Site.v2")) == "Acme_Site_v2"
    assert db_name_for(Path("/srv/...")) == "fw"
