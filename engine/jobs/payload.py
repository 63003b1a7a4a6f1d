"""What travels with a job: the site, the enqueuing user and language, the method and its kwargs."""

from __future__ import annotations

import importlib
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from engine import exceptions as exc

QUEUES = ("short", "default", "long")
DEFAULT_TIMEOUTS = {"short": 300, "default": 300, "long": 1500}
MAX_TIMEOUT = 24 * 3600  # s: what a job without a timeout (0) may run in a worker
# A job carried by the write of one document: kept in that document's own record until a relay takes
# it (engine/jobs/outbox.py), so that it exists exactly when the write does, with no transaction.
CARRIED = "_fw_jobs"  # {enqueue_id: the job as the outbox keeps it}
CARRIED_AT = "_fw_jobs_at"  # set while the record carries jobs: what the relays look for (sparse index)
CARRIED_KEYS = frozenset({CARRIED, CARRIED_AT})


@dataclass
class JobPayload:
    site: str
    user: str
    lang: str
    method: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    queue: str = "default"
    timeout: float = 300
    job_id: str = ""
    job_name: str | None = None
    on_success: str | None = None
    on_failure: str | None = None
    scheduled_job_type: str | None = None
    scheduled_due: str | None = None
    # this one enqueue call (a job id may be enqueued again later): tells a relay that sends a job
    # from the outbox a second time that the job under this id is the same one, not a new one
    enqueue_id: str = field(default_factory=lambda: uuid.uuid4().hex)

    def to_dict(self) -> dict[str, Any]:
        # shallow (`asdict` would copy `kwargs` deeply: a document's values, row by row, on every enqueue)
        return {name: getattr(self, name) for name in _NAMES}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JobPayload:
        """From `to_dict`'s shape; keys this version does not know (a newer fw's) are ignored."""
        known = _FIELDS
        return cls(**{key: value for key, value in data.items() if key in known})


def carry_in_record(record: dict[str, Any], jobs: Mapping[str, dict[str, Any]]) -> None:
    """Put `jobs` (`{enqueue_id: entry}`, from `engine.jobs.queue.carry`) into a record about to be
    inserted."""
    record[CARRIED] = dict(jobs)
    record[CARRIED_AT] = time.time()


def carry_in_update(set_: dict[str, Any], jobs: Mapping[str, dict[str, Any]]) -> None:
    """Add `jobs` to a record's carried jobs with its update's `$set` (beside any still waiting)."""
    for enqueue_id, entry in jobs.items():
        set_[f"{CARRIED}.{enqueue_id}"] = entry
    set_[CARRIED_AT] = time.time()


_NAMES = tuple(f.name for f in fields(JobPayload))
_FIELDS = frozenset(_NAMES)


def dotted_path(method: str | Callable[..., Any]) -> str:
    if isinstance(method, str):
        return method
    module, qualname = getattr(method, "__module__", None), getattr(method, "__qualname__", "")
    if not module or "<" in qualname or "." in qualname:
        raise exc.ValidationError(f"Cannot enqueue {method!r}: pass a module-level function or its dotted path")
    return f"{module}.{qualname}"


# Modules whose job functions moved when engine/ was regrouped: a job queued (or kept in the outbox)
# before an upgrade names the old path, and still runs until the queues have drained.
MOVED_MODULES = {"engine.bulk_actions": "engine.desk.bulk_actions"}


def resolve(path: str) -> Callable[..., Any]:
    """Import a job function; an unknown path is a clear error (raised at enqueue time)."""
    module_path, _sep, attr = path.rpartition(".")
    module_path = MOVED_MODULES.get(module_path, module_path)
    if not module_path:
        raise exc.ValidationError(f"Cannot enqueue {path!r}: expected a dotted path like 'app.module.function'")
    try:
        module = importlib.import_module(module_path)
    except ImportError as e:
        raise exc.ValidationError(f"Cannot enqueue {path!r}: module {module_path!r} not found ({e})") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise exc.ValidationError(f"Cannot enqueue {path!r}: {module_path!r} has no function {attr!r}")
    return fn
