"""engine/commands/supervisor.py with real (small Python) child processes: prefixed, coloured output; a clean
stop that leaves no process behind (children, what they started, ones that ignore SIGTERM); restarts
with a growing delay; giving up, loudly, on a crash loop."""

from __future__ import annotations

import asyncio
import io
import re
import sys
import time

from engine.commands.supervisor import ProcessSpec, RestartPolicy, Supervisor
from engine.mongod.embedded import process_alive

FAST = RestartPolicy(first_delay=0.05, max_delay=1.0, stable_after=5.0, max_quick_failures=3)


def py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


async def _run_until(supervisor: Supervisor, out: io.StringIO, text: str, timeout: float = 20.0) -> asyncio.Task[int]:
    """Start `supervisor.run()` and return its task once `text` was printed."""
    task = asyncio.create_task(supervisor.run())
    deadline = time.monotonic() + timeout
    while text not in out.getvalue():
        assert not task.done(), out.getvalue()
        assert time.monotonic() < deadline, f"{text!r} not printed within {timeout}s:\n{out.getvalue()}"
        await asyncio.sleep(0.02)
    return task


async def test_prefixed_output_and_a_clean_stop() -> None:
    out = io.StringIO()
    supervisor = Supervisor([
        ProcessSpec("web", py("import time; print('hello from web', flush=True); time.sleep(60)")),
        ProcessSpec("scheduler", py("import sys, time; print('to stderr', file=sys.stderr, flush=True); "
                                    "time.sleep(60)")),
    ], out=out, colour=False, policy=FAST)
    task = await _run_until(supervisor, out, "to stderr")
    await _wait_for(out, "hello from web")
    pids = [c.pids[-1] for c in supervisor.children]
    supervisor.stop()
    assert await task == 0
    text = out.getvalue()
    assert re.search(r"^\d\d:\d\d:\d\d web       \| hello from web$", text, re.MULTILINE), text
    assert re.search(r"^\d\d:\d\d:\d\d scheduler \| to stderr$", text, re.MULTILINE), text
    assert re.search(r"system    \| started web \(pid \d+\)", text) and text.rstrip().endswith("| stopped"), text
    assert not any(process_alive(pid) for pid in pids)


async def test_colours_per_process() -> None:
    out = io.StringIO()
    supervisor = Supervisor([ProcessSpec("a", py("print('from-a', flush=True); import time; time.sleep(60)")),
                             ProcessSpec("b", py("print('from-b', flush=True); import time; time.sleep(60)"))],
                            out=out, colour=True, policy=FAST)
    task = await _run_until(supervisor, out, "from-b")
    await _wait_for(out, "from-a")
    supervisor.stop()
    assert await task == 0
    text = out.getvalue()
    a = re.search(r"\x1b\[(\d+)m\d\d:\d\d:\d\d a      \|\x1b\[0m from-a", text)
    b = re.search(r"\x1b\[(\d+)m\d\d:\d\d:\d\d b      \|\x1b\[0m from-b", text)
    assert a and b and a.group(1) != b.group(1), text


async def test_a_child_that_dies_is_restarted_with_a_growing_delay() -> None:
    out = io.StringIO()
    supervisor = Supervisor([ProcessSpec("job", py("import time; print('up', flush=True); time.sleep(60)"))],
                            out=out, colour=False, policy=FAST)
    task = await _run_until(supervisor, out, "| up")
    child = supervisor.children[0]
    first = child.pids[0]
    child.process.kill()  # type: ignore[union-attr]
    deadline = time.monotonic() + 20
    while len(child.pids) < 2 or out.getvalue().count("| up") < 2:
        assert time.monotonic() < deadline, out.getvalue()
        await asyncio.sleep(0.02)
    assert child.pids[1] != first and process_alive(child.pids[1]) and not process_alive(first)
    assert re.search(r"job exited with code -9 after [\d.]+s; restarting in 0\.05s", out.getvalue()), out.getvalue()
    supervisor.stop()
    assert await task == 0


async def test_a_crash_loop_stops_everything_with_exit_code_1() -> None:
    out = io.StringIO()
    supervisor = Supervisor([ProcessSpec("bad", py("import sys; print('boom', flush=True); sys.exit(3)")),
                             ProcessSpec("good", py("import time; time.sleep(60)"))],
                            out=out, colour=False, policy=FAST)
    assert await asyncio.wait_for(supervisor.run(), 60) == 1
    text = out.getvalue()
    assert text.count("| boom") == 3, text
    delays = re.findall(r"bad exited with code 3 after [\d.]+s; restarting in ([\d.]+)s", text)
    assert delays == ["0.05", "0.1"], text  # doubling
    assert "giving up: bad exited 3 times in a row within 5s of starting (last exit code 3)" in text, text
    good = supervisor.children[1].pids
    assert good and not any(process_alive(pid) for pid in good)


async def test_stop_kills_what_ignores_sigterm_and_what_children_left_behind() -> None:
    out = io.StringIO()
    stubborn = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); " \
               "time.sleep(60)"
    parent = "import subprocess, time; p = subprocess.Popen(['sleep', '60']); " \
             "print('grandchild', p.pid, flush=True); time.sleep(60)"
    supervisor = Supervisor([ProcessSpec("stubborn", py(stubborn)), ProcessSpec("parent", py(parent))],
                            out=out, colour=False, policy=FAST, stop_timeout=0.5)
    task = await _run_until(supervisor, out, "| ready")
    await _wait_for(out, "grandchild ")
    grandchild = int(re.search(r"grandchild (\d+)", out.getvalue()).group(1))  # type: ignore[union-attr]
    pids = [c.pids[-1] for c in supervisor.children]
    supervisor.stop()
    assert await task == 0
    assert "stubborn (pid" in out.getvalue() and "did not stop within 0.5s; killing it" in out.getvalue()
    deadline = time.monotonic() + 10
    while any(process_alive(pid) for pid in [*pids, grandchild]):
        assert time.monotonic() < deadline, [(pid, process_alive(pid)) for pid in [*pids, grandchild]]
        await asyncio.sleep(0.02)


async def _wait_for(out: io.StringIO, text: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while text not in out.getvalue():
        assert time.monotonic() < deadline, out.getvalue()
        await asyncio.sleep(0.02)
