"""The `fw` operator commands: help and argument errors in-process (click's CliRunner); everything
that touches files or the database as real `fw` processes against the session's mongod, each on a
temporary root (apps.txt + apps/) and its own database. The repository's apps.txt is never used."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pymongo
import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.mongod import embedded
from engine.settings import get_settings
from tests.e2e.conftest import ADMIN_PASSWORD, FwServer, FwServerFactory, login
from tests.engine.cli_apps import write_cliapp, write_clibad, write_files

REPO_ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ["get-app", "install-app", "new-app", "build", "export-fixtures", "set-admin-password", "add-user",
            "execute", "extract-messages", "migrate", "serve", "start", "init", "run-patch", "console", "drop-site",
            "uninstall-app", "clear-cache", "data-import"]


# -- helpers ----------------------------------------------------------------------------------

@dataclass
class Bench:
    """A temporary root folder and database that `fw` subprocesses run against."""

    root: Path
    mongo_url: str
    db_name: str
    admin_password: str = ADMIN_PASSWORD
    server: FwServer | None = None
    factory: FwServerFactory | None = None
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def apps_txt(self) -> Path:
        return self.root / "apps.txt"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("FW_")}
        env.update({
            "FW_MONGO_URL": self.mongo_url, "FW_DB_NAME": self.db_name, "FW_ROOT_DIR": str(self.root),
            "FW_ADMIN_PASSWORD": ADMIN_PASSWORD, "FW_DURABLE_WRITES": "false",
            "FW_DATA_DIR": str(self.root / ".fw"), "PYTHONUNBUFFERED": "1", "COLUMNS": "200",
            "PYTHONPATH": os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p),
        })
        env.update(self.extra_env)
        return env

    def fw(self, *args: str, expect: int | None = 0, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        """Run `fw ARGS` (as `python -m engine.cli`) in the root folder; check the exit code."""
        proc = subprocess.run([sys.executable, "-m", "engine.cli", *args], cwd=self.root, env=self.env(),
                              capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        if expect is not None and proc.returncode != expect:
            pytest.fail(f"fw {' '.join(args)} exited {proc.returncode}, expected {expect}\n"
                        f"stdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}")
        return proc

    def db(self) -> pymongo.MongoClient[dict[str, object]]:
        return pymongo.MongoClient(self.mongo_url)

    def find(self, collection: str, name: str) -> dict[str, object] | None:
        with self.db() as client:
            return client[self.db_name][collection].find_one({"_id": name})

    def start_server(self, tmp: Path) -> FwServer:
        if self.server is None:
            self.factory = FwServerFactory(self.mongo_url, self.db_name, tmp)
            self.server = self.factory.start(env={"FW_ROOT_DIR": str(self.root)})
        return self.server

    def close(self) -> None:
        try:
            if self.factory is not None:
                stopped = self.factory.stop_all()
                assert all(code == 0 for _, code in stopped), [(s.log()[-3000:], c) for s, c in stopped]
        finally:
            with self.db() as client:
                client.drop_database(self.db_name)


def make_root(path: Path, apps_txt: str = "") -> Path:
    (path / "apps").mkdir(parents=True)
    (path / "apps.txt").write_text(apps_txt, encoding="utf-8")
    return path


@pytest.fixture
def bench(mongod: embedded.EmbeddedMongo, tmp_path: Path) -> Iterator[Bench]:
    b = Bench(make_root(tmp_path / "root"), mongod.url, f"fw_cli_{secrets.token_hex(4)}")
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="module")
def site_bench(mongod: embedded.EmbeddedMongo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bench]:
    """A root with `cliapp` installed and `clibad` in apps/ but not in apps.txt (its doctype has no
    `module`, which migrate refuses; tests list it for a moment); a server started on demand."""
    tmp = tmp_path_factory.mktemp("fw-cli-site")
    b = Bench(make_root(tmp / "root", "cliapp\n"), mongod.url, f"fw_cli_{secrets.token_hex(4)}")
    write_cliapp(b.root / "apps")
    write_clibad(b.root / "apps")
    try:
        out = b.fw("install-app", "cliapp")
        assert "Installed cliapp" in out.stderr, out.stderr
        yield b
    finally:
        b.close()


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[CliRunner, Path]]:
    """In-process runs of `fw` on a temporary root (FW_ROOT_DIR), for help texts and argument errors."""
    root = make_root(tmp_path / "root", "")
    monkeypatch.setenv("FW_ROOT_DIR", str(root))
    monkeypatch.setenv("FW_MONGO_URL", "mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=200")
    get_settings.cache_clear()
    yield CliRunner(), root
    get_settings.cache_clear()


# -- help and argument errors (in-process) ------------------------------------------------------

@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str) -> None:
    result = CliRunner().invoke(main, [command, "--help"], prog_name="fw")
    assert result.exit_code == 0, result.output
    assert f"Usage: fw {command}" in result.output
    expected = {"get-app": "--skip-assets", "execute": "--kwargs", "add-user": "--role",
                "export-fixtures": "--app"}.get(command)
    if expected:
        assert expected in result.output


def test_fw_lists_every_command_also_as_python_m(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "COLUMNS": "200"}
    for cmd in ([sys.executable, "-m", "engine.cli", "--help"], [str(Path(sys.executable).parent / "fw"), "--help"]):
        out = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        listed = {line.split()[0] for line in out.stdout.split("Commands:")[1].splitlines() if line.strip()}
        assert set(COMMANDS) <= listed, (cmd, listed)


@pytest.mark.parametrize(("args", "message"), [
    (["execute", "x.y", "--kwargs", "{not json"], "--kwargs is not valid JSON"),
    (["execute", "x.y", "--kwargs", "[1, 2]"], "--kwargs must be a JSON object"),
    (["execute", "x.y", "--kwargs", '{"ctx": 1}'], "cannot set `ctx`"),
    (["new-app", "Bad-Name"], "must be a lowercase Python identifier"),
    (["new-app", "class"], "must be a lowercase Python identifier"),
    (["new-app", "json"], "clashes with an existing Python module"),
    (["new-app", "engine"], "clashes with an existing Python module"),
    (["add-user", "nobody", "--password", "pw"], "is not an email address"),
    (["add-user", "a@example.com", "--password", "  "], "must not be empty"),
    (["set-admin-password", ""], "must not be empty"),
    (["install-app", "missing_app"], "App 'missing_app' is not in"),
    (["extract-messages", "missing_app"], "App 'missing_app' not found"),
])
def test_argument_errors_exit_2_with_a_clear_message(cli: tuple[CliRunner, Path], args: list[str],
                                                     message: str) -> None:
    runner, _root = cli
    result = runner.invoke(main, args, prog_name="fw")
    assert result.exit_code == 2, (result.output, result.exception)
    assert "Error:" in result.output
    assert message in result.output


def test_missing_required_option_is_a_usage_error(cli: tuple[CliRunner, Path]) -> None:
    runner, _root = cli
    result = runner.invoke(main, ["add-user", "a@example.com", "--role", "X"], prog_name="fw")
    assert result.exit_code == 2
    assert "Missing option '--password'" in result.output


def test_get_app_refuses_a_folder_without_hooks(cli: tuple[CliRunner, Path], tmp_path: Path) -> None:
    runner, root = cli
    (tmp_path / "notanapp").mkdir()
    result = runner.invoke(main, ["get-app", str(tmp_path / "notanapp"), "--skip-assets"], prog_name="fw")
    assert result.exit_code == 2
    assert "has no hooks.py" in result.output
    assert not (root / "apps" / "notanapp").exists()
    assert (root / "apps.txt").read_text() == ""


# -- get-app ------------------------------------------------------------------------------------

def _source_app(folder: Path, name: str) -> Path:
    app = folder / name
    write_files(app, {
        "__init__.py": "",
        "hooks.py": f'app_name = "{name}"\napp_title = "Shop Floor"\n',
        "public/js/floor.js": "console.log('floor');\n",
        "__pycache__/junk.cpython-311.pyc": "x",
    })
    return app


def test_get_app_copies_appends_on_its_own_line_and_is_idempotent(bench: Bench, tmp_path: Path) -> None:
    bench.apps_txt.write_text("fwtest")  # no final newline
    src = _source_app(tmp_path / "src", "shopfloor")
    out = bench.fw("get-app", str(src), "--skip-assets")
    dest = bench.root / "apps" / "shopfloor"
    assert (dest / "hooks.py").read_text() == (src / "hooks.py").read_text()
    assert (dest / "public" / "js" / "floor.js").exists()
    assert not (dest / "__pycache__").exists()
    assert bench.apps_txt.read_text() == "fwtest\nshopfloor\n"
    assert "install-app shopfloor" in out.stderr
    assert not (bench.root / "assets").exists()  # --skip-assets

    bench.fw("get-app", str(src), "--skip-assets")  # again: nothing changes
    assert bench.apps_txt.read_text() == "fwtest\nshopfloor\n"

    (src / "hooks.py").write_text('app_name = "shopfloor"\napp_title = "Changed"\n')
    out = bench.fw("get-app", str(src), "--skip-assets", expect=2)
    assert "already exists" in out.stderr and "different content" in out.stderr
    assert "Changed" not in (dest / "hooks.py").read_text()
    assert bench.apps_txt.read_text() == "fwtest\nshopfloor\n"


def test_get_app_builds_assets_unless_skipped(bench: Bench, tmp_path: Path) -> None:
    bench.apps_txt.write_text("# installed apps\n")
    src = _source_app(tmp_path / "src", "floorplan")
    bench.fw("get-app", str(src))
    assert bench.apps_txt.read_text() == "# installed apps\nfloorplan\n"
    assert (bench.root / "assets" / "floorplan" / "js" / "floor.js").read_text() == "console.log('floor');\n"
    manifest = json.loads((bench.root / "assets" / "manifest.json").read_text())
    assert manifest["apps"]["floorplan"]["files"] == ["/assets/floorplan/js/floor.js"]


# -- new-app, migrate, install-app, build, serve ------------------------------------------------

def test_new_app_is_a_working_app_served_over_http(bench: Bench, tmp_path: Path) -> None:
    bench.apps_txt.write_text("")
    out = bench.fw("new-app", "shopdemo")
    assert "Created app 'shopdemo'" in out.stderr
    app = bench.root / "apps" / "shopdemo"
    for rel in ("__init__.py", "hooks.py", "api.py", "README.md", "doctype/shopdemo_item/shopdemo_item.json",
                "doctype/shopdemo_item/shopdemo_item.py", "translations/de.csv", "public/js/shopdemo.js",
                "tests/test_shopdemo_item.py"):
        assert (app / rel).is_file(), rel
    assert bench.apps_txt.read_text() == "shopdemo\n"
    bench.fw("new-app", "shopdemo", expect=2)  # exists now

    # the scaffold imports
    check = subprocess.run(
        [sys.executable, "-c", "import shopdemo.hooks as h, shopdemo.api as a; "
         "from shopdemo.doctype.shopdemo_item.shopdemo_item import ShopdemoItem; "
         "print(h.app_name, h.app_title, a.open_item_count.__name__, ShopdemoItem.__name__)"],
        cwd=tmp_path, env={**bench.env(), "PYTHONPATH": f"{bench.root / 'apps'}{os.pathsep}{REPO_ROOT}"},
        capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stderr
    assert check.stdout.split() == ["shopdemo", "Shopdemo", "open_item_count", "ShopdemoItem"]

    out = bench.fw("install-app", "shopdemo")
    assert "Installed shopdemo" in out.stderr
    assert "already installed" in bench.fw("install-app", "shopdemo").stderr
    bench.fw("migrate")  # apps.txt lists installed apps: migrate installs any the site lacks (none now)
    bench.fw("build")
    assert (bench.root / "assets" / "shopdemo" / "js" / "shopdemo.js").is_file()

    server = bench.start_server(tmp_path)
    with login(server.url) as client:
        r = client.post("/api/resource/Shopdemo Item", json={"item_name": "Widget", "quantity": 3})
        assert r.status_code == 200, r.text
        assert r.json()["data"]["name"] == "Widget"
        r = client.get("/api/resource/Shopdemo Item/Widget")
        assert r.status_code == 200, r.text
        assert (r.json()["data"]["item_name"], r.json()["data"]["quantity"], r.json()["data"]["status"]) == (
            "Widget", 3, "Open")
        r = client.post("/api/resource/Shopdemo Item", json={"item_name": "Crate", "quantity": 5000})
        assert r.status_code == 417, r.text  # the controller's validate ran
        assert "cannot exceed" in r.text
        r = client.get("/api/method/shopdemo.api.open_item_count")
        assert r.status_code == 200 and r.json() == {"message": 1}, r.text
    with httpx.Client(base_url=server.url, timeout=15.0) as anon:
        r = anon.get("/assets/shopdemo/js/shopdemo.js")
        assert r.status_code == 200, r.text
        assert "Welcome to Shopdemo" in r.text
        assert anon.get("/assets/shopdemo/js/missing.js").status_code == 404


def test_new_app_sample_tests_pass(bench: Bench) -> None:
    bench.fw("new-app", "testdemo")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "apps/testdemo/tests"],
                          cwd=bench.root, env=bench.env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "2 passed" in proc.stdout


# -- execute, export-fixtures, users (one migrated site with cliapp) -------------------------------

def test_install_app_ran_after_install(site_bench: Bench) -> None:
    role = site_bench.find("role", "CLI Role")
    assert role is not None and role["description"] == "made by after_install"
    with site_bench.db() as client:
        state = client[site_bench.db_name]["_fw_state"].find_one({"_id": "installed_apps"})
    assert state is not None and "cliapp" in state["apps"] and "clibad" not in state["apps"]


def test_execute_runs_and_commits(site_bench: Bench) -> None:
    out = site_bench.fw("execute", "cliapp.api.make_thing", "--kwargs", '{"title": "T1", "value": 5}')
    assert json.loads(out.stdout) == "T1"
    assert "CLI python message" in out.stderr  # msgprint shown
    thing = site_bench.find("cli_thing", "T1")
    assert thing is not None and thing["value"] == 5 and thing["owner"] == "Administrator"

    assert json.loads(site_bench.fw("execute", "cliapp.api.plain", "--kwargs", '{"a": 2, "b": 3}').stdout) == 5


def test_execute_failure_rolls_back(site_bench: Bench) -> None:
    out = site_bench.fw("execute", "cliapp.api.make_then_fail", "--kwargs", '{"title": "T-fail"}', expect=None)
    assert out.returncode != 0
    assert "failing on purpose" in out.stderr
    assert site_bench.find("cli_thing", "T-fail") is None


def test_execute_errors_name_the_problem(site_bench: Bench) -> None:
    out = site_bench.fw("execute", "cliapp.api.nope", expect=2)
    assert "has no callable 'nope'" in out.stderr
    out = site_bench.fw("execute", "cliapp.api.plain", "--kwargs", '{"a": 1, "c": 2}', expect=2)
    assert "does not accept these arguments" in out.stderr
    out = site_bench.fw("execute", "cliapp.api.whoami", "--user", "ghost@example.com", expect=2)
    assert "User 'ghost@example.com' does not exist" in out.stderr


def test_export_fixtures_writes_files_without_volatile_fields(site_bench: Bench) -> None:
    site_bench.fw("execute", "cliapp.api.make_thing", "--kwargs", '{"title": "Exported", "value": 7}')
    out = site_bench.fw("export-fixtures", "--app", "cliapp")
    folder = site_bench.root / "apps" / "cliapp" / "fixtures"
    assert str(folder / "role.json") in out.stderr.replace("\n", "")
    roles = json.loads((folder / "role.json").read_text())
    assert [r["name"] for r in roles] == ["CLI Role"]
    assert roles[0]["doctype"] == "Role" and roles[0]["description"] == "made by after_install"
    things = {t["name"]: t for t in json.loads((folder / "cli_thing.json").read_text())}
    assert things["Exported"]["value"] == 7
    for doc in [*roles, *things.values()]:
        assert not {"creation", "owner", "modified_by", "idx"} & set(doc), doc


@contextlib.contextmanager
def listing_clibad(bench: Bench) -> Iterator[str]:
    """`clibad` in apps.txt for the block (as if its doctype lost its `module` after the last migrate)."""
    text = bench.apps_txt.read_text()
    bench.apps_txt.write_text(text + "clibad\n")
    try:
        yield str(bench.root / "apps" / "clibad" / "doctype" / "cli_loose" / "cli_loose.json")
    finally:
        bench.apps_txt.write_text(text)


def test_export_fixtures_fails_naming_a_doctype_without_module(site_bench: Bench) -> None:
    with listing_clibad(site_bench) as source:
        out = site_bench.fw("export-fixtures", "--app", "clibad", expect=2)
        assert f"Cannot export fixtures: doctype 'CLI Loose' ({source}) has no `module`" in out.stderr.replace("\n", "")
        assert not (site_bench.root / "apps" / "clibad" / "fixtures").exists()
        before = sorted((site_bench.root / "apps" / "cliapp").rglob("*.json"))
        out = site_bench.fw("export-fixtures", expect=2)  # every app: refused before anything is written
        assert "CLI Loose" in out.stderr
        assert sorted((site_bench.root / "apps" / "cliapp").rglob("*.json")) == before
    assert "is not installed" in site_bench.fw("export-fixtures", "--app", "nope", expect=2).stderr


def test_migrate_fails_naming_a_doctype_without_module(site_bench: Bench) -> None:
    with site_bench.db() as client:
        before = client[site_bench.db_name]["_fw_state"].find_one({"_id": "schema"})
    with listing_clibad(site_bench) as source:
        out = site_bench.fw("migrate", expect=2)
    assert f"Cannot migrate: doctype 'CLI Loose' ({source}) has no `module`." in out.stderr.replace("\n", "")
    assert "Traceback" not in out.stderr
    with site_bench.db() as client:
        assert client[site_bench.db_name]["_fw_state"].find_one({"_id": "schema"}) == before  # nothing written
        assert "cli_loose" not in client[site_bench.db_name].list_collection_names()


def test_set_admin_password_then_login(site_bench: Bench, tmp_path_factory: pytest.TempPathFactory) -> None:
    server = site_bench.start_server(tmp_path_factory.mktemp("serve"))
    new_password = "cli-New-admin-9"
    site_bench.fw("set-admin-password", new_password)
    with httpx.Client(base_url=server.url, timeout=15.0) as c:
        assert c.post("/api/method/login", data={"usr": "Administrator", "pwd": site_bench.admin_password}
                      ).status_code == 401
        r = c.post("/api/method/login", data={"usr": "Administrator", "pwd": new_password})
        assert r.status_code == 200, r.text
        assert c.get("/api/method/fw.auth.get_logged_user").json() == {"message": "Administrator"}
    site_bench.admin_password = new_password
    stored = site_bench.find("user", "Administrator")
    assert stored is not None and new_password not in json.dumps(stored, default=str)


def test_add_user_then_login_with_the_given_roles(site_bench: Bench,
                                                 tmp_path_factory: pytest.TempPathFactory) -> None:
    server = site_bench.start_server(tmp_path_factory.mktemp("serve"))
    email = "clerk@example.com"
    out = site_bench.fw("add-user", email, "--password", "Clerk-pass-1", "--role", "CLI Role", "--role", "Auditor",
                        expect=2)
    assert "'Auditor'" in out.stderr and "--create-roles" in out.stderr
    assert site_bench.find("user", email) is None
    out = site_bench.fw("add-user", email, "--password", "Clerk-pass-1", "--role", "CLI Role", "--role", "Auditor",
                        "--first-name", "Clara", "--create-roles")
    assert "Created role(s) Auditor" in out.stderr
    assert site_bench.find("role", "Auditor") is not None
    assert "already exists" in site_bench.fw("add-user", email, "--password", "x", expect=2).stderr

    with login(server.url, email, "Clerk-pass-1") as clerk:
        assert clerk.get("/api/method/fw.auth.get_logged_user").json() == {"message": email}
        r = clerk.get("/api/resource/CLI Thing")  # readable through "CLI Role"
        assert r.status_code == 200, r.text
        assert clerk.get("/api/resource/Error Log").status_code == 403  # System Manager only
    with login(server.url, "Administrator", site_bench.admin_password) as admin:
        user = admin.get(f"/api/resource/User/{email}").json()["data"]
        assert sorted(r["role"] for r in user["roles"]) == ["Auditor", "CLI Role"]
        assert user["first_name"] == "Clara"
    out = site_bench.fw("execute", "cliapp.api.whoami", "--user", email)
    assert json.loads(out.stdout) == {"user": email}


# -- extract-messages -------------------------------------------------------------------------

def test_extract_messages_writes_a_template_not_loaded_as_a_language(site_bench: Bench) -> None:
    out = site_bench.fw("extract-messages", "cliapp")
    template = site_bench.root / "apps" / "cliapp" / "translations" / "template.csv"
    assert str(template) in out.stderr.replace("\n", "")
    rows = list(csv.reader(template.read_text(encoding="utf-8").splitlines()))
    assert ["CLI python message", "", ""] in rows  # Python _()
    assert ["CLI js message", "", "Greeting"] in rows  # JS __() with its context
    assert ["Thing Title", "", ""] in rows  # doctype label
    assert ["Small", "", ""] in rows and ["CLI Thing", "", ""] in rows  # Select option, doctype name
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    assert all(r[1] == "" for r in rows)
    languages = json.loads(site_bench.fw("execute", "engine.translation.languages").stdout)
    assert "de" in languages and "template" not in languages
