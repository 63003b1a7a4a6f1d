"""Customize Form's server side (Frappe's `frappe.custom.doctype.customize_form`), without its form:
read a doctype's fields with the properties a System Manager may change, and save changes as
`Property Setter` records (engine/core/property_setter.py), which the meta applies over the JSON.

A value equal to the doctype's own (its JSON and Custom Fields) deletes the setter instead of keeping
one that changes nothing; a save is one unit of work, so one bad value changes nothing. Making a field
mandatory is allowed while stored documents lack it (as in Frappe): the answer counts them.
"""

from __future__ import annotations

import json
from typing import Any

from engine import exceptions as exc
from engine import permissions
from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.core.property_setter import DOCTYPE_LEVEL, FIELD_LEVEL, setter_name
from engine.documents.factory import get_doc, new_doc
from engine.meta.properties import FIELD_PROPERTIES, select_default_problem, typed_value
from engine.meta.schema import Meta
from engine.methods.args import json_arg
from engine.query.listing import count, get_all
from engine.translation import _

SETTER = "Property Setter"
SETTER_FIELDS = ["name", "field_name", "property", "value", "module"]
# a field's options are written before its default, which is checked against them
PROPERTY_ORDER = {prop: i for i, prop in enumerate(FIELD_PROPERTIES)}


async def _require(ctx: Context, doctype: Any, right: str) -> str:
    if not await permissions.has_permission(ctx, SETTER, right):
        raise exc.PermissionError(_("Not permitted to customize forms (needs {0} on {1})", right, SETTER))
    if not isinstance(doctype, str) or not ctx.site.meta.exists(doctype):
        raise exc.DoesNotExistError(_("DocType {0} not found", str(doctype)[:140]), field="doctype")
    return doctype


def _order(meta: Meta) -> list[str]:
    return [f.fieldname for f in meta.fields if f.fieldname]


def _properties(meta: Meta, fieldname: str) -> dict[str, Any]:
    field = meta.by_name[fieldname]
    extra = field.model_extra or {}
    out = {}
    for prop in FIELD_PROPERTIES:
        value = getattr(field, prop) if prop in type(field).model_fields else extra.get(prop)
        try:
            out[prop] = typed_value(prop, value)
        except ValueError:  # a JSON's own odd value (`"bold": "yes"`) is shown as written, not refused
            out[prop] = value
    return out


@whitelist(path="fw.desk.customize_form.fetch")
async def fetch(ctx: Context, doctype: str) -> dict[str, Any]:
    """The doctype as Customize Form shows it: each field (in the site's order) with its type and the
    properties it may change, whether it is a Custom Field, and the Property Setters in force."""
    return await _view(ctx, await _require(ctx, doctype, "read"))


async def _view(ctx: Context, doctype: str) -> dict[str, Any]:
    """`fetch`'s answer, from the Property Setters as this unit of work reads them (a save's own
    included: the registry applies them everywhere only after the commit)."""
    setters = await get_all(ctx, SETTER, filters={"doc_type": doctype}, fields=[*SETTER_FIELDS, "doc_type"],
                            order_by="creation asc", limit_page_length=0)
    meta = ctx.site.meta.preview(doctype, setters)
    fields = [{"fieldname": f.fieldname, "fieldtype": f.fieldtype, **_properties(meta, f.fieldname),
               "is_custom_field": int(f.fieldname in meta.custom_fieldnames)} for f in meta.fields if f.fieldname]
    return {"doctype": doctype, "module": meta.module, "istable": int(meta.istable),
            "issingle": int(meta.issingle), "fields": fields, "field_order": _order(meta),
            "property_setters": setters}


async def _set(ctx: Context, doctype: str, fieldname: str | None, prop: str, value: Any, base: Any,
               module: str | None) -> str | None:
    """Create, update or delete (when `value` is the doctype's own) one setter; its name, or None."""
    name = setter_name(doctype, fieldname, prop)
    existing = await get_all(ctx, SETTER, filters={"name": name}, pluck="name")
    if value == base:
        if existing:
            await (await get_doc(ctx, SETTER, name)).delete()
        return None
    if isinstance(value, list):  # field_order: stored as JSON text, as Frappe does
        value = json.dumps(value)
    if existing:  # the controller checks the value and stores it as text
        doc = await get_doc(ctx, SETTER, name)
        doc.update({"value": value, **({"module": module} if module else {})})
        await doc.save()
    else:
        doc = new_doc(ctx, SETTER, {"doc_type": doctype, "field_name": fieldname, "property": prop, "value": value,
                                    "doctype_or_field": FIELD_LEVEL if fieldname else DOCTYPE_LEVEL,
                                    "module": module})
        await doc.insert()
    return doc.name


async def _missing(ctx: Context, meta: Meta, fieldname: str) -> int:
    """How many stored documents (rows, for a child doctype) have no value in `fieldname`."""
    if meta.issingle or not meta.by_name[fieldname].has_value:
        return 0
    return await count(ctx, meta.name, [[fieldname, "is", "not set"]], ignore_permissions=True)


