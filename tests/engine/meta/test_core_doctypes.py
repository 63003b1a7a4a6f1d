"""The framework's core doctypes in engine/core/doctypes/: each file parses, and they form a closed set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.meta.schema import (
    CHILD_FIELDS,
    STANDARD_FIELDS,
    TABLE_TYPES,
    VALUE_TYPES,
    DocTypeSchema,
    Meta,
    parse_doctype,
    scrub,
)

CORE_DIR = Path(__file__).resolve().parents[3] / "engine" / "core" / "doctypes"
FILES = sorted(CORE_DIR.glob("*.json"))
KNOWN_MODULES = {"Core", "Custom", "Desk", "Workflow", "Automation"}
EXPECTED = {
    "User",
    "Role",
    "Has Role",
    "DocType",
    "DocField",
    "DocPerm",
    "Custom Field",
    "Property Setter",
    "Version",
    "Error Log",
    "Report",
    "Workflow",
    "Workflow State",
    "Workflow Action Master",
    "Workflow Document State",
    "Workflow Transition",
    "Scheduled Job Type",
    "Scheduled Job Log",
    "Module Def",
    "System Settings",
    "Deleted Document",
    "Comment",
}


def _raw(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _load() -> dict[str, tuple[Path, DocTypeSchema, Meta]]:
    out: dict[str, tuple[Path, DocTypeSchema, Meta]] = {}
    for path in FILES:
        schema = parse_doctype(_raw(path), str(path))
        assert schema.name not in out, f"{schema.name} is defined twice"
        out[schema.name] = (path, schema, Meta(schema))
    return out


CORE = _load()
IDS = [p.stem for p in FILES]


def _params() -> list[Any]:
    return [pytest.param(name, id=scrub(name)) for name in sorted(CORE)]


def test_files_exist() -> None:
    assert FILES, f"no doctype JSON in {CORE_DIR}"
    missing = EXPECTED - set(CORE)
    assert not missing, f"core doctypes missing: {sorted(missing)}"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_file_is_frappe_style(path: Path) -> None:
    data = _raw(path)
    assert data["doctype"] == "DocType"
    assert path.name == f"{scrub(data['name'])}.json"
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{\n "'), "1-space indentation, like Frappe's export"
    if "field_order" in data:
        assert data["field_order"] == [f["fieldname"] for f in data["fields"]]


@pytest.mark.parametrize("name", _params())
def test_module_is_set(name: str) -> None:
    _, schema, meta = CORE[name]
    assert schema.module in KNOWN_MODULES
    assert meta.module == schema.module


@pytest.mark.parametrize("name", _params())
def test_links_and_tables_resolve(name: str) -> None:
    _, _, meta = CORE[name]
    for f in meta.fields:
        if f.fieldtype == "Link" or f.fieldtype in TABLE_TYPES:
            assert f.options in CORE, f"{name}.{f.fieldname} points at unknown doctype {f.options!r}"
        if f.fieldtype in TABLE_TYPES:
            assert CORE[f.options][1].istable, f"{name}.{f.fieldname}: {f.options} is not a child table"


@pytest.mark.parametrize("name", _params())
def test_permissions(name: str) -> None:
    _, schema, _ = CORE[name]
    if schema.istable:
        assert not schema.issingle
        assert not schema.permissions, "child tables take their parent's permissions"
        return
    assert any(p.has("read") for p in schema.permissions), f"{name} has no read permission"
    sm = [p for p in schema.permissions if p.role == "System Manager" and p.permlevel == 0]
    assert sm and sm[0].has("read")


@pytest.mark.parametrize("name", _params())
def test_fields_consistent(name: str) -> None:
    _, schema, meta = CORE[name]
    queryable = set(meta.queryable)
    for f in meta.fields:
        if f.fieldtype == "Select" and f.default not in (None, ""):
            assert str(f.default) in f.select_options, f"{name}.{f.fieldname} default not an option"
        if f.fieldtype == "Check" and f.default is not None:
            assert str(f.default) in ("0", "1")
    if schema.autoname and schema.autoname.startswith("field:"):
        field = meta.get_field(schema.autoname.removeprefix("field:"))
        assert field is not None and field.reqd and field.unique
    for key in ("title_field",):
        value = getattr(schema, key)
        assert value is None or value in meta.data_fieldnames, f"{name}.{key} = {value!r}"
    if not schema.istable and not schema.issingle:
        assert schema.sort_field in queryable
    for index in schema.indexes:
        for field in index.fields:
            assert field in queryable, f"{name} index on unknown field {field!r}"
    for f in meta.value_fields:
        assert f.fieldname not in STANDARD_FIELDS + CHILD_FIELDS


def test_child_tables_and_singles() -> None:
    children = {n for n, (_, s, _) in CORE.items() if s.istable}
    assert children == {"Has Role", "DocField", "DocPerm", "Workflow Document State", "Workflow Transition",
                        "Email Queue Recipient", "Notification Recipient"}
    assert {n for n, (_, s, _) in CORE.items() if s.issingle} == {"System Settings"}
    used = {f.options for _, _, m in CORE.values() for f in m.table_fields}
    assert children <= used, "every core child table is used by some Table field"


def test_user() -> None:
    _, schema, meta = CORE["User"]
    assert schema.autoname == "field:email"
    email = meta.require_field("email")
    assert email.unique and email.reqd and email.options == "Email"
    assert meta.require_field("new_password").fieldtype == "Password"
    assert [f.fieldname for f in meta.password_fields] == ["new_password"]
    assert meta.require_field("roles").options == "Has Role"
    assert meta.require_field("api_key").read_only and meta.require_field("api_key").unique
    assert meta.require_field("enabled").default == "1"
    assert meta.require_field("user_type").select_options == ["System User", "Website User"]
    assert [p.role for p in schema.permissions] == ["System Manager"]


def test_custom_field() -> None:
    _, schema, meta = CORE["Custom Field"]
    assert schema.autoname == "format:{dt}-{fieldname}"
    assert meta.require_field("dt").options == "DocType"
    assert set(meta.require_field("fieldtype").select_options) == VALUE_TYPES
    assert any(i.unique and i.fields == ["dt", "fieldname"] for i in schema.indexes)


def test_docperm_rights_match_schema() -> None:
    from engine.meta.schema import RIGHTS

    _, _, meta = CORE["DocPerm"]
    for right in (*RIGHTS, "if_owner"):
        assert meta.require_field(right).fieldtype == "Check"
    assert meta.require_field("role").options == "Role"
    assert meta.require_field("permlevel").fieldtype == "Int"


def test_doctype_meta_can_describe_itself() -> None:
    _, schema, meta = CORE["DocType"]
    assert schema.autoname == "Prompt"
    assert meta.require_field("fields").options == "DocField"
    assert meta.require_field("permissions").options == "DocPerm"
    assert not meta.has_field("definition")  # the record is in Frappe's shape: no copy beside it
    assert meta.require_field("indexes").fieldtype == "JSON"
    assert any(p.role == "All" and p.has("read") for p in schema.permissions)
    # the DocType record (engine/meta/record.py) stores exactly the declared keys: every key the
    # schemas interpret must be declared, or it would be missing from the record
    from engine.meta.schema import DocFieldSchema, DocPermSchema

    for key in set(DocTypeSchema.model_fields) - {"name", "doctype"}:
        assert meta.has_field(key), key
    for key in DocFieldSchema.model_fields:
        assert CORE["DocField"][2].has_field(key), key
    for key in DocPermSchema.model_fields:
        assert CORE["DocPerm"][2].has_field(key.removesuffix("_")), key
    # the DocField keys of Frappe a form reads (frappe-behaviour §5.2)
    for key in ("bold", "depends_on", "mandatory_depends_on", "read_only_depends_on", "collapsible",
                "collapsible_depends_on", "in_standard_filter", "in_global_search", "in_preview",
                "allow_in_quick_entry", "ignore_user_permissions", "translatable", "print_hide", "columns",
                "report_hide", "allow_bulk_edit", "placeholder", "link_filters", "is_virtual", "hide_seconds",
                "is_custom_field"):
        assert CORE["DocField"][2].has_field(key), key
    # every top-level key the DocType schema knows is a field of the DocType doctype
    docfield = CORE["DocField"][2]
    for key in (
        "istable",
        "issingle",
        "is_submittable",
        "is_tree",
        "track_changes",
        "autoname",
        "title_field",
        "sort_field",
        "sort_order",
        "module",
        "custom",
    ):
        assert meta.has_field(key), key
    for key in (
        "fieldname",
        "fieldtype",
        "label",
        "options",
        "reqd",
        "unique",
        "default",
        "read_only",
        "hidden",
        "fetch_from",
        "in_list_view",
        "permlevel",
        "allow_on_submit",
        "set_only_once",
        "non_negative",
        "search_index",
        "length",
        "precision",
        "description",
    ):
        assert docfield.has_field(key), key


def test_workflow() -> None:
    _, _, meta = CORE["Workflow"]
    assert meta.require_field("workflow_state_field").default == "workflow_state"
    assert meta.require_field("states").options == "Workflow Document State"
    assert meta.require_field("transitions").options == "Workflow Transition"
    transition = CORE["Workflow Transition"][2]
    assert transition.require_field("allow_self_approval").default == "1"
    assert transition.require_field("action").options == "Workflow Action Master"
    state = CORE["Workflow Document State"][2]
    assert state.require_field("doc_status").select_options == ["0", "1", "2"]


def test_logs_are_indexed() -> None:
    assert any(i.fields == ["ref_doctype", "docname"] for i in CORE["Version"][1].indexes)
    assert any(i.fields == ["scheduled_job_type", "creation"] for i in CORE["Scheduled Job Log"][1].indexes)
