"""Decoding Frappe-style arguments: lists and objects often arrive as JSON strings."""

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
