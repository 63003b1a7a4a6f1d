"""Every write path applies the lifecycle's rules: for generated doctypes (field types, child tables,
workflows, permlevels, naming rules, submittable or not, hooks or none) and generated payloads and
users, the ordinary insert (`Document.insert`), the create a client makes (`client.create`: direct
when the doctype qualifies) and bulk (`insert_many`) store the same record, give the same answer or
error (type, field, message) and send the same realtime events; the one-call update and the ordinary
save likewise.

Bulk runs no hooks and refuses submitted documents (its documented contract, as Frappe's
`bulk_insert`): it is compared where the doctype runs no code and the document is a draft, and
checked to refuse the rest. Bulk with `run_hooks` (the Data Import's batches) runs the whole plan: it
is compared on every draft, hooks or none.

The doctypes are drawn once (a seeded generator: one temporary app and site for the module); the
payloads and users are hypothesis's, derandomized so CI runs the same examples every time.
"""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import exceptions as exc
from engine.apps.registry import AppRegistry
from engine.context import Context, unit_of_work
from engine.core import passwords
from engine.documents import direct_create, lifecycle, one_call, store
from engine.documents.bulk import insert_many
from engine.documents.factory import new_doc
from engine.methods import client
from engine.settings import Settings
from engine.site import Site
from tests.engine.temp_apps import FULL, doctype_json, forget_apps, temp_registry, temp_site, write_app
from tests.support.realtime import Recorder
from tests.support.users import user_context

APP = f"wpapp_{uuid.uuid4().hex[:8]}"
TARGET, ROW = "WP Target", "WP Row"
USERS = ("Administrator", "full@wp.example", "owner@wp.example", "low@wp.example", "reader@wp.example",
         "restricted@wp.example")
ROLES = {"full@wp.example": "WP Full", "owner@wp.example": "WP Owner", "low@wp.example": "WP Low",
         "reader@wp.example": "WP Reader", "restricted@wp.example": "WP Full"}
RESTRICTED = ("restricted@wp.example", "T1")  # a User Permission: this user's Links to WP Target may name T1 only
FIXED = ("ORIG-C", "ORIG-D")  # a cancelled and a draft record of each submittable doctype (amendments)
STAMPS = ("creation", "modified")
PASSWORDS = frozenset({"pin", *(f"f{i}_password" for i in range(6))})
EXAMPLES = 60

# -- the doctypes ---------------------------------------------------------------------------------

# field types, each with values a client might send: valid, invalid, empty
VALUES: dict[str, list[Any]] = {
    "Data": ["Alpha", "x", "  ", "", None, 5],
    "Int": [3, "7", "many", None, 2.5, True],
    "Float": [1.5, "2.25", "x", None],
    "Currency": [10, "3.5", None, []],
    "Check": [0, 1, True, "1", "yes", None],
    "Select": ["A", "B", "Z", "", None],
    "Date": ["2026-01-05", "yesterday", "", None],
    "Link": ["T1", "T2", "NOPE", "T-CANCELLED", "", None],
    "Password": ["secret", "", None, 123],
    "Small Text": ["hello\nworld", "", None],
    "Attach": ["/files/a.txt", None],
}
DEFAULTS = {"Data": "dflt", "Int": "4", "Select": "B", "Check": "1", "Date": "Today"}
NAMING = ("hash", "", "field:title", "WPX-.#####", "autoincrement", "format:WPF-{####}", "uuid")


@dataclass
class Spec:
    name: str
    fields: list[dict[str, Any]]
    autoname: str
    table: bool = False
    hooks: str | None = None  # "controller" (a validate method) or "doc_events" (a before_insert handler)
    workflow: bool = False
    submittable: bool = False
    states: tuple[str, ...] = ()
    values: dict[str, list[Any]] = field(default_factory=dict)

    @property
    def runs_code(self) -> bool:
        return self.hooks is not None


def _scrub(name: str) -> str:
    return name.lower().replace(" ", "_")


