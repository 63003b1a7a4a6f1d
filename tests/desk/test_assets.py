"""The Desk's static files (desk.md §2, §9): shipped in the package, served with content-versioned
URLs, a year's cache, strong ETags and gzip; the vendored libraries are exactly what their pinned npm
tarballs hold, with their licences; the code never builds HTML from strings or evaluates text; every
Desk string has a German translation; a cold /app stays under its transfer budget."""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.util
import io
import json
import re
import sys
import tarfile
from pathlib import Path

import httpx
import pytest

from engine import translation
from engine.apps.registry import AppRegistry
from engine.context import Context
from server.desk.assets import IMMUTABLE, STATIC, DeskAssets
from tests.desk.conftest import cookie_login, desk_user

REPO = Path(__file__).resolve().parents[2]
JS = STATIC / "js"
COLD_BUDGET = 300 * 1024  # desk.md §9: a cold /app transfers at most 300 KB compressed
# ways to turn text into markup or code; the Desk renders every value as text (htm/Preact text nodes)
FORBIDDEN = re.compile(r"\binnerHTML\b|\bouterHTML\b|insertAdjacentHTML|document\.write|dangerouslySetInnerHTML|"
                       r"\beval\s*\(|new\s+Function\b|setTimeout\s*\(\s*[\"'`]|createContextualFragment|DOMParser")


def desk_sources() -> list[Path]:
    return sorted(JS.rglob("*.js"))


@pytest.fixture(scope="module")
def assets() -> DeskAssets:
    return DeskAssets.load()


def _vendor_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("vendor_desk", REPO / "scripts" / "vendor_desk.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


def test_vendored_files_match_their_pinned_tarballs() -> None:
    vendor = _vendor_module()
    assert vendor.check() == []
    packages = {pin.package: pin.version for pin in vendor.PINS}
    assert set(packages) == {"preact", "htm", "socket.io-client", "frappe-charts"}
    for package in packages:
        licence = STATIC / "vendor" / f"LICENSE.{package}.txt"
        assert licence.is_file() and ("MIT" in licence.read_text() or "Apache" in licence.read_text()), package


def test_a_rewrite_that_no_longer_matches_stops_the_refresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vendor = _vendor_module()
    upstream = {"package/dist/lib.js": b'var css=".x{}";styleInject(css);export default 1;\n',
                "package/LICENSE": b"MIT License\n"}
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as archive:
        for name, data in upstream.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    tarball = packed.getvalue()
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    url = f"{vendor.REGISTRY}/lib/-/lib-1.0.0.tgz"

    def get(address: str) -> bytes:
        return tarball if address == url else json.dumps({"dist": {"tarball": url, "integrity": integrity}}).encode()

    out = tmp_path / "vendor"
    out.mkdir()
    monkeypatch.setattr(vendor, "_get", get)
    monkeypatch.setattr(vendor, "VENDOR", out)
    monkeypatch.setattr(vendor, "LOCK", out / "vendor.lock.json")
    kept = vendor.Pin("lib", "1.0.0", {"lib.js": "dist/lib.js"}, rewrites=((r"styleInject\(css\);", ""),))
    monkeypatch.setattr(vendor, "PINS", (kept,))
    vendor.refresh()
    assert (out / "lib.js").read_text() == 'var css=".x{}";export default 1;\n'  # the call taken out
    stale = vendor.Pin("lib", "1.0.0", {"lib.js": "dist/lib.js"}, rewrites=((r"styleInject\(css_248z\);", ""),))
    monkeypatch.setattr(vendor, "PINS", (stale,))
    (out / "lib.js").unlink()
    with pytest.raises(SystemExit, match="matches nothing"):
        vendor.refresh()
    assert not (out / "lib.js").exists()  # nothing of the pin was written


def test_a_hand_edited_vendor_file_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vendor = _vendor_module()
    copy = tmp_path / "vendor"
    copy.mkdir()
    for path in (STATIC / "vendor").iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    (copy / "htm.js").write_text("export default () => null;\n")
    monkeypatch.setattr(vendor, "VENDOR", copy)
    monkeypatch.setattr(vendor, "LOCK", copy / "vendor.lock.json")
    assert vendor.check() == ["htm.js: differs from what htm@3.1.1 gave (edited by hand?)"]


def test_no_cdn_and_no_markup_from_strings() -> None:
    for path in desk_sources():
        text = path.read_text(encoding="utf-8")
        assert not FORBIDDEN.search(text), f"{path.relative_to(STATIC)}: {FORBIDDEN.search(text).group(0)}"  # type: ignore[union-attr]
        # (XML namespace names are not fetched: SVG's, and Office Open XML's in the reports' XLSX export)
        assert not re.search(r"https?://(?!www\.w3\.org|schemas\.openxmlformats\.org)", text), (
            f"{path.relative_to(STATIC)} names an external URL")
    for path in sorted((STATIC / "css").glob("*.css")):
        assert "http" not in path.read_text(), path


def test_every_desk_string_has_a_german_translation(assets: DeskAssets, registry: AppRegistry) -> None:
    assert len(assets.messages) > 40  # the extractor found the strings of the templates too
    assert ("Save", "") in assets.messages and ("Add {0}", "") in assets.messages
    # (the catalogs are loaded with the apps: `registry`); a row may keep the word ("Status,Status")
    german = translation._catalogs["de"]
    missing = sorted(source for source, context in assets.messages
                     if not german.get(f"{source}:{context}" if context else source) and not german.get(source))
    assert not missing, f"add these to engine/translations/de.csv: {missing}"


def test_the_version_follows_the_content(tmp_path: Path) -> None:
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "main.js").write_text('import "./a.js";\n')
    (tmp_path / "js" / "a.js").write_text('export const a = __("Hello");\n')
    first = DeskAssets.load(tmp_path)
    assert first.messages == {("Hello", "")}
    assert first.static_imports("js/main.js") == [first.url("js/a.js")]
    (tmp_path / "js" / "a.js").write_text('export const a = __("Hello again");\n')
    first.refresh_if_changed()
    assert first.version != DeskAssets.load(STATIC).version and first.messages == {("Hello again", "")}


