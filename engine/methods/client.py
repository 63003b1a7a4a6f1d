"""`fw.client.*`: Frappe's client functions, permission-aware. The REST routes call these too.

Responses are plain dicts: documents as `as_dict()` with fields the caller may not read removed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import exceptions as exc
from engine import permissions
from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.documents import concurrency, direct_create, one_call
from engine.documents.base import ECHOED_BY_CLIENTS
from engine.documents.document import Document
from engine.documents.factory import get_doc, new_doc
from engine.documents.rename import rename
from engine.meta.schema import DocFieldSchema, Meta
from engine.methods import expand as expansion
from engine.methods.args import bool_arg, document_ref, json_arg
from engine.query import listing
from engine.translation import _

MAX_INSERT_MANY = 200
CLIENT_NAMED = frozenset({"prompt", "uuid"})
SERVER_SET = frozenset({"doctype", "name", "owner", "creation", "modified", "modified_by", "idx", "flags"})


def read_only_fields(meta: Meta) -> frozenset[str]:
    """Fields clients cannot set: `read_only` ones (server-computed, e.g. fetched or API keys)."""
    return frozenset(f.fieldname for f in meta.fields if f.read_only and f.fieldname and not f.is_table)


async def readable_dict(ctx: Context, doc: Document, *, no_nulls: bool = False) -> dict[str, Any]:
    """The document as the caller may see it (fields and child-row fields above their permlevels removed)."""
    return await permissions.readable_data(ctx, doc.meta, doc.as_dict(no_nulls=no_nulls))


async def fetch(ctx: Context, doctype: str, name: str, ptype: str) -> Document:
    """`get_doc`, but a caller without the `ptype` right on the doctype (on any of its documents) is
    refused with 403 whether or not the document exists: a stranger (Guest, say) learns nothing of
    which names exist from 404s. Checked only when the document is missing: the hot path is unchanged,
    and a document found is judged by the caller as before."""
    try:
        return await get_doc(ctx, doctype, name)
    except exc.DoesNotExistError:
        await permissions.check_doctype(ctx, doctype, ptype)
        raise


async def load_for(ctx: Context, doctype: str, name: str, ptype: str = "read") -> Document:
    """Load a document the caller holds `ptype` on (403 otherwise). `has_permission` on a stored
    document judges the `if_owner` rule and the `permission_query_conditions` row conditions too."""
    doc = await fetch(ctx, doctype, name, ptype)
    if doc.meta.issingle and not doc.get("name"):  # a Single never saved yet is still named after its doctype
        doc._data["name"] = doc.meta.name
    await permissions.check_document(ctx, doc, ptype)
    return doc


# doctypes whose records only the framework writes (what was deleted, what changed, what failed, what
# a job did): a record a client made up would be a lie in the audit trail, so none is created from
# client data, whoever asks (Administrator included); reading and deleting them follow their DocPerms
SYSTEM_WRITTEN = frozenset({"Deleted Document", "Version", "Error Log", "Scheduled Job Log"})


def input_document(ctx: Context, doctype: str, data: Mapping[str, Any]) -> Document:
    """A new document from client data: `doctype` dropped, `name` kept only for Prompt/UUID naming.
    `amended_from` (read-only once saved) is what makes a new document an amendment of a cancelled one,
    named `<name>-1`, `-2`, ... (the engine checks the source and the caller's `amend` right)."""
    meta, body = _client_body(ctx, doctype, data)
    return _new_document(ctx, meta, body, data)


def _new_document(ctx: Context, meta: Meta, body: Mapping[str, Any], data: Mapping[str, Any]) -> Document:
    doc = new_doc(ctx, meta.name, body)
    if meta.autoname.lower() in CLIENT_NAMED and data.get("name"):
        doc.name = str(data["name"])
    return doc


def _client_body(ctx: Context, doctype: str, data: Any) -> tuple[Meta, Mapping[str, Any]]:
    """The doctype's meta and what of a client's `data` a new document takes: the keys the server
    sets and the read-only fields dropped."""
    if not isinstance(data, Mapping):
        raise exc.DataError(_("Document data must be an object"))
    if doctype in SYSTEM_WRITTEN:
        raise exc.PermissionError(_("{0} records are written by the system and cannot be created", _(doctype)))
    meta = ctx.meta(doctype)
    refused = meta.engine_cache.get("client_refused")
    if refused is None:
        writable = {"amended_from"} if meta.is_submittable else set()
        refused = meta.engine_cache["client_refused"] = (SERVER_SET | read_only_fields(meta)) - writable
    # (the common body names none of them: tested at C speed, and passed on as it is)
    return meta, data if refused.isdisjoint(data) else {k: v for k, v in data.items() if k not in refused}


async def create(ctx: Context, doctype: str, data: Any, *, no_nulls: bool = False) -> dict[str, Any]:
    """A new document from client data (as `input_document` takes it), inserted and answered as the
    caller may read it. A doctype no code takes part in is created directly (engine/documents/
    direct_create.py); anything else, and any input that direct create leaves to it, by the insert."""
    meta, body = _client_body(ctx, doctype, data)
    created = await direct_create.create(ctx, meta, body, no_nulls=no_nulls)
    if created is not None:
        return await permissions.readable_data(ctx, meta, created)
    return await readable_dict(ctx, await _new_document(ctx, meta, body, data).insert(), no_nulls=no_nulls)


@whitelist(path="fw.client.get")
async def get(ctx: Context, doctype: str, name: str | None = None, filters: Any = None,
              parent: str | None = None) -> dict[str, Any]:
    """A document (nulls kept) by name, by filters (the first match), or a Single by doctype."""
    meta = ctx.meta(doctype)
    if name is None and filters is not None and not meta.issingle:
        found = await listing.get_list(ctx, doctype, filters=json_arg(filters, "filters"), limit_page_length=1,
                                       pluck="name")
        if not found:
            raise exc.DoesNotExistError(_("{0} not found", _(doctype)))
        name = found[0]
    if not meta.issingle and not name:
        raise exc.DataError(_("{0} is required", "name"), field="name")
    doc = await load_for(ctx, doctype, name or doctype)
    return await readable_dict(ctx, doc)


@whitelist(path="fw.client.get_list")
async def get_list(ctx: Context, doctype: str, fields: Any = None, filters: Any = None, group_by: str | None = None,
                   order_by: str | None = None, limit_start: Any = None, limit_page_length: Any = 20,
                   parent: str | None = None, debug: Any = False, as_dict: Any = True, or_filters: Any = None,
                   limit: Any = None, expand: Any = None) -> list[Any]:
    return await list_rows(ctx, doctype, fields=fields, filters=filters, group_by=group_by, order_by=order_by,
                           limit_start=limit_start, limit_page_length=limit_page_length, as_dict=as_dict,
                           or_filters=or_filters, limit=limit, expand=expand)


async def list_rows(ctx: Context, doctype: str, *, fields: Any = None, filters: Any = None, group_by: Any = None,
                    order_by: Any = None, limit_start: Any = None, limit_page_length: Any = 20, as_dict: Any = True,
                    or_filters: Any = None, limit: Any = None, expand: Any = None, drop_nulls: bool = False,
                    capped: bool = True, **_ignored: Any) -> list[Any]:
    """`get_list` from request-style arguments (string booleans; `fields`, `filters` and `or_filters`
    as JSON strings, which the query layer parses itself and remembers its plans by); the REST list
    route asks for `drop_nulls` (Frappe's v1 responses leave nulls out). `expand` names Link fields
    whose values become the linked documents (engine.methods.expand). `capped=False` leaves the page
    length as given (a caller that capped it itself, such as v2's list asking one row more)."""
    link_fields: list[DocFieldSchema] = []
    if expand:
        fields, link_fields = await expansion.expand_for_list(ctx, doctype, expand, fields, as_dict)
    rows = await listing.get_list(
        ctx, doctype, fields=fields or None, filters=filters, or_filters=or_filters, order_by=order_by,
        group_by=group_by, limit_start=limit_start, limit_page_length=limit_page_length, limit=limit,
        as_dict=bool_arg(as_dict, "as_dict"), max_page_length=ctx.site.settings.max_page_length if capped else None,
        drop_nulls=drop_nulls)
    if link_fields:
        await expansion.expand_rows(ctx, rows, link_fields, no_nulls=drop_nulls)
    return rows


@whitelist(path="fw.client.get_count")
async def get_count(ctx: Context, doctype: str, filters: Any = None, debug: Any = False, cache: Any = False) -> int:
    filters = json_arg(filters, "filters")
    return await listing.count(ctx, doctype, filters)


async def count_rows(ctx: Context, doctype: str, filters: Any = None, or_filters: Any = None) -> int:
    """v2's `/doctype/<dt>/count`: the rows the caller may read that match `filters` / `or_filters`
    (JSON text or decoded); a single or child doctype is refused, as the list refuses it."""
    meta = ctx.meta(doctype)
    if meta.issingle or meta.istable:
        raise exc.DataError(_("{0} cannot be listed: it is a single or child doctype", meta.name))
    return await listing.count(ctx, meta.name, json_arg(filters, "filters"),
                               or_filters=json_arg(or_filters, "or_filters"))


@whitelist(path="fw.client.get_value")
async def get_value(ctx: Context, doctype: str, fieldname: Any, filters: Any = None, as_dict: Any = True,
                    debug: Any = False, parent: str | None = None) -> Any:
    fields = json_arg(fieldname, "fieldname", kinds=(list,)) if str(fieldname).lstrip().startswith("[") \
        else fieldname
    if not isinstance(fields, str | list):
        raise exc.DataError(_("fieldname must be a field name or a list of field names"), field="fieldname")
    if not isinstance(filters, str) or filters.lstrip().startswith(("{", "[")):
        filters = json_arg(filters, "filters")
    want_dict = bool_arg(as_dict, "as_dict")
    rows = await listing.get_list(ctx, doctype, fields=fields if isinstance(fields, list) else [fields],
                                  filters={"name": filters} if isinstance(filters, str) else filters,
                                  limit_page_length=1, as_dict=want_dict)
    if not rows:
        return {} if want_dict else None
    row = rows[0]
    if want_dict:
        return row
    # the values by column, in the order asked for (looking them up by the requested text failed with a
    # KeyError, a 500, for an alias such as "name as n" or an empty fieldname)
    return row[0] if isinstance(fields, str) and len(row) == 1 else row


@whitelist(path="fw.client.set_value", methods=["POST", "PUT"])
async def set_value(ctx: Context, doctype: str, name: str, fieldname: Any, value: Any = None) -> dict[str, Any]:
    if isinstance(fieldname, dict) or (isinstance(fieldname, str) and fieldname.lstrip().startswith("{")):
        values = json_arg(fieldname, "fieldname", kinds=(dict,))
    elif isinstance(fieldname, str):
        values = {fieldname: value}
    else:  # a list, number or null is no field name (was a 500: unhashable or not a string)
        raise exc.DataError(_("fieldname must be a field name or an object of values"), field="fieldname")
    meta = ctx.meta(doctype)
    for key in values:
        if key in meta.standard or key == "doctype":
            raise exc.DataError(_("Cannot edit standard fields"), field=key)
    if (done := await one_call.update(ctx, doctype, name, values)) is not None:
        return await readable_dict(ctx, done)
    await concurrency.take_turn(ctx, doctype, name)  # no `modified` here: a concurrent change never fails it
    doc = await load_for(ctx, doctype, name, "write")
    concurrency.rerun_if_changed(doc)
    doc.update(values)
    await doc.save()
    return await readable_dict(ctx, doc)


@whitelist(path="fw.client.insert", methods=["POST", "PUT"])
async def insert(ctx: Context, doc: Any) -> dict[str, Any]:
    data = json_arg(doc, "doc", kinds=(dict,))
    doctype = (data or {}).get("doctype")
    if not isinstance(doctype, str):
        raise exc.DataError(_("doctype is required"), field="doctype")
    return await create(ctx, doctype, data)


@whitelist(path="fw.client.insert_many", methods=["POST", "PUT"])
async def insert_many(ctx: Context, docs: Any) -> list[str]:
    items = json_arg(docs, "docs", kinds=(list,)) or []
    if len(items) > MAX_INSERT_MANY:
        raise exc.ValidationError(_("Only {0} inserts allowed in one request", MAX_INSERT_MANY), field="docs")
    names = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("doctype"), str):
            raise exc.DataError(_("Each document needs a doctype"), field="docs")
        names.append((await input_document(ctx, item["doctype"], item).insert()).name)
    return names


