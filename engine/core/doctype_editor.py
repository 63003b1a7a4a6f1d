"""DocType controller: the DocType editor (business.md §7). With `FW_DEVELOPER_MODE` a System Manager
creates and edits doctypes in the Desk's DocType form; saving writes the doctype's JSON file (into
the app's `doctype/<name>/` folder when its module belongs to an installed app, else into the site's
`doctype_json/`), checked exactly as `fw migrate` checks a drop-in file, and once the save commits,
every process re-reads the definitions (the cache bus) and the doctype's collection, indexes and
DocType record are made at once (schema_sync.apply_definition). Without developer mode a DocType
is read-only: its JSON is the definition, and a DocType record is only its copy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine import exceptions as exc
from engine.apps.registry import AppRegistry
from engine.apps.site_doctypes import LINKED, ROW_KEYS, checked_definition, field_keys
from engine.documents.document import Document
from engine.meta.properties import DocTypeProperties
from engine.meta.record import SYNC_KEYS
from engine.meta.schema import TABLE_TYPES, DocTypeSchema, scrub
from engine.schema_sync import apply_definition
from engine.translation import _

# the DocType record's keys that are not the definition's: the engine's bookkeeping and Frappe's stamps
NOT_DEFINITION = frozenset({*SYNC_KEYS, *ROW_KEYS, "custom", "fields", "permissions", "field_order"})


class DocType(Document):
    async def validate(self) -> None:
        self._require_developer_mode()
        apps = self.ctx.site.apps
        name = str(self.name or "")
        if name in apps.doctypes and apps.doctype_app.get(name) is None and name not in apps.site_doctypes:
            raise exc.PermissionError(_("{0} is a core doctype of fw: it cannot be changed in the DocType editor",
                                        name))
        path = definition_path(apps, name, str(self.get("module") or ""), self.ctx.site.settings.doctype_json_dir)
        previous = _read(path)
        data = definition(self.as_dict(), previous, self.ctx.site.meta.properties_of(name))
        checked(apps, data, str(path))
        self.flags["definition"] = (path, data)

    async def on_update(self) -> None:
        path, data = self.flags["definition"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        site, doctype = self.ctx.site, str(self.name)

        async def apply() -> None:
            await apply_definition(site, doctype)

        self.ctx.after_commit(apply)

    async def on_trash(self) -> None:
        raise exc.PermissionError(_("A doctype is removed by deleting its JSON file ({0}) and running fw migrate",
                                    self.ctx.site.apps.doctype_source.get(str(self.name), "?")))

    def _require_developer_mode(self) -> None:
        if not self.ctx.site.settings.developer_mode:
            raise exc.PermissionError(_(
                "DocTypes can only be saved in developer mode: set FW_DEVELOPER_MODE=1 and restart fw serve "
                "(on a live site, change a form with Customize Form)"))


def definition_path(apps: AppRegistry, name: str, module: str, site_folder: Path) -> Path:
    """Where the doctype's JSON lives: its file if it has one; for a new doctype, the `doctype/`
    folder of the installed app that owns `module`, else the site's `doctype_json/`."""
    if name in apps.doctypes:
        return Path(apps.doctype_source[name])
    for app in apps.apps:
        owned = {apps.doctypes[n].module for n, owner in apps.doctype_app.items() if owner == app.name}
        if module in owned or scrub(module) == app.name:
            return app.path / "doctype" / scrub(name) / f"{scrub(name)}.json"
    return site_folder / f"{scrub(name)}.json"


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == 0 or value == []


def definition(record: dict[str, Any], previous: dict[str, Any],
               setters: DocTypeProperties | None = None) -> dict[str, Any]:
    """The doctype's JSON from a DocType document (the editor's form): its keys over the file's
    previous ones (a key the DocType doctype does not declare is kept), empty values left out, the
    fields (without Custom Fields, which stay records) and permissions without their row keys, and
    `field_order` as the fields' order. The form shows the site's Property Setters applied: a value
    a setter put there (`setters`) is written as the file had it, so the setter stays a setter."""
    data: dict[str, Any] = {k: v for k, v in previous.items() if k not in ("fields", "permissions", "field_order")}
    for key, value in record.items():
        if key in NOT_DEFINITION or key.startswith("_") or key.startswith("__"):
            continue
        if _empty(value):
            data.pop(key, None)
        else:
            data[key] = value
    data["doctype"] = "DocType"
    data["name"] = record.get("name")
    file_fields = {f["fieldname"]: f for f in previous.get("fields") or []
                   if isinstance(f, dict) and f.get("fieldname")}
    fields = []
    for row in record.get("fields") or []:
        if row.get("is_custom_field"):
            continue
        out = {k: v for k, v in row.items() if k not in ROW_KEYS and k != "is_custom_field" and not _empty(v)}
        out.setdefault("fieldtype", "Data")
        fields.append(_unset(out, setters.fields.get(out.get("fieldname") or "", {}) if setters else {},
                             file_fields.get(out.get("fieldname") or "", {})))
    data["fields"] = fields
    data["field_order"] = [f["fieldname"] for f in fields if f.get("fieldname")]
    data["permissions"] = [{k: v for k, v in row.items() if k not in ROW_KEYS and not _empty(v)}
                           for row in record.get("permissions") or []]
    return data


def _unset(row: dict[str, Any], changed: dict[str, Any], in_file: dict[str, Any]) -> dict[str, Any]:
    """`row` with each property a Property Setter set (`changed`), still at the setter's value, as the
    file has it (`in_file`)."""
    out = dict(row)
    for prop, value in changed.items():
        if (None if _empty(out.get(prop)) else out.get(prop)) != (None if _empty(value) else value):
            continue  # changed in the editor: the new value is the definition's
        if _empty(in_file.get(prop)):
            out.pop(prop, None)
        else:
            out[prop] = in_file[prop]
    return out


def checked(apps: AppRegistry, data: dict[str, Any], source: str) -> DocTypeSchema:
    """`data` as a DocTypeSchema, checked as `fw migrate` checks a drop-in file, or a 417 naming the
    field and every problem."""
    found = checked_definition(data, field_keys(apps), source)
    if isinstance(found, list):
        raise exc.ValidationError(_("Cannot save DocType {0}: {1}", data.get("name"), "; ".join(p for _f, p in found)),
                                  field=next((f for f, _p in found if f), None))
    for f in found.fields:
        if f.fieldtype not in LINKED:
            continue
        target = apps.doctypes.get(f.options or "")
        if target is None and f.options != found.name:
            raise exc.ValidationError(_("Cannot save DocType {0}: field {1} points at unknown doctype {2}",
                                        found.name, f.fieldname, f.options), field=f.fieldname)
        if f.fieldtype in TABLE_TYPES and not (target.istable if target else found.istable):
            raise exc.ValidationError(_("Cannot save DocType {0}: table field {1} needs a child doctype (Is Child "
                                        "Table), but {2} is not one", found.name, f.fieldname, f.options),
                                      field=f.fieldname)
    return found
