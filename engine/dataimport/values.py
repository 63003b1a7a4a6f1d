"""A spreadsheet cell as a field's value, or the reason it cannot be one. Dates are ISO
(`2024-03-31`, as fw stores them and Frappe's template shows them) or in the site's date format
(System Settings' `date_format`, e.g. `31-03-2024` for dd-mm-yyyy, as Frappe reads them), Excel's
date cells as they are; numbers without thousands separators and with a point for decimals: a cell
in another form is refused with what to write instead, never guessed (`03/04/2024` is March or
April depending on who typed it)."""

from __future__ import annotations

import re
from datetime import date, datetime, time
from typing import Any

from engine.meta.schema import DocFieldSchema
from engine.translation import _

INT_TYPES = frozenset({"Int"})
FLOAT_TYPES = frozenset({"Float", "Currency", "Percent"})
_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_THOUSANDS = re.compile(r"[+-]?\d{1,3}([,' \u00a0.]\d{3})+([.,]\d+)?")
_DECIMAL_COMMA = re.compile(r"[+-]?\d+,\d+")
_TIME = re.compile(r"\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?")
_QUOTED_FORMULA = re.compile(r"^'[=+\-@\t\r]")
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?")
ISO_DATE = "yyyy-mm-dd"
#: System Settings' date formats (Frappe's), each as a pattern of its own: day, month, year
DATE_FORMATS = ("dd-mm-yyyy", "dd.mm.yyyy", "dd/mm/yyyy", "mm/dd/yyyy", "mm-dd-yyyy", ISO_DATE)
_DATE_PATTERNS = {fmt: re.compile("".join({"dd": r"(?P<d>\d{1,2})", "mm": r"(?P<m>\d{1,2})",
                                           "yyyy": r"(?P<y>\d{4})"}.get(part, re.escape(part))
                                          for part in re.split(r"(dd|mm|yyyy)", fmt)))
                  for fmt in DATE_FORMATS}
TRUE = frozenset({"1", "yes", "true", "y", "x"})
FALSE = frozenset({"0", "no", "false", "n", ""})


class ValueProblem(Exception):
    """A cell that is not a value of its field; the message says what to write instead."""


def _number(text: str, df: DocFieldSchema, whole: bool) -> int | float:
    if _THOUSANDS.fullmatch(text) and not (_INT if whole else _FLOAT).fullmatch(text):
        raise ValueProblem(_("{0} has a thousands separator; write the number without it (e.g. {1})", text,
                             re.sub(r"[,' \u00a0]", "", text) if "." in text else re.sub(r"[,' \u00a0.]", "", text)))
    if not whole and _DECIMAL_COMMA.fullmatch(text):
        raise ValueProblem(_("{0} uses a decimal comma; write {1}", text, text.replace(",", ".")))
    if whole:
        if _INT.fullmatch(text):
            return int(text)
        if _FLOAT.fullmatch(text) and float(text).is_integer():
            return int(float(text))
        raise ValueProblem(_("{0} is not a whole number", text))
    if _FLOAT.fullmatch(text):
        return float(text)
    raise ValueProblem(_("{0} is not a number", text))


def _day(text: str, date_format: str) -> date | None:
    """The day `text` names in ISO or in `date_format` (None: in neither, or no such day)."""
    for fmt in dict.fromkeys((ISO_DATE, date_format)):
        match = _DATE_PATTERNS[fmt].fullmatch(text)
        if match:
            try:
                return date(int(match["y"]), int(match["m"]), int(match["d"]))
            except ValueError:
                return None
    return None


def _clock(text: str) -> time | None:
    match = _CLOCK.fullmatch(text)
    if not match:
        return None
    try:
        return time(int(match[1]), int(match[2]), int(match[3] or 0), int((match[4] or "0").ljust(6, "0")))
    except ValueError:
        return None


def _example(date_format: str) -> str:
    return date_format.replace("yyyy", "2024").replace("mm", "03").replace("dd", "31")


