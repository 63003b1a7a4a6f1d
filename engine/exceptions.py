"""fw's one exception hierarchy. Class names are what the wire carries in `exc_type`; the statuses
are those `server/errors.py` answers with (its one table, resolved by MRO: a class it does not name
takes its nearest ancestor's).

    class                                    status  raised for
    FwError                                  500     a server bug (the base; anything unnamed)
    ├── ValidationError                      417     business rule or bad input
    │   ├── MandatoryError                   417     a `reqd` field is empty
    │   ├── DataError                        417     unknown field, operator or malformed value in a query
    │   ├── FieldTypeError                   417     a value is not of its field's type
    │   ├── LinkValidationError              417     a Link points at nothing
    │   ├── UniqueValidationError            417     a `unique` field or index is violated
    │   ├── CharacterLengthExceededError     417     a value longer than its field's length
    │   ├── NonNegativeError                 417     a negative value in a `non_negative` field
    │   ├── InvalidNameError                 417     a name a document cannot take
    │   ├── CannotChangeConstantError        417     `set_only_once` field changed
    │   ├── TimestampMismatchError           417     optimistic concurrency on `modified`
    │   ├── DocstatusTransitionError         417     a docstatus change the document's state forbids
    │   ├── UpdateAfterSubmitError           417     a submitted document's field without `allow_on_submit`
    │   ├── WorkflowTransitionError          417     a workflow action the state or the user's roles forbid
    │   ├── LinkExistsError                  417     deleting or cancelling a document others link to
    │   ├── ArgumentTypeError                417     a whitelisted function's argument is missing or mistyped
    │   ├── MaxFileSizeReachedError          413     a file over FW_MAX_FILE_SIZE
    │   ├── DocumentTooLargeError            413     a document or query over MongoDB's 16 MB limit
    │   └── DoesNotExistError                404     no such document, doctype or path
    ├── PermissionError                      403     (shadows the builtin: import the module, not the name)
    ├── AuthenticationError                  401     wrong or missing credentials
    ├── DuplicateEntryError                  409     a document with that name exists
    ├── CSRFTokenError                       400     a cookie session's write without its token; a malformed
    │                                                Authorization header
    ├── BadRequestError                      400     malformed request body
    ├── TooManyRequestsError                 429     too many failed logins (a lockout; `Retry-After`)
    ├── TransientError                       409     retryable: write conflict between transactions
    │   └── DocumentChangedError             409     a save without `modified` met a concurrent change: runs again
    ├── ResponseTooLargeError                413     an answer over FW_MAX_RESPONSE_BYTES
    ├── QueryTimeoutError                    504     a request's query ran past FW_QUERY_TIMEOUT_MS
    ├── ServiceUnavailableError              503     a service fw needs is unreachable: retry later
    │   ├── DatabaseUnavailableError         503     MongoDB: connection lost, no primary, selection timed out
    │   └── JobQueueUnavailableError         503     Redis (the job queue) does not answer
    └── ConfigurationError                   500     a broken app, doctype JSON or setting (startup)

The engine never speaks HTTP: `server/errors.py` maps these classes to statuses in one table
(tests/server/test_errors.py holds this tree to the module and to that table).
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
