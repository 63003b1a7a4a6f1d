"""Names of new documents (contract §3): `hash`, `field:`, `naming_series:`, `format:`, old-style
`PRE-.YYYY.-.#####` expressions, `autoincrement`, `Prompt` and `UUID`; amendment names; checks.

Counters live in `_fw_series` (`{_id: key, current: int}`), keyed by the rendered prefix exactly
like Frappe's `Series` table (so `WV-.YYYY.-.###` restarts every year). They are incremented
atomically and OUTSIDE the unit of work's transaction: a rollback may leave a gap, but two
documents never get the same number and concurrent transactions never conflict on a counter.
"""

from __future__ import annotations

import re
import secrets
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from engine import db
from engine import exceptions as exc
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.meta.schema import Meta

SERIES_COLLECTION = "_fw_series"
MAX_NAME_LENGTH = 140
_BASE32HEX = "0123456789abcdefghijklmnopqrstuv"
_BRACED = re.compile(r"\{([^{}]*)\}")
_HASH_RUN = re.compile(r"#+")
_AMENDMENT = re.compile(r"^(.*)-(\d+)$")
_FORBIDDEN = ("<", ">", "\n", "\r", "\x00")
_FORBIDDEN_CHARS = frozenset(_FORBIDDEN)

Counter = Callable[[str, int], str]


class NameSource(Protocol):
    """What naming needs from a document."""

    name: str | None

    @property
    def meta(self) -> Meta: ...

    def get(self, fieldname: str, default: Any = None) -> Any: ...


# ---------------------------------------------------------------------------------------------
# Expressions (pure)


def _week(now: datetime) -> str:
    """ISO week, kept consecutive within the calendar year like Frappe (Jan → "00", Dec → "53")."""
    week = now.isocalendar().week
    if now.month == 1 and week >= 52:
        return "00"
    if now.month == 12 and week <= 1:
        return "53"
    return f"{week:02d}"


_DATE_TOKENS: dict[str, Callable[[datetime], str]] = {
    "YYYY": lambda d: d.strftime("%Y"), "YY": lambda d: d.strftime("%y"),
    "MM": lambda d: d.strftime("%m"), "DD": lambda d: d.strftime("%d"), "WW": _week,
}


def _field_value(doc: NameSource, fieldname: str) -> str:
    meta = doc.meta
    if fieldname == "name" or not meta.has_field(fieldname):
        raise exc.ConfigurationError(
            _("Naming of {0}: {1} is not a field of {0}", meta.name, fieldname), field=fieldname)
    value = doc.get(fieldname)
    text = "" if value is None else str(value).strip()
    if not text:
        raise exc.MandatoryError(_("{0} is required", meta.label(fieldname)), field=fieldname)
    return text


def _format(body: str, doc: NameSource, counter: Counter, now: datetime) -> str:
    """`format:` body: braces hold date tokens, fieldnames or `#`-runs; text outside is literal."""
    out: list[str] = []
    pos = 0
    for m in _BRACED.finditer(body):
        out.append(body[pos:m.start()])
        pos = m.end()
        token = m.group(1).strip()
        if token in _DATE_TOKENS:
            out.append(_DATE_TOKENS[token](now))
        elif token and _HASH_RUN.fullmatch(token):
            out.append(counter("".join(out), len(token)))
        else:
            out.append(_field_value(doc, token))
    out.append(body[pos:])
    return "".join(out)


def _old_style(expr: str, doc: NameSource, counter: Counter, now: datetime) -> str:
    """`.`-separated parts; only the first `#`-run is a counter (keyed by the text so far)."""
    out: list[str] = []
    counted = False
    for part in expr.split("."):
        if not part:
            continue
        if part in _DATE_TOKENS:
            out.append(_DATE_TOKENS[part](now))
        elif part.startswith("{") and part.endswith("}"):
            out.append(_field_value(doc, part[1:-1].strip()))
        elif part in doc.meta.by_name:
            out.append(_field_value(doc, part))
        elif "#" in part:
            pos = 0
            for m in _HASH_RUN.finditer(part):  # "PRE-###" in one part: literal text around the run
                out.append(part[pos:m.start()])
                pos = m.end()
                if not counted:
                    out.append(counter("".join(out), len(m.group())))
                    counted = True
            out.append(part[pos:])
        else:
            out.append(part)
    return "".join(out)


