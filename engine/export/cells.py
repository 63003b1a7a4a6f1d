"""What a spreadsheet cell holds: a value exported as data, never as a formula (OWASP's CSV
injection advice: a text starting with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed
with a quote in CSV, and written as a string cell in XLSX)."""

from __future__ import annotations

import re
from typing import Any

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# XML 1.0 refuses these control characters; openpyxl raises on them
_ILLEGAL = re.compile(r"[\000-\010\013\014\016-\037]")


def is_formula_like(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(FORMULA_START)


def csv_cell(value: Any) -> Any:
    """A value for a CSV cell: None as empty, a formula-like text quoted, numbers as they are."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (dict, list)):
        value = str(value)
    if is_formula_like(value):
        return "'" + value
    return value


def xlsx_value(value: Any) -> Any:
    """A value openpyxl can store: None stays empty, containers become text, control characters go."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (dict, list)):
        value = str(value)
    if isinstance(value, str):
        return _ILLEGAL.sub("", value)
    return value