def _generate(count: int, seed: int = 28) -> list[Spec]:
    rng = random.Random(seed)
    specs: list[Spec] = []
    for n in range(count):
        plain = n % 3 == 0  # a third of them with nothing a fast path leaves to the ordinary one
        palette = sorted(t for t in VALUES if not plain or t not in ("Link", "Password"))
        fields: list[dict[str, Any]] = [{"fieldname": "title", "fieldtype": "Data", "label": "Title",
                                         "reqd": int(rng.random() < 0.4)}]
        for i, fieldtype in enumerate(rng.sample(palette, rng.randint(2, 6))):
            f: dict[str, Any] = {"fieldname": f"f{i}_{_scrub(fieldtype)}", "fieldtype": fieldtype,
                                 "label": f"F{i} {fieldtype}"}
            if fieldtype == "Select":
                f["options"] = "A\nB\nC"
            if fieldtype == "Link":
                f["options"] = TARGET
            if rng.random() < 0.2 and fieldtype not in ("Password", "Attach"):
                f["reqd"] = 1
            if rng.random() < 0.2 and fieldtype in DEFAULTS:
                f["default"] = DEFAULTS[fieldtype]
            if rng.random() < 0.2:
                f["permlevel"] = 1
            if fieldtype == "Data" and rng.random() < 0.2:
                f[rng.choice(("unique", "set_only_once"))] = 1
            fields.append(f)
            if fieldtype == "Link" and rng.random() < 0.5:
                fields.append({"fieldname": f"f{i}_code", "fieldtype": "Data", "label": f"F{i} Code", "read_only": 1,
                               "fetch_from": f"{f['fieldname']}.code"})
        table = not plain and rng.random() < 0.3
        if table:
            fields.append({"fieldname": "rows", "fieldtype": "Table", "label": "Rows", "options": ROW})
        autoname = rng.choice(NAMING[:2] if plain else NAMING)
        roll = 1.0 if plain else rng.random()
        hooks = "controller" if roll < 0.2 else "doc_events" if roll < 0.35 else None
        submittable = not plain and rng.random() < 0.3
        workflow = not plain and rng.random() < 0.3
        specs.append(Spec(f"WP Gen {n}", fields, autoname, table, hooks, workflow, submittable,
                          ("Open", "Second") if workflow else ()))
    # the divergences bulk had, each on a doctype of its own (no hook: bulk is compared on each)
    specs.append(Spec("WP Secret", [{"fieldname": "title", "fieldtype": "Data", "label": "Title", "reqd": 1},
                                    {"fieldname": "pin", "fieldtype": "Password", "label": "PIN"}], "hash"))
    specs.append(Spec("WP Flow", [{"fieldname": "title", "fieldtype": "Data", "label": "Title"}], "hash",
                      workflow=True, states=("Open", "Second")))
    specs.append(Spec("WP Amend", [{"fieldname": "title", "fieldtype": "Data", "label": "Title"},
                                   {"fieldname": "f0_link", "fieldtype": "Link", "label": "Target", "options": TARGET}],
                      "WPA-.####", submittable=True))
    specs.append(Spec("WP Plain", [{"fieldname": "title", "fieldtype": "Data", "label": "Title", "reqd": 1},
                                   {"fieldname": "score", "fieldtype": "Int", "label": "Score"},
                                   {"fieldname": "grade", "fieldtype": "Select", "label": "Grade", "options": "A\nB",
                                    "permlevel": 1}], "hash"))
    for spec in specs:
        spec.values = {f["fieldname"]: VALUES[f["fieldtype"]] for f in spec.fields
                       if f["fieldtype"] in VALUES and not f.get("read_only")}
    return specs


SPECS = _generate(14)


def _permissions(spec: Spec) -> list[dict[str, Any]]:
    submit = {"submit": 1, "cancel": 1, "amend": 1} if spec.submittable else {}
    return [
        {"role": "System Manager", **FULL, **submit},
        {"role": "WP Full", **FULL, **submit}, {"role": "WP Full", "permlevel": 1, "read": 1, "write": 1},
        {"role": "WP Owner", "read": 1, "write": 1, "create": 1, "if_owner": 1, **({"amend": 1} if submit else {})},
        {"role": "WP Low", "read": 1, "write": 1, "create": 1}, {"role": "WP Low", "permlevel": 1, "read": 1},
        {"role": "WP Reader", "read": 1},
    ]


