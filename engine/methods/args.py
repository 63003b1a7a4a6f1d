"""Request arguments, decoded and checked in one place: Frappe-style JSON strings for lists and objects,
booleans, document references and the paging numbers of v1 (`limit_start`, `limit_page_length`) and
v2 (`start`, `limit`). A wrong one is a DataError (417) naming it."""

from __future__ import annotations

from typing import Any

import orjson

from engine import exceptions as exc
from engine.translation import _


def json_arg(value: Any, name: str, *, kinds: tuple[type, ...] = (dict, list)) -> Any:
    """Decode a JSON-string argument (or pass a decoded one through), checking its shape."""
    if isinstance(value, str | bytes):
        text = value.strip() if isinstance(value, str) else value
        if not text:
            return None
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            raise exc.DataError(_("{0} must be valid JSON", name), field=name) from None
    if value is not None and not isinstance(value, kinds):
        raise exc.DataError(_("{0} has the wrong shape", name), field=name)
    return value


def bool_arg(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if value in (None, "", 0, "0", "false", "False", "no"):
        return False
    if value in (1, "1", "true", "True", "yes"):
        return True
    raise exc.DataError(_("{0} must be true or false", name), field=name)


def document_ref(value: Any, name: str = "doc") -> tuple[dict[str, Any], str, str]:
    """A `doc` argument (a dict or its JSON) that must name its `doctype` and `name`."""
    data = json_arg(value, name, kinds=(dict,)) or {}
    doctype, docname = data.get("doctype"), data.get("name")
    if not isinstance(doctype, str) or not isinstance(docname, str):
        raise exc.DataError(_("{0} needs doctype and name", name), field=name)
    return data, doctype, docname


MAX_OFFSET = 2**62  # MongoDB's skip is a 64-bit integer


def page_length(value: Any, *, default: int, cap: int | None) -> int:
    """`limit_page_length`: 0 means "up to the cap" (unlimited for trusted callers with no cap)."""
    if value in (None, ""):
        length = default
    else:
        try:
            length = int(value)
        except (TypeError, ValueError):
            raise exc.DataError(_("limit_page_length must be a whole number"), field="limit_page_length") from None
        if length < 0:
            raise exc.DataError(_("limit_page_length cannot be negative"), field="limit_page_length")
    if cap:
        return cap if length == 0 else min(length, cap)
    return length


def offset_arg(value: Any) -> int:
    """`limit_start`: a whole number from 0 to MAX_OFFSET."""
    try:
        start = int(value or 0)
    except (TypeError, ValueError):
        raise exc.DataError(_("limit_start must be a whole number"), field="limit_start") from None
    if not 0 <= start <= MAX_OFFSET:
        raise exc.DataError(_("limit_start must be between 0 and {0}", MAX_OFFSET), field="limit_start")
    return start


def whole_arg(value: Any, name: str, default: int) -> int:
    """A non-negative whole-number argument (v2's `start`, `limit`): a 417 naming it otherwise."""
    if value is None or value == "":
        return default
    number = None
    if isinstance(value, int | str) and not isinstance(value, bool):
        try:
            number = int(value)
        except ValueError:
            number = None
    if number is None or not 0 <= number <= MAX_OFFSET:
        raise exc.DataError(_("{0} must be a whole number from 0 to {1}", name, MAX_OFFSET), field=name)
    return number