async def update(ctx: Context, doctype: str, name: str, data: Mapping[str, Any]) -> Document:
    """PUT semantics: top-level merge; `docstatus` 1/2 submits/cancels; a sent `modified` is checked,
    and without one a concurrent change never fails the save (engine/documents/concurrency.py)."""
    if not isinstance(data, Mapping):
        raise exc.DataError(_("Document data must be an object"))
    if (done := await one_call.update(ctx, doctype, name, data)) is not None:
        return done
    checked = "modified" in data
    if not checked:
        await concurrency.take_turn(ctx, doctype, name)
    doc = await fetch(ctx, doctype, name, "write")
    if not checked:
        concurrency.rerun_if_changed(doc)
    skip = read_only_fields(doc.meta)
    body = {k: v for k, v in data.items() if k not in ECHOED_BY_CLIENTS and k not in skip}
    doc.update(body)
    await doc.save()
    return doc


@whitelist(path="fw.client.save", methods=["POST", "PUT"])
async def save(ctx: Context, doc: Any) -> dict[str, Any]:
    data, doctype, name = document_ref(doc)
    if not data.get("modified"):
        raise exc.TimestampMismatchError(_("modified is required to save {0} {1}", _(doctype), name),
                                         field="modified")
    return await readable_dict(ctx, await update(ctx, doctype, name, data))