def _files(specs: list[Spec]) -> tuple[dict[str, str], str]:
    files: dict[str, str] = {"doctype/__init__.py": "", "events.py": (
        "def before_insert(doc, event):\n    doc.title = f\"{doc.title or ''}+hook\"\n")}
    events: dict[str, dict[str, str]] = {}

    def add(name: str, text: str, controller: str | None = None) -> None:
        folder = f"doctype/{_scrub(name)}"
        files[f"{folder}/__init__.py"] = ""
        files[f"{folder}/{_scrub(name)}.json"] = text
        if controller:
            files[f"{folder}/{_scrub(name)}.py"] = controller

    add(TARGET, doctype_json(TARGET, [{"fieldname": "code", "fieldtype": "Data", "label": "Code"}],
                             module="WP App", autoname="prompt", is_submittable=1,
                             permissions=[{"role": "System Manager", **FULL, "submit": 1, "cancel": 1}]))
    add(ROW, doctype_json(ROW, [{"fieldname": "item", "fieldtype": "Data", "label": "Item", "reqd": 1},
                                {"fieldname": "qty", "fieldtype": "Int", "label": "Qty", "default": "1"},
                                {"fieldname": "ref", "fieldtype": "Link", "label": "Ref", "options": TARGET}],
                          module="WP App", istable=1))
    for spec in specs:
        controller = None
        if spec.hooks == "controller":
            cls = spec.name.replace(" ", "")
            controller = (f"from engine.documents.document import Document\n\n\nclass {cls}(Document):\n"
                          f"    def validate(self) -> None:\n        self.title = f\"{{self.title or ''}}!\"\n")
        elif spec.hooks == "doc_events":
            events[spec.name] = {"before_insert": f"{APP}.events.before_insert"}
        add(spec.name, doctype_json(spec.name, spec.fields, module="WP App", autoname=spec.autoname,
                                    is_submittable=int(spec.submittable), permissions=_permissions(spec)), controller)
    return files, f"doc_events = {json.dumps(events)}\n"


@dataclass
class World:
    site: Site
    recorder: Recorder
    users: dict[str, Context]


@pytest.fixture(scope="module")
def wp_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppRegistry]:
    apps_dir: Path = tmp_path_factory.mktemp("write-path-apps")
    files, hooks = _files(SPECS)
    write_app(apps_dir, APP, hooks, files)
    try:
        yield temp_registry(apps_dir, [APP])
    finally:
        forget_apps(apps_dir, [APP])


@pytest.fixture(scope="module")
async def world(settings: Settings, wp_registry: AppRegistry) -> AsyncIterator[World]:
    async with temp_site(settings, wp_registry, "fw_wp") as site:
        ctx = site.context("Administrator")
        target = store.collection_of(site, TARGET)
        await target.insert_many([
            {"_id": name, "code": f"code-{name}", "docstatus": status, "owner": "Administrator",
             "creation": "2026-01-01 00:00:00.000000", "modified": "2026-01-01 00:00:00.000000",
             "modified_by": "Administrator", "idx": 0} for name, status in (("T1", 1), ("T2", 0), ("T-CANCELLED", 2))])
        users = {"Administrator": ctx}
        for email, role in ROLES.items():  # (the roles first: the workflows name one)
            users[email] = await user_context(ctx, email, role)
        async with unit_of_work(ctx):
            await new_doc(ctx, "User Permission", user=RESTRICTED[0], allow=TARGET, for_value=RESTRICTED[1],
                          apply_to_all_doctypes=1).insert()
            for spec in SPECS:
                if spec.workflow:
                    await new_doc(ctx, "Workflow", workflow_name=f"{spec.name} Flow", document_type=spec.name,
                                  is_active=1, states=[{"state": s, "doc_status": "0"} for s in spec.states],
                                  transitions=[{"state": "Open", "action": "Move", "next_state": "Second",
                                                "allowed": "WP Full"}]).insert()
        for spec in SPECS:
            if spec.submittable:
                await store.collection_of(site, spec.name).insert_many([
                    {"_id": name, "docstatus": status, "owner": "Administrator", "idx": 0,
                     "creation": "2026-01-01 00:00:00.000000", "modified": "2026-01-01 00:00:00.000000",
                     "modified_by": "Administrator"} for name, status in zip(FIXED, (2, 0), strict=True)])
        recorder = Recorder()
        site.realtime = recorder
        yield World(site, recorder, users)


# -- the payloads ---------------------------------------------------------------------------------

