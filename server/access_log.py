"""The access log (FW_ACCESS_LOG = off | text | json): one line per HTTP request with its method, path,
status, duration, request id, user and client address, on stdout.

The event loop never formats or writes a line: a finished request puts one tuple on a queue (a
lock-free `SimpleQueue.put`, about a microsecond), and a writer thread turns what has queued into
lines and writes them in one call. `logging`'s QueueHandler would do the same with more work per
request on the loop (a LogRecord, formatting in `prepare`). The query string is left out: it can
carry secrets (a password in a GET login, a key in a link). The edge layer (`server.middleware`)
records each request: it already has the request id and sees the response start.

    text: 2026-05-01T10:00:00.123Z GET /api/resource/Employee 200 3.2ms rid=2f1c00000001 user=Administrator
          client=127.0.0.1   (one line)
    json: {"time":"2026-05-01T10:00:00.123Z","method":"GET","path":"/api/resource/Employee","status":200,
          "duration_ms":3.2,"request_id":"2f1c00000001","user":"Administrator","client":"127.0.0.1"}
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import queue
import sys
import threading
import time
from typing import TextIO

import orjson

Entry = tuple[float, str, str, int, float, str, str, str]  # time, method, path, status, ms, request id, user, client
FORMATS = ("off", "text", "json")
BATCH_SECONDS = 0.05  # lines are handed to the writer thread at most this often


_second: tuple[int, str] = (-1, "")  # the last second formatted (lines come in bursts within one second)


def _timestamp(moment: float) -> str:
    global _second
    second = int(moment)
    if second != _second[0]:
        _second = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
    return f"{_second[1]}.{int((moment - second) * 1000):03d}Z"


def format_text(entry: Entry) -> str:
    moment, method, path, status, ms, request_id, user, client = entry
    return f"{_timestamp(moment)} {method} {path} {status} {ms:.1f}ms rid={request_id} user={user} client={client}"


def format_json(entry: Entry) -> str:
    moment, method, path, status, ms, request_id, user, client = entry
    return orjson.dumps({"time": _timestamp(moment), "method": method, "path": path, "status": status,
                         "duration_ms": round(ms, 3), "request_id": request_id, "user": user,
                         "client": client}).decode()


class AccessLog:
    """Lines formatted on the event loop and handed, joined, to a daemon thread that writes them.

    The loop keeps the lines of one interval (`BATCH_SECONDS`) and passes them on at its end, so the
    thread wakes (and takes the GIL) once per interval, and only for a write, which releases it. Two
    designs measured worse (bench/ab_bench.py): a thread woken per request to format and write its
    line costs ~100 µs of CPU per request in GIL handovers, and a thread that sleeps between draining
    the queue and formatting what piled up holds the GIL in long stretches the loop waits on, which
    halved a server's throughput."""

    def __init__(self, kind: str, stream: TextIO | None = None) -> None:
        if kind not in ("text", "json"):
            raise ValueError(f"access log format must be text or json, not {kind!r}")
        self.format = format_text if kind == "text" else format_json
        self.stream = stream
        self._lines: list[str] = []
        self._flush_at: asyncio.TimerHandle | None = None
        self._queue: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._write, name="fw-access-log", daemon=True)
        self._thread.start()
        atexit.register(self.close)  # what is still pending at exit is written

    def record(self, entry: Entry) -> None:
        self._lines.append(self.format(entry))
        if self._flush_at is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # not on an event loop: nothing would flush later, so now
                self.flush()
                return
            self._flush_at = loop.call_later(BATCH_SECONDS, self.flush)

    def flush(self) -> None:
        """Hand what was recorded so far to the writer thread."""
        if self._flush_at is not None:
            self._flush_at.cancel()
            self._flush_at = None
        if self._lines:
            self._queue.put("\n".join(self._lines) + "\n")
            self._lines = []

    def close(self, timeout: float = 5.0) -> None:
        self.flush()
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join(timeout)

    def _write(self) -> None:
        while True:
            text = self._queue.get()
            if text is None:
                return
            stream = self.stream or sys.stdout  # resolved late: a server may swap stdout
            with contextlib.suppress(OSError, ValueError):  # stdout closed (shutting down): nowhere to write
                stream.write(text)
                stream.flush()


_process_log: dict[str, AccessLog] = {}


def for_process(kind: str) -> AccessLog | None:
    """The process's access log of this format (one writer thread per process), or None for `off`."""
    if kind == "off":
        return None
    if kind not in _process_log:
        _process_log[kind] = AccessLog(kind)
    return _process_log[kind]
