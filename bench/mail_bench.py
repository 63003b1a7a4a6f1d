"""Issue 31: 1,000 queued mails to a local SMTP server (aiosmtpd), sent by one worker.

    python bench/mail_bench.py [--mails 1000] [--per-transaction 100]

On a real mongod and Redis (jobs through arq and the job outbox, no worker running while mails are
queued, so each way of sending starts from the same full queue). The SMTP server is aiosmtpd in a
process of its own (not competing with the sender for this process's interpreter); it writes the
subject of every mail it receives to a file, which tells whether each mail arrived exactly once.

Each round queues MAILS mails with `fw.sendmail` (PER_TRANSACTION per unit of work), then sends them
one of three ways:

- `one connection per mail`: every mail through `send_one` on its own SMTP connection (what `flush`
  did before issue 31's benchmark);
- `flush, 1 connection`: `engine.mail.queue.flush`, the scheduled job, with FLUSH_CONNECTIONS = 1:
  its run of mails shares one connection;
- `flush, 4 connections`: the same with its default FLUSH_CONNECTIONS (4 lanes, each a connection
  kept for its run);
- `jobs, one worker`: the `send_queued` jobs that `sendmail` queued, run by one arq worker
  (`fw worker` with its default of 10 jobs at a time), each job on its own connection.

Prints mails/s for the queueing and for each way of sending (wall clock, one process), and checks
that every mail arrived exactly once and is `Sent`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine import db  # noqa: E402
from engine.apps.loader import build_registry  # noqa: E402
from engine.context import unit_of_work  # noqa: E402
from engine.documents import store  # noqa: E402
from engine.jobs.backends import backend_for  # noqa: E402
from engine.jobs.worker import build_worker  # noqa: E402
from engine.mail import account  # noqa: E402
from engine.mail import queue as mail_queue  # noqa: E402
from engine.migrate import migrate  # noqa: E402
from engine.mongod import embedded  # noqa: E402
from engine.settings import Settings  # noqa: E402
from engine.site import Site  # noqa: E402
from tests.support.smtp import free_port  # noqa: E402

SINK = """
import sys, time
from aiosmtpd.controller import Controller

class Handler:
    def __init__(self, out):
        self.out = out

    async def handle_DATA(self, server, session, envelope):
        for line in (envelope.original_content or b"").split(b"\\r\\n"):
            if line.startswith(b"Subject: "):
                self.out.write(line[9:].decode() + "\\n")
                self.out.flush()
                break
        return "250 Message accepted for delivery"

with open(sys.argv[2], "a") as out:
    controller = Controller(Handler(out), hostname="127.0.0.1", port=int(sys.argv[1]))
    controller.start()
    print("listening", flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        controller.stop()
"""
WAYS = ("one connection per mail", "flush, 1 connection", f"flush, {mail_queue.FLUSH_CONNECTIONS} connections",
        "jobs, one worker")


async def queue_mails(site: Site, prefix: str, count: int, per_transaction: int) -> tuple[list[str], float]:
    names: list[str] = []
    started = time.perf_counter()
    for first in range(0, count, per_transaction):
        ctx = site.context("Administrator")
        async with unit_of_work(ctx):
            for i in range(first, min(first + per_transaction, count)):
                names.append(await mail_queue.sendmail(
                    ctx, [f"employee{i}@example.com"], f"{prefix} {i}",
                    f"<p>Hello employee {i},</p><p>your monthly score is ready.</p>"))
    return names, count / (time.perf_counter() - started)


async def send(site: Site, way: str, names: list[str]) -> float:
    started = time.perf_counter()
    if way == "one connection per mail":
        config = await account.outgoing(site)
        for name in names:
            await mail_queue.send_one(site, name, config=config)
    elif way.startswith("flush"):
        lanes, mail_queue.FLUSH_CONNECTIONS = mail_queue.FLUSH_CONNECTIONS, int(way.split()[1])
        try:
            while await mail_queue.flush(site.context("Administrator")):
                pass
        finally:
            mail_queue.FLUSH_CONNECTIONS = lanes
    else:
        worker = build_worker(site, "short", burst=True)
        try:
            await worker.main()
        finally:
            await worker.close()
    return len(names) / (time.perf_counter() - started)


def arrived(path: Path, prefix: str, count: int, timeout: float = 30.0) -> Counter[str]:
    deadline = time.monotonic() + timeout
    while True:
        lines = [s for s in path.read_text().splitlines() if s.startswith(prefix + " ")]
        if len(lines) >= count or time.monotonic() > deadline:
            time.sleep(0.5)  # (a duplicate would arrive now)
            return Counter(s for s in path.read_text().splitlines() if s.startswith(prefix + " "))
        time.sleep(0.05)


async def main(mails: int, per_transaction: int) -> None:
    from tests.support.redis_server import start_redis

    data_dir = Path(tempfile.mkdtemp(prefix="fw-bench-mail-"))
    received = data_dir / "received.txt"
    received.touch()
    port = free_port()
    sink = subprocess.Popen([sys.executable, "-c", SINK, str(port), str(received)], stdout=subprocess.PIPE,
                            cwd=REPO)
    assert sink.stdout is not None and sink.stdout.readline().strip() == b"listening"
    mongod = embedded.start(data_dir / "mongo", durable=True)
    redis = None
    redis_url = os.environ.get("FW_TEST_REDIS_URL")
    if not redis_url:
        redis = start_redis()
        redis_url = redis.url
    try:
        settings = Settings(root_dir=data_dir, mongo_url=mongod.url, db_name="fw_bench_mail", data_dir=data_dir,
                            redis_url=redis_url, admin_password="bench-admin", access_log="off",
                            smtp_url=f"smtp://127.0.0.1:{port}", mail_sender="fw <fw@example.com>")
        site = Site(settings, db.connect(mongod.url, "fw_bench_mail"), build_registry(data_dir / "apps", []))
        await site.db.drop()
        await migrate(site)
        pool = await backend_for(site).pool()  # type: ignore[attr-defined]
        print(f"{mails:,} mails per way, queued {per_transaction} per transaction; SMTP: aiosmtpd in its own "
              f"process on 127.0.0.1:{port}\n")
        rows = []
        for round_, way in enumerate(WAYS):
            await pool.flushdb()  # only this round's jobs in the queue
            prefix = f"R{round_}"
            names, queue_rate = await queue_mails(site, prefix, mails, per_transaction)
            rate = await send(site, way, names)
            got = arrived(received, prefix, mails)
            statuses = Counter(r["status"] for r in await store.collection_of(site, "Email Queue").find(
                {"_id": {"$in": names}}, {"status": 1}).to_list(None))
            once = len(got) == mails and set(got.values()) == {1}
            rows.append((way, queue_rate, rate, once, dict(statuses)))
        print("| sending | queued mails/s | sent mails/s (one worker) | each arrived exactly once | statuses |")
        print("|---|---|---|---|---|")
        for way, queue_rate, rate, once, statuses in rows:
            print(f"| {way} | {queue_rate:,.0f} | {rate:,.0f} | {once} | {statuses} |")
        await site.db.drop()
        await site.db.close()
    finally:
        sink.terminate()
        sink.wait(10)
        mongod.stop()
        if redis is not None:
            redis.stop()
            shutil.rmtree(redis.workdir, ignore_errors=True)
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mails", type=int, default=1000)
    parser.add_argument("--per-transaction", type=int, default=100)
    args = parser.parse_args()
    asyncio.run(main(args.mails, args.per_transaction))
