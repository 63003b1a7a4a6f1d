"""engine/documents/one_call.py: an update that nothing of the stored document can change is one
atomic findOneAndUpdate, and gives exactly what the ordinary save (read, checks, conditional write)
gives: the same stored record, the same answer, the same error. Each case runs both ways on twin
documents and compares."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents import one_call, store
from engine.documents.factory import get_doc, new_doc
from engine.methods import client
from engine.site import Site
from tests.support.hooks import hide_handlers

# doctypes the fixture app's `doc_events["*"]` handlers are hidden from here (with them, no doctype
# of the fixture app can be updated in one call: they run on every save)
PLAIN = ("Test Reading", "Test Review", "Test Customer")
STAMP = "2026-01-01 00:00:00.000000"


@pytest.fixture(autouse=True)
def no_star_hooks(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    hide_handlers(monkeypatch, site.apps, set(PLAIN))


class Calls:
    """Which way `client.update` took: one_call's finds-and-modifies and the ordinary save's loads."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.one_call = 0
        self.loads = 0
        real_update, real_load = store.update_returning, store.load

        async def update_returning(*args: Any, **kwargs: Any) -> Any:
            self.one_call += 1
            return await real_update(*args, **kwargs)

        async def load(*args: Any, **kwargs: Any) -> Any:
            self.loads += 1
            return await real_load(*args, **kwargs)

        monkeypatch.setattr(store, "update_returning", update_returning)
        monkeypatch.setattr(store, "load", load)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Calls:
    return Calls(monkeypatch)


async def raw_insert(ctx: Context, doctype: str, name: str, **values: Any) -> None:
    """A record as fw stores it (or, with odd values, as something else wrote it)."""
    record = {"_id": name, "owner": "Administrator", "creation": STAMP, "modified": STAMP,
              "modified_by": "Administrator", "docstatus": 0, "idx": 0, **values}
    await store.collection_of(ctx.site, doctype).insert_one(record)


async def stored(ctx: Context, doctype: str, name: str) -> dict[str, Any] | None:
    record = await store.collection_of(ctx.site, doctype).find_one({"_id": name})
    if record is not None:
        record.pop("_id")
        record.pop("modified")
    return record


Outcome = tuple[str, Any, Any]


async def outcome(ctx: Context, doctype: str, name: str, call: Callable[[], Awaitable[Any]]) -> Outcome:
    """('ok', answer, stored) or ('error', (type, field, message), stored), `modified` and the name left out."""
    try:
        async with unit_of_work(ctx):
            ctx.single_operation = True
            result = await call()
    except exc.FwError as e:
        return "error", (type(e).__name__, e.field, e.message.replace(name, "<name>")), await stored(ctx, doctype, name)
    finally:
        ctx.single_operation = False
    answer = result if isinstance(result, dict) else await client.readable_dict(ctx, result)
    answer = {k: v for k, v in answer.items() if k not in ("name", "modified")}
    return "ok", answer, await stored(ctx, doctype, name)


async def both_ways(ctx: Context, monkeypatch: pytest.MonkeyPatch, calls: Calls, doctype: str,
                    values: dict[str, Any], update: dict[str, Any], *, expect_one_call: bool) -> Outcome:
    """The update through one_call and through the ordinary save (one_call switched off), each on its
    own record made from `values`; asserts they agree and returns the outcome."""
    await raw_insert(ctx, doctype, "fast", **values)
    await raw_insert(ctx, doctype, "slow", **values)
    fast = await outcome(ctx, doctype, "fast", lambda: client.update(ctx, doctype, "fast", update))
    assert (calls.one_call == 1 and calls.loads == 0) is expect_one_call, (calls.one_call, calls.loads, fast)
    with monkeypatch.context() as m:
        async def ordinary(*_args: Any) -> None:
            return None

        m.setattr(one_call, "update", ordinary)
        slow = await outcome(ctx, doctype, "slow", lambda: client.update(ctx, doctype, "slow", update))
    assert fast == slow
    return fast


READING = {"sensor": "S-1", "date": "2026-01-05", "value": 1.5, "source": "feed"}


