"""The standard print layout, generated from the meta: sections (Section and Tab Breaks, with their
labels), columns (Column Breaks), fields as label and value, child tables as tables. Hidden and
`print_hide` fields are left out (Custom Fields' and Property Setters' too: the meta holds them
applied), and so are fields the caller may not read and fields without a value."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.printing.render import HTML_TYPES, render, sanitise
from engine.printing.values import format_value
from engine.query.listing import get_list
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.meta.schema import DocFieldSchema, Meta

BREAKS = frozenset({"Section Break", "Tab Break"})
MAX_TABLE_COLUMNS = 8
STANDARD = """<h1 class="print-title">{{ title }}</h1>
{% if subtitle %}<p class="print-subtitle">{{ subtitle }}</p>{% endif %}
{% for section in sections %}<section class="print-section">
{% if section.label %}<h2>{{ section.label }}</h2>{% endif %}
<div class="print-columns{% if section.columns|length > 1 %} multi{% endif %}">
{% for column in section.columns %}<div class="print-column">
{% for item in column %}{% if item.table %}<div class="print-table"><h3>{{ item.label }}</h3>
<table><thead><tr>{% for head in item.table.headers %}<th>{{ head }}</th>{% endfor %}</tr></thead>
<tbody>{% for row in item.table.rows %}<tr>{% for cell in row %}<td>{{ cell }}</td>{% endfor %}</tr>{% endfor %}
</tbody></table></div>{% else %}<div class="print-field"><span class="print-label">{{ item.label }}</span>
<span class="print-value">{{ item.value }}</span></div>{% endif %}{% endfor %}
</div>{% endfor %}</div></section>{% endfor %}
"""


@dataclass
class Table:
    headers: list[str]
    rows: list[list[Any]]


@dataclass
class Item:
    label: str
    value: Any = ""
    table: Table | None = None


@dataclass
class Section:
    label: str = ""
    columns: list[list[Item]] = field(default_factory=lambda: [[]])


def printable(df: DocFieldSchema, readable: frozenset[str] | None) -> bool:
    extra = df.model_extra or {}
    if df.hidden or extra.get("print_hide") in (1, True, "1"):
        return False
    return readable is None or not df.fieldname or df.fieldname in readable or (not df.has_value and not df.is_table)


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == []


def _table_columns(child: Meta) -> list[DocFieldSchema]:
    return [f for f in child.value_fields if printable(f, None) and f.fieldtype not in HTML_TYPES][:MAX_TABLE_COLUMNS]


def _links(ctx: Context, meta: Meta, data: dict[str, Any]) -> Iterable[tuple[str, Any]]:
    for df in meta.link_fields:
        if data.get(df.fieldname):
            yield str(df.options), data[df.fieldname]
    for df in meta.table_fields:
        child = ctx.meta(str(df.options))
        for row in data.get(df.fieldname) or []:
            if isinstance(row, dict):
                yield from _links(ctx, child, row)


async def link_titles(ctx: Context, meta: Meta, data: dict[str, Any]) -> dict[str, dict[str, str]]:
    """{target doctype: {name: title}} of the document's Link values whose doctype has a title
    field, only the titles the caller may read."""
    wanted: dict[str, set[str]] = {}
    for target, value in _links(ctx, meta, data):
        wanted.setdefault(target, set()).add(str(value))
    titles: dict[str, dict[str, str]] = {}
    for target, names in wanted.items():
        title = ctx.meta(target).title_field
        if not title or title == "name":
            continue
        try:
            rows = await get_list(ctx, target, fields=["name", title], filters=[["name", "in", sorted(names)]],
                                  limit_page_length=0)
        except exc.PermissionError:
            continue
        titles[target] = {r["name"]: str(r[title]) for r in rows if r.get(title)}
    return titles


def _display(value: Any, df: DocFieldSchema, defaults: dict[str, Any], titles: dict[str, dict[str, str]]) -> Any:
    if df.fieldtype in HTML_TYPES:
        return sanitise(value)
    return format_value(value, df, defaults, titles.get(str(df.options)) if df.fieldtype == "Link" else None)


def sections(ctx: Context, meta: Meta, data: dict[str, Any], defaults: dict[str, Any],
             titles: dict[str, dict[str, str]], readable: frozenset[str] | None) -> list[Section]:
    out = [Section()]
    for df in meta.fields:
        if df.fieldtype in BREAKS:
            out.append(Section(label=df.label or "") if printable(df, readable) else Section())
        elif df.fieldtype == "Column Break":
            out[-1].columns.append([])
        elif not printable(df, readable) or _empty(data.get(df.fieldname)):
            continue
        elif df.is_table:
            child = ctx.meta(str(df.options))
            columns = _table_columns(child)
            rows = [[_display(row.get(c.fieldname), c, defaults, titles) for c in columns]
                    for row in data[df.fieldname] if isinstance(row, dict)]
            out[-1].columns[-1].append(Item(df.display_label, table=Table([c.display_label for c in columns], rows)))
        elif df.has_value:
            out[-1].columns[-1].append(Item(df.display_label, _display(data[df.fieldname], df, defaults, titles)))
    for section in out:
        section.columns = [c for c in section.columns if c]
    return [s for s in out if s.columns]


def standard(ctx: Context, meta: Meta, data: dict[str, Any], defaults: dict[str, Any],
             titles: dict[str, dict[str, str]], readable: frozenset[str] | None) -> str:
    """The document's standard print as HTML (the body of the page)."""
    title_field = meta.title_field
    title = str(data.get(title_field) or data.get("name")) if title_field else str(data.get("name"))
    subtitle = _(meta.name) + ("" if title == str(data.get("name")) else f" {data.get('name')}")
    return render("Standard", STANDARD, {"title": title, "subtitle": subtitle,
                                         "sections": sections(ctx, meta, data, defaults, titles, readable)})
