"""What the reference apps install: fixtures, defaults, hooks and metadata (contract §4, §5)."""

from __future__ import annotations

import json

from workforce_scoring.install import ensure_defaults

from engine.apps.fixtures import export_fixtures, import_app_fixtures
from engine.context import unit_of_work
from engine.documents.factory import get_doc
from engine.query.listing import get_all
from engine.site import Site
from tests.apps.conftest import app_of

ROLES = {"HR Reviewer", "Department Manager", "Warehouse Manager", "Employee"}
STATES = {"Draft", "Pending", "Approved", "Rejected", "Confirmed", "Appealed", "Waived"}


async def test_fixtures_and_defaults_are_installed(ws: Site) -> None:
    ctx = ws.context()
    assert set(await get_all(ctx, "Role", pluck="name")) >= ROLES
    assert set(await get_all(ctx, "Workflow State", pluck="name")) >= STATES
    workflow = await get_doc(ctx, "Workflow", "Warehouse Violation Workflow")
    assert workflow.document_type == "Warehouse Violation" and workflow.is_active
    assert [(s.state, str(s.doc_status)) for s in workflow.states] == [
        ("Draft", "0"), ("Pending", "0"), ("Confirmed", "1"), ("Appealed", "1"), ("Waived", "2")]
    assert {(t.state, t.action, t.next_state, t.allowed) for t in workflow.transitions} == {
        ("Draft", "Submit for Review", "Pending", "Warehouse Manager"),
        ("Pending", "Confirm", "Confirmed", "HR Reviewer"), ("Pending", "Reject", "Draft", "HR Reviewer"),
        ("Confirmed", "Appeal", "Appealed", "Employee"), ("Appealed", "Uphold", "Confirmed", "HR Reviewer"),
        ("Appealed", "Waive", "Waived", "HR Reviewer")}
    shift = ctx.meta("Employee").get_field("shift")  # the app's Custom Field on hr's Employee
    assert shift is not None and shift.fieldtype == "Select"
    settings = await get_doc(ctx, "Scoring Settings")
    assert [(r.level, r.min_pph, r.max_pph) for r in settings.thresholds] == [
        ("needs_improvement", 0, 35), ("average", 35, 55), ("good", 55, 75), ("excellent", 75, 0)]


async def test_install_and_migrate_hooks_are_idempotent(ws: Site) -> None:
    ctx = ws.context()
    settings = await get_doc(ctx, "Scoring Settings")
    settings.thresholds[0].max_pph = 30
    settings.thresholds[1].min_pph = 30
    async with unit_of_work(ctx):
        await settings.save()
    for _ in range(2):
        async with unit_of_work(ctx):
            await ensure_defaults(ctx)
        report = await import_app_fixtures(ws, app_of(ws, "workforce_scoring"))
        assert report.created == [] and report.updated == []  # nothing shipped changed: nothing rewritten
    assert (await get_doc(ctx, "Scoring Settings")).thresholds[0].max_pph == 30  # an admin's change stays
    assert await ctx.db.collection("role").count_documents({"_id": {"$in": sorted(ROLES)}}) == len(ROLES)


async def test_fixture_export_reproduces_the_shipped_files(ws: Site) -> None:
    app = app_of(ws, "workforce_scoring")
    folder = app.path / "fixtures"
    shipped = {p.name: json.loads(p.read_text()) for p in folder.glob("*.json")}
    try:
        written = await export_fixtures(ws, app)
        assert sorted(p.name for p in written) == sorted(["custom_field.json", "role.json", "workflow.json",
                                                          "workflow_state.json", "print_format.json",
                                                          "letter_head.json", "notification.json"])
        exported = {p.name: json.loads(p.read_text()) for p in written}
    finally:
        for name, data in shipped.items():
            (folder / name).write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    assert _without_modified(exported) == _without_modified(shipped)


def _without_modified(files: dict[str, list[dict]]) -> dict[str, list[dict]]:
    return {name: [{k: v for k, v in doc.items() if k != "modified"} for doc in docs] for name, docs in files.items()}


def test_every_doctype_has_a_module_and_a_naming_rule(ws: Site) -> None:
    for doctype, app in ws.apps.doctype_app.items():
        if app not in ("hr", "workforce_scoring"):
            continue
        meta = ws.meta.get(doctype)
        assert meta.module in ("HR", "Workforce Scoring"), doctype
        if not (meta.istable or meta.issingle):
            assert meta.autoname, doctype


def test_app_metadata_and_dependencies(ws: Site) -> None:
    hooks = app_of(ws, "workforce_scoring").hooks
    assert hooks.required_apps == ["hr"]
    for key in ("app_name", "app_title", "app_publisher", "app_description", "app_license"):
        assert isinstance(getattr(hooks, key), str) and getattr(hooks, key)
    names = ws.apps.app_names
    assert names.index("hr") < names.index("workforce_scoring")
