"""Per-site meta: the apps' doctype schemas with that site's Custom Fields merged in, cached.

A Custom Field change bumps a version counter in the database; every process re-reads the custom
fields when it sees a new version (checked at most every `meta_check_interval` seconds).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.meta.schema import DocFieldSchema, Meta
from engine.translation import _

if TYPE_CHECKING:
    from engine.db import Database
    from engine.hooks import AppRegistry

STATE_COLLECTION = "_fw_state"
CUSTOM_FIELD_KEYS = frozenset(DocFieldSchema.model_fields) | {"insert_after", "module"}


class MetaRegistry:
    def __init__(self, apps: AppRegistry, db: Database, check_interval: float = 1.0) -> None:
        self.apps = apps
        self.db = db
        self.check_interval = check_interval
        self._custom: dict[str, list[DocFieldSchema]] = {}
        self._cache: dict[str, Meta] = {}
        self._version: int | None = None
        self._checked_at = 0.0

    def get(self, doctype: str) -> Meta:
        meta = self._cache.get(doctype)
        if meta is None:
            schema = self.apps.doctypes.get(doctype) if isinstance(doctype, str) else None
            if schema is None:
                raise exc.DoesNotExistError(_("DocType {0} not found", str(doctype)[:140]))
            meta = self._cache[doctype] = Meta(schema, self._custom.get(doctype))
            meta.registry = self
        return meta

    def exists(self, doctype: str) -> bool:
        return doctype in self.apps.doctypes

    def names(self) -> list[str]:
        return sorted(self.apps.doctypes)

    async def refresh_if_stale(self) -> None:
        """Re-read Custom Fields if another process changed them (cheap: one tiny read per interval)."""
        now = time.monotonic()
        if self._version is not None and now - self._checked_at < self.check_interval:
            return
        self._checked_at = now
        state = await self.db.collection(STATE_COLLECTION).find_one({"_id": "meta"})
        version = int(state["version"]) if state else 0
        if version != self._version:
            await self.reload()
            self._version = version

    async def reload(self) -> None:
        custom: dict[str, list[DocFieldSchema]] = {}
        rows = await self.db.collection("custom_field").find({}).sort([("idx", 1), ("creation", 1)]).to_list(None)
        for row in rows:
            data: dict[str, Any] = {k: v for k, v in row.items() if k in CUSTOM_FIELD_KEYS and v is not None}
            try:
                custom.setdefault(row["dt"], []).append(DocFieldSchema.model_validate(data))
            except ValueError as e:
                raise exc.ConfigurationError(f"Custom Field {row.get('_id')} is invalid: {e}") from e
        self._custom = custom
        self._cache.clear()

    async def bump(self) -> None:
        """Announce a meta change to every process, and apply it here at once."""
        from engine.db import AFTER

        state = await self.db.collection(STATE_COLLECTION).find_one_and_update(
            {"_id": "meta"}, {"$inc": {"version": 1}}, upsert=True, return_document=AFTER)
        await self.reload()
        self._version = int(state["version"])
        self._checked_at = time.monotonic()
