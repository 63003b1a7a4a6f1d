"""`fw start`: the whole site in one command, as Frappe's `bench start`: the web server, the scheduler
and, with FW_REDIS_URL, a worker, under engine/supervisor.py (prefixed output per process, restarts,
a clean stop on Ctrl+C or SIGTERM).

On the embedded default it starts the site's mongod once and holds it while it runs; its processes
(and any other fw command run meanwhile) attach to it (engine/site_mongod.py). One `fw start` per
site: a second one finds the first one's lock and exits 2 naming its PID.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import sys
from pathlib import Path

import click

from engine.commands._base import fail, opened_site, run
from engine.settings import Settings, get_settings
from engine.supervisor import ProcessSpec, Supervisor


def site_lock_path(settings: Settings) -> Path:
    return settings.data_dir / f"start-{settings.db_name}.pid"


def lock_site(settings: Settings) -> int:
    """Hold the site's `fw start` lock (an flock, dropped by the kernel however this process ends)
    with our PID in it; fails (exit 2) naming the PID of the `fw start` that holds it."""
    path = site_lock_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        pid = path.read_text().strip() or "unknown"
        fail(f"Site {settings.db_name!r} is already running (fw start, PID {pid}; lock {path}). Use that one, "
             f"or stop it first (Ctrl+C in its terminal, or `kill {pid}`).")
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def process_specs(settings: Settings, host: str, port: int) -> list[ProcessSpec]:
    fw = [sys.executable, "-m", "engine.cli"]
    specs = [ProcessSpec("web", [*fw, "serve", "--host", host, "--port", str(port)]),
             ProcessSpec("scheduler", [*fw, "scheduler"])]
    if settings.redis_url:  # without Redis, jobs run inside the process that enqueues them
        specs.append(ProcessSpec("worker", [*fw, "worker"]))
    return specs


@click.command("start")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address the web server listens on.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port of the web server.")
def start(host: str, port: int) -> None:
    """Run the site: web server, scheduler and (with FW_REDIS_URL) a worker. Ctrl+C stops them all.

    Migrates first. A process that dies is restarted (after 0.5 s, doubling while it keeps failing);
    one that fails 5 times in a row within 10 s of starting stops everything (exit code 1).
    """
    from engine.cli import hold_embedded_mongod
    from engine.migrate import migrate

    settings = get_settings()
    lock = lock_site(settings)
    mongod = hold_embedded_mongod(settings)
    try:
        async def go(settings: Settings) -> str:
            async with opened_site(settings) as site:
                return (await migrate(site)).summary()

        click.echo(f"Migrated {settings.db_name}: {run(go)}")
        code = asyncio.run(Supervisor(process_specs(settings, host, port)).run())
    finally:
        if mongod is not None:
            mongod.release()
        with contextlib.suppress(OSError):
            site_lock_path(settings).unlink()
        os.close(lock)
    sys.exit(code)