def payloads(spec: Spec) -> st.SearchStrategy[dict[str, Any]]:
    optional: dict[str, st.SearchStrategy[Any]] = {key: st.sampled_from(values) for key, values in spec.values.items()}
    if spec.table:
        row = st.fixed_dictionaries({}, optional={"item": st.sampled_from(["bolt", "", None]),
                                                  "qty": st.sampled_from([2, "3", "x", None]),
                                                  "ref": st.sampled_from(["T1", "NOPE", None])})
        optional["rows"] = st.one_of(st.lists(row, max_size=2), st.just("not rows"))
    if spec.submittable:
        optional["amended_from"] = st.sampled_from(["ORIG-C", "ORIG-D", "NOWHERE"])
    if spec.workflow:
        optional["workflow_state"] = st.sampled_from(["Open", "Second", "Bogus", None])
    optional["docstatus"] = st.sampled_from([0, "0", 1, "x"])
    optional["colour"] = st.just("red")  # not a field
    return st.fixed_dictionaries({}, optional=optional)


def cases() -> st.SearchStrategy[tuple[Spec, dict[str, Any], str]]:
    return st.sampled_from(SPECS).flatmap(
        lambda spec: st.tuples(st.just(spec), payloads(spec), st.sampled_from(USERS)))


def property_of(world: World, check: Callable[..., Awaitable[None]],
                strategy: st.SearchStrategy[Any]) -> Callable[[], None]:
    """A hypothesis test running `check` on the test's event loop (the site's driver lives there) from
    the thread hypothesis runs in."""
    loop = asyncio.get_running_loop()

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def prop(case: Any) -> None:
        asyncio.run_coroutine_threadsafe(check(world, *case), loop).result()

    return prop


# -- one path's outcome ---------------------------------------------------------------------------

@dataclass
class Outcome:
    kind: str  # "ok" or "error"
    detail: Any  # the answer (paths that answer), or (type, field, message)
    stored: list[dict[str, Any]]
    events: list[tuple[str, Any, str]]


def _error(e: exc.FwError) -> tuple[str, str | None, str]:
    return type(e).__name__, e.field, e.message


def _scrubbed(value: Any, name: str, stamps: set[str]) -> Any:
    """`value` with the record's name, its timestamps, row names and password hashes made placeholders
    (random or time-bound, never the same twice)."""
    if isinstance(value, dict):
        return {k: "<row>" if k == "name" and value.get("parent") else _scrubbed(v, name, stamps)
                for k, v in value.items() if k not in STAMPS}
    if isinstance(value, list):
        return [_scrubbed(v, name, stamps) for v in value]
    if value == name:
        return "<name>"
    if isinstance(value, str) and name and value.endswith(f"/{name}"):  # a document's room
        return f"{value[:-len(name)]}<name>"
    if isinstance(value, str) and (value in stamps or passwords.is_hashed(value)):
        return "<stamp>" if value in stamps else "<hash>"
    return value


async def outcome(world: World, spec: Spec, run: Callable[[], Awaitable[Any]]) -> Outcome:
    """Run one path on an empty collection (the fixed records aside); what it stored and sent, then
    the collection emptied again for the next path."""
    coll = store.collection_of(world.site, spec.name)
    world.recorder.sent.clear()
    try:
        kind, detail = "ok", await run()
    except exc.FwError as e:
        kind, detail = "error", _error(e)
    await asyncio.sleep(0)
    records = await coll.find({"_id": {"$nin": list(FIXED)}}).to_list(None)
    await coll.delete_many({"_id": {"$nin": list(FIXED)}})
    name = records[0]["_id"] if len(records) == 1 else None
    stamps = {str(r.get("modified")) for r in records}
    if kind == "error" and name:  # (an update's error may name the record)
        detail = (*detail[:2], detail[2].replace(name, "<name>"))
    return Outcome(kind, _scrubbed(detail, name, stamps) if kind == "ok" else detail,
                   [_scrubbed(r, name, stamps) for r in records],
                   [_scrubbed(list(sent), name, stamps) for sent in world.recorder.sent])


async def single(ctx: Context, call: Callable[[], Awaitable[Any]]) -> Any:
    """One operation in its own unit of work, as the REST routes run it."""
    async with unit_of_work(ctx):
        ctx.single_operation = True
        try:
            return await call()
        finally:
            ctx.single_operation = False


async def ordinary_insert(ctx: Context, doctype: str, payload: dict[str, Any]) -> dict[str, Any]:
    async def call() -> dict[str, Any]:
        return await client.readable_dict(ctx, await new_doc(ctx, doctype, payload).insert())
    return await single(ctx, call)