@whitelist(path="fw.client.submit", methods=["POST", "PUT"])
async def submit(ctx: Context, doc: Any) -> dict[str, Any]:
    data, doctype, name = document_ref(doc)
    stored = await fetch(ctx, doctype, name, "submit")
    if int(stored.get("docstatus") or 0) != 0:
        raise exc.DocstatusTransitionError(_("Only a draft can be submitted: {0} {1} has docstatus {2}",
                                             _(doctype), name, stored.get("docstatus")), field="docstatus")
    return await readable_dict(ctx, await update(ctx, doctype, name, {**data, "docstatus": 1}))


@whitelist(path="fw.client.cancel", methods=["POST", "PUT"])
async def cancel(ctx: Context, doctype: str, name: str) -> dict[str, Any]:
    doc = await fetch(ctx, doctype, name, "cancel")
    await doc.cancel()
    return await readable_dict(ctx, doc)


@whitelist(path="fw.client.delete", methods=["POST", "DELETE"])
async def delete(ctx: Context, doctype: str, name: str) -> None:
    doc = await fetch(ctx, doctype, name, "delete")
    await doc.delete()


@whitelist(path="fw.client.rename_doc", methods=["POST", "PUT"])
async def rename_doc(ctx: Context, doctype: str, old_name: str, new_name: str, merge: Any = False) -> str:
    return await rename(ctx, doctype, old_name, new_name, merge=bool_arg(merge, "merge"))