def _date(text: str, date_format: str) -> str:
    day_text, _sep, rest = text.partition(" ")
    if "T" in day_text and not rest:  # ISO's 2024-03-31T00:00:00
        day_text, _sep, rest = day_text.partition("T")
    day = _day(day_text, date_format)
    if day is None or rest.strip(" 0:.") != "":  # a time of day other than midnight is not a date
        if date_format == ISO_DATE:
            raise ValueProblem(_("{0} is not a date in the form YYYY-MM-DD (e.g. 2024-03-31)", text))
        raise ValueProblem(_("{0} is not a date in the form {1} or YYYY-MM-DD (e.g. {2})", text,
                             date_format.upper(), _example(date_format)))
    return day.isoformat()


def _datetime(text: str, date_format: str) -> str:
    day_text, _sep, clock_text = text.partition(" ")
    if "T" in day_text and not clock_text:
        day_text, _sep, clock_text = day_text.partition("T")
    day = _day(day_text, date_format)
    clock = _clock(clock_text.strip()) if clock_text.strip() else time()
    if day is None or clock is None:
        if date_format == ISO_DATE:
            raise ValueProblem(_("{0} is not a date and time in the form YYYY-MM-DD HH:MM:SS", text))
        raise ValueProblem(_("{0} is not a date and time in the form {1} HH:MM:SS or YYYY-MM-DD HH:MM:SS (e.g. {2})",
                             text, date_format.upper(), f"{_example(date_format)} 14:30:00"))
    return datetime.combine(day, clock).strftime("%Y-%m-%d %H:%M:%S")


def _moment(raw: date, ftype: str) -> Any:
    """An Excel date cell (openpyxl gives a datetime; Excel has no date without a time of day)."""
    if ftype == "Date":
        return (raw.date() if isinstance(raw, datetime) else raw).isoformat()
    if ftype == "Datetime":
        moment = raw if isinstance(raw, datetime) else datetime.combine(raw, time())
        return moment.replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S")
    return None


def parse(df: DocFieldSchema, raw: Any, date_format: str = ISO_DATE) -> Any:
    """The value of `df` a cell holds (None for an empty cell); ValueProblem when it holds none.
    `date_format`: the site's (one of `DATE_FORMATS`), read beside ISO."""
    if raw is None:
        return None
    if isinstance(raw, date) and (moment := _moment(raw, df.fieldtype)) is not None:
        return moment
    if isinstance(raw, bool):
        raw = int(raw)
    ftype = df.fieldtype
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        if ftype in INT_TYPES:
            if float(raw).is_integer():
                return int(raw)
            raise ValueProblem(_("{0} is not a whole number", raw))
        if ftype in FLOAT_TYPES:
            return float(raw)
        if ftype == "Check":
            return 1 if raw else 0
        raw = str(raw)
    text = str(raw).strip()
    if _QUOTED_FORMULA.match(text):
        text = text[1:]  # a text our export quoted so that no spreadsheet runs it
    elif text.startswith("="):
        raise ValueProblem(_("{0} is a formula; formulas are not imported, write its value instead", text[:40]))
    if text == "":
        return 0 if ftype == "Check" else None
    if ftype in INT_TYPES:
        return _number(text, df, True)
    if ftype in FLOAT_TYPES:
        return _number(text, df, False)
    if ftype == "Check":
        if text.lower() in TRUE:
            return 1
        if text.lower() in FALSE:
            return 0
        raise ValueProblem(_("{0} is not a checkbox value; write 1 or 0", text))
    if ftype == "Date":
        return _date(text, date_format)
    if ftype == "Datetime":
        return _datetime(text, date_format)
    if ftype == "Time":
        if not _TIME.fullmatch(text):
            raise ValueProblem(_("{0} is not a time in the form HH:MM:SS", text))
        return text
    if ftype == "Select" and df.select_options and text not in df.select_options:
        raise ValueProblem(_("{0} is not one of the options: {1}", text, ", ".join(df.select_options)))
    return text
