"""`fw new-app NAME`: a small, working app to start from.

The app gets a sample doctype "<Title> Item" (JSON, controller, form script), a whitelisted API
function, a German translation, a desk JS file, a README and a pytest module with its own fixtures.
"""

from __future__ import annotations

import importlib.util
import json
import keyword
import re
import sys
from pathlib import Path
from string import Template

from engine.meta.schema import scrub

NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
RESERVED = frozenset({"engine", "server", "tests", "apps", "assets", "fw", "frappe", "doctype_json"})
MAX_QUANTITY = 1000

HOOKS = '''"""hooks.py of $name: how fw wires the app in (Frappe's hooks.py keys)."""

app_name = "$name"
app_title = "$title"
app_publisher = "$title Developers"
app_description = "$title: an app for fw"
app_license = "MIT"

# Apps this app needs installed first:
# required_apps = ["hr"]

# JS/CSS loaded on every desk page (run `fw build` after a change):
app_include_js = ["/assets/$name/js/$name.js"]
# app_include_css = ["/assets/$name/css/$name.css"]

# Extra form scripts for other apps' doctypes (paths relative to this folder):
# doctype_js = {"User": "public/js/user.js"}

# Document events, run after the controller's own method:
# doc_events = {
#     "$doctype": {"on_update": "$name.events.item_updated"},
# }

# Scheduled jobs (`fw scheduler`):
# scheduler_events = {"daily": ["$name.tasks.daily"], "cron": {"0 3 * * *": ["$name.tasks.nightly"]}}

# Row-level restrictions for list queries:
# permission_query_conditions = {"$doctype": "$name.permissions.item_conditions"}

# Install and migrate hooks (both must be idempotent):
# after_install = "$name.setup.after_install"
# after_migrate = "$name.setup.after_migrate"

# Configuration exported by `fw export-fixtures` and imported on install and migrate:
# fixtures = [{"dt": "Role", "filters": [["name", "in", ["$title Manager"]]]}]
'''

PATCHES_TXT = """# Data migrations: one dotted path per line, run once per site by `fw migrate`, in order, each in its
# own transaction (recorded in Patch Log). A path names a module with `async def execute(ctx)` (or a
# function). [pre_model_sync] patches run before the doctype JSON is synced, [post_model_sync] after.
# An example, in $name/patches/v0_1/rename_old_field.py:
#     import engine as fw
#     async def execute(ctx):
#         await fw.rename_field(ctx, "$doctype", "old_field", "new_field")

[pre_model_sync]

[post_model_sync]
"""

CONTROLLER = '''"""Controller of the $doctype doctype: its lifecycle hooks."""

import engine as fw
from engine.documents.document import Document

MAX_QUANTITY = $max_quantity


class $cls(Document):
    def validate(self) -> None:
        self.item_name = (self.item_name or "").strip()
        if self.quantity and self.quantity > MAX_QUANTITY:
            fw.throw(fw._("{0} cannot exceed {1}", fw._("Quantity"), MAX_QUANTITY), field="quantity")
'''

FORM_SCRIPT = '''// Form script of $doctype (collected by `fw build`).
frappe.ui.form.on("$doctype", {
\trefresh(frm) {
\t\tif (frm.doc.status === "Closed") {
\t\t\tfrm.set_intro(__("This item is closed"));
\t\t}
\t},
});
'''

API = '''"""Functions callable over HTTP at /api/method/$name.api.<function>."""

from engine import count, whitelist
from engine.context import Context


@whitelist(methods=["GET"])
async def open_item_count(ctx: Context) -> int:
    """How many $doctype records are open (only those the caller may read)."""
    return await count(ctx, "$doctype", {"status": "Open"})
'''

DESK_JS = '''// Loaded on every desk page through hooks.py `app_include_js` (collected by `fw build`).
window.$name = window.$name || {};
$name.greeting = () => __("Welcome to $title");
'''

