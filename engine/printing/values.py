"""A field's value as print text, in the system's formats and the user's language, as the Desk shows
it (server/desk/static/js/format.js: dates by `date_format`, numbers by `number_format` and the
field's precision, Check as Yes/No, Select options translated, Link titles)."""

from __future__ import annotations

import re
from typing import Any

from engine.meta.schema import DocFieldSchema
from engine.translation import _

_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")
_SEPARATORS = re.compile(r"^#(.)###(?:(.)(#+))?$")


def format_date(value: Any, date_format: str) -> str:
    match = _DATE.match(str(value or ""))
    if not match:
        return str(value) if value else ""
    yyyy, mm, dd = match.groups()
    return date_format.replace("yyyy", yyyy).replace("mm", mm).replace("dd", dd)


def format_datetime(value: Any, date_format: str, time_format: str) -> str:
    text = str(value or "").replace("T", " ")
    day, _sep, time = text.partition(" ")
    if not _DATE.match(day):
        return text
    clock = time[:5] if time_format == "HH:mm" else time[:8]
    return f"{format_date(day, date_format)} {clock}" if clock else format_date(day, date_format)


def separators(number_format: str) -> tuple[str, str, bool]:
    """Group and decimal separators of a Frappe number format, and whether it groups the Indian way."""
    indian = number_format == "#,##,###.##"
    match = _SEPARATORS.match(number_format.replace("#,##,###", "#,###"))
    if not match:
        return ",", ".", indian
    group = match.group(1)
    return group, match.group(2) or ("," if group == "." else "."), indian


def format_number(value: Any, precision: int | None, number_format: str) -> str:
    if value is None or value == "":
        return ""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    group, decimal, indian = separators(number_format)
    fixed = f"{abs(number):.{precision}f}" if precision is not None else _plain(abs(number))
    whole, _dot, fraction = fixed.partition(".")
    if indian and len(whole) > 3:
        head = whole[:-3]
        head = ",".join([head[max(0, i - 2):i] for i in range(len(head), 0, -2)][::-1]).replace(",", group)
        whole = f"{head}{group}{whole[-3:]}"
    else:
        whole = f"{int(whole):,}".replace(",", group)
    sign = "-" if number < 0 else ""
    return f"{sign}{whole}{decimal}{fraction}" if fraction else f"{sign}{whole}"


def _plain(number: float) -> str:
    return str(int(number)) if number == int(number) else repr(number)


def precision_of(df: DocFieldSchema, defaults: dict[str, Any]) -> int | None:
    if df.precision is not None:
        return df.precision
    if df.fieldtype == "Currency":
        return int(defaults.get("currency_precision") or 2)
    if df.fieldtype in ("Float", "Percent"):
        return int(defaults.get("float_precision") or 3)
    return None


def format_value(value: Any, df: DocFieldSchema, defaults: dict[str, Any], titles: dict[str, str] | None = None) -> str:
    """`value` of field `df` as text (`defaults`: the boot's sysdefaults; `titles`: a Link's titles by name)."""
    if value is None or value == "":
        return ""
    number_format = str(defaults.get("number_format") or "#,###.##")
    kind = df.fieldtype
    if kind == "Check":
        return _("Yes") if value and str(value) not in ("0", "false") else _("No")
    if kind in ("Int", "Long Int"):
        return format_number(value, 0, number_format)
    if kind in ("Float", "Currency", "Percent"):
        text = format_number(value, precision_of(df, defaults), number_format)
        return f"{text}%" if kind == "Percent" else text
    if kind == "Date":
        return format_date(value, str(defaults.get("date_format") or "dd-mm-yyyy"))
    if kind == "Datetime":
        return format_datetime(value, str(defaults.get("date_format") or "dd-mm-yyyy"),
                               str(defaults.get("time_format") or "HH:mm:ss"))
    if kind == "Select":
        return _(str(value))
    if kind == "Link" and titles and titles.get(str(value)):
        return titles[str(value)]
    return str(value)