async def client_create(ctx: Context, doctype: str, payload: dict[str, Any]) -> dict[str, Any]:
    return await single(ctx, lambda: client.create(ctx, doctype, payload))


async def bulk_insert(ctx: Context, doctype: str, payload: dict[str, Any]) -> None:
    """`insert_many` of one row: its failure raised as the insert raises it (bulk answers names only)."""
    result = await insert_many(ctx, doctype, [payload])
    if result.failed:
        raise result.failed[0]
    assert not result.duplicates and len(result.names) == 1


async def bulk_insert_with_hooks(ctx: Context, doctype: str, payload: dict[str, Any]) -> None:
    """`insert_many(run_hooks=True)` of one row, in the unit's transaction as Data Import runs it."""
    async def call() -> None:
        result = await insert_many(ctx, doctype, [payload], atomic=True, run_hooks=True)
        if result.failed:
            raise result.failed[0]
        assert len(result.names) == 1
    await single(ctx, call)


def is_submit(payload: dict[str, Any]) -> bool:
    return payload.get("docstatus") in (1, "1")


# -- the properties -------------------------------------------------------------------------------

async def check_create(world: World, spec: Spec, payload: dict[str, Any], user: str) -> None:
    ctx = world.users[user]
    usual = await outcome(world, spec, lambda: ordinary_insert(ctx, spec.name, payload))
    created = await outcome(world, spec, lambda: client_create(ctx, spec.name, payload))
    assert created == usual, (spec.name, payload, user)
    bulk = await outcome(world, spec, lambda: bulk_insert(ctx, spec.name, payload))
    if spec.submittable and is_submit(payload):  # bulk inserts drafts only: refused before any step
        assert bulk.kind == "error" and (bulk.detail == usual.detail or bulk.detail[0] == "DocstatusTransitionError")
        assert not bulk.stored and not bulk.events
        return
    hooked = await outcome(world, spec, lambda: bulk_insert_with_hooks(ctx, spec.name, payload))
    assert (hooked.kind, hooked.stored, hooked.events) == (usual.kind, usual.stored, usual.events), (
        spec.name, payload, user)
    if usual.kind == "error":  # (a name already taken aborts the batch's transaction: a conflict, run again)
        assert hooked.detail == usual.detail or (usual.detail[0], hooked.detail[0]) == (
            "DuplicateEntryError", "TransientError"), (spec.name, payload, user, hooked.detail, usual.detail)
    if spec.runs_code:
        return  # bulk runs no hooks (its contract)
    assert (bulk.kind, bulk.stored, bulk.events) == (usual.kind, usual.stored, usual.events), (spec.name, payload,
                                                                                               user)
    if usual.kind == "error":
        assert bulk.detail == usual.detail


async def test_the_ordinary_insert_a_clients_create_and_bulk_agree(world: World) -> None:
    await asyncio.to_thread(property_of(world, check_create, cases()))


# the divergences bulk had, each a case of the property above (they failed before bulk ran the
# lifecycle's steps): the same check, on the payloads that showed them

@pytest.mark.parametrize(("doctype", "payload", "user"), [
    ("WP Secret", {"title": "t", "pin": "secret"}, "Administrator"),  # stored as given, not hashed
    ("WP Secret", {"title": "t", "pin": 123}, "Administrator"),  # no type check
    ("WP Flow", {"title": "t", "workflow_state": "Second"}, "Administrator"),  # not the first state
    ("WP Amend", {"title": "t", "amended_from": "ORIG-C"}, "Administrator"),  # the cancelled original refused
    ("WP Plain", {"title": "t"}, "low@wp.example"),  # the row-restricted readers' event missing
], ids=["password hashed", "password typed", "workflow start", "amendment", "realtime"])
async def test_each_divergence_bulk_had_is_gone(world: World, doctype: str, payload: dict[str, Any],
                                                user: str) -> None:
    spec = next(s for s in SPECS if s.name == doctype)
    await check_create(world, spec, payload, user)