CONFTEST = '''"""Test fixtures of $name, in fw's pattern: one database for the session (FW_MONGO_URL, or a
private embedded mongod), migrated once, emptied and bootstrapped before each test."""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from engine import db
from engine.mongod import embedded
from engine.context import Context
from engine.core.bootstrap import ensure_bootstrap
from engine.apps.loader import registry_from_settings
from engine.migrate import sync_schema
from engine.settings import Settings
from engine.site import Site

ROOT = Path(os.environ.get("FW_ROOT_DIR") or Path(__file__).resolve().parents[3])


@pytest.fixture(scope="session")
def mongo_url() -> Iterator[str]:
    url = os.environ.get("FW_TEST_MONGO_URL") or os.environ.get("FW_MONGO_URL")
    if url:
        yield url
        return
    data_dir = Path(tempfile.mkdtemp(prefix="$name-test-mongo-"))
    server = embedded.start(data_dir, durable=False)
    yield server.url
    server.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def session_site(mongo_url: str) -> AsyncIterator[Site]:
    settings = Settings(root_dir=ROOT, mongo_url=mongo_url, db_name=f"test_${name}_{secrets.token_hex(4)}",
                        admin_password="admin", durable_writes=False, meta_check_interval=0.0)
    database = db.connect(mongo_url, settings.db_name)
    site = Site(settings, database, registry_from_settings(settings))
    await sync_schema(site)
    yield site
    await database.drop()
    await database.close()


@pytest_asyncio.fixture(loop_scope="session")
async def site(session_site: Site) -> AsyncIterator[Site]:
    for name in await session_site.db.handle.list_collection_names():
        if name not in ("_fw_state", "doctype"):
            await session_site.db.collection(name).delete_many({})
    session_site.forget_roles()
    await ensure_bootstrap(session_site)
    yield session_site


@pytest.fixture
def ctx(site: Site) -> Context:
    return site.context("Administrator")
'''

TEST = '''"""Tests of the $doctype doctype (run with `pytest apps/$name/tests`)."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents.factory import get_doc, new_doc

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_insert_and_read_back(ctx: Context) -> None:
    async with unit_of_work(ctx):
        doc = await new_doc(ctx, "$doctype", item_name="  Widget ", quantity=3).insert()
    assert doc.name == "Widget"
    stored = await get_doc(ctx, "$doctype", "Widget")
    assert stored.status == "Open"
    assert stored.quantity == 3


async def test_quantity_limit(ctx: Context) -> None:
    with pytest.raises(exc.ValidationError, match="cannot exceed"):
        async with unit_of_work(ctx):
            await new_doc(ctx, "$doctype", item_name="Too many", quantity=$too_many).insert()
'''

PYTEST_INI = '''[pytest]
# `pytest apps/$name/tests`: async tests and fixtures share one event loop, warnings are errors
asyncio_mode = auto
asyncio_default_fixture_loop_scope = session
asyncio_default_test_loop_scope = session
filterwarnings = error
'''

README = '''# $title

An app for fw, created with `fw new-app $name`.

```
$name/
  hooks.py                              app metadata and hooks
  doctype/$scrubbed/$scrubbed.json   the sample doctype "$doctype"
  doctype/$scrubbed/$scrubbed.py     its controller (validate)
  doctype/$scrubbed/$scrubbed.js     its form script
  api.py                                whitelisted functions (/api/method/$name.api.open_item_count)
  translations/de.csv                   German translations (source,translated[,context])
  public/js/$name.js                    desk JS (served at /assets/$name/js/$name.js after `fw build`)
  tests/, pytest.ini                    pytest tests with their own fixtures
```

Install it on the site and try it:

```bash
fw migrate && fw install-app $name && fw build
fw extract-messages $name     # translatable strings → translations/template.csv
pytest apps/$name/tests
```
'''


