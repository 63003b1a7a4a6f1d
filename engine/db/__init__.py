"""The only package that imports the MongoDB driver.

Two backends share one surface: a real MongoDB through PyMongo's native async client
(`AsyncMongoClient`), and the in-memory `mongomock-motor` fallback. The in-memory backend has the
same API but no transactions: a unit of work there writes immediately and cannot roll back.

Driver errors end here. `translate_errors` turns them into engine exceptions, and `Retry` decides
whether a failed unit of work is run again: after a write conflict, and after a lost connection
or a missing primary while some replica-set member still answers (an election), within the
database's retry budget. A database that nobody answers for is `DatabaseUnavailableError` as soon
as server selection gives up (`serverSelectionTimeoutMS`, a few seconds).

Its parts: `connection` (connecting, `Database`), `memory` (the in-memory backend), `calls` (driver
calls whose shape differs between the backends), `errors` (translation and failure kinds),
`unit_of_work`, `retry` and `replica_set` (bootstrap of a private mongod). The rest of the engine
imports this package and uses the names below.
"""

from engine.db.calls import aggregate, create_collection, drop_index, index_model, list_indexes
from engine.db.connection import (
    AFTER,
    ASCENDING,
    DEFAULT_RETRY_BUDGET_MS,
    DEFAULT_SERVER_SELECTION_TIMEOUT_MS,
    DESCENDING,
    READ_CONCERN,
    REDISCOVERY_WAIT,
    RETRY_BUDGET_OPTION,
    TRANSACTION_READ_CONCERN,
    WRITE_CONCERN,
    Backend,
    Database,
    DriverError,
    connect,
    is_unreachable,
    monotonic_ms,
    redacted,
)
from engine.db.errors import (
    DUPLICATE_KEY,
    WRITE_CONFLICT,
    Failure,
    bulk_write_errors,
    conflict_error,
    failure_kind,
    is_duplicate_key,
    translate_error,
    translate_errors,
    unavailable_error,
)
from engine.db.memory import connect_memory
from engine.db.replica_set import ensure_replica_set
from engine.db.retry import Retry
from engine.db.unit_of_work import KILL_SESSION_WAIT, UnitOfWork, end_unit

__all__ = [
    "AFTER", "ASCENDING", "DEFAULT_RETRY_BUDGET_MS", "DEFAULT_SERVER_SELECTION_TIMEOUT_MS", "DESCENDING",
    "DUPLICATE_KEY", "KILL_SESSION_WAIT", "READ_CONCERN", "REDISCOVERY_WAIT", "RETRY_BUDGET_OPTION",
    "TRANSACTION_READ_CONCERN", "WRITE_CONCERN", "WRITE_CONFLICT", "Backend", "Database", "DriverError",
    "Failure", "Retry", "UnitOfWork", "aggregate", "bulk_write_errors", "conflict_error", "connect",
    "connect_memory", "create_collection", "drop_index", "end_unit", "ensure_replica_set", "failure_kind",
    "index_model", "is_duplicate_key", "is_unreachable", "list_indexes", "monotonic_ms", "redacted",
    "translate_error", "translate_errors", "unavailable_error",
]
