"""fw backup and fw restore vs a raw PyMongo copy, same process, same mongod, one run.

    python bench/backup.py [--rows 100000] [--file-mb 100]

Loads ROWS `Bench Record` documents and FILE_MB of file content (random bytes, so incompressible,
in fw's 255 KiB chunks), then times `backup_site` (snapshot read, gzip, SHA-256, manifest) and
`restore_site` into a second database (checks, raw inserts, indexes; its migrate is timed apart),
and, as the baseline, PyMongo doing the least a copy must: `find_raw_batches` of every collection
into plain files (and into gzip files at fw's level, what `mongodump --gzip` does), and those files
back with `insert_many` of raw documents (no compression, checksums or indexes). The
mongodump/mongorestore tools are not installable here (no package on this machine's registries),
so the ratio is to that raw copy. It prints documents/s and MB/s (of
BSON, as the database holds it) and the peak resident memory each step added, sampled every 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import os
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

import bson  # noqa: E402

from engine import db  # noqa: E402
from engine.apps.loader import registry_from_settings  # noqa: E402
from engine.db.snapshot import RAW  # noqa: E402
from engine.documents.naming import hash_name  # noqa: E402
from engine.files import storage  # noqa: E402
from engine.migrate import migrate  # noqa: E402
from engine.mongod import embedded  # noqa: E402
from engine.operations.backup import backup_site  # noqa: E402
from engine.operations.layout import COMPRESS_LEVEL  # noqa: E402
from engine.operations.restore import restore_site  # noqa: E402
from engine.settings import Settings  # noqa: E402
from engine.site import Site  # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


@contextlib.asynccontextmanager
async def peak_memory() -> AsyncIterator[list[int]]:
    """Yields a list that holds, after the block, the peak RSS growth over the block's start (bytes)."""
    start = rss()
    peak = [start]
    stop = asyncio.Event()

    async def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], rss())
            await asyncio.sleep(0.02)

    task = asyncio.create_task(sample())
    out: list[int] = []
    try:
        yield out
    finally:
        stop.set()
        await task
        out.append(max(peak[0], rss()) - start)


async def load(site: Site, rows: int, file_mb: int) -> None:
    meta = site.meta.get("Bench Record")
    records = site.db.collection(meta.collection)
    now = "2026-01-01 00:00:00.000000"
    batch = []
    for i in range(rows):
        batch.append({"_id": hash_name(), "owner": "Administrator", "modified_by": "Administrator", "creation": now,
                      "modified": now, "docstatus": 0, "idx": 0, "title": f"Record {i}", "status": "Open",
                      "qty": i % 500, "amount": i * 1.25, "rate": (i % 97) / 7, "posted": "2026-03-01",
                      "active": i % 2, "note": "benchmark row"})
        if len(batch) == 5000:
            await records.insert_many(batch, ordered=False)
            batch = []
    if batch:
        await records.insert_many(batch, ordered=False)
    chunks = site.db.collection(storage.CHUNKS)
    total = file_mb * 1024 * 1024
    n = 0
    while n * storage.CHUNK_SIZE < total:
        docs = [{"_id": f"{'f' * 64}:{n + k:08d}", "data": os.urandom(storage.CHUNK_SIZE)} for k in range(40)]
        await chunks.insert_many(docs)
        n += len(docs)


async def bson_bytes(database: db.Database) -> tuple[int, int]:
    documents = size = 0
    for name in await database.handle.list_collection_names():
        stats = await database.handle.command({"collStats": name})
        documents += stats["count"]
        size += stats["size"]
    return documents, size


async def raw_dump(database: db.Database, folder: Path, *, compress: bool = False) -> None:
    folder.mkdir(parents=True)
    for name in await database.handle.list_collection_names():
        path = folder / f"{name}.bson"
        with (gzip.open(path, "wb", compresslevel=COMPRESS_LEVEL) if compress else path.open("wb")) as f:
            async for batch in database.handle[name].find_raw_batches({}, batch_size=2000):
                await asyncio.to_thread(f.write, batch)


async def raw_load(database: db.Database, folder: Path) -> None:
    for path in sorted(folder.iterdir()):
        coll = database.handle.get_collection(path.stem, codec_options=RAW)
        with path.open("rb") as f:
            batch = []
            for document in bson.decode_file_iter(f, codec_options=RAW):
                batch.append(document)
                if len(batch) == 1000:
                    await coll.insert_many(batch)
                    batch = []
            if batch:
                await coll.insert_many(batch)


async def main(rows: int, file_mb: int) -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="fw-bench-backup-"))
    mongod = embedded.start(data_dir / "mongo", durable=True)
    try:
        settings = Settings(root_dir=ROOT, mongo_url=mongod.url, db_name="fw_bench", data_dir=data_dir)
        registry = registry_from_settings(settings)
        site = Site(settings, db.connect(mongod.url, "fw_bench"), registry)
        await site.db.drop()
        await migrate(site)
        print(f"loading {rows:,} documents and {file_mb} MB of files ...", flush=True)
        await load(site, rows, file_mb)
        documents, size = await bson_bytes(site.db)
        print(f"site: {documents:,} documents, {size / 1e6:,.0f} MB of BSON", flush=True)

        results = []

        async with peak_memory() as memory:
            started = time.perf_counter()
            backup = await backup_site(site, output_dir=data_dir / "backups")
            seconds = time.perf_counter() - started
        results.append(("fw backup (gzip, sha256)", seconds, memory[0], f"{backup.bytes / 1e6:,.0f} MB on disk"))

        async with peak_memory() as memory:
            started = time.perf_counter()
            await raw_dump(site.db, data_dir / "raw")
            seconds = time.perf_counter() - started
        results.append(("raw PyMongo dump (no gzip)", seconds, memory[0], ""))

        async with peak_memory() as memory:
            started = time.perf_counter()
            await raw_dump(site.db, data_dir / "raw-gzip", compress=True)
            seconds = time.perf_counter() - started
        results.append(("raw PyMongo dump, gzip (as mongodump --gzip)", seconds, memory[0], ""))

        target = Site(settings, db.connect(mongod.url, "fw_bench_restore"), registry)
        await target.db.drop()
        async with peak_memory() as memory:
            started = time.perf_counter()
            restored = await restore_site(target, backup.path)
            seconds = time.perf_counter() - started
        results.append(("fw restore (checks, indexes, migrate)", seconds, memory[0],
                        f"of which migrate {restored.migrate_seconds:.1f} s"))

        copy = db.connect(mongod.url, "fw_bench_raw")
        await copy.drop()
        async with peak_memory() as memory:
            started = time.perf_counter()
            await raw_load(copy, data_dir / "raw")
            seconds = time.perf_counter() - started
        results.append(("raw PyMongo load (no indexes)", seconds, memory[0], ""))

        print(f"\n{'step':46} {'seconds':>8} {'documents/s':>12} {'MB/s':>7} {'peak RSS +MB':>13}")
        for label, seconds, memory_bytes, note in results:
            print(f"{label:46} {seconds:8.1f} {documents / seconds:12,.0f} {size / 1e6 / seconds:7.1f} "
                  f"{memory_bytes / 1e6:13.0f}  {note}")
        print(f"\nbackup / raw dump time: {results[0][1] / results[1][1]:.2f} (with gzip: "
              f"{results[0][1] / results[2][1]:.2f}); restore / raw load time: {results[3][1] / results[4][1]:.2f}")
        for database in (site.db, target.db, copy):
            await database.drop()
            await database.close()
    finally:
        mongod.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--file-mb", type=int, default=100)
    args = parser.parse_args()
    asyncio.run(main(args.rows, args.file_mb))
