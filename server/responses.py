"""JSON responses through orjson (dates and datetimes as Frappe sends them: a space, no zone)."""

from __future__ import annotations

import datetime
import decimal
import json
import math
from collections.abc import Mapping
from typing import Any

import orjson
from starlette.responses import Response

from engine import exceptions as exc
from engine.translation import _


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
    try:
        return orjson.dumps(data, default=_default, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME)
    except orjson.JSONEncodeError as e:
        if "64-bit" not in str(e):
            raise
    # orjson refuses integers beyond 64 bits (a 500 for e.g. a whitelisted function adding two big numbers);
    # JSON has no such limit, and Python's json (Frappe's) writes them
    return json.dumps(_finite(data), default=_default, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode()


def _finite(value: Any) -> Any:
    """NaN and infinities as null, as orjson writes them (for the stdlib fallback)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def json_response(data: Any, status_code: int = 200, headers: Mapping[str, str] | None = None, *,
                  max_bytes: int | None = None) -> Response:
    """`data` as JSON; over `max_bytes` (FW_MAX_RESPONSE_BYTES, for success bodies) ResponseTooLargeError."""
    body = dumps(data)
    if max_bytes is not None and len(body) > max_bytes:
        raise too_large(max_bytes)
    return Response(body, status_code=status_code, headers=headers, media_type="application/json")


def too_large(max_bytes: int) -> exc.ResponseTooLargeError:
    return exc.ResponseTooLargeError(_(
        "The response would be larger than {0} bytes; ask for fewer rows or fields", max_bytes))
