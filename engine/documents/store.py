"""Document collections (one per doctype): the engine reads and writes them here, naming a
collection by its doctype, never by a collection name (two readers below this layer excepted: see
the end).

Storage shape: one collection per doctype (`meta.collection`), `_id` is the document `name`,
child-table rows are embedded under their table fieldname, dates and datetimes are strings in
Frappe's wire format (so they sort as text), tree documents carry `_ancestors` (root first), and a
record may carry jobs until a relay takes them (`_fw_jobs`: engine/jobs/payload.py).
Every call taking a `Context` joins its unit of work: writes open its transaction, reads use it once
open. `collection(ctx, meta)` serves a caller that needs a driver call of its own (it passes the
session); `collection_of(site, doctype)` serves site-level work outside a unit of work (bootstrap,
migrate, schema sync, authentication, the scheduler and its log, the CLI).

Only two readers sit below this layer and so cannot import it: `Site.user_info` (User, Role) and the
meta registry (Custom Field, Workflow, Workflow State), which name those collections by their meta's
`collection`. engine/schema_sync.py creates the collections and their indexes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import db
from engine import exceptions as exc
from engine.jobs.payload import CARRIED_KEYS

if TYPE_CHECKING:
    from engine.context import Context
    from engine.meta.schema import Meta
    from engine.site import Site

# not fields: the name, a tree document's ancestors, the jobs its last writes carry (engine/jobs/payload.py)
INTERNAL_KEYS = frozenset({"_id", "_ancestors", *CARRIED_KEYS})


def collection(ctx: Context, meta: Meta) -> Any:
    """The doctype's collection, for a driver call of the caller's own (it passes the session)."""
    return ctx.db.collection(meta.collection)


def collection_of(site: Site, doctype: str) -> Any:
    """The collection of `doctype`'s records (named by its meta), for site-level work outside a
    unit of work; the caller passes a session when it needs one."""
    return site.db.collection(site.meta.get(doctype).collection)


def to_document_dict(raw: dict[str, Any]) -> dict[str, Any]:
    """A stored record as document fields: `_id` becomes `name`, internal keys are dropped."""
    out = {"name": raw["_id"]} if "_id" in raw else {}
    for k, v in raw.items():
        if k not in INTERNAL_KEYS:
            out[k] = v
    return out


async def load(ctx: Context, meta: Meta, name: str, projection: dict[str, Any] | None = None) -> dict[str, Any] | None:
    # the hottest read: no context manager on the success path, errors translated on the way out
    try:
        return await ctx.db.find_by_id(meta.collection, name, projection, ctx.read_session())
    except Exception as e:
        with db.translate_errors(meta.name):
            raise e


async def find_one(ctx: Context, meta: Meta, filter: dict[str, Any],
                   projection: dict[str, Any] | None = None,
                   sort: list[tuple[str, int]] | None = None) -> dict[str, Any] | None:
    session = ctx.read_session()
    with db.translate_errors(meta.name):
        return await collection(ctx, meta).find_one(filter, projection, sort=sort, session=session,
                                                    max_time_ms=ctx.query_timeout_ms)


async def find(ctx: Context, meta: Meta, filter: dict[str, Any], *,
               projection: dict[str, Any] | None = None, sort: list[tuple[str, int]] | None = None,
               skip: int = 0, limit: int = 0) -> list[dict[str, Any]]:
    session = ctx.read_session()
    with db.translate_errors(meta.name):
        cursor = collection(ctx, meta).find(filter, projection, sort=sort or None, skip=skip, limit=limit,
                                            session=session, max_time_ms=ctx.query_timeout_ms)
        return await cursor.to_list(length=None)


async def count(ctx: Context, meta: Meta, filter: dict[str, Any]) -> int:
    session = ctx.read_session()
    with db.translate_errors(meta.name):
        limit = {"maxTimeMS": ctx.query_timeout_ms} if ctx.query_timeout_ms else {}
        return int(await collection(ctx, meta).count_documents(filter, session=session, **limit))


async def aggregate(ctx: Context, meta: Meta, pipeline: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return await db.aggregate(collection(ctx, meta), pipeline, session=ctx.read_session(),
                              max_time_ms=ctx.query_timeout_ms)


async def insert(ctx: Context, meta: Meta, record: dict[str, Any], *, final: bool = False) -> None:
    """Insert a full record (`_id` set). Duplicate names and unique violations become engine errors.

    `final`: the unit of work writes nothing after this (see `UnitOfWork.write_session`)."""
    session = await ctx.write_session(final=final)
    with db.translate_errors(meta.name, meta.field_labels):
        await collection(ctx, meta).insert_one(record, session=session)


async def insert_many(ctx: Context, meta: Meta, records: list[dict[str, Any]]) -> None:
    """Insert full records (`_id` set), in order, in the unit of work's transaction. A duplicate
    aborts the transaction, so it is a conflict (`TransientError`): the unit runs again (a caller that
    must report duplicates one by one writes outside a transaction: engine/documents/bulk.py)."""
    session = await ctx.write_session()
    try:
        with db.translate_errors(meta.name):
            await collection(ctx, meta).insert_many(records, ordered=True, session=session)
    except exc.FwError:
        raise
    except Exception as e:
        errors = db.bulk_write_errors(e)
        if errors and all(db.is_duplicate_key(err) for err in errors):
            raise db.conflict_error() from e  # stored by a concurrent unit since the caller looked
        raise


async def update(ctx: Context, meta: Meta, name: str, set_: dict[str, Any], unset: list[str] | None = None,
                 *, expected_modified: str | None = None, final: bool = False) -> bool:
    """Apply `$set`/`$unset` to one record. With `expected_modified`, only if it still matches.

    Returns False when no record matched (missing, or modified in between).
    """
    filter: dict[str, Any] = {"_id": name}
    if expected_modified is not None:
        filter["modified"] = expected_modified
    change: dict[str, Any] = {}
    if set_:
        change["$set"] = set_
    if unset:
        change["$unset"] = dict.fromkeys(unset, "")
    if not change:
        return True
    session = await ctx.write_session(final=final)
    with db.translate_errors(meta.name, meta.field_labels):
        result = await collection(ctx, meta).update_one(filter, change, session=session)
    return bool(result.matched_count)


async def update_returning(ctx: Context, meta: Meta, filter: dict[str, Any], set_: dict[str, Any],
                           unset: list[str] | None = None, *, final: bool = False) -> dict[str, Any] | None:
    """`$set`/`$unset` on the one record `filter` matches, in one atomic call: the record as it is
    after, or None when nothing matched."""
    change: dict[str, Any] = {"$set": set_}
    if unset:
        change["$unset"] = dict.fromkeys(unset, "")
    session = await ctx.write_session(final=final)
    with db.translate_errors(meta.name, meta.field_labels):
        return await collection(ctx, meta).find_one_and_update(filter, change, session=session,
                                                               return_document=db.AFTER)


async def update_many(ctx: Context, meta: Meta, filter: dict[str, Any], change: dict[str, Any] | list[Any], *,
                      array_filters: list[dict[str, Any]] | None = None) -> int:
    session = await ctx.write_session()
    extra = {"array_filters": array_filters} if array_filters else {}
    with db.translate_errors(meta.name, meta.field_labels):
        result = await collection(ctx, meta).update_many(filter, change, session=session, **extra)
    return int(result.modified_count)


async def delete(ctx: Context, meta: Meta, name: str) -> bool:
    session = await ctx.write_session()
    with db.translate_errors(meta.name):
        result = await collection(ctx, meta).delete_one({"_id": name}, session=session)
    return bool(result.deleted_count)


async def delete_returning(ctx: Context, meta: Meta, name: str, projection: dict[str, Any]) -> dict[str, Any] | None:
    """Delete one record in one atomic call: its `projection` as it was when it went, or None when
    there was none."""
    session = await ctx.write_session()
    with db.translate_errors(meta.name):
        return await collection(ctx, meta).find_one_and_delete({"_id": name}, projection, session=session)


async def delete_many(ctx: Context, meta: Meta, filter: dict[str, Any]) -> int:
    """Delete the records matching `filter` in the unit of work; how many went."""
    session = await ctx.write_session()
    with db.translate_errors(meta.name):
        result = await collection(ctx, meta).delete_many(filter, session=session)
    return int(result.deleted_count)


async def find_conflict(ctx: Context, meta: Meta, record: dict[str, Any], *, check_name: bool,
                        exclude: str | None = None, fields: list[str] | None = None) -> str | None:
    """The field (`name` or a unique field) another stored record already holds this value for.

    Checked before writing because, inside a MongoDB transaction, a duplicate-key error aborts the
    whole transaction: a caller that catches the error could not go on with its unit of work.
    """
    clauses: list[dict[str, Any]] = []
    if check_name and record.get("_id") is not None:
        clauses.append({"_id": record["_id"]})
    for f in meta.unique_fields:
        if (fields is None or f.fieldname in fields) and record.get(f.fieldname) is not None:
            clauses.append({f.fieldname: record[f.fieldname]})
    if not clauses:
        return None
    query: dict[str, Any] = {"$or": clauses}
    if exclude is not None:
        query = {"$and": [query, {"_id": {"$ne": exclude}}]}
    hit = await find_one(ctx, meta, query, {f.fieldname: 1 for f in meta.unique_fields} or None)
    if hit is None:
        return None
    if check_name and hit["_id"] == record.get("_id"):
        return "name"
    return next((f.fieldname for f in meta.unique_fields if f.fieldname in record
                 and hit.get(f.fieldname) == record[f.fieldname]), "name")
