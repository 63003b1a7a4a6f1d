"""User Permissions (Frappe's): the records a user is restricted to, and what follows for every doctype.

A user with `User Permission` records for doctype A sees a document of A only when its name is one
of the allowed values (for a tree doctype, or one of their descendants unless `hide_descendants`),
and a document of any doctype T only when each of its Link fields to A (top level and in child rows,
unless the field has `ignore_user_permissions`) is empty or holds an allowed value (an empty one
fails under System Settings' `apply_strict_user_permissions`). A record with `apply_to_all_doctypes`
0 restricts only its `applicable_for` doctype. Administrator is never restricted.

The records are read once per user and kept on the site (`Site.user_access`) for ROLE_CACHE_SECONDS,
dropped at once in every process when one of the user's records changes (the cache bus's "user"
kind). What they mean for one doctype, a `Restriction`, is worked out once per user and doctype:
as a filter AST for lists and counts (`node`), and as a check of one document's values (`violation`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.documents import store
from engine.query.ast import And, Cond, Node, Not, Op

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument
    from engine.meta.schema import DocFieldSchema, Meta

USER_PERMISSION = "User Permission"
SETTINGS = "System Settings"
CACHE_SECONDS = 2.0


@dataclass(frozen=True)
class Entry:
    """One User Permission record, as the restriction reads it."""

    value: str
    applicable_for: str | None  # None: every doctype (`apply_to_all_doctypes`)
    hide_descendants: bool
    is_default: bool


@dataclass(frozen=True)
class LinkCheck:
    """A Link field whose value must be one of `allowed` (`table`: the table whose rows hold it)."""

    fieldname: str
    target: str
    allowed: frozenset[str]
    table: str | None = None


@dataclass(frozen=True)
class Restriction:
    """What a user's records mean for one doctype: the names its own documents may have (None: not
    restricted by name) and the Link fields that must hold allowed values."""

    names: frozenset[str] | None
    links: tuple[LinkCheck, ...]
    strict: bool

    def node(self) -> Node:
        """The condition every readable row meets, for the query compiler."""
        parts: list[Node] = []
        if self.names is not None:
            parts.append(Cond("name", Op.IN, tuple(sorted(self.names))))
        for check in self.links:
            allowed = tuple(sorted(check.allowed)) + (() if self.strict else ("",))
            if check.table is None:  # ("" in an `in` list also matches an empty or missing value)
                parts.append(Cond(check.fieldname, Op.IN, allowed))
            else:  # no row holds a value outside the allowed ones
                parts.append(Not((Cond(check.fieldname, Op.NOT_IN, allowed, table=check.table),)))
        return parts[0] if len(parts) == 1 else And(tuple(parts))

    def violation(self, record: dict[str, Any], *, check_name: bool = True) -> Violation | None:
        """The first restricted value of a stored-shape `record` (`_id`, fields, table rows), or None.
        `check_name` False skips the name (a new document has none yet)."""
        if check_name and self.names is not None:
            name = record.get("_id", record.get("name"))
            if name not in self.names:
                return Violation(None, name, None)
        for check in self.links:
            rows = [record] if check.table is None else [r for r in record.get(check.table) or []
                                                         if isinstance(r, dict)]
            for row in rows:
                value = row.get(check.fieldname)
                if (value in (None, "") and self.strict) or (value not in (None, "") and value not in check.allowed):
                    return Violation(check, value, row.get("idx") if check.table else None)
        return None


@dataclass(frozen=True)
class Violation:
    """A value a user's User Permissions do not allow: in a Link field (`check`), or the name (None)."""

    check: LinkCheck | None
    value: Any
    row_idx: int | None


@dataclass
class UserAccess:
    """A user's User Permission records, by allowed doctype, and what was worked out from them."""

    user: str
    entries: dict[str, tuple[Entry, ...]]
    strict: bool
    descendants: dict[str, dict[str, frozenset[str]]] = field(default_factory=dict)  # doctype → value → names under it
    # doctype → (the meta it was worked out from, its restriction): a changed meta (Custom Field,
    # Property Setter) is a new object, and gets its own
    restrictions: dict[str, tuple[Meta, Restriction | None]] = field(default_factory=dict)

    def allowed(self, doctype: str, for_doctype: str) -> frozenset[str]:
        """The values of `doctype` allowed when judging a document of `for_doctype` (empty: no restriction)."""
        out: set[str] = set()
        under = self.descendants.get(doctype, {})
        for entry in self.entries.get(doctype, ()):
            if entry.applicable_for is None or entry.applicable_for == for_doctype:
                out.add(entry.value)
                if not entry.hide_descendants:
                    out |= under.get(entry.value, frozenset())
        return frozenset(out)

    def defaults(self, for_doctype: str | None = None) -> dict[str, str]:
        """{doctype: the value marked `is_default`} of the records that apply to every doctype, or to
        `for_doctype` (the Desk's boot asks without one: a record for one doctype is applied by the
        server, `link_defaults`)."""
        out: dict[str, str] = {}
        for doctype, entries in self.entries.items():
            for entry in entries:
                if entry.is_default and entry.applicable_for in (None, for_doctype):
                    out.setdefault(doctype, entry.value)
        return out

    def link_defaults(self, meta: Meta) -> dict[str, str]:
        """{Link fieldname: value} a new document of `meta` starts from: the `is_default` value of the
        field's doctype, when that record applies to `meta` and the field does not ignore User Permissions."""
        out: dict[str, str] = {}
        for df in meta.link_fields:
            if df.options not in self.entries or _ignored(df) or df.fieldname == _tree_parent(meta):
                continue
            for entry in self.entries[df.options]:
                if entry.is_default and entry.applicable_for in (None, meta.name):
                    out[df.fieldname] = entry.value
                    break
        return out

    def restriction(self, meta: Meta) -> Restriction | None:
        known = self.restrictions.get(meta.name)
        if known is None or known[0] is not meta:
            known = self.restrictions[meta.name] = (meta, self._restriction(meta))
        return known[1]

    def _restriction(self, meta: Meta) -> Restriction | None:
        names = self.allowed(meta.name, meta.name) if meta.name in self.entries else frozenset()
        links: list[LinkCheck] = []
        for df in meta.link_fields:
            if df.options in self.entries and not _ignored(df) and df.fieldname != _tree_parent(meta) \
                    and (allowed := self.allowed(df.options, meta.name)):
                links.append(LinkCheck(df.fieldname, df.options, allowed))
        registry = meta.registry
        for table in meta.table_fields:
            child = registry.get(table.options or "") if registry is not None else None
            if child is None:
                continue
            for df in child.link_fields:
                if df.options in self.entries and not _ignored(df) \
                        and (allowed := self.allowed(df.options, meta.name)):
                    links.append(LinkCheck(df.fieldname, df.options, allowed, table.fieldname))
        if not names and not links:
            return None
        return Restriction(names or None, tuple(links), self.strict)


