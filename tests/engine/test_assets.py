"""`engine.assets.build` (what `fw build` runs): copies, URLs in the manifest, stale files removed."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest

from engine import exceptions as exc
from engine.assets import asset_url, build
from tests.conftest import make_settings
from tests.engine.cli_apps import write_files


def _app(root: Path, hooks: str, files: dict[str, str]) -> str:
    name = f"assetapp_{secrets.token_hex(4)}"  # unique: hooks modules stay imported in this process
    write_files(root / "apps" / name, {"__init__.py": "", "hooks.py": hooks.replace("APP", name), **files})
    with (root / "apps.txt").open("a") as fh:
        fh.write(f"{name}\n")
    return name


def test_asset_urls() -> None:
    assert asset_url("shop", "public/js/a.js") == "/assets/shop/js/a.js"
    assert asset_url("shop", "doctype/x/x.js") == "/assets/shop/doctype/x/x.js"
    assert asset_url("shop", "/assets/other/b.css") == "/assets/other/b.css"


def test_build_copies_public_and_form_scripts_and_writes_the_manifest(tmp_path: Path) -> None:
    (tmp_path / "apps").mkdir()
    name = _app(tmp_path, 'app_name = "APP"\n'
                          'doctype_js = {"User": "custom/user.js", "Role": "public/js/role.js"}\n'
                          'app_include_js = ["public/js/app.js"]\napp_include_css = "/assets/APP/css/app.css"\n', {
        "public/js/app.js": "// app\n",
        "public/js/role.js": "// role\n",
        "public/css/app.css": "body{}\n",
        "custom/user.js": "// user form\n",
        "doctype/gadget/gadget.json": json.dumps({"name": "Gadget", "module": "X"}),
        "doctype/gadget/gadget.js": "// gadget form\n",
        "doctype/gadget/gadget.py": "# not an asset\n",
    })
    settings = make_settings(root_dir=tmp_path)
    manifest = build(settings)
    out = tmp_path / "assets" / name
    assert (out / "js" / "app.js").read_text() == "// app\n"
    assert (out / "css" / "app.css").is_file()
    assert (out / "custom" / "user.js").read_text() == "// user form\n"
    assert (out / "doctype" / "gadget" / "gadget.js").is_file()
    assert not (out / "doctype" / "gadget" / "gadget.py").exists()
    assert manifest["doctype_js"] == {"User": [f"/assets/{name}/custom/user.js"],
                                      "Role": [f"/assets/{name}/js/role.js"],
                                      "Gadget": [f"/assets/{name}/doctype/gadget/gadget.js"]}
    assert manifest["app_include_js"] == [f"/assets/{name}/js/app.js"]
    assert manifest["app_include_css"] == [f"/assets/{name}/css/app.css"]
    assert f"/assets/{name}/js/app.js" in manifest["apps"][name]["files"]
    assert json.loads((tmp_path / "assets" / "manifest.json").read_text()) == manifest

    # a rebuild drops what the app no longer has
    (tmp_path / "apps" / name / "public" / "css" / "app.css").unlink()
    (tmp_path / "apps" / name / "public" / "js" / "app.js").write_text("// v2\n")
    manifest = build(settings)
    assert not (out / "css").exists()
    assert (out / "js" / "app.js").read_text() == "// v2\n"
    assert f"/assets/{name}/css/app.css" not in manifest["apps"][name]["files"]

    # an app removed from apps.txt loses its folder
    (tmp_path / "apps.txt").write_text("")
    assert build(settings)["apps"] == {}
    assert not out.exists()


def test_build_names_a_missing_doctype_js_file(tmp_path: Path) -> None:
    (tmp_path / "apps").mkdir()
    name = _app(tmp_path, 'app_name = "APP"\ndoctype_js = {"User": "public/js/nope.js"}\n', {})
    with pytest.raises(exc.ConfigurationError, match=rf"{name}.*doctype_js\['User'\].*nope\.js"):
        build(make_settings(root_dir=tmp_path))
