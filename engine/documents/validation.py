"""Field validation on save, driven by Meta: defaults, types, mandatory, links and `fetch_from`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.documents import docstatus, store
from engine.meta import fieldtypes
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument
    from engine.meta.schema import DocFieldSchema, Meta


def all_docs(doc: BaseDocument) -> list[BaseDocument]:
    docs = [doc]
    for table in doc.meta.table_fields:
        docs.extend(doc._data.get(table.fieldname) or [])
    return docs


def apply_defaults(doc: BaseDocument, *, now: str, today: str) -> None:
    """Fill empty fields that declare a `default` (parent and child rows)."""
    for d in all_docs(doc):
        fill_defaults(d.meta, d._data, now=now, today=today)


def fill_defaults(meta: Meta, data: dict[str, Any], *, now: str, today: str) -> None:
    """`apply_defaults` on one record's values."""
    for field in meta.default_fields:
        if data.get(field.fieldname) in (None, ""):
            data[field.fieldname] = fieldtypes.default_value(field, now=now, today=today, doctype=meta.name)


# the empty value of a Password field: none (its key stays out, as it was not sent)
_NO_EMPTY = object()


def _coerce_plan(meta: Meta) -> list[tuple[DocFieldSchema, str, int, Any]]:
    """(field, fieldname, the length up to which a non-empty text stays as it is, or -1, the value
    None becomes) of each value field."""
    plan = meta.engine_cache.get("coerce_plan")
    if plan is None:
        plan = meta.engine_cache["coerce_plan"] = [
            (field, field.fieldname, -1 if (limit := fieldtypes.unchanged_text_limit(field)) is None else limit,
             _NO_EMPTY if field.fieldtype == "Password" else fieldtypes.coerce_value(field, None, doctype=meta.name))
            for field in meta.value_fields]
    return plan


def coerce_fields(doc: BaseDocument) -> None:
    """Validate and normalise every value by its field type (errors name the field)."""
    for d in all_docs(doc):
        coerce_values(d.meta, d._data)


def coerce_values(meta: Meta, data: dict[str, Any]) -> None:
    """`coerce_fields` on one record's values (each value field but a Password ends up with its key)."""
    doctype = meta.name
    for field, name, text_limit, empty in _coerce_plan(meta):
        value = data.get(name)
        if value.__class__ is str and 0 < len(value) <= text_limit:  # (typical text: nothing to do)
            continue
        if value is None and empty is not _NO_EMPTY:  # (a field not sent: its type's empty value, None or 0)
            data[name] = empty
            continue
        if field.fieldtype == "Password":  # kept as sent (a stored hash passes through), but text only
            if value is not None and not isinstance(value, str):
                fieldtypes.coerce_value(field, value, doctype=doctype)  # FieldTypeError
            continue
        data[name] = fieldtypes.coerce_value(field, value, doctype=doctype)
    data["docstatus"] = docstatus.coerce(data.get("docstatus"))


def check_mandatory(doc: BaseDocument) -> None:
    """Every empty `reqd` field, reported together; the first one is the error's `field`."""
    errors: list[dict[str, Any]] = []
    for d in all_docs(doc):
        for field in d.meta.mandatory_fields:
            if fieldtypes.is_empty(field, d._data.get(field.fieldname)):
                if d.parent_doc is None:
                    msg = _("{0} is mandatory", _(field.display_label))
                else:
                    msg = _("{0} row {1}: {2} is mandatory", _(doc.meta.label(d.parentfield)), d.idx,
                            _(field.display_label))
                errors.append({"type": "MandatoryError", "message": msg, "field": field.fieldname})
    if errors:
        raise exc.MandatoryError("; ".join(e["message"] for e in errors), field=errors[0]["field"], errors=errors)


def check_non_table_lists(doc: BaseDocument) -> None:
    for d in all_docs(doc):
        for field in d.meta.table_fields:
            if not isinstance(d._data.get(field.fieldname, []), list):
                raise exc.FieldTypeError(_("{0} must be a list of rows", field.display_label), field=field.fieldname)


async def validate_links(ctx: Context, doc: BaseDocument, *, fetch: bool = True) -> None:
    """Check Link and Dynamic Link targets exist (one query per target doctype) and fill `fetch_from`."""
    errors = await check_links_of(ctx, [doc], fetch=fetch)
    if errors:
        raise errors[0]


