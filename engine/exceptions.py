"""fw's one exception hierarchy. Class names are what the wire carries in `exc_type`.

    FwError
    ├── ValidationError                      business rule or bad input
    │   ├── MandatoryError                   a `reqd` field is empty
    │   ├── DataError                        unknown field, operator or malformed value in a query
    │   ├── FieldTypeError                   a value is not of its field's type
    │   ├── LinkValidationError              a Link points at nothing
    │   ├── UniqueValidationError            a `unique` field or index is violated
    │   ├── CharacterLengthExceededError
    │   ├── NonNegativeError
    │   ├── InvalidNameError
    │   ├── CannotChangeConstantError        `set_only_once` field changed
    │   ├── TimestampMismatchError           optimistic concurrency on `modified`
    │   ├── DocstatusTransitionError
    │   ├── UpdateAfterSubmitError
    │   ├── WorkflowTransitionError
    │   ├── LinkExistsError
    │   ├── ArgumentTypeError                a whitelisted function's argument has the wrong type
    │   ├── DocumentTooLargeError            a document or query over MongoDB's 16 MB limit (413)
    │   └── DoesNotExistError                (404 at the HTTP edge, resolved by MRO)
    ├── PermissionError                      (shadows the builtin: import the module, not the name)
    ├── AuthenticationError
    ├── DuplicateEntryError                  a document with that name exists
    ├── CSRFTokenError                       (400; also a malformed Authorization header)
    ├── BadRequestError                      malformed request body (400)
    ├── TooManyRequestsError
    ├── TransientError                       retryable: write conflict between transactions
    │   └── DocumentChangedError             a save without `modified` met a concurrent change: runs again
    ├── ResponseTooLargeError                an answer over FW_MAX_RESPONSE_BYTES (413)
    ├── QueryTimeoutError                    a request's query ran past FW_QUERY_TIMEOUT_MS
    ├── ServiceUnavailableError              a service fw needs is unreachable: retry later (503)
    │   ├── DatabaseUnavailableError         MongoDB: connection lost, no primary, selection timed out
    │   └── JobQueueUnavailableError         Redis (the job queue) does not answer
    └── ConfigurationError                   a broken app, doctype JSON or setting (startup)

The engine never speaks HTTP: `server/errors.py` maps these classes to statuses in one table.
"""

from __future__ import annotations

from typing import Any


class FwError(Exception):
    """Base of every fw error. `message` is user-facing (already translated); `field` names the field."""

    title: str = "Error"

    def __init__(self, message: str = "", *, field: str | None = None, title: str | None = None,
                 errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        if title:
            self.title = title
        self._errors = errors

    @property
    def errors(self) -> list[dict[str, Any]]:
        """A clean list of `{type, message, field}` entries, for the `errors` key on the wire."""
        if self._errors is not None:
            return self._errors
        return [{"type": type(self).__name__, "message": self.message, "field": self.field}]


class ValidationError(FwError):
    title = "Validation Error"


class MandatoryError(ValidationError):
    title = "Missing Fields"


class DataError(ValidationError):
    pass


class FieldTypeError(ValidationError):
    pass


class LinkValidationError(ValidationError):
    pass


class UniqueValidationError(ValidationError):
    """`field` names the last field of the clashing index (the one that makes it unique, e.g.
    `period_key` of `(employee, period_key)`); `fields` names them all, in index order."""

    def __init__(self, message: str = "", *, field: str | None = None, fields: tuple[str, ...] = (),
                 title: str | None = None) -> None:
        super().__init__(message, field=field or (fields[-1] if fields else None), title=title)
        self.fields = fields or ((field,) if field else ())


class CharacterLengthExceededError(ValidationError):
    pass


class NonNegativeError(ValidationError):
    pass


class InvalidNameError(ValidationError):
    pass


class CannotChangeConstantError(ValidationError):
    pass


class TimestampMismatchError(ValidationError):
    pass


class DocstatusTransitionError(ValidationError):
    pass


class UpdateAfterSubmitError(ValidationError):
    pass


class WorkflowTransitionError(ValidationError):
    pass


class LinkExistsError(ValidationError):
    pass


class ArgumentTypeError(ValidationError):
    pass


class MaxFileSizeReachedError(ValidationError):
    """A file over `FW_MAX_FILE_SIZE` (Frappe's name; answered 413, as the body-size limit is)."""

    title = "File Too Large"


class DocumentTooLargeError(ValidationError):
    """A document or query over MongoDB's 16 MB BSON limit (pymongo's DocumentTooLarge, raised before
    anything is sent): answered 413, as the body-size limit is, since the cure is to send less."""

    title = "Data Too Large"


class DoesNotExistError(ValidationError):
    title = "Not Found"


class PermissionError(FwError):
    title = "Not Permitted"


class AuthenticationError(FwError):
    title = "Not Authenticated"


class DuplicateEntryError(FwError):
    title = "Duplicate Name"


class CSRFTokenError(FwError):
    pass


class BadRequestError(FwError):
    pass


class TooManyRequestsError(FwError):
    """Too many failed credentials (a lockout). `retry_after`: seconds until it ends (`Retry-After`)."""

    retry_after: int = 60


class TransientError(FwError):
    """A conflict between concurrent transactions; the unit of work may be retried."""


class DocumentChangedError(TransientError):
    """A save that sent no `modified` found the document changed since it read it: its unit of work
    runs again on the fresh document (engine/documents/concurrency.py); 409 only if that never settles."""


class ResponseTooLargeError(FwError):
    """An answer over FW_MAX_RESPONSE_BYTES (413): the caller should ask for fewer rows or fields."""

    title = "Data Too Large"


class QueryTimeoutError(FwError):
    """A request's query ran past FW_QUERY_TIMEOUT_MS and MongoDB stopped it (nothing was written)."""

    title = "Query Timeout"


class ServiceUnavailableError(FwError):
    """A service fw depends on does not answer; nothing was committed and the request may be sent
    again. `retry_after`: the seconds a client should wait (the `Retry-After` header)."""

    title = "Service Unavailable"
    retry_after: int = 5


class DatabaseUnavailableError(ServiceUnavailableError):
    """MongoDB could not be reached: the connection was lost, no primary was elected in time, or
    server selection timed out (`engine.db` turns the driver's errors into this one)."""


class JobQueueUnavailableError(ServiceUnavailableError):
    """Redis (FW_REDIS_URL) does not answer, so a job could not be queued or looked up now."""


class ConfigurationError(FwError):
    title = "Configuration Error"
