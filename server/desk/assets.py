"""The Desk's static files (server/desk/static, shipped inside the Python package), served from memory.

Every file is read once, gzipped once (level 9) and served under `/assets/desk/<version>/<path>`,
where `<version>` is a digest of the whole folder. ES modules import each other by relative path,
so they all share the version and can be cached for a year (`immutable`); a new release changes the
version and with it every URL. A request for another version (a page still open from before an
upgrade) gets today's file with `no-cache`. Every file also has a strong ETag (304 on If-None-Match).

The folder also yields the Desk's own translatable strings (`__("...")` in its JavaScript) and the
modules `main.js` imports statically (the shell preloads them, so the browser fetches them at once
instead of one import level at a time). In developer mode the folder is re-read when a file changes.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from engine.messages import Extraction, javascript_messages

STATIC = Path(__file__).resolve().parent / "static"
PREFIX = "/assets/desk"
ENTRY = "js/main.js"
LOGIN_ENTRY = "js/login.js"
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
CONTENT_TYPES = {
    ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8", ".json": "application/json", ".svg": "image/svg+xml",
    ".png": "image/png", ".ico": "image/x-icon", ".woff2": "font/woff2", ".txt": "text/plain; charset=utf-8",
}
COMPRESSIBLE = frozenset({".js", ".mjs", ".css", ".json", ".svg", ".txt"})
MIN_GZIP_BYTES = 256
_STATIC_IMPORT = re.compile(r"""(?:^|[;\s])(?:import|export)\s*(?:[\w*{}\s,]+from\s*)?["'](\.{1,2}/[^"']+)["']""")


@dataclass(frozen=True)
class Asset:
    body: bytes
    gzipped: bytes | None
    etag: str
    content_type: str


@dataclass
class DeskAssets:
    """The static folder in memory: files by relative path, the version, the Desk's messages."""

    root: Path = STATIC
    files: dict[str, Asset] = field(default_factory=dict)
    version: str = ""
    messages: frozenset[tuple[str, str]] = frozenset()
    _stamp: tuple[tuple[str, int, int], ...] = ()

    @classmethod
    def load(cls, root: Path = STATIC) -> DeskAssets:
        assets = cls(root)
        assets.reload()
        return assets

    def _scan(self) -> tuple[tuple[str, int, int], ...]:
        return tuple(sorted((p.relative_to(self.root).as_posix(), p.stat().st_mtime_ns, p.stat().st_size)
                            for p in self.root.rglob("*") if p.is_file()))

    def reload(self) -> None:
        files: dict[str, Asset] = {}
        digest = hashlib.sha256()
        messages: set[tuple[str, str]] = set()
        stamp = self._scan()
        for rel, _mtime, _size in stamp:
            body = (self.root / rel).read_bytes()
            sha = hashlib.sha256(body).hexdigest()
            digest.update(f"{rel}\0{sha}\0".encode())
            suffix = Path(rel).suffix.lower()
            gzipped = None
            if suffix in COMPRESSIBLE and len(body) >= MIN_GZIP_BYTES:
                gzipped = gzip.compress(body, compresslevel=9, mtime=0)
            files[rel] = Asset(body, gzipped, f'"{sha[:32]}"', CONTENT_TYPES.get(suffix, "application/octet-stream"))
            if suffix == ".js" and rel.startswith("js/"):
                messages |= _messages(body)
        self.files, self.version, self._stamp = files, digest.hexdigest()[:16], stamp
        self.messages = frozenset(messages)

    def refresh_if_changed(self) -> None:
        """Re-read the folder when a file was added, removed or changed (developer mode)."""
        if self._scan() != self._stamp:
            self.reload()

    @property
    def base_url(self) -> str:
        return f"{PREFIX}/{self.version}/"

    def url(self, rel: str) -> str:
        return self.base_url + rel

    def stylesheets(self) -> list[str]:
        """Every `css/*.css`, by name (so a new stylesheet needs no Python change)."""
        return [self.url(rel) for rel in sorted(self.files) if rel.startswith("css/") and rel.endswith(".css")
                and rel.count("/") == 1]

    def static_imports(self, entry: str) -> list[str]:
        """The modules `entry` imports statically, transitively (dynamic `import()`s are left out)."""
        seen: dict[str, None] = {}
        pending = [entry]
        while pending:
            rel = pending.pop()
            if rel in seen or rel not in self.files:
                continue
            seen[rel] = None
            base = Path(rel).parent
            for target in _STATIC_IMPORT.findall(self.files[rel].body.decode("utf-8", "replace")):
                pending.append(_normalise(base / target))
        return [self.url(rel) for rel in seen if rel != entry]


def _normalise(path: Path) -> str:
    parts: list[str] = []
    for part in path.as_posix().split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in (".", ""):
            parts.append(part)
    return "/".join(parts)


def _messages(source: bytes) -> set[tuple[str, str]]:
    """(message, context) of every `__("...")` call (template literals included)."""
    found = Extraction()
    javascript_messages(io.BytesIO(source), found)
    return {(m.source, m.context) for m in found.messages}