def parse_expression(expr: str, doc: NameSource, counter: Counter, now: datetime) -> str:
    """Render a `format:...` or old-style `PRE-.YYYY.-.#####` expression.

    `counter(prefix_key, digits)` returns the zero-padded number for the series keyed by the text
    rendered before the `#`-run; tests and previews pass a fake one (as Frappe's NamingSeries does).
    """
    if expr[:7].lower() == "format:":
        return _format(expr[7:], doc, counter, now)
    return _old_style(expr, doc, counter, now)


# ---------------------------------------------------------------------------------------------
# Counters


async def next_counter(ctx: Context, key: str) -> int:
    """Atomically increment and return the counter `key` (1 for a new key), outside any transaction."""
    coll = ctx.db.collection(SERIES_COLLECTION)
    for attempt in range(3):
        try:
            with db.translate_errors(SERIES_COLLECTION):
                row = await coll.find_one_and_update(  # no session on purpose: see the module doc
                    {"_id": key}, {"$inc": {"current": 1}}, upsert=True, return_document=db.AFTER)
            return int(row["current"])
        except exc.DuplicateEntryError:  # two first-time upserts raced; the loser simply retries
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


async def reserve_counters(ctx: Context, key: str, count: int) -> range:
    """`count` consecutive numbers of the counter `key`, with one atomic update (outside any
    transaction, like `next_counter`: a rollback leaves a gap, never a shared number); bulk insert's."""
    if count <= 0:
        return range(0)
    coll = ctx.db.collection(SERIES_COLLECTION)
    for attempt in range(3):
        try:
            with db.translate_errors(SERIES_COLLECTION):
                row = await coll.find_one_and_update({"_id": key}, {"$inc": {"current": count}}, upsert=True,
                                                     return_document=db.AFTER)
            last = int(row["current"])
            return range(last - count + 1, last + 1)
        except exc.DuplicateEntryError:  # two first-time upserts raced; the loser retries
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


