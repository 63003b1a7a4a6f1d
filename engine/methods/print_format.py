"""Printing under Frappe's paths: `fw.utils.print_format.download_pdf` answers a document's print
as a PDF file (a `Download`, which the HTTP layer sends as the body instead of JSON, as exports are)."""

from __future__ import annotations

import io

from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.export.writer import Download
from engine.printing.page import print_page
from engine.printing.pdf import to_pdf


@whitelist(path="fw.utils.print_format.download_pdf")
async def download_pdf(ctx: Context, doctype: str, name: str, format: str | None = None,
                       letterhead: str | None = None, no_letterhead: int | str = 0) -> Download:
    """The document printed with `format` (default: the standard layout) on `letterhead` (default:
    the default Letter Head; "No Letterhead" or `no_letterhead=1` for none), as a PDF download.
    Needs read and `print` on the document."""
    if str(no_letterhead) in ("1", "true"):
        letterhead = "No Letterhead"
    page = await print_page(ctx, doctype, name, format, letterhead)
    pdf = await to_pdf(ctx, page.html)
    return Download(f"{page.title.replace('/', '-')}.pdf", "application/pdf", io.BytesIO(pdf), len(pdf))
