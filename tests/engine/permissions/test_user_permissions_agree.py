"""User Permissions, property-tested (issue 29, "Done when"): for generated User Permission records
(doctype, value, applies to all or to one doctype, descendants hidden or not, strict or not), every
read path (list, count, one document's read right, Link search, the realtime room) agrees with a
direct evaluation of business.md §1.1's rules, written here independently of the engine's.

Documents are fixed: customers Acme/Beta/Cora, the tree of categories Root > Mid > Leaf and Other,
a Test Note for each (customer, category) pair (either may be empty) and Test Tagged documents whose
rows link categories. Hypothesis derandomized: CI runs the same examples every time.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.context import Context
from engine.documents import store
from engine.documents.factory import get_doc, new_doc
from engine.methods.search import search_link
from engine.permissions import has_permission, reads_every_row
from engine.query.listing import count, get_list
from engine.site import Site
from tests.support.users import user_context

CUSTOMERS = ("Acme", "Beta", "Cora")
PARENT = {"Root": None, "Mid": "Root", "Leaf": "Mid", "Other": None}
DOCTYPES = ("Test Note", "Test Customer", "Test Category", "Test Tagged")
TAG_ROWS = ((), ("Leaf",), ("Mid", "Other"), ("Other",), ("Root", "Leaf"))
EXAMPLES = 30


@dataclass(frozen=True)
class Record:
    allow: str
    value: str
    applicable_for: str | None  # None: every doctype
    hide_descendants: bool


def records() -> st.SearchStrategy[list[Record]]:
    one = st.one_of(
        st.builds(Record, st.just("Test Customer"), st.sampled_from(CUSTOMERS),
                  st.one_of(st.none(), st.sampled_from(DOCTYPES)), st.just(False)),
        st.builds(Record, st.just("Test Category"), st.sampled_from(sorted(PARENT)),
                  st.one_of(st.none(), st.sampled_from(DOCTYPES)), st.booleans()))
    return st.lists(one, max_size=4, unique_by=lambda r: (r.allow, r.value, r.applicable_for))


# -- the rules, evaluated directly ------------------------------------------------------------------

def ancestors(category: str) -> list[str]:
    out, parent = [], PARENT[category]
    while parent:
        out.append(parent)
        parent = PARENT[parent]
    return out


def allowed(recs: list[Record], allow: str, for_doctype: str) -> set[str]:
    out: set[str] = set()
    for r in recs:
        if r.allow == allow and r.applicable_for in (None, for_doctype):
            out.add(r.value)
            if allow == "Test Category" and not r.hide_descendants:
                out |= {c for c in PARENT if r.value in ancestors(c)}
    return out


def link_ok(recs: list[Record], target: str, for_doctype: str, value: str | None, strict: bool) -> bool:
    values = allowed(recs, target, for_doctype)
    if not values:
        return True
    if not value:
        return not strict
    return value in values


def note_visible(recs: list[Record], strict: bool, customer: str | None, category: str | None) -> bool:
    return (link_ok(recs, "Test Customer", "Test Note", customer, strict)
            and link_ok(recs, "Test Category", "Test Note", category, strict))


def name_visible(recs: list[Record], doctype: str, name: str) -> bool:
    values = allowed(recs, doctype, doctype)
    return not values or name in values


def tagged_visible(recs: list[Record], strict: bool, rows: tuple[str | None, ...]) -> bool:
    return all(link_ok(recs, "Test Category", "Test Tagged", value, strict) for value in rows)


# -- the world --------------------------------------------------------------------------------------

@dataclass
class World:
    site: Site
    admin: Context
    user: Context
    notes: dict[str, tuple[str | None, str | None]]  # name → (customer, category)
    tagged: dict[str, tuple[str | None, ...]]  # name → its rows' categories


@pytest.fixture
async def world(site: Site, ctx: Context) -> World:
    for name in CUSTOMERS:
        await new_doc(ctx, "Test Customer", customer_name=name).insert()
    for name, parent in PARENT.items():
        await new_doc(ctx, "Test Category", category_name=name, parent_test_category=parent).insert()
    notes = {}
    for customer, category in itertools.product((*CUSTOMERS, None), (*PARENT, None)):
        note = await new_doc(ctx, "Test Note", title=f"{customer}-{category}", customer=customer,
                             category=category).insert()
        notes[str(note.name)] = (customer, category)
    tagged = {}
    for rows in TAG_ROWS:
        doc = await new_doc(ctx, "Test Tagged", title=str(rows), categories=[{"category": c} for c in rows]).insert()
        tagged[str(doc.name)] = rows
    user = await user_context(ctx, "p@example.com", "System Manager")
    return World(site, ctx, user, notes, tagged)


async def apply(world: World, recs: list[Record], strict: bool) -> None:
    ctx = world.admin
    await store.collection(ctx, ctx.meta("User Permission")).delete_many({})
    for r in recs:
        await new_doc(ctx, "User Permission", user=world.user.user, allow=r.allow, for_value=r.value,
                      apply_to_all_doctypes=int(r.applicable_for is None), applicable_for=r.applicable_for,
                      hide_descendants=int(r.hide_descendants)).insert()
    settings_doc = await get_doc(ctx, "System Settings", "System Settings")
    settings_doc.apply_strict_user_permissions = int(strict)
    await settings_doc.save()
    world.site.forget_roles()


async def check(world: World, recs: list[Record], strict: bool) -> None:
    await apply(world, recs, strict)
    user = world.user
    expected = {n for n, (cu, ca) in world.notes.items() if note_visible(recs, strict, cu, ca)}
    assert {r["name"] for r in await get_list(user, "Test Note", limit_page_length=0)} == expected, recs
    assert await count(user, "Test Note") == len(expected)
    for name in world.notes:
        doc = await get_doc(world.admin, "Test Note", name)
        assert await has_permission(user, "Test Note", "read", doc) == (name in expected), (name, recs)
    if await reads_every_row(user, "Test Note"):  # the realtime room that names every record
        assert expected == set(world.notes)
    customers = {c for c in CUSTOMERS if name_visible(recs, "Test Customer", c)}
    assert {r["name"] for r in await get_list(user, "Test Customer")} == customers
    assert {r["value"] for r in await search_link(user, "Test Customer", "")} == customers
    categories = {c for c in PARENT if name_visible(recs, "Test Category", c)}
    assert {r["name"] for r in await get_list(user, "Test Category")} == categories
    tagged = {n for n, rows in world.tagged.items() if tagged_visible(recs, strict, rows)}
    assert {r["name"] for r in await get_list(user, "Test Tagged")} == tagged, recs


async def test_every_read_path_agrees_with_the_rules(world: World) -> None:
    loop = asyncio.get_running_loop()

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(records(), st.booleans())
    def prop(recs: list[Record], strict: bool) -> None:
        asyncio.run_coroutine_threadsafe(check(world, recs, strict), loop).result()

    await asyncio.to_thread(prop)


async def test_a_hand_picked_case(world: World) -> None:
    """One case spelled out: Mid (with Leaf under it) for every doctype, Acme for Test Note only."""
    recs = [Record("Test Category", "Mid", None, False), Record("Test Customer", "Acme", "Test Note", False)]
    await check(world, recs, False)
    visible = {world.notes[r["name"]] for r in await get_list(world.user, "Test Note", limit_page_length=0)}
    assert visible == {(c, g) for c in ("Acme", None) for g in ("Mid", "Leaf", None)}
