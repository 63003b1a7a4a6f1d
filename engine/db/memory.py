"""The in-memory backend (`mongomock-motor`): same API, no transactions, nothing persists."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.db.connection import Database

_memory_clients: dict[str, Any] = {}


def connect_memory(db_name: str) -> Database:
    """A database handle on the in-memory backend. Nothing persists; there are no transactions."""
    from mongomock_motor import AsyncMongoMockClient

    _patch_memory_duplicate_errors()
    client = _memory_clients.setdefault("default", AsyncMongoMockClient())
    return Database(client, db_name, "memory")


_duplicate_patch_installed = False  # mongomock-motor's patch is process-wide: replace it once


def _patch_memory_duplicate_errors() -> None:
    """Make the in-memory backend's duplicate-key errors name what was actually violated.

    mongomock-motor reports the first unique index that has *any* matching document as the
    violated key: a duplicate `_id` came out as a clash on some unique field, and partial indexes
    (`where`, and unique fields left empty) were matched while ignoring their filter. Replaces its
    per-collection patch with one that checks `_id` first and honours sparse and partial filters.
    """
    from mongomock import DuplicateKeyError, helpers
    from mongomock_motor import patches

    global _duplicate_patch_installed
    if _duplicate_patch_installed:
        return

    def violated_index(collection: Any, data: Mapping[str, Any]) -> dict[str, Any] | None:
        for index in collection._store.indexes.values():
            if not index.get("unique"):
                continue
            keys = [key for key, _ in index.get("key")]
            values: dict[str, Any] = {}
            for key in keys:
                try:
                    values[key] = helpers.get_value_by_dot(data, key)
                except KeyError:
                    values[key] = None
            if index.get("sparse") and set(values.values()) == {None}:
                continue
            query: dict[str, Any] = dict(values)
            if index.get("partialFilterExpression") is not None:
                if not list(collection._iter_documents({"$and": [index["partialFilterExpression"],
                                                                 {"_id": data.get("_id")}]})):
                    continue
                query = {"$and": [index["partialFilterExpression"], values]}
            query = {"$and": [query, {"_id": {"$ne": data.get("_id")}}]}
            if list(collection._iter_documents(query)):
                return {"keyPattern": dict(index.get("key")), "keyValue": values}
        return None

    def patch(collection: Any) -> Any:
        insert, ensure_uniques = collection._insert, collection._ensure_uniques

        def _insert(data: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return insert(data, *args, **kwargs)
            except DuplicateKeyError as e:
                if e.details or not isinstance(data, Mapping):
                    raise
                # not raised by _ensure_uniques (those carry details): the `_id` is taken
                details = {"keyPattern": {"_id": 1}, "keyValue": {"_id": data.get("_id")}}
                raise DuplicateKeyError(str(e), 11000, details) from None

        def _ensure_uniques(new_data: Any) -> Any:
            try:
                return ensure_uniques(new_data)
            except DuplicateKeyError as e:
                details = violated_index(collection, new_data)
                if details is None:
                    raise
                raise DuplicateKeyError(str(e), 11000, details) from None

        collection._insert = _insert
        collection._ensure_uniques = _ensure_uniques
        return collection

    patches._patch_insert_and_ensure_uniques = patch
