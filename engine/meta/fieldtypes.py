"""Field types: validate and normalise one value for storage, by `fieldtype` (contract §3).

`coerce_value` runs for every value field on every save, so it dispatches through `_DISPATCH`, a dict
built once at import, to one small function per type. A value of the wrong type is always an error
(where Frappe would silently store 0); messages are translated and name the field and the doctype.
"""

from __future__ import annotations

import copy
import json
import math
import re
import sys
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import Any
from urllib.parse import urlsplit

from engine import exceptions as exc
from engine.meta.schema import DocFieldSchema
from engine.translation import _

Coercer = Callable[[DocFieldSchema, Any, str], Any]

INT_RANGE = (-(2**31), 2**31 - 1)
LONG_INT_RANGE = (-(2**63), 2**63 - 1)
DEFAULT_LENGTH = 140
LENGTH_TYPES = frozenset({"Data", "Link", "Dynamic Link", "Select", "Phone", "Autocomplete", "Color",
                          "Barcode", "Icon"})
NUMERIC_TYPES = frozenset({"Int", "Long Int", "Float", "Currency", "Percent", "Duration", "Rating"})
LONG_TEXT_TYPES = frozenset({"Small Text", "Text", "Long Text", "Text Editor", "Code", "Markdown Editor",
                             "HTML Editor", "Attach", "Attach Image", "Signature", "Geolocation",
                             "Read Only"})
# types whose whitespace is content: a blank string is kept (other types treat it as empty)
TEXT_TYPES = LONG_TEXT_TYPES | {"Data", "Password", "Phone", "Autocomplete", "Color", "Barcode", "Icon"}
_JSON_MAX_DEPTH = 64
_FLOAT_MAX_INT = 2**1023  # float() of a larger int may overflow

_INT_STR = re.compile(r"([+-]?[0-9]+)(?:\.0+)?")
_FLOAT_STR = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_DATE_STR = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DATETIME_STR = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
    r"(?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,6}))?)?"
    r"\s*(Z|[+-][0-9]{2}(?::?[0-9]{2})?)?)?")
_TIME_STR = re.compile(r"([0-9]{1,2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,6}))?)?")
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_EMAIL = re.compile(rf"{_ATOM}(?:\.{_ATOM})*@(?:{_LABEL}\.)+{_LABEL}")
_NAMED_EMAIL = re.compile(r"[^<>]*<([^<>]+)>")  # "Jane Doe <jane@example.com>"
_EMAIL_SEP = re.compile(r"[,;]")
_PHONE = re.compile(r"[0-9 +\-().]+")
_NAME_FORBIDDEN = re.compile(r'[<>%"]')
_HTML_TAG = re.compile(r"<[^>]*>")
_CHECK_STR = {"0": 0, "1": 1, "false": 0, "true": 1}


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _error(cls: type[exc.FwError], field: DocFieldSchema, doctype: str, template: str,
           value: Any) -> exc.FwError:
    """`template` has `{0}` label, `{1}` the value (shown), `{2}` doctype."""
    return cls(_(template, field.display_label, _show(value), doctype), field=field.fieldname)


def _wrong(field: DocFieldSchema, value: Any, doctype: str, template: str) -> exc.FwError:
    """The type's own message, or one for a list or dict given to a single-value field."""
    if isinstance(value, list | tuple | set | frozenset | dict):
        return exc.FieldTypeError(_("{0} must be a single value, not a list or an object ({1})",
                                    field.display_label, doctype), field=field.fieldname)
    return _error(exc.FieldTypeError, field, doctype, template, value)


def _check_sign(field: DocFieldSchema, number: float, doctype: str) -> None:
    if number < 0 and field.non_negative:
        raise _error(exc.NonNegativeError, field, doctype, "{0} cannot be negative: {1} ({2})", number)


def _check_length(field: DocFieldSchema, text: str, doctype: str) -> None:
    limit = field.length if field.length > 0 else DEFAULT_LENGTH
    if len(text) > limit:
        raise exc.CharacterLengthExceededError(_(
            "{0} is too long: {1} characters, at most {2} are allowed ({3})", field.display_label,
            len(text), limit, doctype), field=field.fieldname)