@whitelist(path="fw.client.has_permission")
async def has_permission(ctx: Context, doctype: str, docname: str, perm_type: str = "read") -> dict[str, bool]:
    doc = await get_doc(ctx, doctype, docname)
    return {"has_permission": await permissions.has_permission(ctx, doctype, perm_type, doc)}


@whitelist(path="fw.client.get_single_value")
async def get_single_value(ctx: Context, doctype: str, field: str) -> Any:
    """One field of a Single doctype (frappe-js-sdk's `db.getSingleValue`). Read permission and the
    field's permlevel apply; an unknown field is a DataError, a Password field is never returned."""
    meta = ctx.meta(doctype)
    if not meta.issingle:
        raise exc.DataError(_("{0} is not a Single DocType", _(doctype)), field="doctype")
    df = meta.get_field(field)
    if (df is None and field not in meta.standard) or (df is not None and (df.fieldtype == "Password" or df.is_table)):
        raise exc.DataError(_("Field not permitted in query: {0}", field), field="field")
    data = await readable_dict(ctx, await load_for(ctx, doctype, doctype))
    if field not in data and (readable := await permissions.readable_fields(ctx, meta)) is not None \
            and field not in readable:
        raise exc.PermissionError(_("You need the {0} permission on {1} {2} to perform this action",
                                    _("read"), _(doctype), field))
    return data.get(field)
