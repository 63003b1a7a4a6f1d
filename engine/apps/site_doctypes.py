"""Drop-in doctypes: the site's `doctype_json/<scrubbed>.json` files (business.md §7), doctypes in an
app's JSON format without an app.

Every file is checked before any is added, and every problem of every file is reported at once,
each naming its file (and its field): the loader runs before `fw migrate` writes anything, so a bad
file stops the migrate with nothing of it applied. A doctype whose `module` no installed app owns
belongs to a site module (`Module Def` with `custom: 1`, written by the migrate).
"""

from __future__ import annotations

import json
from pathlib import Path

from engine import exceptions as exc
from engine.apps.registry import AppRegistry
from engine.meta.schema import (
    ALL_TYPES,
    CHILD_FIELDS,
    NO_VALUE_TYPES,
    STANDARD_FIELDS,
    TABLE_TYPES,
    DocTypeSchema,
    parse_doctype,
    scrub,
)

# the keys a DocField row of Frappe's exported JSON carries beside the DocField doctype's own fields
ROW_KEYS = frozenset({"doctype", "name", "parent", "parentfield", "parenttype", "idx", "owner", "creation",
                      "modified", "modified_by", "docstatus"})

LINKED = frozenset({"Link", *TABLE_TYPES})
# what every document (or child row) has: never a field of a definition
RESERVED = frozenset({*STANDARD_FIELDS, *CHILD_FIELDS, "doctype", "_id"})
Problem = tuple[str | None, str]


def load_site_doctypes(registry: AppRegistry, folder: Path) -> list[str]:
    """Add every `folder/*.json` doctype to `registry` (after the core and the apps' doctypes);
    returns their names. ConfigurationError naming every bad file, having added none of them."""
    if not folder.is_dir():
        return []
    known = field_keys(registry)
    problems: list[str] = []
    parsed = []
    names: dict[str, Path] = {}
    for path in sorted(folder.glob("*.json")):
        found = _file_problems(path, known)
        if isinstance(found, list):
            problems += [f"{path}: {p}" for p in found]
            continue
        schema = found
        if schema.name in registry.doctypes:
            owner = registry.doctype_app.get(schema.name)
            problems.append(f"{path}: doctype {schema.name!r} collides with the "
                            f"{f'app {owner!r}' if owner else 'core'} doctype of the same name "
                            f"({registry.doctype_source[schema.name]}); rename it")
        elif schema.name in names:
            problems.append(f"{path}: doctype {schema.name!r} is also defined in {names[schema.name]}")
        else:
            names[schema.name] = path
            parsed.append((schema, path))
    known_doctypes = set(registry.doctypes) | set(names)
    for schema, path in parsed:
        for f in schema.fields:
            if f.fieldtype in LINKED and f.options not in known_doctypes:
                problems.append(f"{path}: field {f.fieldname!r} points at unknown doctype {f.options!r}")
    if problems:
        raise _refusal(problems)
    for schema, path in parsed:
        registry.add_doctype(schema, str(path), None)
    return [schema.name for schema, _path in parsed]


def _refusal(problems: list[str]) -> exc.ConfigurationError:
    return exc.ConfigurationError(
        "Invalid doctype file(s) in doctype_json/ (nothing was migrated; fix them and run the command again):\n  "
        + "\n  ".join(problems))


def site_modules(registry: AppRegistry, site_doctypes: list[str]) -> list[str]:
    """The modules of drop-in doctypes that no installed app owns (an app owns its doctypes' modules)."""
    owned = {registry.doctypes[n].module for n, app in registry.doctype_app.items() if app is not None}
    out: list[str] = []
    for name in site_doctypes:
        module = registry.doctypes[name].module
        if module and module not in owned and module not in out:
            out.append(module)
    return out


def field_keys(registry: AppRegistry) -> frozenset[str]:
    """What a field may set: the DocField doctype's fields (Frappe's DocField properties)."""
    docfield = registry.doctypes.get("DocField")
    own = {f.fieldname for f in docfield.fields if f.fieldname} if docfield else set()
    return frozenset(own) | ROW_KEYS


def _file_problems(path: Path, known: frozenset[str]) -> DocTypeSchema | list[str]:
    """The file's DocTypeSchema, or the list of what is wrong with it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return [f"not valid JSON ({e})"]
    found = checked_definition(data, known, str(path))
    if isinstance(found, list):
        return [problem for _field, problem in found]
    if scrub(found.name) != path.stem:
        return [f"doctype {found.name!r} must be in a file named {scrub(found.name)}.json"]
    return found


def checked_definition(data: object, known: frozenset[str], source: str) -> DocTypeSchema | list[Problem]:
    """A doctype definition (a file's JSON, or what the DocType editor saves) as a DocTypeSchema, or
    what is wrong with it: (fieldname or None, problem) pairs. The links it makes are checked by the
    caller, who knows the doctypes beside it."""
    if not isinstance(data, dict):
        return [(None, "a doctype file must hold one JSON object")]
    problems: list[Problem] = []
    if not isinstance(data.get("module"), str) or not data["module"].strip():
        problems.append(("module", 'names no `module` (add e.g. "module": "Projects"; a module no app owns '
                                   "becomes a site module)"))
    fields = data.get("fields", [])
    if not isinstance(fields, list):
        return [*problems, ("fields", "`fields` must be a list")]
    seen: set[str] = set()
    for i, field in enumerate(fields, start=1):
        if not isinstance(field, dict):
            problems.append((None, f"field #{i} is not an object"))
            continue
        fieldname = field.get("fieldname")
        name = fieldname if isinstance(fieldname, str) and fieldname else None
        label = f"field {fieldname!r}" if name else f"field #{i}"
        fieldtype = field.get("fieldtype", "Data")
        if fieldtype not in ALL_TYPES:
            problems.append((name, f"{label}: unknown fieldtype {fieldtype!r}"))
        unknown = sorted(str(k) for k in field if k not in known)
        if unknown:
            problems.append((name, f"{label}: unknown option(s) {', '.join(map(repr, unknown))}"))
        if name and fieldtype not in NO_VALUE_TYPES:
            if name in RESERVED:
                problems.append((name, f"fieldname {name!r} is reserved (every document has it)"))
            elif name in seen:
                problems.append((name, f"{label}: duplicate fieldname"))
            seen.add(name)
        if fieldtype == "Select" and field.get("default") not in (None, ""):
            options = [o for o in str(field.get("options") or "").split("\n") if o.strip()]
            if str(field["default"]) not in options:
                problems.append((name, f"{label}: default {field['default']!r} is not one of its options"))
    if problems:
        return problems
    try:
        return parse_doctype(data, source)
    except exc.ConfigurationError as e:
        return [(None, e.message.removeprefix(f"Invalid doctype JSON in {source}: "))]
