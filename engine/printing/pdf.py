"""A print page as PDF through WeasyPrint, which fetches nothing from the network: its URL fetcher
answers `data:` URLs and the site's own `/files/` and `/private/files/` URLs, read from MongoDB
(through engine/files, the caller's read right judged) before rendering starts; anything else is
refused. Rendering runs in a worker thread so the event loop keeps serving, and a page longer than
`MAX_HTML` characters is refused instead of rendered."""

from __future__ import annotations

import asyncio
import re
import urllib.request
from typing import TYPE_CHECKING

from engine import exceptions as exc
from engine.files import serving, storage
from engine.translation import _

if TYPE_CHECKING:
    from weasyprint.urls import URLFetcherResponse

    from engine.context import Context

MAX_HTML = 1_000_000  # characters: about 10,000 table rows, minutes of layout on a busy machine
MAX_FILES = 20
MAX_FILE_BYTES = 10 * 1024 * 1024
BASE_URL = "http://print.invalid/"  # relative URLs resolve here and nowhere real
_FILE_URL = re.compile(r"""(?:src|href)\s*=\s*["']?(?:https?://[^/"']+)?(/(?:private/)?files/[^"'\s>?#]+)""", re.I)
_CSS_URL = re.compile(r"""url\(\s*["']?(?:https?://[^/"')]+)?(/(?:private/)?files/[^"')\s?#]+)""", re.I)


async def local_files(ctx: Context, page: str) -> dict[str, tuple[bytes, str]]:
    """The site's files the page names that the caller may read: {url path: (bytes, content type)}."""
    urls = sorted({m.group(1) for m in _FILE_URL.finditer(page)} | {m.group(1) for m in _CSS_URL.finditer(page)})
    found: dict[str, tuple[bytes, str]] = {}
    for url in urls[:MAX_FILES]:
        try:
            served = await serving.resolve(ctx, url)
        except (exc.DoesNotExistError, exc.PermissionError):
            continue
        if served.content.length <= MAX_FILE_BYTES:
            found[url] = (await storage.read(ctx, served.content.digest), served.content_type)
    return found


class Fetcher:
    """WeasyPrint's `url_fetcher`: data: URLs and the preloaded site files, nothing else."""

    def __init__(self, files: dict[str, tuple[bytes, str]]) -> None:
        self.files = files
        self.refused: list[str] = []

    def __call__(self, url: str) -> URLFetcherResponse:
        from weasyprint.urls import URLFetcherResponse  # (imported with weasyprint, in the render thread)
        if url.startswith("data:"):
            with urllib.request.urlopen(url) as answer:
                return URLFetcherResponse(url, body=answer.read(),
                                          headers={"Content-Type": answer.headers.get_content_type()})
        path = url[len(BASE_URL) - 1:] if url.startswith(BASE_URL) else None
        if path is not None and path in self.files:
            body, content_type = self.files[path]
            return URLFetcherResponse(url, body=body, headers={"Content-Type": content_type})
        self.refused.append(url)
        raise ValueError(f"fw prints no remote resource: {url[:200]}")


def _write_pdf(page: str, fetcher: Fetcher) -> bytes:
    import weasyprint  # (deferred: loading pango and cairo costs ~0.5 s to every process that never prints)
    return bytes(weasyprint.HTML(string=page, base_url=BASE_URL, url_fetcher=fetcher).write_pdf())


async def to_pdf(ctx: Context, page: str) -> bytes:
    """The page as PDF bytes."""
    if len(page) > MAX_HTML:
        raise exc.ValidationError(_("This document is too long to print as PDF ({0} characters of HTML, at most {1})",
                                    len(page), MAX_HTML))
    fetcher = Fetcher(await local_files(ctx, page))
    return await asyncio.to_thread(_write_pdf, page, fetcher)