async def check_links_of(ctx: Context, docs: Sequence[BaseDocument], *,
                         fetch: bool = True) -> dict[int, exc.FwError]:
    """`validate_links` for many documents with one query per target doctype: the first error of each
    document that has one, by its position (`fetch_from` fields are filled in the others)."""
    errors: dict[int, exc.FwError] = {}
    checks: list[tuple[int, BaseDocument, DocFieldSchema, str, str]] = []
    metas: dict[str, Meta] = {}
    for position, doc in enumerate(docs):
        try:
            _collect_links(ctx, position, doc, checks, metas)
        except exc.LinkValidationError as e:  # a Dynamic Link without a valid doctype: no query asked
            errors[position] = e
    if not checks:
        return errors
    wanted: dict[str, set[str]] = defaultdict(set)
    for position, _d, _f, target, value in checks:
        if position not in errors:
            wanted[target].add(value)
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for target, names in wanted.items():
        meta = ctx.meta(target)
        if meta.issingle:
            found[target] = {target: {}} if target in names else {}
            continue
        rows = await store.find(ctx, meta, {"_id": {"$in": sorted(names)}},
                                projection=_fetch_projection(metas.values(), target))
        found[target] = {r["_id"]: r for r in rows}
    for position, d, field, target, value in checks:
        if position in errors:
            continue
        row = found[target].get(value)
        if row is None:
            errors[position] = exc.LinkValidationError(
                _("Could not find {0}: {1}", _(field.display_label), value), field=field.fieldname)
            continue
        target_meta = ctx.meta(target)
        if (target_meta.is_submittable and row.get("docstatus") == 2 and docs[position].docstatus != 2
                and field.fieldname != "amended_from"):
            errors[position] = exc.LinkValidationError(
                _("Cannot link cancelled document: {0} {1}", _(target), value), field=field.fieldname)
        elif fetch:
            _apply_fetch(d, field.fieldname, row)
    return errors


def _collect_links(ctx: Context, position: int, doc: BaseDocument,
                   checks: list[tuple[int, BaseDocument, DocFieldSchema, str, str]], metas: dict[str, Meta]) -> None:
    """The (position, document or row, field, target doctype, name) of each Link `doc` sets, in order."""
    for d in all_docs(doc):
        data, meta = d._data, d.meta
        metas[meta.name] = meta
        for field in meta.link_fields:
            value = data.get(field.fieldname)
            if value:
                checks.append((position, d, field, field.options or "", value))
        for field in meta.dynamic_link_fields:
            if data.get(field.fieldname):
                target = data.get(field.options or "")
                if not target or not ctx.site.meta.exists(target):
                    raise exc.LinkValidationError(
                        _("{0}: set a valid document type in {1} first", field.display_label, field.options),
                        field=field.fieldname)
                checks.append((position, d, field, target, data[field.fieldname]))


def _fetch_projection(metas: Iterable[Meta], target: str) -> dict[str, int]:
    """What a Link check reads of `target`: its docstatus, and the fields `fetch_from` fields of these
    doctypes read from it."""
    projection = {"docstatus": 1}
    for meta in metas:
        for f in meta.fetch_fields:
            link, _sep, source = (f.fetch_from or "").partition(".")
            link_field = meta.by_name.get(link)
            if link_field is not None and link_field.options == target and source:
                projection[source] = 1
    return projection


def _apply_fetch(d: BaseDocument, link_fieldname: str, row: dict[str, Any]) -> None:
    data = d._data
    for f, source in _fetches(d.meta).get(link_fieldname, ()):
        if f.fetch_if_empty and data.get(f.fieldname) not in (None, "", 0):
            continue
        data[f.fieldname] = fieldtypes.coerce_value(f, row.get(source), doctype=d.doctype)


def _fetches(meta: Meta) -> dict[str, tuple[tuple[DocFieldSchema, str], ...]]:
    """The `fetch_from` fields of `meta` by the Link field they read, each with the field read there
    (worked out once per meta: a bulk insert asks for every Link of every document)."""
    plan = meta.engine_cache.get("fetches")
    if plan is None:
        by_link: dict[str, list[tuple[DocFieldSchema, str]]] = defaultdict(list)
        for f in meta.fetch_fields:
            link, _sep, source = (f.fetch_from or "").partition(".")
            if source:
                by_link[link].append((f, source))
        plan = meta.engine_cache["fetches"] = {link: tuple(fields) for link, fields in by_link.items()}
    return plan