@pytest.mark.parametrize("value", ["T2", "T1"], ids=["outside", "allowed"])
async def test_every_path_applies_the_users_user_permission(world: World, value: str) -> None:
    spec = next(s for s in SPECS if s.name == "WP Amend")
    payload = {"title": "t", "f0_link": value}
    usual = await outcome(world, spec, lambda: ordinary_insert(world.users[RESTRICTED[0]], spec.name, payload))
    if value == RESTRICTED[1]:
        assert usual.kind == "ok" and usual.stored
    else:  # refused, naming the field, with nothing stored
        assert (usual.kind, usual.detail[:2], usual.stored) == ("error", ("PermissionError", "f0_link"), [])
    await check_create(world, spec, payload, RESTRICTED[0])  # every other path: the same


async def test_the_amendment_is_named_after_its_original_by_every_path(world: World) -> None:
    ctx = world.users["Administrator"]
    spec = next(s for s in SPECS if s.name == "WP Amend")
    for run in (ordinary_insert, client_create, bulk_insert):
        done = await outcome(world, spec, lambda run=run: run(ctx, "WP Amend", {"amended_from": "ORIG-C"}))
        assert done.kind == "ok" and [r["_id"] for r in done.stored] == ["<name>"]
    async with unit_of_work(ctx):
        names = await insert_many(ctx, "WP Amend", [{"amended_from": "ORIG-C"}, {"title": "counted"}])
    assert names.names[0] == "ORIG-C-1" and names.names[1].startswith("WPA-")
    await store.collection_of(world.site, "WP Amend").delete_many({"_id": {"$nin": list(FIXED)}})


async def test_bulk_hashes_a_users_new_password(world: World) -> None:
    ctx = world.users["Administrator"]
    result = await insert_many(ctx, "User", [{"email": "bulk-pw@wp.example", "first_name": "B",
                                              "new_password": "plain-text-secret"}])
    assert result.names == {0: "bulk-pw@wp.example"}, result.failed
    record = await store.collection_of(world.site, "User").find_one({"_id": "bulk-pw@wp.example"})
    assert "plain-text-secret" not in json.dumps(record, default=str)
    assert passwords.is_hashed(record["new_password"])
    refused = await insert_many(ctx, "User", [{"email": "bulk-pw2@wp.example", "first_name": "B",
                                               "new_password": ["not", "text"]}])
    assert isinstance(refused.failed[0], exc.FieldTypeError) and refused.failed[0].field == "new_password"
    await store.collection_of(world.site, "User").delete_many({"_id": {"$regex": "^bulk-pw"}})


async def test_bulk_applies_the_file_rule(world: World) -> None:
    """Creating a File attached to a document needs write permission on that document (the File
    doctype's core row rule): a reader of the document may not attach, in bulk either."""
    site, ctx = world.site, world.users["Administrator"]
    async with unit_of_work(ctx):
        plain = await new_doc(ctx, "WP Plain", title="attach here").insert()
    attacher = await user_context(ctx, "attacher@wp.example", "WP Reader")  # File's create: the role All
    file_row = {"file_name": "a.txt", "file_url": "/files/a.txt", "attached_to_doctype": "WP Plain",
                "attached_to_name": plain.name}
    with pytest.raises(exc.PermissionError) as usual:
        async with unit_of_work(attacher):
            await new_doc(attacher, "File", file_row).insert()
    bulk = await insert_many(attacher, "File", [file_row])
    assert not bulk.names and _error(bulk.failed[0]) == _error(usual.value)
    assert await store.collection_of(site, "File").count_documents({"file_name": "a.txt"}) == 0
    await store.collection_of(site, "WP Plain").delete_many({})


# -- saves: the one-call update against the ordinary save -----------------------------------------

async def check_update(world: World, spec: Spec, payload: dict[str, Any], user: str) -> None:
    """The update `payload` asks for, through `client.update` (one call where it may) and through the
    ordinary save, each on a record the ordinary insert made from the same values."""
    admin, ctx = world.users["Administrator"], world.users[user]
    base = {key: values[0] for key, values in spec.values.items()
            if key not in PASSWORDS}  # (a hash costs a second under load: the updates may send one)
    coll = store.collection_of(world.site, spec.name)

    async def made() -> str:
        async with unit_of_work(admin):
            return str((await new_doc(admin, spec.name, base).insert(ignore_permissions=True)).name)

    async def fast() -> dict[str, Any]:
        name = await made()
        world.recorder.sent.clear()
        return await single(ctx, lambda: _answer(ctx, client.update(ctx, spec.name, name, payload)))

    async def usual() -> dict[str, Any]:
        name = await made()
        world.recorder.sent.clear()
        real = one_call.update
        one_call.update = _declined  # type: ignore[assignment]  # (the ordinary save, for this call)
        try:
            return await single(ctx, lambda: _answer(ctx, client.update(ctx, spec.name, name, payload)))
        finally:
            one_call.update = real  # type: ignore[assignment]

    try:
        one = await outcome(world, spec, fast)
        two = await outcome(world, spec, usual)
    finally:
        await coll.delete_many({"_id": {"$nin": list(FIXED)}})
    assert one == two, (spec.name, payload, user)


