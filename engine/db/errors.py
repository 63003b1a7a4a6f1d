"""Driver errors end here: `translate_errors` turns them into engine exceptions, and `failure_kind`
says whether a failed unit of work may succeed if it runs again."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from pymongo import errors as driver_errors

from engine import exceptions as exc
from engine.translation import _

log = logging.getLogger("fw.db")

WRITE_CONFLICT = 112
DUPLICATE_KEY = 11000


@contextlib.contextmanager
def translate_errors(doctype: str | None = None, unique_labels: Mapping[str, str] | None = None) -> Iterator[None]:
    """Turn driver errors into engine exceptions: duplicate keys name the document or the field."""
    try:
        yield
    except driver_errors.DuplicateKeyError as e:
        details = e.details or {}
        key_pattern = details.get("keyPattern") or {}
        key_value = details.get("keyValue") or {}
        fields = [f for f in key_pattern if f != "_id"]
        if not fields:
            name = key_value.get("_id", "")
            raise exc.DuplicateEntryError(_("{0} {1} already exists", _(doctype or "Document"), name)) from e
        labels = [_((unique_labels or {}).get(f, f)) for f in fields]
        values = ", ".join(str(key_value.get(f)) for f in fields)
        msg = (_("{0} must be unique ({1} already exists)", labels[0], values) if len(fields) == 1
               else _("{0} must be unique together ({1} already exists)", ", ".join(labels), values))
        raise exc.UniqueValidationError(msg, fields=tuple(fields)) from e
    except driver_errors.ExecutionTimeout as e:  # maxTimeMS reached (an OperationFailure: caught first)
        raise exc.QueryTimeoutError(_("The query ran too long and was stopped: narrow the filters or ask for "
                                      "fewer rows")) from e
    except driver_errors.WriteConcernError as e:
        # the server ran the write but could not confirm it to a majority (a primary stepping down,
        # a wtimeout): its outcome is unknown, as after a lost connection; never run again by `Retry`
        raise unavailable_error(e) from e
    except driver_errors.OperationFailure as e:
        if e.has_error_label("TransientTransactionError") or e.code == WRITE_CONFLICT:
            raise conflict_error() from e
        raise
    except driver_errors.DocumentTooLarge as e:  # (pymongo refuses it before sending: nothing was written)
        raise exc.DocumentTooLargeError(_("{0}: the document or query is larger than the database accepts "
                                          "({1} MB at most); send less data", _(doctype or "Document"),
                                          16)) from e
    except driver_errors.ConnectionFailure as e:  # lost connection, no primary, server selection timed out
        raise unavailable_error(e) from e


def unavailable_error(error: driver_errors.PyMongoError, lang: str | None = None) -> exc.DatabaseUnavailableError:
    log.warning("MongoDB unavailable: %s", error)
    if error.has_error_label("UnknownTransactionCommitResult") or isinstance(error, driver_errors.WriteConcernError):
        return exc.DatabaseUnavailableError(_("The database did not confirm the commit, so whether it was saved is "
                                              "unknown; check before sending it again", lang=lang))
    return exc.DatabaseUnavailableError(_("The database is not reachable right now; please retry in a few seconds",
                                          lang=lang))


def conflict_error() -> exc.TransientError:
    return exc.TransientError(_("The document was changed by another request; please retry"))


def bulk_write_errors(error: BaseException) -> list[dict[str, Any]] | None:
    """The per-document errors of a failed bulk write (`insert_many`, either backend), each with its
    `index` in the batch; None for any other error."""
    details = getattr(error, "details", None)
    errors = details.get("writeErrors") if isinstance(details, dict) else None
    return errors if isinstance(errors, list) else None


def is_duplicate_key(write_error: Mapping[str, Any]) -> bool:
    """Whether one of `bulk_write_errors` refused a document for a duplicate key."""
    return write_error.get("code") == DUPLICATE_KEY


def translate_error(error: BaseException, *, lang: str | None = None) -> BaseException:
    """The engine exception for a driver error that escaped `translate_errors` (the error itself if
    it is not a driver error, or one the engine has no name for). `lang`: for a caller outside any
    context (the language of its messages)."""
    if not isinstance(error, driver_errors.PyMongoError):
        return error
    if isinstance(error, driver_errors.ConnectionFailure):
        return unavailable_error(error, lang)
    try:
        with translate_errors():
            raise error
    except exc.FwError as mapped:
        return mapped
    except driver_errors.PyMongoError:
        return error


# ---------------------------------------------------------------------------------------------


Failure = Literal["conflict", "unavailable"]


def driver_error(error: BaseException) -> driver_errors.PyMongoError | None:
    """The driver error behind `error` (itself, or what an engine exception was raised from)."""
    for candidate in (error, error.__cause__):
        if isinstance(candidate, driver_errors.PyMongoError):
            return candidate
    return None


def never_sent(error: BaseException) -> bool:
    """The operation never reached a server: the driver raises a server-selection timeout only when
    no attempt was sent (after a sent attempt it raises that attempt's error)."""
    return isinstance(driver_error(error), driver_errors.ServerSelectionTimeoutError)


def failure_kind(error: BaseException) -> Failure | None:
    """What a failed unit of work met, if running it again may succeed: a conflict with another
    transaction (the server refused: a write conflict, a lock timeout, any error it labels
    TransientTransactionError), or the database out of reach (connection lost, primary gone, no
    server selected). None for anything else, including a commit whose outcome is unknown
    (running the unit again could apply it twice)."""
    driver = driver_error(error)
    if driver is not None:
        if driver.has_error_label("UnknownTransactionCommitResult") \
                or isinstance(driver, driver_errors.WriteConcernError):
            return None  # the write may have been applied: running the unit again could apply it twice
        if isinstance(driver, driver_errors.ConnectionFailure):
            return "unavailable"
        if driver.has_error_label("TransientTransactionError") or (
                isinstance(driver, driver_errors.OperationFailure) and driver.code == WRITE_CONFLICT):
            return "conflict"
    if isinstance(error, exc.DatabaseUnavailableError):
        return "unavailable"
    if isinstance(error, exc.TransientError):
        return "conflict"
    return None
