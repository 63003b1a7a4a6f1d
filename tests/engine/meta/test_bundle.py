"""`engine.meta.bundle`: a doctype's meta as the Desk reads it (record shape, form scripts, messages),
the bundle with its child tables, who may read it, and what is cached."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine import exceptions as exc
from engine.apps.installed import App
from engine.apps.registry import AppRegistry
from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.meta import bundle
from engine.meta.bundle import doctype_meta, meta_bundle, parent_doctype, read_scripts
from engine.meta.record import doctype_record
from engine.migrate import sync_doctype
from engine.site import Site
from tests.support.custom_fields import drop_custom_fields

REPO = Path(__file__).resolve().parents[3]
VIOLATION_JS = REPO / "apps" / "workforce_scoring" / "doctype" / "warehouse_violation" / "warehouse_violation.js"
USED = ("Test Order", "Test Order Item", "Test Customer", "Warehouse Violation", "Employee")


@pytest.fixture
async def synced(ctx: Context) -> AsyncIterator[Context]:
    """`ctx`, with the DocType records of the doctypes used here matching their meta (another test may
    have left a Custom Field's record behind: the `doctype` collection outlives each test), and no
    Custom Field left afterwards."""
    for doctype in USED:
        await sync_doctype(ctx.site, doctype)
    yield ctx
    if await ctx.db.collection("custom_field").count_documents({}):
        await drop_custom_fields(ctx.site, USED)


async def stored(ctx: Context, doctype: str) -> dict[str, object]:
    record = await ctx.db.collection("doctype").find_one({"_id": doctype})
    assert record is not None
    return record


async def test_bundle_is_the_doctype_then_its_child_tables(synced: Context) -> None:
    docs = await meta_bundle(synced, "Test Order")
    assert [d["name"] for d in docs] == ["Test Order", "Test Order Item"]
    order, item = docs
    assert order["doctype"] == "DocType" and order["is_submittable"] == 1 and item["istable"] == 1
    fields = {f["fieldname"]: f for f in order["fields"]}
    assert fields["items"]["options"] == "Test Order Item" and fields["items"]["doctype"] == "DocField"
    assert fields["status"]["options"] == "Draft\nOpen\nClosed"
    assert [p["role"] for p in order["permissions"]] == ["System Manager", "Test Reader"]
    assert order["permissions"][1]["read"] == 1 and order["permissions"][1]["write"] == 0
    # the record's stamps: what a client caches the meta under
    record = await stored(synced, "Test Order")
    assert order["modified"] == record["modified"] and order["creation"] == record["creation"]
    assert item["modified"] == (await stored(synced, "Test Order Item"))["modified"]
    assert None not in order.values()  # no nulls, as Frappe sends a meta
    assert "__js" not in order and "__list_js" not in order and "__custom_js" not in order
    assert order["__messages"] == {}  # English

    single = await doctype_meta(synced, "Test Order")
    assert single == order


async def test_form_script_and_messages_in_the_users_language(synced: Context) -> None:
    de = synced.clone()
    de.lang = "de"
    meta = await doctype_meta(de, "Warehouse Violation")
    assert meta["__js"] == VIOLATION_JS.read_text(encoding="utf-8")  # own script and doctype_js hook: once
    messages = meta["__messages"]
    assert messages["Warehouse Violation"] == "Lagerverstoß"  # the doctype's name
    assert messages["Violation Type"] == "Verstoßtyp"  # a label
    assert messages["Employee Scores"] == "Mitarbeiterbewertungen"  # __() in the form script
    assert messages["Penalty Points: {0}"] == "Strafpunkte: {0}"
    assert all(source != text for source, text in messages.items())  # only translated strings
    english = await doctype_meta(synced, "Warehouse Violation")
    assert english["__messages"] == {} and english["__js"] == meta["__js"]


async def test_guest_and_unknown_doctypes_are_refused(site: Site, synced: Context) -> None:
    with pytest.raises(exc.PermissionError):
        await meta_bundle(site.context("Guest"), "Test Order")
    with pytest.raises(exc.PermissionError):
        await doctype_meta(site.context("Guest"), "Test Order")
    with pytest.raises(exc.DoesNotExistError):
        await meta_bundle(synced, "No Such Doctype")
    # any logged-in user, even one without rights on the doctype
    nobody = site.context("nobody@example.com")
    assert (await doctype_meta(nobody, "Test Order"))["name"] == "Test Order"


async def test_built_once_per_meta_and_rebuilt_after_a_reload(synced: Context,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    first = await doctype_meta(synced, "Warehouse Violation")

    def no_reading(*_args: object) -> dict[str, str]:
        raise AssertionError("a form script was read again")

    monkeypatch.setattr(bundle, "read_scripts", no_reading)
    second = await doctype_meta(synced, "Warehouse Violation")
    assert second == first and second["fields"] is first["fields"]  # the cached rows, not a rebuild
    monkeypatch.undo()
    await synced.site.meta.reload()  # a new Meta: built afresh
    third = await doctype_meta(synced, "Warehouse Violation")
    assert third == first and third["fields"] is not first["fields"]


async def test_a_custom_field_changes_the_meta_and_its_timestamp(synced: Context) -> None:
    before = await doctype_meta(synced, "Test Customer")
    await new_doc(synced, "Custom Field", dt="Test Customer", fieldname="nickname", fieldtype="Data",
                  label="Nickname", insert_after="customer_name").insert()
    after = await doctype_meta(synced, "Test Customer")
    names = [f["fieldname"] for f in after["fields"]]
    assert names.index("nickname") == names.index("customer_name") + 1
    row = after["fields"][names.index("nickname")]
    assert row["is_custom_field"] == 1 and row["label"] == "Nickname"
    assert after["modified"] != before["modified"]  # a client's cached copy is not taken for this one


async def test_a_custom_fields_rules_reach_the_desk(synced: Context) -> None:
    """depends_on, mandatory_depends_on and read_only_depends_on of a Custom Field (Frappe's) are in the
    meta the Desk evaluates them from."""
    rules = {"depends_on": "eval:doc.customer_name", "mandatory_depends_on": "customer_name",
             "read_only_depends_on": "eval:doc.docstatus == 1"}
    await new_doc(synced, "Custom Field", dt="Test Customer", fieldname="nickname", fieldtype="Data",
                  label="Nickname", insert_after="customer_name", **rules).insert()
    row = next(f for f in (await doctype_meta(synced, "Test Customer"))["fields"] if f["fieldname"] == "nickname")
    assert {key: row.get(key) for key in rules} == rules


async def test_a_workflow_adds_its_state_field_to_the_record(synced: Context) -> None:
    before = await doctype_meta(synced, "Test Order")
    assert "workflow_state" not in {f["fieldname"] for f in before["fields"]}
    async with unit_of_work(synced):
        wf = await new_doc(synced, "Workflow", workflow_name="Order Flow", document_type="Test Order", is_active=1,
                           states=[{"state": "Draft", "doc_status": "0"}], transitions=[]).insert()
    after = await doctype_meta(synced, "Test Order")
    state = next(f for f in after["fields"] if f["fieldname"] == "workflow_state")
    assert state["is_custom_field"] == 1 and state["options"] == "Workflow State"
    assert after["modified"] and after["modified"] != before["modified"]  # the record was rewritten at once
    await wf.delete()
    again = await doctype_meta(synced, "Test Order")
    assert "workflow_state" not in {f["fieldname"] for f in again["fields"]} and again["modified"]


async def test_a_record_not_synced_yet_gives_no_timestamp(synced: Context) -> None:
    coll = synced.db.collection("doctype")
    await coll.update_one({"_id": "Test Customer"}, {"$set": {"json_hash": "another definition"}})
    await synced.site.meta.reload()
    meta = await doctype_meta(synced, "Test Customer")
    assert "modified" not in meta and meta["creation"]  # the meta itself is complete
    await sync_doctype(synced.site, "Test Customer")
    meta = await doctype_meta(synced, "Test Customer")
    assert meta["modified"] == (await stored(synced, "Test Customer"))["modified"]


def test_parent_doctype(ctx: Context) -> None:
    assert parent_doctype(ctx, "Test Order Item") == "Test Order"
    assert parent_doctype(ctx, "Test Order") is None


def test_scripts_of_the_app_and_of_hooks(tmp_path: Path) -> None:
    def write(path: Path, text: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    own = tmp_path / "shop" / "doctype" / "gadget"
    write(own / "gadget.js", "// form\n")
    write(own / "gadget_list.js", "// list\n")
    write(tmp_path / "addon" / "public" / "js" / "gadget.js", "// addon form\n")
    write(tmp_path / "addon" / "gadget_list.js", "// addon list\n")
    apps = AppRegistry(
        apps=[App("shop", tmp_path / "shop", SimpleNamespace(doctype_js={"Gadget": "doctype/gadget/gadget.js"})),
              App("addon", tmp_path / "addon", SimpleNamespace(
                  doctype_js={"Gadget": ["public/js/gadget.js", "/assets/addon/x.js"]},
                  doctype_list_js={"Gadget": "./gadget_list.js"}))],
        doctype_source={"Gadget": str(own / "gadget.json"),
                        "User": str(REPO / "engine" / "core" / "doctypes" / "user.json")},
        doctype_app={"Gadget": "shop", "User": None})
    assert read_scripts(apps, "Gadget") == {"__js": "// form\n\n\n// addon form\n",
                                            "__list_js": "// list\n\n\n// addon list\n"}
    # a core doctype's form script sits beside its JSON (User's, Deleted Document's)
    assert read_scripts(apps, "User") == {"__js": (REPO / "engine" / "core" / "doctypes" / "user.js").read_text()}


def test_record_needs_a_registry() -> None:
    from engine.meta.schema import DocTypeSchema, Meta

    with pytest.raises(RuntimeError):
        doctype_record(Meta(DocTypeSchema(name="Loose")))
