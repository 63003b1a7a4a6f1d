"""Which field each column fills: Frappe's template labels (`ID` for the name, a field's label, a child
table's field as `Label (Table Label)`), the fieldname itself, or what the user chose in the Data
Import's `template_options` (`{"column_to_field_map": {"<column index>": "<field>" | "<table>.<field>"
| ""}}`, "" skipping the column). Unknown and repeated columns are skipped with a warning naming them.
`template_options["date_format"]` (the site's, which the caller puts there unless the user chose one)
is how the file writes dates besides ISO."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.dataimport.values import DATE_FORMATS, ISO_DATE
from engine.meta.schema import DocFieldSchema, Meta
from engine.translation import _

ID = "ID"
NAME_FIELD = DocFieldSchema(fieldname="name", fieldtype="Data", label="ID")


@dataclass
class Column:
    index: int
    header: str
    letter: str
    target: str | None  # "field" or "table.field"; None: not imported
    table: str | None = None
    df: DocFieldSchema | None = None
    warning: str | None = None
    date_format: str = ISO_DATE  # how the file writes a date besides ISO (one of `values.DATE_FORMATS`)

    @property
    def fieldname(self) -> str | None:
        return self.df.fieldname if self.df is not None else None

    def where(self, row: int) -> str:
        return _("Row {0}, column {1} ({2})", row, self.letter, self.header)


def column_letter(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def targets(meta: Meta) -> dict[str, str]:
    """Every header this doctype understands, lower-cased, to its target ("field" or "table.field")."""
    out: dict[str, str] = {"id": "name", "name": "name"}
    for df in meta.value_fields:
        out.setdefault(df.display_label.lower(), df.fieldname)
        out.setdefault(df.fieldname.lower(), df.fieldname)
    for table in meta.table_fields:
        child = meta.registry.get(table.options or "") if meta.registry is not None else None
        if child is None:
            continue
        for df in child.value_fields:
            target = f"{table.fieldname}.{df.fieldname}"
            out.setdefault(f"{df.display_label} ({table.display_label})".lower(), target)
            out.setdefault(target.lower(), target)
    return out


def field_of(meta: Meta, target: str) -> tuple[str | None, DocFieldSchema | None]:
    """(table fieldname or None, the field) a target names; (None, None) when it names nothing."""
    if target == "name":
        return None, NAME_FIELD
    table, _dot, fieldname = target.rpartition(".")
    if not table:
        df = meta.get_field(target)
        return (None, df) if df is not None and df.has_value else (None, None)
    table_df = meta.get_field(table)
    if table_df is None or not table_df.is_table or meta.registry is None:
        return None, None
    df = meta.registry.get(table_df.options or "").get_field(fieldname)
    return (table, df) if df is not None and df.has_value else (None, None)


def map_columns(meta: Meta, header: list[str], template_options: dict[str, Any] | None) -> list[Column]:
    chosen = (template_options or {}).get("column_to_field_map") or {}
    date_format = (template_options or {}).get("date_format")
    date_format = date_format if date_format in DATE_FORMATS else ISO_DATE
    known = targets(meta)
    columns: list[Column] = []
    used: dict[str, Column] = {}
    for index, raw in enumerate(header):
        text = str(raw or "").strip()
        column = Column(index, text, column_letter(index), None, date_format=date_format)
        columns.append(column)
        target = chosen[str(index)] if str(index) in chosen else known.get(text.lower())
        if target in (None, ""):
            if str(index) in chosen:
                column.warning = _("Column {0} ({1}) is not imported, as chosen", column.letter, text)
            elif text:
                column.warning = _("Column {0} ({1}) matches no field of {2} and is not imported", column.letter,
                                   text, _(meta.name))
            continue
        table, df = field_of(meta, str(target))
        if df is None:
            column.warning = _("Column {0} ({1}): {2} is no field of {3}; the column is not imported", column.letter,
                               text, target, _(meta.name))
            continue
        if str(target) in used:
            first = used[str(target)]
            column.warning = _("Column {0} ({1}) repeats column {2} ({3}) and is not imported", column.letter, text,
                               first.letter, first.header)
            continue
        column.target, column.table, column.df = str(target), table, df
        used[str(target)] = column
    return columns


def as_options(columns: list[Column]) -> dict[str, Any]:
    """The mapping as `template_options` stores it."""
    return {"column_to_field_map": {str(c.index): c.target or "" for c in columns}}