def _ignored(df: DocFieldSchema) -> bool:
    return df.ignore_user_permissions


def _tree_parent(meta: Meta) -> str | None:
    """A tree's parent field, never restricted: an allowed record's parent is outside by design (as
    Frappe's trees mark theirs `ignore_user_permissions`)."""
    return meta.nsm_parent_field if meta.is_tree else None


async def access_of(ctx: Context) -> UserAccess | None:
    """The acting user's User Permissions (None: the user is restricted by none, as Administrator)."""
    if ctx.is_admin or ctx.user == "Guest":
        return None
    cache = ctx.site.user_access.setdefault(ctx.user, {})
    hit = cache.get("permissions")
    now = time.monotonic()
    if hit is not None and now - hit[0] < CACHE_SECONDS:
        access: UserAccess | None = hit[1]
        return access
    access = await _load(ctx)
    cache["permissions"] = (now, access)
    return access


async def _load(ctx: Context) -> UserAccess | None:
    if not ctx.site.meta.exists(USER_PERMISSION):  # a site before its first migrate
        return None
    meta = ctx.meta(USER_PERMISSION)
    records = await store.find(ctx, meta, {"user": ctx.user},
                               projection={"allow": 1, "for_value": 1, "apply_to_all_doctypes": 1,
                                           "applicable_for": 1, "hide_descendants": 1, "is_default": 1})
    if not records:
        return None
    entries: dict[str, list[Entry]] = {}
    for record in records:
        allow, value = record.get("allow"), record.get("for_value")
        if not allow or not value or not ctx.site.meta.exists(allow):
            continue
        applies_to_all = record.get("apply_to_all_doctypes", 1) not in (0, False, "0")
        entries.setdefault(allow, []).append(Entry(
            str(value), None if applies_to_all else (record.get("applicable_for") or None),
            bool(record.get("hide_descendants")), bool(record.get("is_default"))))
    if not entries:
        return None
    access = UserAccess(ctx.user, {k: tuple(v) for k, v in entries.items()}, await _strict(ctx))
    for doctype, found in access.entries.items():
        tree = ctx.meta(doctype)
        if tree.is_tree:
            roots = sorted({e.value for e in found if not e.hide_descendants})
            under: dict[str, set[str]] = {root: set() for root in roots}
            if roots:
                for row in await store.find(ctx, tree, {"_ancestors": {"$in": roots}},
                                            projection={"_ancestors": 1}):
                    for ancestor in row.get("_ancestors") or []:
                        if ancestor in under:
                            under[ancestor].add(row["_id"])
            access.descendants[doctype] = {k: frozenset(v) for k, v in under.items()}
    return access


async def _strict(ctx: Context) -> bool:
    meta = ctx.meta(SETTINGS)
    record = await store.load(ctx, meta, SETTINGS, {"apply_strict_user_permissions": 1})
    return bool((record or {}).get("apply_strict_user_permissions"))


async def restriction_for(ctx: Context, meta: Meta) -> Restriction | None:
    """What the acting user's User Permissions ask of `meta`'s documents (None: nothing)."""
    if meta.istable or meta.issingle:
        return None
    access = await access_of(ctx)
    return None if access is None else access.restriction(meta)


async def user_defaults(ctx: Context, for_doctype: str | None = None) -> dict[str, str]:
    """{doctype: value} of the acting user's `is_default` User Permissions (those for every doctype, or
    for `for_doctype`)."""
    access = await access_of(ctx)
    return {} if access is None else access.defaults(for_doctype)


async def link_defaults(ctx: Context, meta: Meta) -> dict[str, str]:
    """{Link fieldname: value} a new document of `meta` takes from the acting user's `is_default` records."""
    access = await access_of(ctx)
    return {} if access is None else access.link_defaults(meta)


def judged_record(doc: BaseDocument) -> dict[str, Any]:
    """The record a right on a document is judged on: the stored one (never unsaved edits; changing a
    Link in memory must not hand a document over), a new document's own values."""
    stored = doc._stored
    return doc.to_record() if stored is None else stored
