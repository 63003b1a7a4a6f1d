"""File content in MongoDB: deduplicated by SHA-256, split into ~255 KiB chunks, reference-counted.

Two collections of fw's own (not doctypes):

- `_fw_file_contents`: one record per distinct content, `_id` = its SHA-256 (hex), with `length`,
  `chunk_size` and `refs`, the number of File records that use it;
- `_fw_file_chunks`: `_id` = `<sha256>:<n, 8 digits>`, `data` = bytes. The zero-padded number
  makes `_id` order chunk order, so a content (or a byte range of it) is one range scan of the `_id`
  index: no extra index to build, nothing for migrations to do.

Any process on any machine reaches the same content; nothing lives on local disk. GridFS would
look like the obvious choice, but PyMongo's `AsyncGridFSBucket` accepts only a real
`AsyncDatabase` (the in-memory backend cannot use it), creates its indexes inside whatever
transaction comes first, and has no notion of a shared, counted content.

Writes join the context's unit of work: on MongoDB an upload or delete that fails is rolled back
with everything else, and two requests that add or release the same content touch the same
`_fw_file_contents` record, so one of them gets a write conflict and is retried rather than both
deciding on a stale count. The in-memory backend has no transactions; `prune_orphans` repairs
whatever an interrupted write left there (and is a safe check on MongoDB too).
"""

from __future__ import annotations

import hashlib
import logging
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engine import db
from engine import exceptions as exc
from engine.documents import store
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context

log = logging.getLogger("fw.files")

CONTENTS = "_fw_file_contents"
CHUNKS = "_fw_file_chunks"
CHUNK_SIZE = 255 * 1024  # GridFS's default: a chunk and its overhead stay well under 16 MiB of BSON
READ_BATCH = 4  # chunks per round trip when streaming (~1 MiB in memory at a time)
_ready: weakref.WeakSet[db.Database] = weakref.WeakSet()


@dataclass(frozen=True)
class Content:
    digest: str
    length: int
    chunk_size: int


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def chunk_id(digest: str, n: int) -> str:
    return f"{digest}:{n:08d}"


def _all_chunks(digest: str) -> dict[str, Any]:
    return {"_id": {"$gte": f"{digest}:", "$lt": f"{digest};"}}  # ";" sorts right after ":"


async def ensure_collections(ctx: Context) -> None:
    """Create the two collections once per process, before the unit of work writes anything: two
    transactions that both create a collection implicitly conflict, and a collection created while a
    transaction is open cannot be read by it. (Inside an open transaction nothing is done here: its
    first write creates the collection.) `save_file` calls this before it starts writing."""
    if ctx.db in _ready or (ctx.uow is not None and ctx.uow.in_transaction):
        return
    for name in (CONTENTS, CHUNKS):
        await db.create_collection(ctx.db.handle, name)
    _ready.add(ctx.db)


async def add_reference(ctx: Context, digest: str, data: bytes | None) -> None:
    """One more File uses the content `digest`. `data` is stored when the content is new; without
    `data` (a File that links an existing one) the content must exist already."""
    await ensure_collections(ctx)
    contents = ctx.db.collection(CONTENTS)
    session = await ctx.write_session()
    with db.translate_errors():
        if data is None:
            result = await contents.update_one({"_id": digest}, {"$inc": {"refs": 1}}, session=session)
            if not result.matched_count:
                raise exc.DoesNotExistError(_("The content of this file is missing"))
            return
        result = await contents.update_one(
            {"_id": digest},
            {"$inc": {"refs": 1}, "$setOnInsert": {"length": len(data), "chunk_size": CHUNK_SIZE,
                                                   "created": datetime.now().isoformat(sep=" ")}},
            upsert=True, session=session)
        if result.upserted_id is None:
            return  # deduplicated: the bytes are stored already
        chunks = ctx.db.collection(CHUNKS)
        await chunks.delete_many(_all_chunks(digest), session=session)  # leftovers of an interrupted write
        view = memoryview(data)
        docs = [{"_id": chunk_id(digest, n), "data": bytes(view[start:start + CHUNK_SIZE])}
                for n, start in enumerate(range(0, len(data), CHUNK_SIZE))]
        if docs:
            await chunks.insert_many(docs, ordered=True, session=session)


