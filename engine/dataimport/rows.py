"""The sheet's rows as documents, as Frappe's template lays them out: a row with a value in a column
of the doctype starts a document; a row with values only in child-table columns adds a child row to
the document above it. Each document carries its row numbers and every problem of its cells."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.dataimport.mapping import Column
from engine.dataimport.values import ValueProblem, parse
from engine.translation import _


@dataclass
class Payload:
    rows: list[int]
    values: dict[str, Any] = field(default_factory=dict)  # parent fields, tables as lists of row dicts
    given: set[str] = field(default_factory=set)  # the parent fields and tables the file has columns for
    problems: list[str] = field(default_factory=list)


def _cell(cells: list[Any], column: Column) -> Any:
    return cells[column.index] if column.index < len(cells) else None


def _filled(value: Any) -> bool:
    return value is not None and str(value).strip() != ""


def payloads(rows: Iterator[tuple[int, list[Any]]], columns: list[Column]) -> Iterator[Payload]:
    parent_cols = [c for c in columns if c.df is not None and c.table is None]
    tables: dict[str, list[Column]] = {}
    for c in columns:
        if c.df is not None and c.table is not None:
            tables.setdefault(c.table, []).append(c)
    given = {c.fieldname for c in parent_cols if c.fieldname} | set(tables)
    current: Payload | None = None
    for number, cells in rows:
        starts = any(_filled(_cell(cells, c)) for c in parent_cols)
        if starts:
            if current is not None:
                yield current
            current = Payload([number], given=set(given))
            for c in parent_cols:
                _put(current, current.values, c, number, _cell(cells, c))
            for table in tables:
                current.values.setdefault(table, [])
        elif current is None:
            orphan = Payload([number], given=set(given))
            orphan.problems.append(_("Row {0}: a child row with no parent row above it; fill in the document's "
                                     "columns in this row or move it under its parent", number))
            yield orphan
            continue
        else:
            current.rows.append(number)
        for table, cols in tables.items():
            if not any(_filled(_cell(cells, c)) for c in cols):
                continue
            child: dict[str, Any] = {}
            for c in cols:
                _put(current, child, c, number, _cell(cells, c))
            if not child.get("name"):
                child.pop("name", None)
            current.values.setdefault(table, []).append(child)
    if current is not None:
        yield current


def _put(payload: Payload, target: dict[str, Any], column: Column, number: int, raw: Any) -> None:
    assert column.df is not None
    try:
        value = parse(column.df, raw, column.date_format)
    except ValueProblem as problem:
        payload.problems.append(f"{column.where(number)}: {problem}")
        return
    if column.df.fieldname == "name" and value is not None:
        value = str(value)
    target[column.df.fieldname] = value
