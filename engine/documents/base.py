"""`BaseDocument`: a doctype's field values with attribute access, child rows and change tracking.

It does no I/O. The lifecycle (engine/documents/lifecycle.py) and everything below it work on a
`BaseDocument`; `Document` (engine/documents/document.py), the class apps subclass, adds the
lifecycle methods (`insert()`, `save()`, ...) on top.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Self

from engine import exceptions as exc
from engine.jobs.payload import CARRIED, CARRIED_AT
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.meta.schema import Meta

# keys clients send that are not fields (Frappe's private and optional keys)
IGNORED_INPUT = frozenset({"doctype", "_user_tags", "_comments", "_assign", "_liked_by", "_seen"})
# what a client sends back with a stored document and an update leaves as it is (engine/methods/client.py,
# engine/documents/one_call.py)
ECHOED_BY_CLIENTS = frozenset({"name", "doctype", "owner", "creation", "modified_by", "idx", "flags"})


class BaseDocument:
    """A document of one doctype. Field values read and write as attributes: `doc.employee`."""

    # the class of child rows (engine/documents/document.py makes it `Document`)
    row_class: ClassVar[type[BaseDocument]]

    def __init__(self, meta: Meta, data: Mapping[str, Any] | None = None, *, ctx: Context | None = None,
                 parent: BaseDocument | None = None, stored: bool = False) -> None:
        # (straight into the instance dict: `__setattr__` would treat them as fields)
        self.__dict__.update(_meta=meta, _ctx=ctx, _data={}, _parent=parent, _stored=None, flags={})
        if data:
            if stored:
                self._load(data)
            else:
                self.update(data)

    # -- identity -----------------------------------------------------------------------------

    @property
    def meta(self) -> Meta:
        return self._meta

    @property
    def doctype(self) -> str:
        return self._meta.name

    @property
    def ctx(self) -> Context:
        ctx = self._ctx if self._parent is None else self._parent.ctx
        if ctx is None:
            raise RuntimeError(f"{self.doctype} document is not bound to a context")
        return ctx

    @property
    def parent_doc(self) -> BaseDocument | None:
        return self._parent

    def is_new(self) -> bool:
        return self._stored is None

    def bind(self, ctx: Context) -> Self:
        object.__setattr__(self, "_ctx", ctx)
        return self

    # -- field access -------------------------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        data = self.__dict__["_data"]
        if name in data:
            return data[name]
        meta = self.__dict__["_meta"]
        if name in meta.settable:
            return [] if name in meta.by_name and meta.by_name[name].is_table else None
        raise AttributeError(f"{type(self).__name__} ({meta.name}) has no field or attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_") or name in type(self).__dict__ or not self._is_field(name):
            object.__setattr__(self, name, value)
        else:
            self.set(name, value)

    def _is_field(self, name: str) -> bool:
        return name in self._meta.settable

    def get(self, fieldname: str, default: Any = None) -> Any:
        value = self._data.get(fieldname)
        return default if value is None else value

    def set(self, fieldname: str, value: Any) -> None:
        field = self._meta.by_name.get(fieldname)
        if field is not None and field.is_table:
            self._data[fieldname] = self._make_rows(fieldname, value)
        else:
            self._data[fieldname] = value

    def update(self, data: Mapping[str, Any], *, strict: bool = True) -> Self:
        """Set several fields at once. A table given replaces the table (rows keep their names).

        With `strict`, a key that is not a field of the doctype is a DataError naming it.
        """
        if type(data) is not dict and not isinstance(data, Mapping):  # (the exact type first: the cheap check)
            raise exc.DataError(_("Document data must be an object, not {0}", type(data).__name__))
        meta = self._meta
        settable, tables, own = meta.settable, meta.table_fieldnames, self._data
        for key, value in data.items():
            if key in settable:  # `set`, inlined: every field of every document a client sends passes here
                own[key] = self._make_rows(key, value) if key in tables else value
            elif key in IGNORED_INPUT or key.startswith("__"):
                continue
            elif strict:
                raise exc.DataError(_("{0} has no field {1}", self.doctype, repr(key)[:80]), field=str(key))
        return self

    def append(self, table: str, row: Mapping[str, Any] | BaseDocument | None = None) -> BaseDocument:
        """Add a row to a child table and return it."""
        field = self._meta.by_name.get(table)
        if field is None or not field.is_table:
            raise exc.DataError(_("{0} has no table {1}", self.doctype, table), field=table)
        rows = self._data.setdefault(table, [])
        child = self._make_row(table, row or {}, len(rows) + 1)
        rows.append(child)
        return child

    def _make_rows(self, table: str, value: Any) -> list[BaseDocument]:
        if value is None:
            return []
        if not isinstance(value, list | tuple):
            raise exc.FieldTypeError(_("{0} must be a list of rows", self._meta.label(table)), field=table)
        return [self._make_row(table, row, i) for i, row in enumerate(value, start=1)]

    def _make_row(self, table: str, row: Any, idx: int) -> BaseDocument:
        meta = self._child_meta(table)
        if isinstance(row, BaseDocument):
            child = row
            object.__setattr__(child, "_parent", self)
        elif isinstance(row, Mapping):
            child = self.row_class(meta, None, parent=self)
            child.update(row)
        else:
            raise exc.FieldTypeError(_("Each row of {0} must be an object", self._meta.label(table)), field=table)
        child._data["idx"] = idx
        child._data["parentfield"] = table
        child._data["parenttype"] = self.doctype
        return child

    def _child_meta(self, table: str) -> Meta:
        field = self._meta.by_name[table]
        if self._meta.registry is None:
            raise RuntimeError(f"{self.doctype}: Meta has no registry to resolve child doctype {field.options}")
        return self._meta.registry.get(field.options or "")

    # -- serialisation ------------------------------------------------------------------------

    def as_dict(self, *, no_nulls: bool = False, fields: Iterable[str] | None = None) -> dict[str, Any]:
        """Plain data for clients: `doctype`, standard fields, values and child rows; no passwords."""
        meta = self._meta
        data = self._data
        tables = meta.table_fieldnames
        if fields is None:
            if not tables:  # the common shape, in one comprehension
                # every key one to send, and (with nulls) every one there; tested at C speed
                if data.keys() <= meta.serial_keyset and (
                        None not in data.values() if no_nulls else len(data) == len(meta.serial_keyset)):
                    return {"doctype": meta.name, **data}
                if no_nulls:
                    return {"doctype": meta.name,
                            **{key: value for key in meta.serial_keys if (value := data.get(key)) is not None}}
                return {"doctype": meta.name, **{key: data.get(key) for key in meta.serial_keys}}
            out: dict[str, Any] = {"doctype": meta.name}
            keys: Iterable[str] = meta.serial_keys
        else:
            out, wanted = {}, set(fields)
            keys = [k for k in meta.serial_keys if k in wanted]
        for key in keys:
            value = data.get(key)
            if key in tables:
                value = [row.as_dict(no_nulls=no_nulls) for row in value or []]
            elif value is None and no_nulls:
                continue
            out[key] = value
        return out

    def to_record(self) -> dict[str, Any]:
        """The stored shape: `_id` for name, child rows embedded (without `doctype`)."""
        meta = self._meta
        if not meta.table_fieldnames:  # the common shape: a copy at C speed, the name renamed
            out = dict(self._data)
            if self._parent is None and "name" in out:
                out["_id"] = out.pop("name")
            return out
        out = {}
        for key, value in self._data.items():
            field = meta.by_name.get(key)
            if key == "name":
                if self._parent is None:
                    out["_id"] = value
                else:
                    out["name"] = value
                continue
            if field is not None and field.is_table:
                out[key] = [row.to_record() for row in value or []]
            else:
                out[key] = value
        return out

    def _load(self, record: Mapping[str, Any]) -> None:
        """Fill from a stored record (trusted: no input checks), and remember it for diffs."""
        data = dict(record)  # one copy at C speed; the few keys that need more are fixed below
        if "_id" in data:
            data["name"] = data.pop("_id")
        data.pop("_ancestors", None)
        if CARRIED in data:  # jobs a write carries, not fields (engine/jobs/payload.py)
            data.pop(CARRIED)
            data.pop(CARRIED_AT, None)
        meta = self._meta
        nested = meta.nested_fieldnames  # only tables and JSON fields hold dicts or lists
        for key in nested.intersection(data) if nested else ():
            value = data[key]
            if key in meta.table_fieldnames:
                data[key] = self._load_rows(key, value)
            elif isinstance(value, (dict, list)):  # a JSON value: the document gets its own copy
                data[key] = copy.deepcopy(value)
        object.__setattr__(self, "_data", data)
        # the record itself is the snapshot: nothing else holds it, and the document never mutates it
        object.__setattr__(self, "_stored", record)

    def _load_rows(self, table: str, rows: list[dict[str, Any]] | None) -> list[BaseDocument]:
        meta = self._child_meta(table)
        out = []
        for row in rows or []:
            child = self.row_class(meta, None, parent=self)
            child._load(row)
            out.append(child)
        return out

    def _snapshot(self) -> dict[str, Any]:
        # `to_record` builds new dicts and lists for the document and its rows; only nested JSON values
        # (dicts and lists inside them) are shared with the document, so only those are copied
        meta = self._meta
        return _detached(self.to_record(), meta.table_fieldnames, meta.nested_fieldnames)

    def mark_stored(self) -> None:
        object.__setattr__(self, "_stored", self._snapshot())
        for table in self._meta.table_fields:
            for row in self._data.get(table.fieldname) or []:
                object.__setattr__(row, "_stored", row._snapshot())

    # -- change tracking ----------------------------------------------------------------------

    def get_doc_before_save(self) -> Self | None:
        """The document as stored before this save (None for a new document)."""
        if self._stored is None:
            return None
        before = type(self)(self._meta, ctx=self._ctx)
        before._load(self._stored)
        return before

    def stored_value(self, fieldname: str) -> Any:
        if self._stored is None:
            return None
        key = "_id" if fieldname == "name" and self._parent is None else fieldname
        return self._stored.get(key)

    def has_value_changed(self, fieldname: str) -> bool:
        if self._stored is None:
            return True
        current = self.to_record()
        key = "_id" if fieldname == "name" and self._parent is None else fieldname
        return current.get(key) != self._stored.get(key)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.doctype} {self._data.get('name')!r}>"


BaseDocument.row_class = BaseDocument  # a bare BaseDocument's rows; Document's are Documents


def _detached(record: dict[str, Any], tables: frozenset[str] = frozenset(),
              nested: frozenset[str] | None = None) -> dict[str, Any]:
    """A fresh record (from `to_record`) with the values it still shares copied: nested dicts and
    lists, i.e. JSON values. Its rows (under `tables`) are fresh dicts too, detached the same way.
    `nested` names the only keys that can hold such values (a meta's `nested_fieldnames`); without
    it every value is looked at."""
    keys = record.keys() if nested is None else nested.intersection(record) if nested else ()
    for key in keys:
        value = record[key]
        if key in tables and isinstance(value, list):
            record[key] = [_detached(row) if isinstance(row, dict) else copy.deepcopy(row) for row in value]
        elif isinstance(value, (dict, list)):
            record[key] = copy.deepcopy(value)
    return record
