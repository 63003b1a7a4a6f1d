"""`fw build`: collect the installed apps' JS and CSS under `<root>/assets`, served at `/assets`.

Per app (apps.txt order), into `<root>/assets/<app>/`:
- everything under the app's `public/` folder, without the `public/` prefix
  (`public/js/app.js` → `/assets/<app>/js/app.js`);
- its form scripts `doctype/<dt>/<dt>.js` and its `doctype_js` hook scripts (paths relative to the
  app folder), at the same relative path (`doctype/book/book.js` → `/assets/<app>/doctype/book/book.js`).

`<root>/assets/manifest.json` lists per app the files, per doctype its form-script URLs
(`doctype_js`), and the `app_include_js`/`app_include_css` URLs. A rebuild removes the files an
app no longer has, and the folders of apps no longer installed.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.apps.installed import App, load_apps, read_apps_txt

if TYPE_CHECKING:
    from engine.settings import Settings

MANIFEST = "manifest.json"
SKIP_PARTS = frozenset({"node_modules", "__pycache__", ".git"})
Progress = Callable[[str], None]


def assets_dir(settings: Settings) -> Path:
    return settings.root_dir / "assets"


def asset_url(app: str, path: str) -> str:
    """The URL of an asset path as written in hooks.py: a `/assets/...` URL is kept; a path relative
    to the app folder maps to where `build` puts it."""
    if path.startswith(("/", "http://", "https://")):
        return path
    rel = path.removeprefix("./")
    rel = rel.removeprefix("public/")
    return f"/assets/{app}/{rel}"


def _collect(app: App) -> tuple[dict[str, Path], dict[str, list[str]]]:
    """(relative target path → source file, doctype → form-script URLs) of one app."""
    files: dict[str, Path] = {}
    scripts: dict[str, list[str]] = {}
    public = app.path / "public"
    if public.is_dir():
        for src in sorted(public.rglob("*")):
            if src.is_file() and not SKIP_PARTS.intersection(src.relative_to(public).parts):
                files[src.relative_to(public).as_posix()] = src
    for src in sorted((app.path / "doctype").glob("*/*.js")):
        if src.stem == src.parent.name:
            rel = src.relative_to(app.path).as_posix()
            files[rel] = src
            doctype = _doctype_name(src.with_suffix(".json"))
            if doctype:
                scripts.setdefault(doctype, []).append(f"/assets/{app.name}/{rel}")
    for doctype, paths in (getattr(app.hooks, "doctype_js", None) or {}).items():
        for path in paths if isinstance(paths, list | tuple) else [paths]:
            rel = str(path).removeprefix("./")
            src = app.path / rel
            if not src.is_file():
                raise exc.ConfigurationError(
                    f"App {app.name!r}, hooks.py doctype_js[{doctype!r}]: {src} does not exist")
            if not rel.startswith("public/"):
                files[rel] = src
            url = asset_url(app.name, rel)
            if url not in scripts.setdefault(doctype, []):
                scripts[doctype].append(url)
    return files, scripts


def _doctype_name(json_path: Path) -> str | None:
    try:
        name = json.loads(json_path.read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError, AttributeError):
        return None
    return name if isinstance(name, str) else None


def _sync_folder(target: Path, files: dict[str, Path]) -> None:
    """Make `target` hold exactly `files` (copying only what changed)."""
    for rel, src in files.items():
        dest = target / rel
        if dest.is_file() and dest.stat().st_size == src.stat().st_size and dest.read_bytes() == src.read_bytes():
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
    if not target.is_dir():
        return
    for path in sorted(target.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        rel = path.relative_to(target).as_posix()
        if path.is_file() or path.is_symlink():
            if rel not in files:
                path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def include_urls(apps: list[App], key: str) -> list[str]:
    """The URLs of a list hook (`app_include_js`, `app_include_css`) of every app, in app order."""
    urls: list[str] = []
    for app in apps:
        value = getattr(app.hooks, key, None) or []
        for path in value if isinstance(value, list | tuple) else [value]:
            urls.append(asset_url(app.name, str(path)))
    return urls


def build(settings: Settings, progress: Progress | None = None) -> dict[str, Any]:
    """Copy every installed app's assets and write the manifest; returns the manifest."""
    apps = load_apps(settings.apps_dir, read_apps_txt(settings.apps_txt))
    out = assets_dir(settings)
    out.mkdir(parents=True, exist_ok=True)
    previous = _read_manifest(out)
    manifest: dict[str, Any] = {"apps": {}, "doctype_js": {}, "app_include_js": include_urls(apps, "app_include_js"),
                                "app_include_css": include_urls(apps, "app_include_css")}
    for app in apps:
        if progress:
            progress(app.name)
        files, scripts = _collect(app)
        _sync_folder(out / app.name, files)
        manifest["apps"][app.name] = {"files": sorted(f"/assets/{app.name}/{rel}" for rel in files)}
        for doctype, urls in scripts.items():
            manifest["doctype_js"].setdefault(doctype, []).extend(urls)
    for gone in set(previous.get("apps", {})) - set(manifest["apps"]):
        if (out / gone).is_dir() and "/" not in gone and gone not in (".", ".."):
            shutil.rmtree(out / gone)
    tmp = out / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(out / MANIFEST)
    return manifest


def _read_manifest(out: Path) -> dict[str, Any]:
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