async def release(ctx: Context, digest: str) -> bool:
    """One File fewer uses `digest`; the content is deleted when none is left. True if it was."""
    contents = ctx.db.collection(CONTENTS)
    session = await ctx.write_session()
    with db.translate_errors():
        record = await contents.find_one_and_update({"_id": digest}, {"$inc": {"refs": -1}},
                                                    return_document=db.AFTER, session=session)
        if record is None:
            log.warning("file content %s was already gone when a File using it was deleted", digest)
            return False
        if record.get("refs", 0) > 0:
            return False
        await contents.delete_one({"_id": digest}, session=session)
        await ctx.db.collection(CHUNKS).delete_many(_all_chunks(digest), session=session)
    return True


async def stat(database: db.Database, digest: str, session: Any = None) -> Content | None:
    with db.translate_errors():
        record = await database.collection(CONTENTS).find_one({"_id": digest}, session=session)
    if record is None:
        return None
    return Content(digest, int(record["length"]), int(record.get("chunk_size") or CHUNK_SIZE))


async def iter_bytes(database: db.Database, content: Content, start: int = 0,
                     end: int | None = None) -> AsyncIterator[bytes]:
    """The bytes `start`..`end` (inclusive; default: to the end), a chunk at a time: a large file is
    never held in memory whole. Reads run outside any transaction (a response streams after the
    request's unit of work is over)."""
    last_byte = content.length - 1 if end is None else min(end, content.length - 1)
    if content.length == 0 or start > last_byte:
        return
    size = content.chunk_size
    first, last = start // size, last_byte // size
    cursor = database.collection(CHUNKS).find(
        {"_id": {"$gte": chunk_id(content.digest, first), "$lte": chunk_id(content.digest, last)}},
        sort=[("_id", 1)], batch_size=READ_BATCH)
    expected = first
    async for record in cursor:
        if record["_id"] != chunk_id(content.digest, expected):
            break
        data: bytes = record["data"]
        low = start - expected * size if expected == first else 0
        high = last_byte - expected * size + 1 if expected == last else len(data)
        yield data[low:high]
        expected += 1
    if expected != last + 1:  # never silently shorter than promised: the response is cut off instead
        log.error("file content %s is missing chunk %d", content.digest, expected)
        raise exc.DoesNotExistError(_("The content of this file is missing"))


async def read(ctx: Context, digest: str) -> bytes:
    """The whole content (for server code that needs the bytes, e.g. to parse an upload)."""
    content = await stat(ctx.db, digest, session=ctx.read_session())
    if content is None:
        raise exc.DoesNotExistError(_("The content of this file is missing"))
    return b"".join([part async for part in iter_bytes(ctx.db, content)])


async def prune_orphans(ctx: Context) -> dict[str, int]:
    """Repair the content store against the File records: a content no File uses is deleted, a
    wrong reference count is corrected, chunks without their content record are deleted.

    Run by hand (`fw execute engine.files.storage.prune_orphans`); needed only after a write that
    the in-memory backend, having no transactions, could not roll back.
    """
    await ensure_collections(ctx)
    files = store.collection(ctx, ctx.meta("File"))
    contents, chunks = ctx.db.collection(CONTENTS), ctx.db.collection(CHUNKS)
    report = {"contents_deleted": 0, "counts_fixed": 0, "chunks_deleted": 0}
    session = await ctx.write_session()
    with db.translate_errors():
        known: set[str] = set()
        async for record in contents.find({}, {"refs": 1}, session=session):
            digest = record["_id"]
            used = await files.count_documents({"content_hash": digest}, session=session)
            if used == 0:
                await contents.delete_one({"_id": digest}, session=session)
                await chunks.delete_many(_all_chunks(digest), session=session)
                report["contents_deleted"] += 1
                continue
            known.add(digest)
            if record.get("refs") != used:
                await contents.update_one({"_id": digest}, {"$set": {"refs": used}}, session=session)
                report["counts_fixed"] += 1
        stray = [c["_id"] async for c in chunks.find({}, {"_id": 1}, session=session)
                 if c["_id"].split(":", 1)[0] not in known]
        if stray:
            result = await chunks.delete_many({"_id": {"$in": stray}}, session=session)
            report["chunks_deleted"] = int(result.deleted_count)
    return report
