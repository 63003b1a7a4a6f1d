"""A spreadsheet cell as a field's value, or the reason it cannot be one. Dates are ISO
(`2024-03-31`, as fw stores them and Frappe's template shows them), numbers without thousands
separators and with a point for decimals: a cell in another form is refused with what to write
instead, never guessed (`03/04/2024` is March or April depending on who typed it)."""

from __future__ import annotations

import re
from datetime import date, datetime
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


def _date(text: str) -> str:
    try:
        return date.fromisoformat(text[:10]).isoformat() if len(text) == 10 or text[10:].strip(" 0:") == "" \
            else _bad_date(text)
    except ValueError:
        return _bad_date(text)


def _bad_date(text: str) -> str:
    raise ValueProblem(_("{0} is not a date in the form YYYY-MM-DD (e.g. 2024-03-31)", text))


def _datetime(text: str) -> str:
    try:
        return datetime.fromisoformat(text.replace("T", " ")).strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        raise ValueProblem(_("{0} is not a date and time in the form YYYY-MM-DD HH:MM:SS", text)) from None


def parse(df: DocFieldSchema, raw: Any) -> Any:
    """The value of `df` a cell holds (None for an empty cell); ValueProblem when it holds none."""
    if raw is None:
        return None
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
        return _date(text)
    if ftype == "Datetime":
        return _datetime(text)
    if ftype == "Time":
        if not _TIME.fullmatch(text):
            raise ValueProblem(_("{0} is not a time in the form HH:MM:SS", text))
        return text
    if ftype == "Select" and df.select_options and text not in df.select_options:
        raise ValueProblem(_("{0} is not one of the options: {1}", text, ", ".join(df.select_options)))
    return text