def _int_from_str(text: str) -> int | None:
    match = _INT_STR.fullmatch(text.strip())
    try:
        return int(match.group(1)) if match else None
    except ValueError:  # more digits than int() accepts
        return None


def _parse_int(field: DocFieldSchema, value: Any, doctype: str) -> int:
    if isinstance(value, int):  # bool -> 0/1
        return int(value)
    number: int | None = None
    if isinstance(value, str):
        number = _int_from_str(value)
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    if number is None:
        raise _wrong(field, value, doctype, "{0}: {1} is not a valid integer ({2})")
    return number


def _integer(low: int, high: int) -> Coercer:
    def coerce(field: DocFieldSchema, value: Any, doctype: str) -> int:
        number = _parse_int(field, value, doctype)
        if not low <= number <= high:
            raise exc.FieldTypeError(_("{0}: {1} is out of range, it must be between {2} and {3} ({4})",
                                       field.display_label, number, low, high, doctype),
                                     field=field.fieldname)
        _check_sign(field, number, doctype)
        return number
    return coerce


def _parse_float(field: DocFieldSchema, value: Any, doctype: str) -> float:
    number: float | None = None
    if isinstance(value, float):
        number = value
    elif isinstance(value, int):
        number = float(value) if abs(value) < _FLOAT_MAX_INT else None
    elif isinstance(value, str) and _FLOAT_STR.fullmatch(stripped := value.strip()):
        number = float(stripped)
    if number is None or not math.isfinite(number):
        raise _wrong(field, value, doctype, "{0}: {1} is not a valid number ({2})")
    return number


def _float(field: DocFieldSchema, value: Any, doctype: str) -> float:
    number = _parse_float(field, value, doctype)
    if field.precision is not None:
        number = round(number, field.precision)
    number += 0.0  # -0.0 -> 0.0
    _check_sign(field, number, doctype)
    return number


def _rating(field: DocFieldSchema, value: Any, doctype: str) -> float:
    number = _float(field, value, doctype)
    if not 0.0 <= number <= 1.0:
        raise _error(exc.FieldTypeError, field, doctype, "{0}: {1} must be between 0 and 1 ({2})", number)
    return number


def _duration(field: DocFieldSchema, value: Any, doctype: str) -> int | float:
    if isinstance(value, bool):
        raise _wrong(field, value, doctype, "{0}: {1} is not a valid duration in seconds ({2})")
    number: int | float | None = None
    if isinstance(value, int):
        number = int(value)
    elif isinstance(value, str):
        number = _int_from_str(value)
    if number is None:
        number = _parse_float(field, value, doctype)
    if number < 0:
        raise _error(exc.NonNegativeError, field, doctype, "{0} cannot be negative: {1} ({2})", number)
    return number


def _check(field: DocFieldSchema, value: Any, doctype: str) -> int:
    result: int | None = None
    if isinstance(value, int | float) and value in (0, 1):  # also bool, 0.0 and 1.0
        result = int(value)
    elif isinstance(value, str):
        result = _CHECK_STR.get(value.strip().lower())
    if result is None:
        raise _wrong(field, value, doctype, "{0}: {1} is not a valid check value, use 0 or 1 ({2})")
    return result


def _date(field: DocFieldSchema, value: Any, doctype: str) -> str:
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str) and _DATE_STR.fullmatch(stripped := value.strip()):
        try:
            return date.fromisoformat(stripped).isoformat()
        except ValueError:
            pass
    raise _wrong(field, value, doctype, "{0}: {1} is not a valid date, expected YYYY-MM-DD ({2})")


def _naive_utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.utcoffset() is not None else moment