async def test_assets_are_cached_compressed_and_revalidated(client: httpx.AsyncClient, assets: DeskAssets) -> None:
    url = assets.url("js/main.js")
    r = await client.get(url, headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200
    assert r.headers["cache-control"] == IMMUTABLE
    assert r.headers["content-encoding"] == "gzip" and r.headers["content-type"].startswith("text/javascript")
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.content == (STATIC / "js" / "main.js").read_bytes()  # httpx decoded the gzip
    etag = r.headers["etag"]
    assert re.fullmatch(r'"[0-9a-f]{32}"', etag)
    r = await client.get(url, headers={"If-None-Match": etag})
    assert (r.status_code, r.content) == (304, b"")
    r = await client.get(url.replace(assets.version, "0123456789abcdef"))
    assert r.status_code == 200 and r.headers["cache-control"] == "no-cache"  # a page from before an upgrade
    r = await client.get(assets.url("css/base.css"), headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in r.headers and r.headers["content-type"].startswith("text/css")


@pytest.mark.parametrize("path", ["js/nope.js", "../pages.py", "..%2Fpages.py", "js/../../routes.py", ""])
async def test_only_the_static_files_are_served(client: httpx.AsyncClient, assets: DeskAssets, path: str) -> None:
    r = await client.get(f"/assets/desk/{assets.version}/{path}")
    assert r.status_code == 404


async def test_the_shell_references_what_exists_within_budget(browser_client: httpx.AsyncClient, ctx: Context,
                                                              assets: DeskAssets) -> None:
    await desk_user(ctx, "budget@example.com", ["Test Reader"])
    await cookie_login(browser_client, "budget@example.com")
    shell = await browser_client.get("/app", headers={"Accept-Encoding": "gzip"})
    urls = re.findall(r'(?:href|src)="(/assets/desk/[^"]+)"', shell.text)
    assert assets.url("js/main.js") in urls and assets.url("css/base.css") in urls
    assert assets.url("js/app.js") in urls and assets.url("vendor/preact.js") in urls  # preloaded modules
    assert assets.url("vendor/socket.io.js") not in urls  # loaded after the first render
    total = len(gzip.compress(shell.content))
    for url in urls:
        r = await client_get(browser_client, url)
        assert r.status_code == 200, url
        rel = url.split(f"{assets.version}/", 1)[1]
        asset = assets.files[rel]
        total += len(asset.gzipped or asset.body)
    # the whole static folder (every view and the realtime client too) is within the cold budget
    everything = sum(len(a.gzipped or a.body) for a in assets.files.values())
    assert total <= everything <= COLD_BUDGET, (total, everything)


async def client_get(client: httpx.AsyncClient, url: str) -> httpx.Response:
    return await client.get(url, headers={"Accept-Encoding": "gzip"})


def test_the_package_ships_the_desk() -> None:
    pyproject = (REPO / "pyproject.toml").read_text()
    assert 'server = ["desk/templates/*.html", "desk/static/**/*"]' in pyproject
    assert '"playwright>=1.65,<2"' in pyproject
