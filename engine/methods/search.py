"""`fw.desk.search.search_link`: what a Link field offers as the user types (Frappe's
`frappe.desk.search.search_link`).

The text is looked for (case-insensitive, anywhere) in the name, the `title_field` and the doctype's
`search_fields` (those of a text-like type the caller may read). Rows are the caller's: the query
runs through `get_list`, so DocPerm rights (read or select), `if_owner` and row conditions apply,
and the caller's `filters` can only narrow them. A doctype with an `enabled` Check field offers only
enabled rows, one with `disabled` only rows not disabled, as in Frappe. Matches at the start of a
field come first, then the others, each in the doctype's sort order. The search text is data: `%`
and `_` are LIKE wildcards as in Frappe, every other character (regex metacharacters included)
matches itself.

`query` names a whitelisted function that answers instead (Frappe's custom link queries, set with
`frm.set_query`): it is called with `doctype, txt, searchfield, start, page_len, filters` and returns
rows (`[name, description...]`) or dicts with `value`/`name`. It is resolved as `/api/method` resolves
a path (engine/methods/dispatch.py), so a Guest reaches only one that allows guests.
"""

from __future__ import annotations

import inspect
from typing import Any

from typing_extensions import TypedDict  # (pydantic describes only this one in the OpenAPI before 3.12)

from engine import exceptions as exc
from engine import permissions
from engine.apps.callables import call_with_supported
from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.meta.schema import Meta
from engine.methods import dispatch
from engine.methods.args import json_arg
from engine.query import listing
from engine.translation import _

# field types whose text a search looks into (Frappe's list)
SEARCHABLE_TYPES = frozenset({"Data", "Text", "Small Text", "Long Text", "Link", "Select", "Read Only",
                              "Text Editor", "Dynamic Link", "Autocomplete", "Phone"})
MAX_TXT_LENGTH = 140  # a name's length in Frappe: longer search text matches nothing useful
MAX_PAGE_LENGTH = 100


class LinkResult(TypedDict, total=False):
    """One suggestion: `value` is the document name, `label` its title (when the doctype has a
    title field), `description` the other search fields' values, joined by ", "."""

    value: str
    label: str
    description: str


@whitelist(path="fw.desk.search.search_link")
async def search_link(ctx: Context, doctype: str, txt: str = "", query: str | None = None, filters: Any = None,
                      page_length: int = 10, searchfield: str | None = None, reference_doctype: str | None = None,
                      ignore_user_permissions: Any = False) -> list[LinkResult]:
    """Documents of `doctype` the caller may read whose name, title or search fields contain `txt`.

    `filters` (Frappe's dict or list form, or its JSON) narrow the rows; `page_length` (1-100,
    default 10) caps them; `searchfield` adds a field to search in. The caller's User Permissions
    apply (through `get_list`): only allowed values are offered. `reference_doctype` and
    `ignore_user_permissions` are accepted for Frappe's clients and change nothing (a client must not
    widen what it is offered). Unknown doctype: 404; no read or select right: 403.
    """
    txt = (txt or "").strip()
    if len(txt) > MAX_TXT_LENGTH:
        raise exc.DataError(_("The search text is longer than {0} characters", MAX_TXT_LENGTH), field="txt")
    if not 1 <= page_length <= MAX_PAGE_LENGTH:
        raise exc.DataError(_("page_length must be between 1 and {0}", MAX_PAGE_LENGTH), field="page_length")
    meta = ctx.meta(doctype)
    if meta.istable or meta.issingle:
        raise exc.DataError(_("{0} cannot be searched: it is a single or child doctype", doctype), field="doctype")
    parsed = json_arg(filters, "filters")
    if query:
        rows = await _custom_query(ctx, query, doctype, txt, searchfield, page_length, parsed)
        return _suggestions_from_rows(rows)
    fields = await _search_fields(ctx, meta, searchfield)
    conditions = _filters_as_list(parsed) + _status_filters(meta)
    rows = await _matches(ctx, meta, fields, conditions, f"{txt}%", page_length) if txt else []
    if len(rows) < page_length:
        found = [row["name"] for row in rows]
        more = conditions + ([["name", "not in", found]] if found else [])
        rows += await _matches(ctx, meta, fields, more, f"%{txt}%" if txt else None, page_length - len(rows))
    return [_suggestion(meta, fields, row) for row in rows]


