"""Driver calls whose shape differs between the two backends."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pymongo
from pymongo import errors as driver_errors

from engine.db.errors import translate_errors


async def aggregate(coll: Any, pipeline: list[dict[str, Any]], session: Any = None,
                    max_time_ms: int | None = None) -> list[dict[str, Any]]:
    """Run an aggregation and return every row (pymongo's async `aggregate` is a coroutine)."""
    options: dict[str, Any] = {"maxTimeMS": max_time_ms} if max_time_ms else {}
    if session:
        options["session"] = session
    with translate_errors():
        cursor = coll.aggregate(pipeline, **options)
        if asyncio.iscoroutine(cursor):
            cursor = await cursor
        return await cursor.to_list(length=None)


async def list_indexes(coll: Any) -> list[dict[str, Any]]:
    cursor = coll.list_indexes()
    if asyncio.iscoroutine(cursor):
        cursor = await cursor
    return [dict(ix) for ix in await cursor.to_list(length=None)]


async def create_collection(handle: Any, name: str) -> bool:
    """Create a collection; False when it exists already (another process may have just made it)."""
    try:
        await handle.create_collection(name)
    except driver_errors.CollectionInvalid:
        return False
    except driver_errors.OperationFailure as e:
        if e.code == 48:  # NamespaceExists
            return False
        raise
    return True


async def drop_index(coll: Any, name: str) -> bool:
    """Drop an index; False when it is gone already."""
    try:
        await coll.drop_index(name)
    except driver_errors.OperationFailure as e:
        if e.code == 27 or "not found" in str(e).lower():  # IndexNotFound
            return False
        raise
    return True


def index_model(keys: Sequence[tuple[str, int]], **options: Any) -> Any:
    return pymongo.IndexModel(list(keys), **options)
