"""`receive_data`: daily values delivered in batches by the external system.

```
POST /api/method/workforce_scoring.api.external.receive_data
Authorization: token <api_key>:<api_secret>
{"data": [{"employee_code": "E-1001", "date": "2024-03-01", "value": 61.5}, ...]}
→ {"message": {"status": "ok", "created": 1, "skipped": 0, "errors": []}}
```

Each record becomes one Employee Score with `source = "external_system"`, judged by these rules in
order: an unknown employee code is an error `Not found` (skipped); a record whose (employee, date)
is already stored, or came earlier in the same delivery, is skipped silently; any other failure
(a missing or invalid date, a value that is not a number) is an error with the exception's text,
logged under the title `receive_data`. One bad record never stops the others.

A delivery of any size costs the same handful of round trips: one query for the employees of all
codes, one for the stored (employee, date) pairs among them, then `insert_many`'s link check, one
naming-counter reservation and one bulk write; never one per record (only a record that fails
gets its own Error Log). The per-document `after_insert` notification does not run for these records.

All or nothing: the batch is written in the request's transaction (`insert_many(atomic=True)`), so a
delivery interrupted anywhere (the database lost, the process killed) stores none of its records
and the external system sends it again; the Error Logs of its failed records are written once it
has committed. Two deliveries of the same records racing each other cannot both insert a record:
the unique index on (employee, date) for external records refuses the second inside its
transaction, which is then run again as a whole (`run_in_unit_of_work`), finds the first one's
records stored and counts them as skipped.
"""

from __future__ import annotations

import json
import reprlib
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import engine as fw
from engine import exceptions as exc
from workforce_scoring.constants import DAILY, EMPLOYEE, EMPLOYEE_SCORE, EXTERNAL_SYSTEM

# part of the protocol with the external system (compared by machines), so never translated
NOT_FOUND = "Not found"
LOG_TITLE = "receive_data"
MAX_ERROR_TEXT = 300  # an error entry's text in the response (an exception's text may quote a huge value)
# a record and its code as the Error Log shows them: bounded, whatever the external system sent (a plain
# repr of a value nested a thousand levels deep raises RecursionError, of a 20 MB one fills the log)
_LOG_REPR = reprlib.Repr()
_LOG_REPR.maxlevel, _LOG_REPR.maxdict, _LOG_REPR.maxlist, _LOG_REPR.maxstring, _LOG_REPR.maxother = 4, 20, 20, 200, 200


@dataclass
class Delivery:
    """The running result of one delivery: the response, and the failures to log."""

    created: int = 0
    skipped: int = 0
    errors: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (record index, entry)
    failures: list[tuple[int, Any, BaseException]] = field(default_factory=list)

    def error(self, index: int, code: Any, text: str) -> None:
        self.errors.append((index, {"code": _shown_code(code), "error": _short_text(text)}))
        self.skipped += 1

    def failure(self, index: int, code: Any, error: BaseException) -> None:
        try:
            text = str(error)
        except Exception:  # an exception whose text cannot be built still has a name
            text = type(error).__name__
        self.error(index, code, text or type(error).__name__)
        self.failures.append((index, code, error))

    def response(self) -> dict[str, Any]:
        errors = [entry for _index, entry in sorted(self.errors, key=lambda item: item[0])]  # in record order
        return {"status": "partial" if errors else "ok", "created": self.created, "skipped": self.skipped,
                "errors": errors}


@dataclass
class Candidate:
    index: int
    code: Any
    row: dict[str, Any]


@fw.whitelist(methods=["POST"])
async def receive_data(ctx: fw.Context, data: Any) -> dict[str, Any]:
    """Store a batch of daily values; answers `{status, created, skipped, errors}`."""
    records = parse_records(data)
    delivery = Delivery()
    employees = await _employees_by_code(ctx, records)
    candidates = _candidates(ctx, records, employees, delivery)
    candidates = await _drop_stored(ctx, candidates, delivery)
    result = await fw.insert_many(ctx, EMPLOYEE_SCORE, [c.row for c in candidates], ignore_permissions=True,
                                    atomic=True)
    delivery.created = len(result.names)
    for position, error in sorted(result.failed.items()):
        candidate = candidates[position]
        delivery.failure(candidate.index, candidate.code, error)
    if delivery.failures:
        failures = [_log_text(index, code, records[index], error) for index, code, error in delivery.failures]

        async def log_failures() -> None:
            for text in failures:
                await fw.log_error(ctx, LOG_TITLE, text, reference_doctype=EMPLOYEE_SCORE)

        if ctx.uow is None:
            await log_failures()
        else:  # once the delivery is stored: a delivery that runs again logs once
            ctx.after_commit(log_failures)
    return delivery.response()