async def _search_fields(ctx: Context, meta: Meta, searchfield: str | None) -> list[str]:
    """name, the title field, the search fields and `searchfield`: those of a searchable type the caller may read."""
    names = ["name"]
    if meta.title_field:
        names.append(meta.title_field)
    names += [f.strip() for f in (meta.schema.search_fields or "").split(",") if f.strip()]
    if searchfield:
        field = meta.get_field(searchfield)
        if searchfield != "name" and (field is None or not meta.has_field(searchfield)):
            raise exc.DataError(_("Field {0} does not exist in {1}", searchfield, meta.name), field="searchfield")
        names.append(searchfield)
    readable = await permissions.readable_fields(ctx, meta)
    out: list[str] = []
    for name in dict.fromkeys(names):
        field = meta.get_field(name)
        if name == "name" or (field is not None and field.fieldtype in SEARCHABLE_TYPES
                              and (readable is None or name in readable)):
            out.append(name)
    return out


def _filters_as_list(filters: Any) -> list[Any]:
    """The caller's filters as a list of conditions, so more can be appended."""
    if not filters:
        return []
    if isinstance(filters, dict):
        return [[key, *value] if isinstance(value, list | tuple) and len(value) == 2
                else [key, "is", "not set"] if value is None else [key, "=", value]
                for key, value in filters.items()]
    return list(filters)


def _status_filters(meta: Meta) -> list[list[Any]]:
    out: list[list[Any]] = []
    for fieldname, condition in (("enabled", ["enabled", "=", 1]), ("disabled", ["disabled", "!=", 1])):
        field = meta.get_field(fieldname)
        if field is not None and field.fieldtype == "Check":
            out.append(condition)
    return out


async def _matches(ctx: Context, meta: Meta, fields: list[str], conditions: list[Any], pattern: str | None,
                   limit: int) -> list[dict[str, Any]]:
    or_filters = [[field, "like", pattern] for field in fields] if pattern else None
    order = f"{meta.sort_field} {meta.sort_order}" if meta.has_field(meta.sort_field) else "creation desc"
    return await listing.get_list(ctx, meta.name, fields=fields, filters=conditions, or_filters=or_filters,
                                  order_by=f"{order}, name asc", limit_page_length=limit)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _suggestion(meta: Meta, fields: list[str], row: dict[str, Any]) -> LinkResult:
    name = _text(row.get("name"))
    out: LinkResult = {"value": name}
    title = _text(row.get(meta.title_field)) if meta.title_field else ""
    if title:
        out["label"] = title
    others = [_text(row.get(f)) for f in fields if f not in ("name", meta.title_field)]
    description = ", ".join(dict.fromkeys(v for v in others if v and v not in (name, title)))
    if description:
        out["description"] = description
    return out


async def _custom_query(ctx: Context, path: str, doctype: str, txt: str, searchfield: str | None, page_length: int,
                        filters: Any) -> Any:
    info = dispatch.resolve(ctx, path)  # whitelisted, and allowing guests when a Guest asks
    result = call_with_supported(info.fn, doctype=doctype, txt=txt, searchfield=searchfield or "name", start=0,
                                 page_len=page_length, filters=filters, ctx=ctx)
    if inspect.isawaitable(result):
        result = await result
    return result


def _suggestions_from_rows(rows: Any) -> list[LinkResult]:
    """A custom query's rows as suggestions: `[name, description...]` or dicts with `value`/`name`."""
    out: list[LinkResult] = []
    for row in rows or []:
        if isinstance(row, dict):
            value = _text(row.get("value", row.get("name")))
            item: LinkResult = {"value": value}
            if row.get("label"):
                item["label"] = _text(row["label"])
            extra = row.get("description")
            if extra:
                item["description"] = _text(extra)
        elif isinstance(row, list | tuple) and row:
            value = _text(row[0])
            item = {"value": value}
            description = ", ".join(dict.fromkeys(_text(v) for v in row[1:] if v not in (None, "")))
            if description:
                item["description"] = description
        else:
            item = {"value": _text(row)}
        out.append(item)
    return out
