"""When a unit of work's only write is a lifecycle's final persist, it skips the transaction (a
single-document write is atomic); anything that could write or fail afterwards keeps it."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents import lifecycle
from engine.documents.factory import get_doc, new_doc
from engine.query.listing import count
from tests.support.hooks import hide_handlers, patch_handlers


@pytest.fixture(autouse=True)
def no_star_hooks(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixture app registers a `doc_events["*"]` on_change handler for every doctype; these tests
    are about doctypes with no post-write hooks, so Test Customer's are hidden here."""
    hide_handlers(monkeypatch, ctx.site.apps, {"Test Customer"})


async def test_lone_insert_without_post_write_hooks_uses_no_transaction(ctx: Context) -> None:
    async with unit_of_work(ctx):
        ctx.single_operation = True
        await new_doc(ctx, "Test Customer", customer_name="Solo").insert()
        assert ctx.uow is not None and ctx.uow.session is None and ctx.uow.writes == 1
    assert await count(ctx, "Test Customer") == 1


async def test_lone_save_without_post_write_hooks_uses_no_transaction(ctx: Context) -> None:
    await new_doc(ctx, "Test Customer", customer_name="Solo").insert()
    async with unit_of_work(ctx):
        ctx.single_operation = True
        doc = await get_doc(ctx, "Test Customer", "Solo")
        doc.region = "East"
        await doc.save()
        assert ctx.uow is not None and ctx.uow.session is None
    assert (await get_doc(ctx, "Test Customer", "Solo")).region == "East"


async def test_post_write_hooks_keep_the_transaction(ctx: Context) -> None:
    async with unit_of_work(ctx):
        ctx.single_operation = True
        await new_doc(ctx, "Test Note", title="has after_insert").insert()  # TestNote defines after_insert
        assert ctx.uow is not None and ctx.uow.in_transaction
    with pytest.raises(exc.ValidationError):
        await new_doc(ctx, "Test Note", title="fail-after-insert").insert()
    assert await count(ctx, "Test Note") == 1  # the failing one was rolled back


async def test_track_changes_keeps_the_transaction(ctx: Context) -> None:
    await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
    async with unit_of_work(ctx):
        ctx.single_operation = True
        await new_doc(ctx, "Test Order", customer="Acme", posting_date="2026-01-01").insert()
        assert ctx.uow is not None and ctx.uow.in_transaction


async def test_unit_of_work_with_several_operations_stays_transactional(ctx: Context) -> None:
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            await new_doc(ctx, "Test Customer", customer_name="One").insert()
            assert ctx.uow is not None and ctx.uow.in_transaction  # not marked single: transactional
            await new_doc(ctx, "Test Customer", customer_name="Two").insert()
            raise RuntimeError("boom")
    assert await count(ctx, "Test Customer") == 0


async def test_earlier_write_in_the_unit_forces_the_transaction(ctx: Context) -> None:
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            ctx.single_operation = True
            await ctx.db.collection("test_customer").insert_one(
                {"_id": "raw", "customer_name": "raw"}, session=await ctx.write_session())
            await new_doc(ctx, "Test Customer", customer_name="Later").insert()
            raise RuntimeError("boom")
    assert await count(ctx, "Test Customer") == 0


async def test_a_json_value_changed_in_place_is_saved(ctx: Context) -> None:
    """The stored snapshot copies nested values (the load no longer deep-copies whole records): a
    JSON value changed in place still differs from the stored one, and is written."""
    note = await new_doc(ctx, "Test Note", title="json", config={"a": [1, 2], "b": {"c": 1}}).insert()
    doc = await get_doc(ctx, "Test Note", note.name)
    doc.config["a"].append(3)
    doc.config["b"]["c"] = 2
    assert doc.has_value_changed("config")
    assert doc.stored_value("config") == {"a": [1, 2], "b": {"c": 1}}
    await doc.save()
    assert (await get_doc(ctx, "Test Note", note.name)).config == {"a": [1, 2, 3], "b": {"c": 2}}


async def test_a_json_value_changed_in_place_after_insert_differs_from_the_stored_one(ctx: Context) -> None:
    """The snapshot an insert keeps copies the JSON fields' values (only those and tables can hold
    dicts and lists), so the inserted document changed in place still saves the change."""
    note = await new_doc(ctx, "Test Note", title="json after insert", config={"a": [1]}).insert()
    note.config["a"].append(2)
    assert note.has_value_changed("config") and note.stored_value("config") == {"a": [1]}
    await note.save()
    assert (await get_doc(ctx, "Test Note", note.name)).config == {"a": [1, 2]}


