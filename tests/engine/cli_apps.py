"""Small apps written into temporary roots by the CLI tests (never into the repository's apps/)."""

from __future__ import annotations

import json
from pathlib import Path

CLIAPP_HOOKS = '''app_name = "cliapp"
app_title = "CLI App"
app_publisher = "fw tests"
app_description = "exercises the fw commands"
app_license = "MIT"

after_install = "cliapp.setup.after_install"
fixtures = [
    {"dt": "Role", "filters": [["name", "in", ["CLI Role"]]]},
    {"dt": "CLI Thing"},
]
app_include_js = ["public/js/cliapp.js"]
'''

CLIAPP_SETUP = '''from engine.context import Context
from engine.documents.factory import new_doc


async def after_install(ctx: Context) -> None:
    if not await ctx.db.collection("role").find_one({"_id": "CLI Role"}):
        await new_doc(ctx, "Role", role_name="CLI Role", description="made by after_install").insert()
'''

CLIAPP_API = '''from engine.context import Context
from engine.documents.factory import new_doc
from engine.translation import _


async def make_thing(ctx: Context, title: str, value: int = 1) -> str:
    doc = await new_doc(ctx, "CLI Thing", title=title, value=value).insert()
    ctx.msgprint(_("CLI python message"))
    return doc.name


async def make_then_fail(ctx: Context, title: str) -> None:
    await new_doc(ctx, "CLI Thing", title=title).insert()
    raise RuntimeError("failing on purpose after the insert")


def plain(a: int, b: int) -> int:
    return a + b


def whoami(ctx: Context) -> dict:
    return {"user": ctx.user}
'''

CLIAPP_JS = '''// desk script of cliapp
cliapp.hello = () => frappe.msgprint(__("CLI js message", null, "Greeting"));
'''


def _doctype(name: str, module: str | None, fields: list[dict[str, object]], perms: list[dict[str, object]],
             autoname: str | None = None) -> str:
    data: dict[str, object] = {"doctype": "DocType", "name": name, "fields": fields, "permissions": perms}
    if module:
        data["module"] = module
    if autoname:
        data["autoname"] = autoname
    return json.dumps(data, indent=1)


def write_files(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def write_cliapp(apps_dir: Path) -> Path:
    """`cliapp`: a doctype with a module (CLI Thing), fixtures, after_install, functions for execute."""
    app = apps_dir / "cliapp"
    full = {"read": 1, "write": 1, "create": 1, "delete": 1, "report": 1}
    write_files(app, {
        "__init__.py": "",
        "hooks.py": CLIAPP_HOOKS,
        "setup.py": CLIAPP_SETUP,
        "api.py": CLIAPP_API,
        "public/js/cliapp.js": CLIAPP_JS,
        "translations/de.csv": "CLI python message,CLI-Python-Nachricht\n",
        "doctype/__init__.py": "",
        "doctype/cli_thing/__init__.py": "",
        "doctype/cli_thing/cli_thing.json": _doctype(
            "CLI Thing", "CLI App",
            [{"fieldname": "title", "fieldtype": "Data", "label": "Thing Title", "reqd": 1},
             {"fieldname": "value", "fieldtype": "Int", "label": "Thing Value"},
             {"fieldname": "kind", "fieldtype": "Select", "label": "Kind", "options": "Small\nLarge"}],
            [{"role": "System Manager", **full}, {"role": "CLI Role", "read": 1, "report": 1}],
            autoname="field:title"),
    })
    return app


def write_clibad(apps_dir: Path) -> Path:
    """`clibad`: its fixtures name a doctype without `module`, so export must refuse."""
    app = apps_dir / "clibad"
    write_files(app, {
        "__init__.py": "",
        "hooks.py": 'app_name = "clibad"\napp_title = "CLI Bad"\nfixtures = ["CLI Loose"]\n',
        "doctype/__init__.py": "",
        "doctype/cli_loose/__init__.py": "",
        "doctype/cli_loose/cli_loose.json": _doctype(
            "CLI Loose", None, [{"fieldname": "note", "fieldtype": "Data", "label": "Note"}],
            [{"role": "System Manager", "read": 1, "write": 1, "create": 1}]),
    })
    return app