def name_problem(name: str, apps_dir: Path, listed: list[str]) -> str | None:
    """Why NAME cannot be a new app, or None."""
    if not NAME_RE.match(name) or not name.isidentifier() or keyword.iskeyword(name):
        return (f"App name {name!r} must be a lowercase Python identifier (letters, digits and "
                "underscores, starting with a letter), e.g. `library` or `sales_tools`.")
    if name in listed or (apps_dir / name).exists():
        return f"App {name!r} already exists ({apps_dir / name}); choose another name."
    if name in RESERVED or name in sys.stdlib_module_names or importlib.util.find_spec(name) is not None:
        return f"App name {name!r} clashes with an existing Python module or package; choose another name."
    return None


def _doctype_json(doctype: str, title: str) -> str:
    definition = {
        "doctype": "DocType",
        "name": doctype,
        "module": title,
        "description": f"A sample doctype of {title}; rename or replace it.",
        "autoname": "field:item_name",
        "naming_rule": "By fieldname",
        "title_field": "item_name",
        "search_fields": "status",
        "fields": [
            {"fieldname": "item_name", "fieldtype": "Data", "label": "Item Name", "reqd": 1, "unique": 1,
             "in_list_view": 1},
            {"fieldname": "status", "fieldtype": "Select", "label": "Status", "options": "Open\nClosed",
             "default": "Open", "in_list_view": 1},
            {"fieldname": "quantity", "fieldtype": "Int", "label": "Quantity", "non_negative": 1,
             "description": f"At most {MAX_QUANTITY}."},
            {"fieldname": "description", "fieldtype": "Small Text", "label": "Description"},
        ],
        "permissions": [
            {"role": "System Manager", "read": 1, "write": 1, "create": 1, "delete": 1, "report": 1,
             "export": 1, "import": 1, "share": 1, "print": 1, "email": 1},
        ],
    }
    return json.dumps(definition, indent=1) + "\n"


def _translations(title: str) -> str:
    rows = [("Item Name", "Artikelname"), ("Quantity", "Menge"), ("Status", "Status"), ("Open", "Offen"),
            ("Closed", "Geschlossen"), ("{0} cannot exceed {1}", "{0} darf {1} nicht überschreiten"),
            ("This item is closed", "Dieser Artikel ist geschlossen"),
            (f"Welcome to {title}", f"Willkommen bei {title}")]
    import csv
    import io

    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def create_app(apps_dir: Path, name: str) -> list[Path]:
    """Write the app folder `apps_dir/name`; returns the files written."""
    title = name.replace("_", " ").title()
    doctype = f"{title} Item"
    scrubbed = scrub(doctype)
    values = {"name": name, "title": title, "doctype": doctype, "scrubbed": scrubbed,
              "cls": doctype.replace(" ", "").replace("-", ""), "max_quantity": MAX_QUANTITY,
              "too_many": MAX_QUANTITY + 1}
    root = apps_dir / name
    dt_dir = f"doctype/{scrubbed}"
    files = {
        "__init__.py": f'"""{title}: an fw app."""\n\n__version__ = "0.0.1"\n',
        "hooks.py": HOOKS,
        "api.py": API,
        "README.md": README,
        "patches.txt": PATCHES_TXT,
        "doctype/__init__.py": "",
        f"{dt_dir}/__init__.py": "",
        f"{dt_dir}/{scrubbed}.json": _doctype_json(doctype, title),
        f"{dt_dir}/{scrubbed}.py": CONTROLLER,
        f"{dt_dir}/{scrubbed}.js": FORM_SCRIPT,
        "translations/de.csv": _translations(title),
        f"public/js/{name}.js": DESK_JS,
        "pytest.ini": PYTEST_INI,
        "tests/__init__.py": "",
        "tests/conftest.py": CONFTEST,
        f"tests/test_{scrubbed}.py": TEST,
    }
    written: list[Path] = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(Template(text).substitute(values) if "$" in text else text, encoding="utf-8")
        written.append(path)
    return written
