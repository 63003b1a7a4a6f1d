"""Per-site meta: the apps' doctype schemas with that site's Custom Fields merged in and its
Property Setters applied (engine/meta/properties.py), cached.

A Custom Field, Property Setter or Workflow change bumps a version counter in the database; every process re-reads
custom fields and active workflows when it sees a new version (checked at most every
`meta_check_interval` seconds). A doctype with an active workflow gets its state field (a Link to
Workflow State) if it does not declare one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.constants import STATE_COLLECTION
from engine.db import AFTER
from engine.meta.properties import DocTypeProperties, apply_properties, property_problem, typed_value
from engine.meta.schema import CHILD_FIELDS, STANDARD_FIELDS, DocFieldSchema, Meta
from engine.meta.workflows import WorkflowDef, load_workflows
from engine.translation import _

if TYPE_CHECKING:
    from engine.apps.registry import AppRegistry
    from engine.db import Database

log = logging.getLogger("fw.meta")
# the field rules the Desk evaluates (DocFieldSchema keeps them as extra keys, uninterpreted)
CUSTOM_FIELD_KEYS = frozenset(DocFieldSchema.model_fields) | {"insert_after", "module", "depends_on",
                                                              "mandatory_depends_on", "read_only_depends_on",
                                                              "print_hide"}
LINK_TYPES = frozenset({"Link", "Table", "Table MultiSelect"})
RESERVED_FIELDNAMES = frozenset(STANDARD_FIELDS) | frozenset(CHILD_FIELDS) | {"doctype"}


def custom_field_schema(row: Mapping[str, Any]) -> DocFieldSchema:
    """The DocField a Custom Field record (or document data) describes; ValueError if invalid."""
    data: dict[str, Any] = {k: v for k, v in row.items() if k in CUSTOM_FIELD_KEYS and v is not None}
    return DocFieldSchema.model_validate(data)


def custom_field_problem(base: Meta, field: DocFieldSchema) -> str | None:
    """Why `field` cannot be added to the doctype of `base` (a Meta without custom fields), or None."""
    name = field.fieldname
    if name in RESERVED_FIELDNAMES or name.startswith("_"):
        return f"{name!r} is a reserved fieldname"
    if name in base.by_name:
        return f"{base.name} already has a field {name!r}"
    key = base.schema.shard_key
    if field.unique and key is not None and key != [name]:
        return (f"{base.name} declares the shard key {key}, and a unique field cannot be enforced across "
                "shards (docs/scaling.md)")
    return None


class MetaRegistry:
    def __init__(self, apps: AppRegistry, db: Database, check_interval: float = 1.0) -> None:
        self.apps = apps
        self.db = db
        self.check_interval = check_interval
        self._custom: dict[str, list[DocFieldSchema]] = {}
        self._properties: dict[str, DocTypeProperties] = {}
        self._cache: dict[str, Meta] = {}
        self.workflows: dict[str, WorkflowDef] = {}
        # the doctypes with an enabled Notification: their writes keep the lifecycle's notification step
        self.notified: frozenset[str] = frozenset()
        self._version: int | None = None
        self._checked_at = 0.0
        # called after a bump, to tell the other processes (the site wires it to its cache bus)
        self.on_bump: Callable[[], Awaitable[None]] | None = None

    @property
    def version(self) -> int:
        """The meta version this process applied (bumped by Custom Field and Workflow changes)."""
        return self._version or 0

    def mark_stale(self) -> None:
        """Another process changed the meta: the next `refresh_if_stale` reads the version at once."""
        self._checked_at = float("-inf")

    def get(self, doctype: str) -> Meta:
        meta = self._cache.get(doctype)
        if meta is None:
            schema = self.apps.doctypes.get(doctype) if isinstance(doctype, str) else None
            if schema is None:
                raise exc.DoesNotExistError(_("DocType {0} not found", str(doctype)[:140]))
            props = self._properties.get(doctype)
            meta = self._cache[doctype] = Meta(schema, self._custom.get(doctype),
                                               partial(apply_properties, props=props) if props else None)
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

    def customizable_meta(self, doctype: str) -> Meta:
        """The doctype's meta with its Custom Fields, without Property Setters: what they apply to."""
        schema = self.apps.doctypes.get(doctype)
        if schema is None:
            raise exc.DoesNotExistError(_("DocType {0} not found", str(doctype)[:140]))
        meta = Meta(schema, self._custom.get(doctype))
        meta.registry = self
        return meta

    def base_meta(self, doctype: str) -> Meta:
        """The doctype's meta as its app defines it, without custom fields."""
        schema = self.apps.doctypes.get(doctype)
        if schema is None:
            raise exc.DoesNotExistError(_("DocType {0} not found", str(doctype)[:140]))
        meta = Meta(schema)
        meta.registry = self
        return meta

    async def reload(self) -> None:
        """Re-read Custom Fields. A record that cannot be merged (invalid, clashing, for an unknown
        doctype) is logged and skipped: one bad record must not break every request of the site.
        The Custom Field controller refuses such records, so they only come from outside the engine.
        First the doctype JSON files are re-read if one changed (a doctype saved by the DocType editor
        or migrated by another process); a bad file is logged and the definitions in force are kept."""
        if self.apps.reread is not None:
            try:
                self.apps.reread()
            except exc.ConfigurationError as e:
                log.error("Doctype definitions not re-read: %s", e.message)
        custom: dict[str, list[DocFieldSchema]] = {}
        rows = await self._records("Custom Field").find({}).sort([("idx", 1), ("creation", 1)]).to_list(None)
        bases: dict[str, Meta] = {}
        for row in rows:
            dt = row.get("dt")
            try:
                if not isinstance(dt, str) or dt not in self.apps.doctypes:
                    raise ValueError(f"unknown doctype {dt!r}")
                field = custom_field_schema(row)
                base = bases.get(dt) or bases.setdefault(dt, self.base_meta(dt))
                problem = custom_field_problem(base, field)
                if problem is None and any(f.fieldname == field.fieldname for f in custom.get(dt, ())):
                    problem = f"duplicate custom field {field.fieldname!r}"
                if problem:
                    raise ValueError(problem)
                if field.fieldtype in LINK_TYPES and field.options not in self.apps.doctypes:
                    raise ValueError(f"{field.fieldname!r} points at unknown doctype {field.options!r}")
            except ValueError as e:
                log.error("Custom Field %s is ignored: %s", row.get("_id"), e)
                continue
            custom.setdefault(dt, []).append(field)
        workflows = await load_workflows(self._records("Workflow"), self._records("Workflow State"))
        for doctype, wf in workflows.items():
            if doctype not in self.apps.doctypes:
                continue
            declared = {f.fieldname for f in self.apps.doctypes[doctype].fields} | {
                f.fieldname for f in custom.get(doctype, ())}
            if wf.field not in declared:
                # allow_on_submit: a transition between two submitted states changes it (as Frappe's field)
                custom.setdefault(doctype, []).append(DocFieldSchema(
                    fieldname=wf.field, fieldtype="Link", options="Workflow State", label="Workflow State",
                    hidden=True, search_index=True, allow_on_submit=True, no_copy=True))
        self.workflows = workflows
        if "Notification" in self.apps.doctypes:
            self.notified = frozenset(d for d in await self._records("Notification").distinct(
                "document_type", {"enabled": 1}) if isinstance(d, str))
        self._custom = custom
        self._properties = await self._read_properties()
        self._cache.clear()

    async def _read_properties(self) -> dict[str, DocTypeProperties]:
        rows = await self._records("Property Setter").find({}).sort([("creation", 1), ("_id", 1)]).to_list(None)
        return self.properties_from(rows)

    def properties_from(self, rows: list[dict[str, Any]]) -> dict[str, DocTypeProperties]:
        """Property Setter records, typed and checked against the fields they change (the JSON's and
        the Custom Fields). A record that does not apply is logged and skipped, as a bad Custom Field is
        (the Property Setter controller refuses such records, so they only come from outside)."""
        out: dict[str, DocTypeProperties] = {}
        fields: dict[str, dict[str, DocFieldSchema]] = {}
        for row in rows:
            dt, fieldname, prop = row.get("doc_type"), row.get("field_name") or None, str(row.get("property"))
            try:
                if not isinstance(dt, str) or dt not in self.apps.doctypes:
                    raise ValueError(f"unknown doctype {dt!r}")
                if dt not in fields:
                    fields[dt] = self.customizable_meta(dt).by_name
                problem = property_problem(fields[dt], prop, fieldname, row.get("value"), self.exists)
                if problem:
                    raise ValueError(problem)
                props = out.setdefault(dt, DocTypeProperties())
                if fieldname is None:
                    props.field_order = typed_value(prop, row.get("value"), doctype_level=True)
                    continue
                changed = {**props.fields.get(fieldname, {}), prop: typed_value(prop, row.get("value"))}
                DocFieldSchema.model_validate({**fields[dt][fieldname].model_dump(), **changed})
                props.fields[fieldname] = changed
            except ValueError as e:
                log.error("Property Setter %s is ignored: %s", row.get("_id") or row.get("name"), e)
        return out

    def properties_of(self, doctype: str) -> DocTypeProperties | None:
        """The Property Setters in force on `doctype`, typed (None without any)."""
        return self._properties.get(doctype)

    def preview(self, doctype: str, setters: list[dict[str, Any]]) -> Meta:
        """The doctype's meta as it will be with `setters` (its Property Setter records) in force:
        what a Customize Form save answers before its commit announces them."""
        props = self.properties_from(setters).get(doctype)
        meta = Meta(self.apps.doctypes[doctype], self._custom.get(doctype),
                    partial(apply_properties, props=props) if props else None)
        meta.registry = self
        return meta

    def _records(self, doctype: str) -> Any:
        """The collection of a core doctype's records, named by its meta (the registry sits below
        engine/documents/store.py, which serves every other reader)."""
        return self.db.collection(self.get(doctype).collection)

    async def bump(self) -> None:
        """Announce a meta change to every process, and apply it here at once."""
        state = await self.db.collection(STATE_COLLECTION).find_one_and_update(
            {"_id": "meta"}, {"$inc": {"version": 1}}, upsert=True, return_document=AFTER)
        await self.reload()
        self._version = int(state["version"])
        self._checked_at = time.monotonic()
        if self.on_bump is not None:
            await self.on_bump()
