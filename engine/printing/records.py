"""What a Print Format template sees of a document: a read-only `Record` over the fields the
caller may read (never the Document itself, whose methods write), with `get_formatted` for a
field's display text. Its own state is in `_` attributes, which the sandbox keeps from templates."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.printing.render import HTML_TYPES, sanitise
from engine.printing.values import format_value

if TYPE_CHECKING:
    from engine.context import Context
    from engine.meta.schema import Meta


class Record:
    """`doc.field`, `doc["field"]`, `doc.get("field")`; a table field gives its rows as Records;
    an HTML field gives sanitised markup; `doc.get_formatted("field")` the text the Desk shows."""

    def __init__(self, ctx: Context, meta: Meta, data: dict[str, Any], defaults: dict[str, Any],
                 titles: dict[str, dict[str, str]]) -> None:
        self._ctx, self._meta, self._data, self._defaults, self._titles = ctx, meta, data, defaults, titles

    def _value(self, fieldname: str) -> Any:
        value = self._data.get(fieldname)
        df = self._meta.by_name.get(fieldname)
        if df is None:
            return value
        if df.is_table:
            child = self._ctx.meta(str(df.options))
            return [Record(self._ctx, child, row, self._defaults, self._titles) for row in value or []
                    if isinstance(row, dict)]
        if df.fieldtype in HTML_TYPES:
            return sanitise(value)
        return value

    def __getattr__(self, fieldname: str) -> Any:
        if fieldname.startswith("_"):
            raise AttributeError(fieldname)
        return self._value(fieldname)

    def __getitem__(self, fieldname: str) -> Any:
        return self._value(fieldname)

    def get(self, fieldname: str, default: Any = None) -> Any:
        value = self._value(fieldname)
        return default if value is None else value

    def get_formatted(self, fieldname: str) -> Any:
        df = self._meta.by_name.get(fieldname)
        value = self._data.get(fieldname)
        if df is None:
            return "" if value is None else str(value)
        if df.fieldtype in HTML_TYPES:
            return sanitise(value)
        titles = self._titles.get(str(df.options)) if df.fieldtype == "Link" else None
        return format_value(value, df, self._defaults, titles)

    def label(self, fieldname: str) -> str:
        df = self._meta.by_name.get(fieldname)
        return df.display_label if df is not None else fieldname
