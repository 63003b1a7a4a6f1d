"""Jobs the jobs benchmark enqueues."""

from __future__ import annotations

import time


def noop() -> None:
    """Does nothing: the throughput figure is fw's and arq's own cost per job."""


def started_at() -> float:
    """When the job started running (wall clock), for the enqueue-to-start latency."""
    return time.time()