async def _declined(*_args: Any) -> None:
    return None


async def _answer(ctx: Context, saving: Awaitable[Any]) -> dict[str, Any]:
    return await client.readable_dict(ctx, await saving)


def updates() -> st.SearchStrategy[tuple[Spec, dict[str, Any], str]]:
    plain = [s for s in SPECS if not s.submittable and not s.table and s.autoname in ("hash", "")]
    return st.sampled_from(plain).flatmap(lambda spec: st.tuples(
        st.just(spec), st.fixed_dictionaries({}, optional={
            **{k: st.sampled_from(v) for k, v in spec.values.items()},
            "docstatus": st.sampled_from([0, 1]), "colour": st.just("red")}), st.sampled_from(USERS)))


async def test_the_one_call_update_and_the_ordinary_save_agree(world: World) -> None:
    await asyncio.to_thread(property_of(world, check_update, updates()))


async def test_a_one_call_update_outside_a_unit_of_work_is_heard(world: World) -> None:
    """A one-call update made without a unit of work opens its own, as the ordinary save does, so
    its realtime events are sent."""
    ctx = world.users["Administrator"]
    async with unit_of_work(ctx):
        doc = await new_doc(ctx, "WP Plain", title="heard").insert()
    world.recorder.sent.clear()
    updated = await client.update(ctx, "WP Plain", doc.name, {"score": 3})
    assert updated.score == 3
    assert [(event, room) for event, _message, room in world.recorder.sent] == [
        ("doc_update", f"doc:WP Plain/{doc.name}"), ("list_update", "doctype:WP Plain"),
        ("list_update", "doctype:WP Plain:restricted")]
    await store.collection_of(world.site, "WP Plain").delete_many({})


# -- the fast paths' one rule ---------------------------------------------------------------------

def test_the_generated_doctypes_take_every_way(world: World) -> None:
    """The properties above meet doctypes the fast paths take and doctypes they leave to the ordinary
    path (else they would compare a path with itself)."""
    ctx = world.users["Administrator"]
    direct = {s.name for s in SPECS if direct_create.qualifies(ctx, ctx.meta(s.name))}
    one = {s.name for s in SPECS if one_call.plan_for(ctx, ctx.meta(s.name)) is not None}
    everything = {s.name for s in SPECS}
    assert "WP Plain" in direct and "WP Plain" in one
    assert len(direct) >= 2 and len(one) >= 2 and direct < everything and one < everything
    assert not {s.name for s in SPECS if s.runs_code} & (direct | one)


def test_a_step_added_to_a_step_list_sends_the_doctype_the_ordinary_way(world: World) -> None:
    """What a fast path does not cover it cannot skip: a new step, or a hook step the controller
    handles, in SAVE or INSERT makes `fast_path_takes` say no (before, one_call listed SAVE's hooks by
    hand and would have skipped a new one)."""
    apps, meta = world.site.apps, world.site.meta.get("WP Plain")
    controller = apps.controller("WP Plain")

    async def new_rule(op: lifecycle.Operation) -> None:
        return None

    for path in (one_call.PATH, direct_create.PATH):
        assert lifecycle.fast_path_takes(apps, controller, meta, path)
        for extra in (new_rule, lifecycle.hook("after_everything")):
            grown = lifecycle.FastPath(f"{path.name}+{extra.__name__}", (*path.steps, extra), path.covers)
            takes = lifecycle.fast_path_takes(apps, controller, meta, grown)
            assert takes is (extra is not new_rule and not apps.hooked(controller, "WP Plain", "after_everything"))

        class Hooked(controller):  # type: ignore[valid-type,misc]
            def after_everything(self) -> None:
                return None

        grown = lifecycle.FastPath(f"{path.name}+hooked", (*path.steps, lifecycle.hook("after_everything")),
                                   path.covers)
        assert not lifecycle.fast_path_takes(apps, Hooked, meta, grown)
