"""A document's print as one HTML page: the caller's rights checked (read and `print`, through the
permission component), the Print Format (or the standard layout) rendered, the Letter Head above
and its footer below. `/printview` shows it, `download_pdf` turns it into a PDF."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine import permissions
from engine.desk.boot import sysdefaults
from engine.methods.client import load_for, readable_dict
from engine.printing import layout
from engine.printing.records import Record
from engine.printing.render import render, sanitise
from engine.query.listing import get_value
from engine.translation import _, reset_language, set_language

if TYPE_CHECKING:
    from engine.context import Context

STANDARD = "Standard"
NO_LETTERHEAD = "No Letterhead"
# (a section of one column is laid out as a plain block: WeasyPrint lays a long table out about twice
# as slowly inside a flex item)
BASE_CSS = """
@page { size: A4; margin: 18mm 15mm; }
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 10pt; color: #111; }
.print-title { font-size: 16pt; margin: 0 0 2pt; } .print-subtitle { color: #555; margin: 0 0 10pt; }
.print-section h2 { font-size: 12pt; border-bottom: 1px solid #ccc; margin: 12pt 0 6pt; }
.print-columns.multi { display: flex; gap: 16pt; } .multi > .print-column { flex: 1; }
.print-field { margin: 0 0 5pt; } .print-label { display: block; color: #666; font-size: 8.5pt; }
.print-table table { width: 100%; border-collapse: collapse; }
.print-table th, .print-table td { border: 1px solid #ccc; padding: 3pt 4pt; text-align: left; }
.print-table thead { display: table-header-group; } .print-table tr { page-break-inside: avoid; }
.letter-head { margin-bottom: 12pt; } .letter-head-footer { margin-top: 16pt; color: #555; font-size: 8.5pt; }
@media screen { body { max-width: 210mm; margin: 12px auto; padding: 0 12px; } }
"""
PAGE = """<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>
<style>{base}</style><style>{css}</style></head>
<body><div class="print-format">{head}{body}{foot}</div></body></html>
"""


@dataclass(frozen=True)
class PrintPage:
    html: str
    title: str  # `<doctype> <name>`, for a file name


def _css(text: Any) -> str:
    """A format's CSS, unable to end its `<style>` element."""
    return str(text or "").replace("<", "\\3C ")


async def _record(ctx: Context, doctype: str, name: str) -> dict[str, Any]:
    """A Print Format or Letter Head record by name (these are configuration: a caller who may print
    the document uses them whether or not it may open their forms); 404 naming it when missing."""
    record = await get_value(ctx, doctype, {"name": name}, ["*"], as_dict=True)
    if not record:
        raise exc.DoesNotExistError(_("{0} {1} not found", _(doctype), name))
    return dict(record)


async def _format(ctx: Context, doctype: str, name: str | None) -> dict[str, Any] | None:
    if not name or name == STANDARD:
        return None
    record = await _record(ctx, "Print Format", name)
    if record.get("doc_type") != doctype:
        raise exc.ValidationError(_("Print Format {0} is for {1}, not {2}", name, record.get("doc_type"), doctype),
                                  field="format")
    if record.get("disabled"):
        raise exc.ValidationError(_("Print Format {0} is disabled", name), field="format")
    if (record.get("print_format_type") or "Jinja") != "Jinja":
        raise exc.ValidationError(_("Print Format {0}: only Jinja formats can be printed", name), field="format")
    return record


async def _letter_head(ctx: Context, name: str | None) -> dict[str, Any] | None:
    if name == NO_LETTERHEAD:
        return None
    if name:
        return await _record(ctx, "Letter Head", name)
    # several marked default: the one changed last wins (as it does in the Desk's choice)
    found = await get_value(ctx, "Letter Head", {"is_default": 1, "disabled": 0}, ["*"], as_dict=True,
                            order_by="modified desc")
    return dict(found) if found else None


async def print_page(ctx: Context, doctype: str, name: str, print_format: str | None = None,
                     letterhead: str | None = None) -> PrintPage:
    """The document's print as an HTML page. 403 without read or `print` on it (row rules, User
    Permissions and owner rules included); ValidationError naming the format and line when its
    template fails."""
    doc = await load_for(ctx, doctype, name, "read")
    await permissions.check_document(ctx, doc, "print")
    fmt = await _format(ctx, doctype, print_format)
    head = await _letter_head(ctx, letterhead)
    token = set_language(str(fmt["default_print_language"])) if fmt and fmt.get("default_print_language") else None
    try:
        data = await readable_dict(ctx, doc)
        defaults = await sysdefaults(ctx)
        titles = await layout.link_titles(ctx, doc.meta, data)
        if fmt is None:
            readable = await permissions.readable_fields(ctx, doc.meta)
            body = layout.standard(ctx, doc.meta, data, defaults, titles, readable)
        else:
            record = Record(ctx, doc.meta, data, defaults, titles)
            body = render(str(fmt["name"]), str(fmt.get("html") or ""), {
                "doc": record, "print_format": fmt["name"]})
        lang = str(fmt.get("default_print_language") or ctx.lang) if fmt else ctx.lang
    finally:
        if token is not None:
            reset_language(token)
    top = f'<div class="letter-head">{sanitise(head.get("content"))}</div>' if head and head.get("content") else ""
    bottom = (f'<div class="letter-head-footer">{sanitise(head.get("footer"))}</div>'
              if head and head.get("footer") else "")
    title = f"{doctype} {name}"
    page = PAGE.format(lang=html.escape(lang), title=html.escape(title), base=BASE_CSS,
                       css=_css(fmt.get("css") if fmt else ""), head=top, body=body, foot=bottom)
    return PrintPage(page, title)