@whitelist(path="fw.desk.customize_form.save", methods=["POST"])
async def save(ctx: Context, doctype: str, fields: Any = None, field_order: Any = None,
               module: str | None = None) -> dict[str, Any]:
    """Apply a Customize Form: `fields` maps a fieldname to the properties it should have
    (`{"status": {"reqd": 1, "label": "State"}}`, or a list of `{"fieldname": ..., prop: value}` rows,
    such as `fetch`'s own, which saved back unchanged change nothing); `field_order` lists fieldnames.
    Answers what `fetch` does, plus `missing`: for each field this save made mandatory, how many stored
    documents lack a value."""
    doctype = await _require(ctx, doctype, "write")
    base = ctx.site.meta.customizable_meta(doctype)
    before = await _view(ctx, doctype)
    was_mandatory = {f["fieldname"] for f in before["fields"] if f["reqd"]}
    wanted = _field_changes(json_arg(fields, "fields", kinds=(dict, list)) or {}, base)
    _check_select_defaults(doctype, before, wanted)
    for fieldname, props in wanted.items():
        for prop, value in sorted(props.items(), key=lambda item: PROPERTY_ORDER[item[0]]):
            try:
                typed = typed_value(prop, value)
            except ValueError as e:
                raise exc.ValidationError(_("Cannot set {0} of {1}.{2}: {3}", prop, doctype, fieldname, str(e)),
                                          field=fieldname) from None
            own = _properties(base, fieldname)[prop]
            await _set(ctx, doctype, fieldname, prop, typed, own, module)
    if field_order is not None:
        order = json_arg(field_order, "field_order", kinds=(list,))
        await _set(ctx, doctype, None, "field_order", order, _order(base), module)
    after = await _view(ctx, doctype)
    made_mandatory = [f["fieldname"] for f in after["fields"] if f["reqd"] and f["fieldname"] not in was_mandatory]
    return {**after, "missing": {name: await _missing(ctx, base, name) for name in made_mandatory}}


def _check_select_defaults(doctype: str, before: dict[str, Any], wanted: dict[str, dict[str, Any]]) -> None:
    """A Select's default, as this save leaves it, must be one of its options as this save leaves them
    (checked together: one save may change both, in either order)."""
    current = {f["fieldname"]: f for f in before["fields"]}
    for fieldname, props in wanted.items():
        field = current[fieldname]
        if field["fieldtype"] != "Select" or not ({"options", "default"} & set(props)):
            continue
        problem = select_default_problem(fieldname, props.get("options", field["options"]),
                                         props.get("default", field["default"]))
        if problem:
            raise exc.ValidationError(_("Cannot set {0} of {1}.{2}: {3}", "default", doctype, fieldname, problem),
                                      field=fieldname)


def _field_changes(fields: Any, base: Meta) -> dict[str, dict[str, Any]]:
    """`{fieldname: {property: value}}` from either shape; unknown fields and properties refused."""
    rows = fields.items() if isinstance(fields, dict) else [
        (row.get("fieldname"), {k: v for k, v in row.items() if k != "fieldname"}) if isinstance(row, dict)
        else (None, row) for row in fields]
    out: dict[str, dict[str, Any]] = {}
    for fieldname, props in rows:
        if not isinstance(fieldname, str) or fieldname not in base.by_name:
            raise exc.ValidationError(_("{0} has no field {1}", base.name, fieldname), field=str(fieldname))
        if not isinstance(props, dict):
            raise exc.ValidationError(_("The properties of {0} must be an object", fieldname), field=fieldname)
        unknown = sorted(set(props) - set(FIELD_PROPERTIES) - {"fieldtype", "is_custom_field"})
        if unknown:
            raise exc.ValidationError(_("Unknown property {0} of field {1}: one of {2}", unknown[0], fieldname,
                                        ", ".join(sorted(FIELD_PROPERTIES))), field=fieldname)
        out.setdefault(fieldname, {}).update({k: v for k, v in props.items() if k in FIELD_PROPERTIES})
    return out


@whitelist(path="fw.desk.customize_form.missing_values")
async def missing_values(ctx: Context, doctype: str, fieldname: str) -> int:
    """How many stored documents of `doctype` have no value in `fieldname` (before making it mandatory)."""
    doctype = await _require(ctx, doctype, "read")
    meta = ctx.meta(doctype)
    if fieldname not in meta.by_name:
        raise exc.ValidationError(_("{0} has no field {1}", doctype, fieldname), field="fieldname")
    return await _missing(ctx, meta, fieldname)


@whitelist(path="fw.custom.doctype.customize_form.customize_form.reset_customization", methods=["POST"])
async def reset_customization(ctx: Context, doctype: str) -> dict[str, Any]:
    """Delete every Property Setter of `doctype` (Frappe's name): its fields are the JSON's again
    (Custom Fields stay, as in Frappe)."""
    doctype = await _require(ctx, doctype, "delete")
    for name in await get_all(ctx, SETTER, filters={"doc_type": doctype}, pluck="name", limit_page_length=0):
        await (await get_doc(ctx, SETTER, name)).delete()
    return await _view(ctx, doctype)