async def test_a_child_row_changed_in_place_is_saved(ctx: Context) -> None:
    await new_doc(ctx, "Test Customer", customer_name="Rows").insert()
    order = await new_doc(ctx, "Test Order", customer="Rows", posting_date="2026-01-01",
                          items=[{"item": "A", "qty": 1, "rate": 2}]).insert()
    doc = await get_doc(ctx, "Test Order", order.name)
    doc.items[0].qty = 5
    assert doc.has_value_changed("items")
    await doc.save()
    assert (await get_doc(ctx, "Test Order", order.name)).items[0].qty == 5


async def test_values_are_typed_once_when_no_code_runs_between(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """`coerce_types` types the values before the hooks; `validate_fields` types them again only when
    a hook (or autoname, or a workflow) ran since and may have set some."""
    from engine.documents import validation

    calls: list[str] = []
    real = validation.coerce_fields
    monkeypatch.setattr(validation, "coerce_fields", lambda doc: (calls.append(doc.name), real(doc))[1])
    await new_doc(ctx, "Test Customer", customer_name="Once", credit_limit="12.5").insert()
    assert len(calls) == 1
    doc = await get_doc(ctx, "Test Customer", "Once")
    assert doc.credit_limit == 12.5
    doc.credit_limit = "3"
    await doc.save()
    assert len(calls) == 2
    assert (await get_doc(ctx, "Test Customer", "Once")).credit_limit == 3.0


async def test_a_value_a_hook_sets_is_typed_before_the_write(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.documents import validation

    calls: list[str] = []
    real_coerce = validation.coerce_fields
    monkeypatch.setattr(validation, "coerce_fields", lambda doc: (calls.append(doc.name), real_coerce(doc))[1])

    def set_limit(doc, _event: str) -> None:
        doc.credit_limit = "40"  # a string, as a careless hook might set it

    patch_handlers(monkeypatch, ctx.site.apps, lambda real: lambda doctype, event: (
        (set_limit,) if (doctype, event) == ("Test Customer", "validate") else real(doctype, event)))
    await new_doc(ctx, "Test Customer", customer_name="Hooked").insert()
    assert len(calls) == 2  # typed again after the hook
    stored = await ctx.db.collection("test_customer").find_one({"_id": "Hooked"})
    assert stored["credit_limit"] == 40.0 and isinstance(stored["credit_limit"], float)

    def bad_limit(doc, _event: str) -> None:
        doc.credit_limit = "a lot"

    patch_handlers(monkeypatch, ctx.site.apps, lambda real: lambda doctype, event: (
        (bad_limit,) if (doctype, event) == ("Test Customer", "validate") else real(doctype, event)))
    with pytest.raises(exc.ValidationError) as raised:
        await new_doc(ctx, "Test Customer", customer_name="Bad hook").insert()
    assert raised.value.field == "credit_limit"
    assert await ctx.db.collection("test_customer").find_one({"_id": "Bad hook"}) is None


async def test_a_save_plans_its_steps_once_and_a_hook_after_the_write_keeps_the_transaction(
        ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = new_doc(ctx, "Test Customer", customer_name="Planned")
    apps, meta = ctx.site.apps, doc.meta
    plan = lifecycle.plan_for(apps, type(doc), meta, lifecycle.INSERT)
    assert lifecycle.plan_for(apps, type(doc), meta, lifecycle.INSERT) is plan  # once per doctype and step list
    # steps with nothing to do for the doctype are left out too: no Link, Password or Version here
    assert not {lifecycle.check_links, lifecycle.hash_passwords, lifecycle.write_version} & set(plan.steps)
    assert not any(step in lifecycle.HOOK_EVENTS for step in plan.steps)  # no controller, handlers hidden
    assert not plan.hooks_after_write and not plan.naming_hook
    assert lifecycle.persist_insert in plan.steps and lifecycle.set_name in plan.steps

    seen: list[str] = []

    def after_insert(doc, event: str) -> None:
        seen.append(f"{event}:{doc.name}")

    patch_handlers(monkeypatch, ctx.site.apps, lambda real: lambda doctype, event: (
        (after_insert,) if (doctype, event) == ("Test Customer", "after_insert") else real(doctype, event)))
    hooked = lifecycle.plan_for(apps, type(doc), meta, lifecycle.INSERT)
    assert hooked.hooks_after_write
    assert [lifecycle.HOOK_EVENTS[s] for s in hooked.steps if s in lifecycle.HOOK_EVENTS] == ["after_insert"]
    async with unit_of_work(ctx):
        ctx.single_operation = True
        await doc.insert()
        # the hook after the write could still fail: the write stays in the unit's transaction
        assert ctx.uow is not None and ctx.uow.session is not None and ctx.uow.in_transaction
    assert seen == ["after_insert:Planned"]