def _parse_datetime(text: str) -> datetime | None:
    match = _DATETIME_STR.fullmatch(text.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, offset = match.groups()
    moment = datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0),
                      int(second or 0), int((fraction or "0").ljust(6, "0")))
    if offset and offset != "Z":
        digits = offset[1:].replace(":", "")
        if int(digits[2:] or 0) >= 60:
            return None
        minutes = int(digits[:2]) * 60 + int(digits[2:] or 0)
        tz = timezone(timedelta(minutes=minutes if offset[0] == "+" else -minutes))
        return _naive_utc(moment.replace(tzinfo=tz))
    return moment


def _datetime(field: DocFieldSchema, value: Any, doctype: str) -> str:
    moment: datetime | None = None
    try:
        if isinstance(value, datetime):
            moment = _naive_utc(value)
        elif isinstance(value, date):
            moment = datetime(value.year, value.month, value.day)
        elif isinstance(value, str):
            moment = _parse_datetime(value)
    except (ValueError, OverflowError):
        moment = None
    if moment is None:
        raise _wrong(field, value, doctype,
                     "{0}: {1} is not a valid datetime, expected YYYY-MM-DD HH:MM:SS ({2})")
    return str(moment)


def _time(field: DocFieldSchema, value: Any, doctype: str) -> str:
    moment: time | None = None
    if isinstance(value, time) and value.tzinfo is None:
        moment = value
    elif isinstance(value, timedelta) and timedelta(0) <= value < timedelta(days=1):
        minutes, second = divmod(value.seconds, 60)
        moment = time(minutes // 60, minutes % 60, second, value.microseconds)
    elif isinstance(value, str) and (match := _TIME_STR.fullmatch(value.strip())):
        hours, mins, secs, fraction = match.groups()
        try:
            moment = time(int(hours), int(mins), int(secs or 0), int((fraction or "0").ljust(6, "0")))
        except ValueError:
            moment = None
    if moment is None:
        raise _wrong(field, value, doctype, "{0}: {1} is not a valid time, expected HH:MM:SS ({2})")
    return moment.isoformat()


def _as_text(field: DocFieldSchema, value: Any, doctype: str) -> str:
    if value.__class__ is str:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(int(value)) if isinstance(value, int) else str(float(value))
    raise _wrong(field, value, doctype, "{0}: {1} is not a valid text value ({2})")


def _short_text(field: DocFieldSchema, value: Any, doctype: str) -> str:
    text = _as_text(field, value, doctype)
    _check_length(field, text, doctype)
    return text


def _email(field: DocFieldSchema, text: str, doctype: str) -> None:
    """A comma- or semicolon-separated list; "Jane Doe <jane@example.com>" is accepted too."""
    for address in [a.strip() for a in _EMAIL_SEP.split(text) if a.strip()] or [text]:
        named = _NAMED_EMAIL.fullmatch(address)
        if not _EMAIL.fullmatch(named.group(1).strip() if named else address):
            raise _error(exc.FieldTypeError, field, doctype,
                         "{0}: {1} is not a valid email address ({2})", address)


def _phone(field: DocFieldSchema, text: str, doctype: str) -> None:
    if not _PHONE.fullmatch(text) or sum(c.isdigit() for c in text) < 3:
        raise _error(exc.FieldTypeError, field, doctype, "{0}: {1} is not a valid phone number ({2})", text)


def _url(field: DocFieldSchema, text: str, doctype: str) -> None:
    try:
        parts = urlsplit(text)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        valid = False
    if not valid or any(c.isspace() for c in text):
        raise _error(exc.FieldTypeError, field, doctype,
                     "{0}: {1} is not a valid URL, it must start with http:// or https:// ({2})", text)


def _name(field: DocFieldSchema, text: str, doctype: str) -> None:
    if _NAME_FORBIDDEN.search(text):
        raise _error(exc.FieldTypeError, field, doctype,
                     '{0}: {1} is not a valid name, it cannot contain <, >, % or " ({2})', text)


_DATA_OPTIONS: dict[str | None, Callable[[DocFieldSchema, str, str], None]] = {
    "Email": _email, "Phone": _phone, "URL": _url, "Name": _name}


def _data(field: DocFieldSchema, value: Any, doctype: str) -> str | None:
    text = _as_text(field, value, doctype)
    check = _DATA_OPTIONS.get(field.options)
    if check is not None:
        text = text.strip()
        if not text:
            return None
    _check_length(field, text, doctype)
    if check is not None:
        check(field, text, doctype)
    return text


def _select(field: DocFieldSchema, value: Any, doctype: str) -> str:
    text = _as_text(field, value, doctype)
    options = field.select_options
    if options and text not in options and field.fieldname != "naming_series":
        raise exc.FieldTypeError(_('{0} cannot be "{1}". It should be one of "{2}" ({3})',
                                   field.display_label, text, '", "'.join(options), doctype),
                                 field=field.fieldname, title=_("Invalid Option"))
    _check_length(field, text, doctype)
    return text


def _link(field: DocFieldSchema, value: Any, doctype: str) -> str | None:
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise _wrong(field, value, doctype, "{0}: {1} is not a valid link value ({2})")
    text = _as_text(field, value, doctype).strip()
    _check_length(field, text, doctype)
    return text or None


def _password(field: DocFieldSchema, value: Any, doctype: str) -> str:
    if not isinstance(value, str):  # the message never shows the value
        raise exc.FieldTypeError(_("{0}: a password must be text ({1})", field.display_label, doctype),
                                 field=field.fieldname)
    return str.__str__(value)


def _check_json(field: DocFieldSchema, value: dict[str, Any] | list[Any], doctype: str) -> None:
    """Iteratively: only JSON types, int64 ints, finite floats, keys MongoDB accepts, bounded depth."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if item is None or isinstance(item, str | bool):
            continue
        if isinstance(item, int):
            if not LONG_INT_RANGE[0] <= item <= LONG_INT_RANGE[1]:
                raise _error(exc.FieldTypeError, field, doctype, "{0}: {1} is too large for JSON ({2})", item)
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise _error(exc.FieldTypeError, field, doctype, "{0}: {1} is not valid in JSON ({2})",
                             item)
        elif isinstance(item, dict | list):
            if depth >= _JSON_MAX_DEPTH:
                raise exc.FieldTypeError(_("{0}: the JSON value is nested too deeply ({1})",
                                           field.display_label, doctype), field=field.fieldname)
            if isinstance(item, list):
                stack.extend((child, depth + 1) for child in item)
                continue
            for key, child in item.items():
                if not isinstance(key, str) or key.startswith("$") or "." in key or "\x00" in key:
                    raise _error(exc.FieldTypeError, field, doctype,
                                 "{0}: the JSON key {1} is not allowed: keys are text and cannot start "
                                 "with $ or contain a dot ({2})", key)
                stack.append((child, depth + 1))
        else:
            raise _error(exc.FieldTypeError, field, doctype, "{0}: {1} cannot be stored as JSON ({2})", item)


def _json(field: DocFieldSchema, value: Any, doctype: str) -> dict[str, Any] | list[Any]:
    parsed = value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            raise _error(exc.FieldTypeError, field, doctype, "{0}: {1} is not valid JSON ({2})",
                         value) from None
    if not isinstance(parsed, dict | list):
        raise _error(exc.FieldTypeError, field, doctype,
                     "{0}: {1} is not a JSON object or list ({2})", value)
    _check_json(field, parsed, doctype)
    return parsed


_COERCERS: dict[str, Coercer] = {
    "Data": _data, "Int": _integer(*INT_RANGE), "Long Int": _integer(*LONG_INT_RANGE),
    "Float": _float, "Currency": _float, "Percent": _float, "Duration": _duration, "Rating": _rating,
    "Check": _check, "Date": _date, "Datetime": _datetime, "Time": _time, "Select": _select,
    "Link": _link, "Dynamic Link": _link, "JSON": _json, "Password": _password,
    **{t: _short_text for t in LENGTH_TYPES - {"Data", "Link", "Dynamic Link", "Select"}},
    **{t: _as_text for t in LONG_TEXT_TYPES},
}
# fieldtype -> (coercer, value for empty input, whether a whitespace-only string counts as empty)
_DISPATCH: dict[str, tuple[Coercer, Any, bool]] = {
    fieldtype: (coercer, 0 if fieldtype in ("Int", "Long Int", "Check")
                else 0.0 if fieldtype in NUMERIC_TYPES else None, fieldtype not in TEXT_TYPES)
    for fieldtype, coercer in _COERCERS.items()
}


def coerce_value(field: DocFieldSchema, value: Any, *, doctype: str) -> Any:
    """`value` validated and normalised for storage as `field` of `doctype`; raises a ValidationError."""
    entry = _DISPATCH.get(field.fieldtype)
    if entry is None:
        raise TypeError(f"coerce_value() does not handle {field.fieldtype} fields "
                        f"({doctype}.{field.fieldname})")
    coercer, empty, blank_is_empty = entry
    if value is None or (isinstance(value, str) and (not value or (blank_is_empty and value.isspace()))):
        return empty
    return coercer(field, value, doctype)


def unchanged_text_limit(field: DocFieldSchema) -> int | None:
    """For a field whose `coerce_value` returns any non-empty `str` of at most this many characters
    unchanged (plain text types, Data without Email/Phone/URL/Name options), that length; None for the
    others. What lets the save path pass over typical text values without a call."""
    entry = _DISPATCH.get(field.fieldtype)
    if entry is None or entry[2]:  # a type for which a blank string is empty: it changes
        return None
    coercer = entry[0]
    if coercer is _as_text:
        return sys.maxsize
    if coercer is _short_text or (coercer is _data and field.options not in _DATA_OPTIONS):
        return field.length if field.length > 0 else DEFAULT_LENGTH
    return None


def is_empty(field: DocFieldSchema, value: Any) -> bool:
    """The `reqd` test: None, blank text, an empty list or dict. A number (0 included) is a value."""
    if value is None:
        return True
    if isinstance(value, str):
        if field.fieldtype == "Text Editor" and "<" in value and "<img" not in value.lower():
            value = _HTML_TAG.sub("", value).replace("&nbsp;", " ")
        return not value.strip()
    if isinstance(value, list | tuple | dict | set):
        return not value
    return False


# the most bytes of JSON one character (or one byte of BSON) becomes: a control character, `\u0000`
JSON_BYTES_PER_CHAR = 6
# the most characters a stored value of these types has: dates and times in their ISO forms, numbers
# as JSON writes them (a float's repr, a 64-bit integer)
_FIXED_CHARS = {"Date": 10, "Datetime": 26, "Time": 15, "Check": 1} | dict.fromkeys(NUMERIC_TYPES, 24)


def max_json_bytes(field: DocFieldSchema) -> int | None:
    """The most bytes of JSON a value of `field` takes once coerced (`JSON_BYTES_PER_CHAR` per character),
    or None when its type has no bound (long text, JSON, passwords)."""
    if field.fieldtype in LENGTH_TYPES:
        return JSON_BYTES_PER_CHAR * (field.length if field.length > 0 else DEFAULT_LENGTH) + 2
    fixed = _FIXED_CHARS.get(field.fieldtype)
    return None if fixed is None else fixed + 2


def default_value(field: DocFieldSchema, *, now: str, today: str, doctype: str) -> Any:
    """`field.default` coerced for a new document; "Today" and "Now" resolve to `today` and `now`."""
    default = field.default
    if isinstance(default, str):
        word = default.strip().lower()
        if word in ("today", "now") and field.fieldtype == "Date":
            default = today
        elif word in ("today", "now") and field.fieldtype == "Datetime":
            default = now if word == "now" else today
        elif word == "now" and field.fieldtype == "Time":
            default = now.replace("T", " ").partition(" ")[2]
    try:
        value = coerce_value(field, default, doctype=doctype)
    except exc.FwError as e:
        raise exc.ConfigurationError(_("Invalid default {0} for {1} in {2}: {3}", _show(field.default),
                                       field.display_label, doctype, e.message),
                                     field=field.fieldname) from e
    return copy.deepcopy(value) if isinstance(value, dict | list) else value
