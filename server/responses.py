"""JSON responses through orjson (dates and datetimes as Frappe sends them: a space, no zone)."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import orjson
from starlette.responses import Response


def _default(value: Any) -> Any:
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return str(value)
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def dumps(data: Any) -> bytes:
    return orjson.dumps(data, default=_default, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME)


def json_response(data: Any, status_code: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(dumps(data), status_code=status_code, headers=headers, media_type="application/json")
