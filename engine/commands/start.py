"""`fw start`: the whole site in one command, as Frappe's `bench start`: the web server, the scheduler
and, with FW_REDIS_URL, a worker, under engine/commands/supervisor.py (prefixed output per process, restarts,
a clean stop on Ctrl+C or SIGTERM).

On the embedded default it starts the site's mongod once and holds it while it runs; its processes
(and any other fw command run meanwhile) attach to it (engine/mongod/site_mongod.py). Should that mongod
die, `fw start` starts it again on the same port within a second or two, and the processes' drivers
reconnect by themselves. One `fw start` per
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

from engine import exceptions as exc
from engine.commands._base import fail, hold_embedded_mongod, opened_site, run
from engine.commands.supervisor import ProcessSpec, Supervisor
from engine.mongod import site_mongod
from engine.mongod.site_mongod import SharedMongod
from engine.settings import Settings, get_settings

MONGOD_CHECK_SECONDS = 1.0


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


async def supervise(supervisor: Supervisor, settings: Settings, held: list[SharedMongod]) -> int:
    """Run the supervisor; meanwhile, if the site's embedded mongod (in `held`) dies, start it again
    on its port, so the processes' drivers reconnect to it by themselves."""
    watchdog = asyncio.create_task(_keep_mongod_running(supervisor, settings, held)) if held else None
    try:
        return await supervisor.run()
    finally:
        if watchdog is not None:
            watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watchdog


async def _keep_mongod_running(supervisor: Supervisor, settings: Settings, held: list[SharedMongod]) -> None:
    data_dir = settings.data_dir / "mongo"
    delay = MONGOD_CHECK_SECONDS
    while True:
        await asyncio.sleep(delay)
        if site_mongod.running_pid(data_dir) is not None:
            delay = MONGOD_CHECK_SECONDS
            continue
        supervisor.say(f"the site's MongoDB (pid {held[-1].pid}) is gone; starting it again")
        try:
            fresh = await asyncio.to_thread(site_mongod.attach, data_dir, durable=settings.durable_writes)
        except exc.ConfigurationError as e:
            delay = min(delay * 2, 30.0)
            supervisor.say(f"cannot start MongoDB: {e} (trying again in {delay:g}s)")
            continue
        old = held.pop()
        old.detach()
        held.append(fresh)
        supervisor.say(f"MongoDB runs again (pid {fresh.pid}, port {fresh.port})")
        if fresh.port != old.port:  # its old port was taken meanwhile: the processes must connect anew
            supervisor.say(f"its port changed from {old.port}: restarting the processes")
            await supervisor.restart_all()


@click.command("start")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address the web server listens on.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port of the web server.")
def start(host: str, port: int) -> None:
    """Run the site: web server, scheduler and (with FW_REDIS_URL) a worker. Ctrl+C stops them all.

    Migrates first. A process that dies is restarted (after 0.5 s, doubling while it keeps failing);
    one that fails 5 times in a row within 10 s of starting stops everything (exit code 1).
    """
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.migrate import migrate

    settings = get_settings()
    lock = lock_site(settings)
    mongod = hold_embedded_mongod(settings)
    held = [mongod] if mongod is not None else []  # the watchdog swaps in a new handle after a restart
    try:
        async def go(settings: Settings) -> str:
            async with opened_site(settings) as site:
                return (await migrate(site)).summary()

        click.echo(f"Migrated {settings.db_name}: {run(go)}")
        code = asyncio.run(supervise(Supervisor(process_specs(settings, host, port)), settings, held))
    finally:
        for handle in held:
            handle.release()
        with contextlib.suppress(OSError):
            site_lock_path(settings).unlink()
        os.close(lock)
    sys.exit(code)
