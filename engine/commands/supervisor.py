"""A small process supervisor on asyncio subprocesses, for `fw start` (Frappe's `bench start`).

Why not honcho, which bench uses: honcho (like foreman) stops every process as soon as one exits, and
`fw start` must restart a process that dies, with a backoff, and give up loudly on a crash loop.
honcho has no restart, so it would take a wrapper around each process anyway; what remains of it
(a Procfile, prefixed output) is a few lines here. One event loop reads every child's output and
waits for every exit, without a thread per process.

Each child runs in its own session, so a Ctrl+C in the terminal reaches the supervisor only, which
stops the children in order (SIGTERM, then SIGKILL after `stop_timeout`), and with PR_SET_PDEATHSIG,
so a supervisor killed outright (SIGKILL) takes its children with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TextIO

COLOURS = ("36", "33", "32", "35", "34", "31")  # cyan, yellow, green, magenta, blue, red (ANSI)


@dataclass
class ProcessSpec:
    name: str
    argv: list[str]
    env: Mapping[str, str] | None = None


@dataclass
class RestartPolicy:
    """A child that exits is started again after `first_delay`, doubled after each quick failure
    (one that ran under `stable_after` seconds) up to `max_delay`. After `max_quick_failures` quick
    failures in a row the supervisor gives up: it stops everything and exits 1."""

    first_delay: float = 0.5
    max_delay: float = 30.0
    stable_after: float = 10.0
    max_quick_failures: int = 5


@dataclass
class _Child:
    spec: ProcessSpec
    colour: str
    process: asyncio.subprocess.Process | None = None
    started: float = 0.0
    quick_failures: int = 0
    pids: list[int] = field(default_factory=list)


def _die_with_parent() -> None:
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Supervisor:
    def __init__(self, specs: list[ProcessSpec], *, out: TextIO | None = None, colour: bool | None = None,
                 policy: RestartPolicy | None = None, stop_timeout: float = 20.0) -> None:
        self.out = out or sys.stdout
        self.colour = self._wants_colour(self.out) if colour is None else colour
        self.policy = policy or RestartPolicy()
        self.stop_timeout = stop_timeout
        self.children = [_Child(spec, COLOURS[i % len(COLOURS)]) for i, spec in enumerate(specs)]
        self.width = max([len("system"), *(len(s.name) for s in specs)])
        self._stopping = asyncio.Event()
        self._gave_up: str | None = None

    @staticmethod
    def _wants_colour(out: TextIO) -> bool:
        if os.environ.get("NO_COLOR"):
            return False
        return bool(os.environ.get("FORCE_COLOR")) or (hasattr(out, "isatty") and out.isatty())

    # -- output ---------------------------------------------------------------------------------

    def emit(self, name: str, colour: str, line: str) -> None:
        prefix = f"{time.strftime('%H:%M:%S')} {name:<{self.width}} |"
        if self.colour:
            prefix = f"\x1b[{colour}m{prefix}\x1b[0m"
        self.out.write(f"{prefix} {line}\n")
        self.out.flush()

    def say(self, message: str) -> None:
        self.emit("system", "1", message)

    async def _pump(self, child: _Child, stream: asyncio.StreamReader) -> None:
        while True:
            try:
                raw = await stream.readline()
            except ValueError:  # a line longer than the stream's limit: take what is buffered
                raw = await stream.read(64 * 1024)
            if not raw:
                return
            self.emit(child.spec.name, child.colour, raw.decode(errors="replace").rstrip("\r\n"))

    # -- lifecycle ------------------------------------------------------------------------------

    async def restart_all(self) -> None:
        """Stop every child; each is started again as after a crash (e.g. to reconnect elsewhere)."""
        await asyncio.gather(*(self._terminate(c) for c in self.children))

    def stop(self) -> None:
        """Ask every child to stop (what SIGINT and SIGTERM do)."""
        self._stopping.set()

    async def run(self) -> int:
        """Run the children until stopped or until one crash-loops; 0 after a requested stop, else 1."""
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.stop)
        watchers = [asyncio.create_task(self._watch(child)) for child in self.children]
        try:
            await self._stopping.wait()
        finally:
            self._stopping.set()
            self.say("stopping: " + ", ".join(c.spec.name for c in self.children))
            await asyncio.gather(*(self._terminate(c) for c in self.children))
            # the watchers end once they have shown what the stopped children wrote last
            _done, pending = await asyncio.wait(watchers, timeout=self.stop_timeout + 5.0)
            for watcher in pending:
                watcher.cancel()
            await asyncio.gather(*watchers, return_exceptions=True)
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(sig)
        if self._gave_up:
            self.say(self._gave_up)
            return 1
        self.say("stopped")
        return 0

    async def _spawn(self, child: _Child) -> asyncio.subprocess.Process:
        env = dict(os.environ if child.spec.env is None else child.spec.env)
        env.setdefault("PYTHONUNBUFFERED", "1")  # a child's lines show as they are written
        process = await asyncio.create_subprocess_exec(
            *child.spec.argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, env=env, start_new_session=True,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None)
        child.process, child.started = process, time.monotonic()
        child.pids.append(process.pid)
        self.say(f"started {child.spec.name} (pid {process.pid})")
        return process

    async def _watch(self, child: _Child) -> None:
        while not self._stopping.is_set():
            try:
                process = await self._spawn(child)
            except OSError as e:
                self._gave_up = f"giving up: cannot start {child.spec.name} ({' '.join(child.spec.argv)}): {e}"
                self.stop()
                return
            if self._stopping.is_set():  # the stop came while it was starting
                await self._terminate(child)
                return
            assert process.stdout is not None
            await self._pump(child, process.stdout)
            code = await process.wait()
            if self._stopping.is_set():
                return
            ran = time.monotonic() - child.started
            child.quick_failures = child.quick_failures + 1 if ran < self.policy.stable_after else 1
            if child.quick_failures >= self.policy.max_quick_failures:
                self._gave_up = (f"giving up: {child.spec.name} exited {child.quick_failures} times in a row within "
                                 f"{self.policy.stable_after:g}s of starting (last exit code {code}); "
                                 f"see its output above")
                self.stop()
                return
            delay = min(self.policy.first_delay * 2 ** (child.quick_failures - 1), self.policy.max_delay)
            self.say(f"{child.spec.name} exited with code {code} after {ran:.1f}s; restarting in {delay:g}s")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), delay)

    async def _terminate(self, child: _Child) -> None:
        process = child.process
        if process is None or process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), self.stop_timeout)
        except TimeoutError:
            self.say(f"{child.spec.name} (pid {process.pid}) did not stop within {self.stop_timeout:g}s; killing it")
        # the child's whole session, also what it started and left behind (e.g. uvicorn's workers)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