class _NeedCounter(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


async def _render(ctx: Context, expr: str, doc: NameSource, now: datetime) -> str:
    """Render `expr` with real counters: reserve each counter the rendering asks for, then render again.

    A later counter's key may include an earlier counter's number, so keys are discovered one at a
    time; every pass is pure and cheap.
    """
    reserved: list[tuple[str, int]] = []
    while True:
        calls = 0

        def counter(key: str, digits: int) -> str:
            nonlocal calls
            index, calls = calls, calls + 1
            if index < len(reserved) and reserved[index][0] == key:
                return str(reserved[index][1]).zfill(digits)
            del reserved[index:]
            raise _NeedCounter(key)

        try:
            return parse_expression(expr, doc, counter, now)
        except _NeedCounter as need:
            reserved.append((need.key, await next_counter(ctx, need.key)))


# ---------------------------------------------------------------------------------------------
# Random names


# every 10-bit number as its two base32hex digits: a name is five lookups
_HASH_PAIRS = tuple(_BASE32HEX[i >> 5] + _BASE32HEX[i & 31] for i in range(1024))


def hash_name() -> str:
    """10 lowercase base32hex characters: 3 from the time (deciseconds), 7 random."""
    # one 50-bit number (15 bits of time, 35 random), written as 10 digits of 5 bits: one random draw
    # instead of one per character
    number = (int(time.time() * 10) % 32**3) << 35 | secrets.randbits(35)
    pairs = _HASH_PAIRS
    return (pairs[number >> 40] + pairs[number >> 30 & 1023] + pairs[number >> 20 & 1023]
            + pairs[number >> 10 & 1023] + pairs[number & 1023])


_last_uuid7: list[int] = [0, 0]  # [unix ms, rand_a] of the previous uuid7, for ordering within a ms


def uuid7() -> str:
    """A time-ordered UUID (RFC 9562 version 7): 48-bit unix ms, 12-bit counter/random, 62 random bits."""
    ms = time.time_ns() // 1_000_000
    rand_a = secrets.randbits(12)
    if ms <= _last_uuid7[0]:
        ms = _last_uuid7[0]
        rand_a = _last_uuid7[1] + 1
        if rand_a > 0xFFF:
            ms, rand_a = ms + 1, secrets.randbits(11)
    _last_uuid7[:] = [ms, rand_a]
    value = (ms & (2**48 - 1)) << 80 | 0x7 << 76 | rand_a << 64 | 0b10 << 62 | secrets.randbits(62)
    return str(uuid.UUID(int=value))


# ---------------------------------------------------------------------------------------------
# Public API


def naming_series(doc: NameSource) -> str:
    series = str(doc.get("naming_series") or "").strip()
    if not series and (field := doc.meta.get_field("naming_series")) is not None:
        # Frappe's get_default_naming_series: the field's default, else its first option
        series = str(field.default or next(iter(field.select_options), "")).strip()
    if not series:
        raise exc.MandatoryError(_("Naming Series is required"), field="naming_series")
    return series if "#" in series else f"{series}.#####"


async def make_name(ctx: Context, doc: NameSource, *, now: datetime | None = None) -> str:
    """The name for a new document per `doc.meta.autoname` (validated, except a Single's)."""
    meta = doc.meta
    if meta.issingle:
        return meta.name
    autoname = "hash" if meta.istable else meta.autoname
    lowered = autoname.lower()
    now = now or datetime.now()
    if lowered in ("", "hash"):
        return hash_name()
    if lowered == "autoincrement":
        return str(await next_counter(ctx, f"{meta.name}:autoincrement"))
    if lowered == "uuid":
        given = doc.name
        if not given:
            return uuid7()
        try:
            return str(given if isinstance(given, uuid.UUID) else uuid.UUID(str(given).strip()))
        except ValueError:
            raise exc.InvalidNameError(_("Invalid value specified for UUID: {0}", given),
                                       field="name") from None
    if lowered == "prompt":
        name = str(doc.name or doc.get("__newname") or "").strip()
        if not name:
            raise exc.MandatoryError(_("Please set the document name"), field="name")
    elif lowered.startswith("field:"):
        name = _field_value(doc, autoname.split(":", 1)[1].strip())
    elif lowered.startswith("naming_series:"):
        name = await _render(ctx, naming_series(doc), doc, now)
    elif lowered.startswith("format:") or "#" in autoname:
        name = await _render(ctx, autoname, doc, now)
    else:
        raise exc.ConfigurationError(
            _("DocType {0} has an unknown autoname: {1}", meta.name, autoname), field="autoname")
    return validate_name(meta.name, name)


def amended_name(amended_from: str, *, is_amendment: bool | None = None) -> str:
    """The name of an amendment of `amended_from`: "X" → "X-1", "X-1" → "X-2", "X-10" → "X-11".

    By default a trailing `-<digits>` is read as an earlier amendment's suffix. A caller that knows
    whether the source is itself an amendment (Frappe reads the source's `amended_from`) should say
    so: with `is_amendment=False`, "INV-00001" → "INV-00001-1" rather than "INV-00002".
    """
    source = amended_from.strip()
    m = _AMENDMENT.match(source)
    if m and m.group(1) and is_amendment is not False:
        return f"{m.group(1)}-{int(m.group(2)) + 1}"
    return f"{source}-1"


def validate_name(doctype: str, name: str) -> str:
    """The stripped name, or InvalidNameError if it cannot name a `doctype` document."""
    stripped = (name or "").strip() if isinstance(name, str) else str(name).strip()
    problem: str | None = None
    if not stripped:
        problem = _("No Name Specified for {0}", doctype)
    elif stripped.startswith(f"New {doctype}"):
        problem = _("There were some errors setting the name, please contact the administrator")
    elif stripped == doctype:
        problem = _("Name cannot be the same as the DocType: {0}", doctype)
    elif not _FORBIDDEN_CHARS.isdisjoint(stripped):
        problem = _("Name cannot contain special characters like < > or line breaks: {0}", stripped)
    elif len(stripped) > MAX_NAME_LENGTH:
        problem = _("Name is too long (at most {0} characters)", MAX_NAME_LENGTH)
    elif stripped.startswith("$"):
        problem = _("Name cannot start with $: {0}", stripped)
    if problem:
        raise exc.InvalidNameError(problem, field="name")
    return stripped
