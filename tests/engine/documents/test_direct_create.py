"""engine/documents/direct_create.py: a create of a doctype no code takes part in is one record built
from the request; it stores and answers what the ordinary insert does, and everything it cannot
decide from the request alone goes to the ordinary insert, which reports it as always."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents import direct_create, lifecycle
from engine.documents.document import Document
from engine.methods import client
from engine.site import Site
from tests.support.hooks import hide_handlers, patch_controller_hook
from tests.support.realtime import Recorder
from tests.support.users import user_context

REVIEW = "Test Review"
STAMPS = ("name", "_id", "creation", "modified")


@pytest.fixture(autouse=True)
def plain_reviews(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """Test Review without the fixture app's `doc_events["*"]` handlers, which make every insert of
    every doctype run code."""
    hide_handlers(monkeypatch, ctx.site.apps, {REVIEW, "Test Counter", "Test Note"})


@pytest.fixture
def ways(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """How many creates went direct and how many through the ordinary insert."""
    counts = {"direct": 0, "insert": 0}
    real_direct, real_new_doc = direct_create.create, client.new_doc

    async def direct(*args: Any, **kwargs: Any) -> Any:
        done = await real_direct(*args, **kwargs)
        counts["direct"] += done is not None
        return done

    def new_doc(*args: Any, **kwargs: Any) -> Any:  # the ordinary insert's first step: the Document
        counts["insert"] += 1
        return real_new_doc(*args, **kwargs)

    monkeypatch.setattr(direct_create, "create", direct)
    monkeypatch.setattr(client, "new_doc", new_doc)
    yield counts


async def create(ctx: Context, doctype: str, data: dict[str, Any], *, no_nulls: bool = False) -> dict[str, Any]:
    """A create as the REST route makes it: one operation in its own unit of work."""
    async with unit_of_work(ctx):
        ctx.single_operation = True
        return await client.create(ctx, doctype, data, no_nulls=no_nulls)


async def ordinary(ctx: Context, doctype: str, data: dict[str, Any], *, no_nulls: bool = False) -> dict[str, Any]:
    async with unit_of_work(ctx):
        ctx.single_operation = True
        doc = await client.input_document(ctx, doctype, data).insert()
        return await client.readable_dict(ctx, doc, no_nulls=no_nulls)


def unstamped(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in STAMPS}


async def stored(ctx: Context, name: str) -> dict[str, Any]:
    return await ctx.db.collection("test_review").find_one({"_id": name})


@pytest.mark.parametrize("no_nulls", [False, True], ids=["v2 (nulls kept)", "v1 (nulls left out)"])
async def test_it_stores_and_answers_what_the_insert_does(ctx: Context, ways: dict[str, int], no_nulls: bool) -> None:
    # typed (Int from text, Check from a bool, Date default "Today"), defaulted (an empty Select, a
    # null Float), server-set and private keys dropped, a null left unstored
    body = {"doctype": REVIEW, "title": "Quarterly", "score": "7", "approved": True, "weight": None,
            "grade": "", "name": "chosen", "owner": "mallory@example.com", "__unsaved": 1, "_comments": "[]"}
    direct = await create(ctx, REVIEW, body, no_nulls=no_nulls)
    assert ways == {"direct": 1, "insert": 0}
    usual = await ordinary(ctx, REVIEW, body, no_nulls=no_nulls)
    assert ways == {"direct": 1, "insert": 1}
    assert unstamped(direct) == unstamped(usual)
    assert direct["score"] == 7 and direct["approved"] == 1 and direct["weight"] == 1.5 and direct["grade"] == "B"
    assert direct["owner"] == direct["modified_by"] == "Administrator" and direct["name"] != "chosen"
    assert direct["creation"] == direct["modified"] and direct["reviewed_on"] == direct["creation"][:10]
    assert direct["docstatus"] == 0 and direct["idx"] == 0 and direct["doctype"] == REVIEW
    assert set(direct) == set(usual)
    assert unstamped(await stored(ctx, direct["name"])) == unstamped(await stored(ctx, usual["name"]))
    read = await client.get(ctx, REVIEW, direct["name"])  # (nulls kept; v1's answer leaves them out)
    assert direct == ({k: v for k, v in read.items() if v is not None} if no_nulls else read)


@pytest.mark.parametrize(("body", "error"), [
    ({"title": "x", "colour": "red"}, exc.DataError),  # not a field
    ({"title": "x", "score": "many"}, exc.FieldTypeError),
    ({"title": "x", "grade": "Z"}, exc.FieldTypeError),  # not one of the options
    ({"title": "  "}, exc.MandatoryError),
    ({"score": 3}, exc.MandatoryError),
    ({"title": "x", "docstatus": 1}, exc.DocstatusTransitionError),  # not submittable
    ({"title": "x", "docstatus": "later"}, exc.DataError),
], ids=["unknown key", "bad Int", "bad Select", "blank mandatory", "missing mandatory", "submit", "bad docstatus"])
async def test_what_it_cannot_decide_the_insert_reports(ctx: Context, ways: dict[str, int], body: dict[str, Any],
                                                       error: type[exc.FwError]) -> None:
    with pytest.raises(error) as raised:
        await create(ctx, REVIEW, body)
    assert ways == {"direct": 0, "insert": 1}
    with pytest.raises(error) as again:
        await ordinary(ctx, REVIEW, body)
    assert (raised.value.message, raised.value.field) == (again.value.message, again.value.field)
    assert await ctx.db.collection("test_review").count_documents({}) == 0


async def test_draft_docstatus_sent_is_accepted(ctx: Context, ways: dict[str, int]) -> None:
    assert (await create(ctx, REVIEW, {"title": "x", "docstatus": "0"}))["docstatus"] == 0
    assert ways == {"direct": 1, "insert": 0}


async def test_doctypes_that_need_more_than_their_values_insert_as_before(ctx: Context) -> None:
    for doctype, why in [("Test Note", "Link fields, a controller with hooks"), ("Test Counter", "autoincrement"),
                         ("Test Reading", "a name made from a value, the '*' handlers"),
                         ("Test Payment", "submittable"), ("Test Order", "a table, Version records"),
                         ("Test Tagged", "a Table MultiSelect")]:
        assert not direct_create.qualifies(ctx, ctx.meta(doctype)), why
    assert direct_create.qualifies(ctx, ctx.meta(REVIEW))


def test_any_insert_hook_takes_the_ordinary_insert(site: Site, ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    controller = site.apps.controller(REVIEW)
    events = [lifecycle.HOOK_EVENTS[step] for step in lifecycle.INSERT if step in lifecycle.HOOK_EVENTS]
    for event in [*events, "before_naming"]:
        with monkeypatch.context() as m:
            patch_controller_hook(m, site.apps, controller, event, lambda doc: None)
            assert not direct_create.qualifies(ctx, ctx.meta(REVIEW)), event
    assert direct_create.qualifies(ctx, ctx.meta(REVIEW))


async def test_a_controller_that_names_or_inserts_itself_is_called(site: Site, ctx: Context,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   ways: dict[str, int]) -> None:
    class Named(Document):
        def autoname(self) -> None:
            self.name = f"REV-{self.title}"

    monkeypatch.setitem(site.apps.controllers, REVIEW, Named)
    assert (await create(ctx, REVIEW, {"title": "one"}))["name"] == "REV-one"
    assert ways == {"direct": 0, "insert": 1}

    class Inserting(Document):
        async def insert(self, **kwargs: Any) -> Any:
            self.title = f"{self.title} (checked)"
            return await super().insert(**kwargs)

    monkeypatch.setitem(site.apps.controllers, REVIEW, Inserting)
    assert (await create(ctx, REVIEW, {"title": "two"}))["title"] == "two (checked)"
    assert ways == {"direct": 0, "insert": 2}


async def test_callers_whose_create_depends_on_more_take_the_insert(ctx: Context, ways: dict[str, int]) -> None:
    reviewer = await user_context(ctx, "rev@example.com", "Test Reviewer")  # writes every permlevel
    owner = await user_context(ctx, "own@example.com", "Test Owner")  # level 0 only
    stranger = await user_context(ctx, "nobody@example.com", "Test Customer Role")
    ways.update(direct=0, insert=0)
    made = await create(reviewer, REVIEW, {"title": "by a reviewer", "score": 4})
    assert made["owner"] == "rev@example.com" and made["score"] == 4
    assert ways == {"direct": 1, "insert": 0}
    # level 1 fields: the insert lets their defaults through (unseen by the owner) and refuses a value
    by_owner = await create(owner, REVIEW, {"title": "by an owner"})
    assert "grade" not in by_owner and (await stored(ctx, by_owner["name"]))["grade"] == "B"
    with pytest.raises(exc.PermissionError) as refused:
        await create(owner, REVIEW, {"title": "scored by an owner", "score": 9})
    assert refused.value.field == "score"
    with pytest.raises(exc.PermissionError):
        await create(stranger, REVIEW, {"title": "by a stranger"})
    assert ways == {"direct": 1, "insert": 3}
    assert await ctx.db.collection("test_review").count_documents({}) == 2


async def test_a_lone_create_skips_the_transaction_and_one_among_others_keeps_it(ctx: Context,
                                                                               ways: dict[str, int]) -> None:
    async with unit_of_work(ctx):
        ctx.single_operation = True
        await client.create(ctx, REVIEW, {"title": "alone"})
        assert ctx.uow is not None and ctx.uow.session is None and ctx.uow.writes == 1
    ctx.single_operation = False
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            await client.create(ctx, REVIEW, {"title": "in a unit that fails"})
            assert ctx.uow is not None and ctx.uow.in_transaction
            raise RuntimeError("rolled back")
    assert ways == {"direct": 2, "insert": 0}
    assert [r["title"] async for r in ctx.db.collection("test_review").find({})] == ["alone"]


async def test_it_tells_listeners_what_the_insert_tells_them(site: Site, ctx: Context, ways: dict[str, int],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder()
    monkeypatch.setattr(site, "realtime", recorder, raising=False)
    direct = await create(ctx, REVIEW, {"title": "heard"})
    usual = await ordinary(ctx, REVIEW, {"title": "heard too"})
    assert ways == {"direct": 1, "insert": 1}

    def events(doc: dict[str, Any]) -> list[tuple[str, Any, str]]:
        return [e for e in recorder.sent if doc["name"] in e[2] or (isinstance(e[1], dict)
                                                                   and e[1].get("name") == doc["name"])]

    def shape(doc: dict[str, Any]) -> list[tuple[str, Any, str]]:
        return [(event, {k: ("<name>" if v == doc["name"] else "<t>" if v == doc["modified"] else v)
                         for k, v in message.items()}, room.replace(doc["name"], "<name>"))
                for event, message, room in events(doc)]

    assert shape(direct) == shape(usual) and len(shape(direct)) == 2  # doc_update and the full readers' list_update
    assert recorder.sent.count(("list_update", {"doctype": REVIEW}, f"doctype:{REVIEW}:restricted")) == 2
