"""The access log (FW_ACCESS_LOG = off | text | json): one line per HTTP request with its method, path,
status, duration, request id, user and client address, on stdout.

The event loop never formats or writes a line: a finished request puts one tuple on a queue (a
lock-free `SimpleQueue.put`, about a microsecond), and a writer thread turns what has queued into
lines and writes them in one call. `logging`'s QueueHandler would do the same with more work per
request on the loop (a LogRecord, formatting in `prepare`). The query string is left out: it can
carry secrets (a password in a GET login, a key in a link).

    text: 2026-05-01T10:00:00.123Z GET /api/resource/Employee 200 3.2ms rid=2f1c00000001 user=Administrator
          client=127.0.0.1   (one line)
    json: {"time":"2026-05-01T10:00:00.123Z","method":"GET","path":"/api/resource/Employee","status":200,
          "duration_ms":3.2,"request_id":"2f1c00000001","user":"Administrator","client":"127.0.0.1"}
"""

from __future__ import annotations

import atexit
import contextlib
import queue
import sys
import threading
import time
from typing import TextIO

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.context import scope_user

Entry = tuple[float, str, str, int, float, str, str, str]  # time, method, path, status, ms, request id, user, client
FORMATS = ("off", "text", "json")
BATCH_SECONDS = 0.05  # the writer thread drains the queue at most this often


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
    """A queue the request path appends to and a daemon thread that writes it out."""

    def __init__(self, kind: str, stream: TextIO | None = None) -> None:
        if kind not in ("text", "json"):
            raise ValueError(f"access log format must be text or json, not {kind!r}")
        self.format = format_text if kind == "text" else format_json
        self.stream = stream
        self._queue: queue.SimpleQueue[Entry | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._write, name="fw-access-log", daemon=True)
        self._thread.start()
        atexit.register(self.close)  # what is still queued at exit is written

    def record(self, entry: Entry) -> None:
        self._queue.put(entry)

    def close(self, timeout: float = 5.0) -> None:
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join(timeout)

    def _write(self) -> None:
        while True:
            entry = self._queue.get()
            lines = []
            while entry is not None:  # everything queued so far, written at once
                lines.append(self.format(entry))
                try:
                    entry = self._queue.get_nowait()
                except queue.Empty:
                    break
            stream = self.stream or sys.stdout  # resolved late: a server may swap stdout
            if lines:
                with contextlib.suppress(OSError, ValueError):  # stdout closed (shutting down): nowhere to write
                    stream.write("\n".join(lines) + "\n")
                    stream.flush()
            if entry is None:
                return
            # let a busy server's lines pile up: one wake-up of this thread (and one handover of the
            # GIL) per interval rather than per request, which cost the event loop ~15 % of its requests
            time.sleep(BATCH_SECONDS)


class AccessLogMiddleware:
    """The outermost ASGI layer when the access log is on (with it off, requests never pass here). It
    reads the status and the request id (set by the edge layer) from the response start, and the user
    from the scope once the request is done."""

    def __init__(self, app: ASGIApp, *, log: AccessLog) -> None:
        self.app = app
        self.log = log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        if scope["type"] != "http" or path.startswith("/socket.io"):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0
        request_id = b"-"

        async def logged_send(message: Message) -> None:
            nonlocal status, request_id
            if message["type"] == "http.response.start":
                status = message["status"]
                for name, value in reversed(message.get("headers", ())):  # the edge layer appends it
                    if name == b"x-request-id":
                        request_id = value
                        break
            await send(message)

        try:
            await self.app(scope, receive, logged_send)
        finally:
            client = scope.get("client")
            self.log.record((time.time(), scope["method"], path, status or 500,
                             (time.perf_counter() - started) * 1000, request_id.decode("latin-1"),
                             scope_user(scope) or "-", client[0] if client else "-"))


_process_log: dict[str, AccessLog] = {}


def for_process(kind: str) -> AccessLog | None:
    """The process's access log of this format (one writer thread per process), or None for `off`."""
    if kind == "off":
        return None
    if kind not in _process_log:
        _process_log[kind] = AccessLog(kind)
    return _process_log[kind]
