"""A doctype as Frappe's `DocType` document: top-level keys, `fields` (DocField rows) and
`permissions` (DocPerm rows), built from the meta (the app's JSON with the site's Custom Fields).

One builder feeds both readers, so they never disagree: `fw migrate` stores it as the DocType record
(what `GET /api/resource/DocType/<name>` returns) and the Desk meta bundle (engine/meta/bundle.py)
sends it. The keys are exactly the fields the DocType, DocField and DocPerm doctypes declare
(engine/core/doctypes/), so a stored record reads back whole through the engine; a key an app's JSON
carries that those doctypes do not declare is left out. Values take the declared field's type
(Check → 0/1, Int → int, text → str, JSON → parsed); a key the definition leaves out gets the
declared field's default (0 for Check and Int), and nulls are left out. Row names are stable
hashes, so rebuilding a record changes nothing that did not change.

The result is cached on the Meta (a meta reload builds a new Meta) and shared: do not change it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from pydantic import BaseModel

    from engine.meta.schema import DocFieldSchema, Meta

# Bump when the builder's output changes for unchanged definitions: migrate then rewrites every record.
RECORD_FORMAT = 2
# bookkeeping fields of the DocType doctype that migrate sets, not the definition
SYNC_KEYS = frozenset({"json_hash"})
_INT_TYPES = frozenset({"Int", "Long Int"})
_FLOAT_TYPES = frozenset({"Float", "Currency", "Percent", "Duration", "Rating"})


def doctype_record(meta: Meta) -> dict[str, Any]:
    """The doctype as a Frappe `DocType` dict, without the timestamps and owner of a stored record."""
    record = meta.bundle_cache.get("record")
    if record is None:
        record = meta.bundle_cache["record"] = _build(meta)
    return record


def record_hash(meta: Meta) -> str:
    """A digest of `doctype_record(meta)`: a stored record with the same `json_hash` is current."""
    digest = meta.bundle_cache.get("record_hash")
    if digest is None:
        payload = orjson.dumps([RECORD_FORMAT, doctype_record(meta)], option=orjson.OPT_SORT_KEYS)
        digest = meta.bundle_cache["record_hash"] = hashlib.sha256(payload).hexdigest()
    return digest


def _build(meta: Meta) -> dict[str, Any]:
    registry = meta.registry
    if registry is None:
        raise RuntimeError(f"{meta.name}: a Meta without a registry has no DocType record")
    doctype_meta, docfield_meta, docperm_meta = (registry.get(n) for n in ("DocType", "DocField", "DocPerm"))
    schema = meta.schema
    special: dict[str, Any] = {
        "autoname": meta.autoname or None, "sort_field": meta.sort_field, "sort_order": meta.sort_order.upper(),
        "nsm_parent_field": meta.nsm_parent_field if meta.is_tree else None,
        "indexes": [ix.model_dump(exclude_none=True) for ix in meta.indexes] or None,
    }
    record: dict[str, Any] = {"doctype": "DocType", "name": meta.name}
    for field in doctype_meta.value_fields:
        if field.fieldname in SYNC_KEYS:
            continue
        value = special[field.fieldname] if field.fieldname in special else _source(schema, field.fieldname)
        _put(record, field, value)
    record["docstatus"] = 0
    record["idx"] = 0
    fields = []
    seen: dict[str, int] = {}
    for idx, df in enumerate(meta.fields, start=1):
        key = df.fieldname or df.fieldtype
        seen[key] = seen.get(key, 0) + 1
        row = _row(docfield_meta, meta.name, "fields", idx, f"{key}#{seen[key]}", df)
        if df.fieldname in meta.custom_fieldnames:
            row["is_custom_field"] = 1
        fields.append(row)
    record["fields"] = fields
    record["permissions"] = [_row(docperm_meta, meta.name, "permissions", idx, str(idx), perm)
                             for idx, perm in enumerate(meta.permissions, start=1)]
    return record


def _row(child: Meta, parent: str, parentfield: str, idx: int, key: str, source: BaseModel) -> dict[str, Any]:
    row: dict[str, Any] = {
        "doctype": child.name, "name": _row_name(parent, parentfield, key), "idx": idx, "docstatus": 0,
        "parent": parent, "parentfield": parentfield, "parenttype": "DocType"}
    for field in child.value_fields:
        _put(row, field, _source(source, field.fieldname))
    return row


def _row_name(parent: str, parentfield: str, key: str) -> str:
    # Frappe names rows with a random hash; a hash of what the row describes keeps it stable across migrates
    return hashlib.sha1(f"{parent}\0{parentfield}\0{key}".encode()).hexdigest()[:10]


def _source(model: BaseModel, key: str) -> Any:
    """A key of a doctype, field or permission model: a declared attribute, else an extra JSON key."""
    if key in type(model).model_fields:
        return getattr(model, key)
    if key == "import":
        return getattr(model, "import_", None)
    return (model.model_extra or {}).get(key)


def _put(out: dict[str, Any], field: DocFieldSchema, value: Any) -> None:
    value = _typed(field, value)
    if value is None:
        value = _typed(field, field.default)
    if value is None and field.fieldtype in ("Check", *_INT_TYPES):
        value = 0
    if value is not None:
        out[field.fieldname] = value


def _typed(field: DocFieldSchema, value: Any) -> Any:
    """`value` as the declared field type holds it (None when it is empty or cannot be one)."""
    if value is None or value == "":
        return None
    ftype = field.fieldtype
    try:
        if ftype == "Check":
            return 1 if (value.strip() not in ("0", "false", "False") if isinstance(value, str) else value) else 0
        if ftype in _INT_TYPES:
            return int(value)
        if ftype in _FLOAT_TYPES:
            return float(value)
    except (TypeError, ValueError):
        return None
    if ftype == "JSON":
        if isinstance(value, str):  # Frappe writes JSON keys (link_filters) as JSON text
            try:
                value = orjson.loads(value)
            except orjson.JSONDecodeError:
                return None
        return value if isinstance(value, dict | list) else None
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, Mapping | list):
        return orjson.dumps(value).decode()
    return str(value)