async def test_a_plain_update_is_one_call_and_writes_what_a_save_writes(ctx: Context, calls: Calls,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    kind, answer, record = await both_ways(ctx, monkeypatch, calls, "Test Reading", READING,
                                           {"value": "7.25", "source": "manual"}, expect_one_call=True)
    assert kind == "ok" and answer["value"] == 7.25 and answer["source"] == "manual"
    assert record == {**READING, "value": 7.25, "source": "manual", "owner": "Administrator", "creation": STAMP,
                      "modified_by": "Administrator", "docstatus": 0, "idx": 0}


@pytest.mark.parametrize("update", [
    {"source": None},  # a cleared field is not stored (no null)
    {"source": "   "},  # whitespace is content in a Data field
    {"value": None},  # a cleared number is 0
    {"date": "2026-02-03", "docstatus": 0, "name": "other", "owner": "mallory", "creation": STAMP, "idx": 9,
     "__unsaved": 1, "doctype": "Test Reading"},  # what a client sends back with a document is ignored
], ids=["clear text", "blank text", "clear number", "ignored keys"])
async def test_values_are_typed_and_stored_as_a_save_stores_them(ctx: Context, calls: Calls, update: dict[str, Any],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    kind, _answer, _record = await both_ways(ctx, monkeypatch, calls, "Test Reading", READING, update,
                                             expect_one_call=True)
    assert kind == "ok"


@pytest.mark.parametrize(("update", "error"), [
    ({"value": "lots"}, "FieldTypeError"),
    ({"date": "yesterday"}, "FieldTypeError"),
    ({"sensor": ""}, "MandatoryError"),
    ({"sensor": None, "value": 2}, "MandatoryError"),
    ({"no_such_field": 1}, "DataError"),
    ({"docstatus": 1}, "DocstatusTransitionError"),
    ({"docstatus": "x"}, "DataError"),
    ({"value": 3, "modified": "2020-01-01 00:00:00.000000"}, "TimestampMismatchError"),
    ({"value": 3, "modified": ""}, "TimestampMismatchError"),
], ids=lambda v: v if isinstance(v, str) else "-".join(v))
async def test_what_a_save_refuses_is_refused_with_the_same_error(ctx: Context, calls: Calls, update: dict[str, Any],
                                                                  error: str, monkeypatch: pytest.MonkeyPatch) -> None:
    kind, detail, record = await both_ways(ctx, monkeypatch, calls, "Test Reading", READING, update,
                                           expect_one_call=False)
    assert kind == "error" and detail[0] == error, detail
    assert record is not None and record["value"] == 1.5  # nothing written


async def test_the_modified_the_client_sent_is_checked_in_the_same_call(ctx: Context, calls: Calls,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    kind, answer, _record = await both_ways(ctx, monkeypatch, calls, "Test Reading", READING,
                                            {"value": 4, "modified": STAMP}, expect_one_call=True)
    assert kind == "ok" and answer["value"] == 4


@pytest.mark.parametrize(("values", "error"), [
    ({"sensor": "S-1", "date": "2026-01-05", "source": "feed"}, None),  # `value` missing: a save stores 0
    ({"sensor": " \u00a0\u2003", "date": "2026-01-05", "value": 1.5}, "MandatoryError"),  # blank, by str.strip
    ({"date": "2026-01-05", "value": 1.5}, "MandatoryError"),  # `sensor` missing
], ids=["missing number", "blank mandatory", "missing mandatory"])
async def test_a_record_the_save_would_change_or_refuse_goes_to_the_save(
        ctx: Context, calls: Calls, values: dict[str, Any], error: str | None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The filter asks what the save would have found: such a record is not matched, the save runs."""
    kind, detail, record = await both_ways(ctx, monkeypatch, calls, "Test Reading", values, {"source": "x"},
                                           expect_one_call=False)
    assert calls.one_call == 1  # tried, matched nothing, then the ordinary save
    if error is None:
        assert kind == "ok" and record is not None and record["value"] == 0.0
    else:
        assert kind == "error" and detail[0] == error


async def test_a_missing_document_is_not_found(ctx: Context, calls: Calls) -> None:
    with pytest.raises(exc.DoesNotExistError):
        async with unit_of_work(ctx):
            await client.update(ctx, "Test Reading", "nobody", {"value": 1})
    assert calls.one_call == 1 and calls.loads == 1


async def test_a_unique_field_goes_to_the_save(ctx: Context, calls: Calls) -> None:
    await raw_insert(ctx, "Test Customer", "Taken", customer_name="Taken", credit_limit=0.0)
    await raw_insert(ctx, "Test Customer", "Mine", customer_name="Mine", credit_limit=0.0)
    with pytest.raises(exc.UniqueValidationError):
        async with unit_of_work(ctx):
            await client.update(ctx, "Test Customer", "Mine", {"customer_name": "Taken"})
    assert calls.one_call == 0 and calls.loads == 1
    async with unit_of_work(ctx):
        await client.update(ctx, "Test Customer", "Mine", {"region": "North", "credit_limit": "12.5"})
    assert calls.one_call == 1 and calls.loads == 1
    assert await stored(ctx, "Test Customer", "Mine") == {
        "customer_name": "Mine", "region": "North", "credit_limit": 12.5, "owner": "Administrator",
        "creation": STAMP, "modified_by": "Administrator", "docstatus": 0, "idx": 0}


async def test_set_value_takes_one_call_too(ctx: Context, calls: Calls) -> None:
    await raw_insert(ctx, "Test Reading", "r1", **READING)
    async with unit_of_work(ctx):
        answer = await client.set_value(ctx, "Test Reading", "r1", "source", "set")
    assert answer["source"] == "set" and calls.one_call == 1 and calls.loads == 0
    assert (await get_doc(ctx, "Test Reading", "r1")).source == "set"


async def test_a_lone_update_needs_no_transaction_and_one_in_a_larger_unit_rolls_back(ctx: Context,
                                                                                     calls: Calls) -> None:
    await raw_insert(ctx, "Test Reading", "r1", **READING)
    async with unit_of_work(ctx):
        ctx.single_operation = True
        await client.update(ctx, "Test Reading", "r1", {"value": 2})
        assert ctx.uow is not None and ctx.uow.session is None and ctx.uow.wrote_outside_transaction
    ctx.single_operation = False
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            await client.update(ctx, "Test Reading", "r1", {"value": 3})
            assert ctx.uow is not None and ctx.uow.in_transaction
            raise RuntimeError("the rest of the unit failed")
    assert (await get_doc(ctx, "Test Reading", "r1")).value == 2


# -- who may: the write right on every row, and permlevels ------------------------------------------

async def user_ctx(ctx: Context, email: str, roles: list[str]) -> Context:
    async with unit_of_work(ctx):
        for role in roles:
            if await store.collection_of(ctx.site, "Role").find_one({"_id": role}) is None:
                await new_doc(ctx, "Role", role_name=role).insert()
        await new_doc(ctx, "User", email=email, first_name="U", roles=[{"role": r} for r in roles]).insert()
    return ctx.site.context(email)


REVIEW = {"title": "Draft", "score": 1, "approved": 0, "weight": 1.5, "grade": "B", "reviewed_on": "2026-01-01"}


async def test_an_owner_only_right_goes_to_the_save(ctx: Context, calls: Calls,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    owner = await user_ctx(ctx, "owner@example.com", ["Test Owner"])
    kind, detail, _ = await both_ways(owner, monkeypatch, calls, "Test Review", REVIEW, {"title": "Mine now"},
                                      expect_one_call=False)
    assert kind == "error" and detail[0] == "PermissionError"  # Administrator owns them


async def test_a_field_above_the_users_permlevel_goes_to_the_save(ctx: Context, calls: Calls,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    manager = await user_ctx(ctx, "manager@example.com", ["System Manager"])
    kind, detail, _ = await both_ways(manager, monkeypatch, calls, "Test Review", REVIEW, {"score": 5},
                                      expect_one_call=False)
    assert kind == "error" and detail == ("PermissionError", "score", "You are not allowed to change Score")


async def test_a_writer_of_every_level_updates_in_one_call(ctx: Context, calls: Calls,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    reviewer = await user_ctx(ctx, "reviewer@example.com", ["Test Reviewer"])
    kind, answer, _ = await both_ways(reviewer, monkeypatch, calls, "Test Review", REVIEW,
                                      {"score": 5, "grade": "A"}, expect_one_call=True)
    assert kind == "ok" and answer["score"] == 5 and answer["modified_by"] == "reviewer@example.com"


async def test_no_write_right_is_refused_as_before(ctx: Context, calls: Calls, monkeypatch: pytest.MonkeyPatch) -> None:
    reader = await user_ctx(ctx, "reader@example.com", ["Test Reader"])
    kind, detail, _ = await both_ways(reader, monkeypatch, calls, "Test Reading", READING, {"value": 9},
                                      expect_one_call=False)
    assert kind == "error" and detail[0] == "PermissionError"


# -- which doctypes ---------------------------------------------------------------------------------

@pytest.mark.parametrize("doctype", [
    "Test Note",  # its controller defines save hooks
    "Test Order",  # Link fields (checked again on every save), a child table, track_changes
    "Test Payment",  # submittable
    "Test Category",  # a tree
    "Test Settings",  # a Single
])
def test_doctypes_whose_save_needs_the_stored_document_have_no_plan(ctx: Context, doctype: str) -> None:
    assert one_call.plan_for(ctx, ctx.meta(doctype)) is None


def test_a_star_handler_on_save_rules_it_out(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # the fixture app's doc_events["*"] validate and on_change handlers are back
    assert one_call.plan_for(ctx, ctx.meta("Test Reading")) is None


def test_a_plain_doctype_has_a_plan_naming_what_the_record_must_hold(ctx: Context) -> None:
    plan = one_call.plan_for(ctx, ctx.meta("Test Reading"))
    assert plan is not None and set(plan.settable) == {"sensor", "date", "value", "source"}
    assert [name for name, _condition in plan.conditions] == ["sensor", "date", "value"]


@pytest.mark.parametrize(("values", "update", "expect_one_call"), [
    (READING, {"value": "2.5", "source": None}, True),
    ({**READING, "sensor": "\u2003"}, {"value": 3}, False),  # the filter's blank-text test on mongomock too
    ({"sensor": "S-1", "date": "2026-01-05"}, {"source": "x"}, False),
], ids=["plain", "blank mandatory", "missing number"])
async def test_the_memory_backend_agrees(memory_site: Site, calls: Calls, monkeypatch: pytest.MonkeyPatch,
                                         values: dict[str, Any], update: dict[str, Any],
                                         expect_one_call: bool) -> None:
    mctx = memory_site.context("Administrator")
    await both_ways(mctx, monkeypatch, calls, "Test Reading", values, update, expect_one_call=expect_one_call)


async def test_the_answer_size_test_is_left_out_where_the_doctype_bounds_it(ctx: Context,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone update skips the transaction, so it must know its answer fits the response limit: a
    doctype whose every field has a bounded length needs no test; under a limit below that bound the
    filter asks mongod for the record's size."""
    plan = one_call.plan_for(ctx, ctx.meta("Test Reading"))
    assert plan is not None and plan.answer_bound is not None and 6_000 < plan.answer_bound < 20_000
    filters: list[dict[str, Any]] = []
    real = store.update_returning

    async def recording(ctx: Context, meta: Any, filter: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        filters.append(filter)
        return await real(ctx, meta, filter, *args, **kwargs)

    monkeypatch.setattr(store, "update_returning", recording)
    await raw_insert(ctx, "Test Reading", "r1", **READING)
    for limit, value in ((32 * 1024 * 1024, 2.0), (4096, 3.0)):
        ctx.response_limit = limit
        async with unit_of_work(ctx):
            ctx.single_operation = True
            assert (await client.update(ctx, "Test Reading", "r1", {"value": value})).value == value
        ctx.single_operation = False
    assert "$expr" not in filters[0]
    assert filters[1]["$expr"]["$lte"][0] == {"$bsonSize": "$$ROOT"}


def test_the_filled_text_filter_knows_every_whitespace_character() -> None:
    assert set(one_call.SPACE) == {chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()}