def parse_records(data: Any) -> list[Any]:
    """`data` as a list: given as one, or as a JSON string holding one."""
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except (ValueError, RecursionError) as e:  # (RecursionError: nested deeper than Python's stack)
            raise exc.DataError(fw._("data is not valid JSON: {0}", _short_text(str(e))), field="data") from None
    if not isinstance(data, list):
        raise exc.DataError(fw._("data must be a list of records (or a JSON string holding one), not {0}",
                                 _kind(data)), field="data")
    return data


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _short_text(text: str) -> str:
    """A plain `str` of at most MAX_ERROR_TEXT characters, for the response's error entries."""
    text = str.__str__(text)
    return text if len(text) <= MAX_ERROR_TEXT else text[:MAX_ERROR_TEXT - 1] + "…"


def _shown_code(code: Any) -> Any:
    """A record's code as the response repeats it: a list or object (which may nest deeper than JSON
    encoders go) is not a code, and is shown as null."""
    return code if code is None or isinstance(code, str | int | float) else None


def _code_key(code: Any) -> str | None:
    """Codes are matched as text: the external system may send 1001 for "1001"."""
    if isinstance(code, bool) or not isinstance(code, str | int):
        return None
    return str(code).strip() or None


def _code(record: Any) -> Any:
    return record.get("employee_code") if isinstance(record, Mapping) else None


async def _employees_by_code(ctx: fw.Context, records: list[Any]) -> dict[str, str]:
    """employee_number → Employee name, for every code of the delivery (one query)."""
    codes = sorted({key for record in records if (key := _code_key(_code(record))) is not None})
    if not codes:
        return {}
    rows = await fw.get_all(ctx, EMPLOYEE, fields=["name", "employee_number"],
                            filters=[["employee_number", "in", codes]])
    return {row["employee_number"]: row["name"] for row in rows}


def _candidates(ctx: fw.Context, records: list[Any], employees: dict[str, str], delivery: Delivery) -> list[Candidate]:
    """Records of known employees with a valid date, as Employee Score rows (rules 1 and 4)."""
    date_field = ctx.meta(EMPLOYEE_SCORE).by_name["date"]
    out: list[Candidate] = []
    for index, record in enumerate(records):
        code = _code(record)
        try:
            if not isinstance(record, Mapping):
                raise exc.DataError(fw._("Each record must be an object, not {0}", _kind(record)))
            if _shown_code(code) is None and code is not None:
                raise exc.DataError(fw._("employee_code must be text or a number, not {0}", _kind(code)),
                                    field="employee_code")
            employee = employees.get(_code_key(code) or "")
            if employee is None:
                delivery.error(index, code, NOT_FOUND)
                continue
            day = fw.coerce_value(date_field, record.get("date"), doctype=EMPLOYEE_SCORE)
            if not day:
                raise exc.MandatoryError(fw._("{0} is mandatory", fw._("Date")), field="date")
            value = record.get("value")
            out.append(Candidate(index, code, {
                "employee": employee, "date": day, "value": 0 if value is None else value,
                "source": EXTERNAL_SYSTEM, "period_type": DAILY, "period_value": day}))
        except Exception as e:
            delivery.failure(index, code, e)
    return out


async def _drop_stored(ctx: fw.Context, candidates: list[Candidate], delivery: Delivery) -> list[Candidate]:
    """Rule 2: skip (employee, date) pairs already stored, or repeated within the delivery."""
    if not candidates:
        return []
    employees = sorted({c.row["employee"] for c in candidates})
    days = sorted({c.row["date"] for c in candidates})
    stored = await fw.get_all(ctx, EMPLOYEE_SCORE, fields=["employee", "date"], filters=[
        ["employee", "in", employees], ["date", "in", days]])
    seen = {(row["employee"], row["date"]) for row in stored}
    fresh: list[Candidate] = []
    for candidate in candidates:
        pair = (candidate.row["employee"], candidate.row["date"])
        if pair in seen:
            delivery.skipped += 1
            continue
        seen.add(pair)
        fresh.append(candidate)
    return fresh


def _log_text(index: int, code: Any, record: Any, error: BaseException) -> str:
    trace = "".join(traceback.format_exception(error))
    return f"Record #{index + 1} (employee_code {_LOG_REPR.repr(code)}): {_LOG_REPR.repr(record)}\n\n{trace}"
