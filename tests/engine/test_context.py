"""Context and units of work on real MongoDB: retries of transient conflicts, the ambient context,
clones sharing one transaction."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context, bind, current_context, maybe_current_context, run_in_unit_of_work, unit_of_work
from engine.documents.factory import new_doc
from engine.query.listing import count, get_list
from engine.site import Site


async def test_run_in_unit_of_work_retries_a_transient_conflict(ctx: Context) -> None:
    calls: list[int] = []

    async def work() -> str:
        calls.append(len(calls))
        await new_doc(ctx, "Test Note", title=f"attempt {len(calls)}").insert()
        if len(calls) == 1:
            ctx.msgprint("from the failed attempt")
            raise exc.TransientError("write conflict")
        return "done"

    assert await run_in_unit_of_work(ctx, work) == "done"
    assert calls == [0, 1]
    # the first attempt was rolled back as a whole; its messages were dropped
    assert await get_list(ctx, "Test Note", pluck="title") == ["attempt 2"]
    assert ctx.messages == []
    assert ctx.uow is None


async def test_run_in_unit_of_work_gives_up_after_the_retries(ctx: Context) -> None:
    calls: list[int] = []

    async def work() -> None:
        calls.append(1)
        await new_doc(ctx, "Test Note", title="never").insert()
        raise exc.TransientError("write conflict")

    with pytest.raises(exc.TransientError):
        await run_in_unit_of_work(ctx, work, retries=2)
    assert len(calls) == 3
    assert await count(ctx, "Test Note") == 0


async def test_run_in_unit_of_work_does_not_retry_other_errors(ctx: Context) -> None:
    calls: list[int] = []

    async def work() -> None:
        calls.append(1)
        await new_doc(ctx, "Test Note", title="rolled back").insert()
        raise exc.ValidationError("no")

    with pytest.raises(exc.ValidationError):
        await run_in_unit_of_work(ctx, work)
    assert calls == [1]
    assert await count(ctx, "Test Note") == 0


async def test_nested_unit_of_work_is_not_retried_alone(ctx: Context) -> None:
    """Inside an enclosing unit, a conflict aborts the whole unit: only the outermost may retry."""
    calls: list[int] = []

    async def work() -> None:
        calls.append(1)
        raise exc.TransientError("write conflict")

    with pytest.raises(exc.TransientError):
        async with unit_of_work(ctx):
            await run_in_unit_of_work(ctx, work)
    assert calls == [1]


async def test_current_context_outside_and_inside_a_unit_of_work(ctx: Context) -> None:
    with pytest.raises(RuntimeError, match="no active fw context"):
        current_context()
    assert maybe_current_context() is None
    async with unit_of_work(ctx):
        assert current_context() is ctx
        async with unit_of_work(ctx.clone("Guest")):  # joins: the ambient context stays the outer one
            assert current_context() is ctx
    with pytest.raises(RuntimeError):
        current_context()
    with bind(ctx):
        assert current_context() is ctx
    assert maybe_current_context() is None


async def test_unit_of_work_commits_on_success_and_rolls_back_on_error(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Note", title="kept").insert()
        assert ctx.uow is not None and ctx.uow.in_transaction
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            await new_doc(ctx, "Test Note", title="dropped").insert()
            raise RuntimeError("boom")
    assert await get_list(ctx, "Test Note", pluck="title") == ["kept"]


async def test_read_only_unit_of_work_opens_no_transaction(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await get_list(ctx, "Test Note")
        assert ctx.uow is not None
        assert not ctx.uow.in_transaction
        assert ctx.uow.session is None


async def test_clone_shares_the_unit_of_work(site: Site, ctx: Context) -> None:
    await new_doc(ctx, "Role", role_name="Test Owner").insert()
    await new_doc(ctx, "User", email="owner@example.com", first_name="O", roles=[{"role": "Test Owner"}]).insert()
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            other = ctx.clone("owner@example.com")
            assert other.uow is ctx.uow
            assert other.user == "owner@example.com"
            assert other.site is site
            assert "Test Owner" in await other.roles()
            note = await new_doc(other, "Test Note", title="by clone").insert()
            assert note.owner == "owner@example.com"
            # the clone's write is visible inside the shared transaction, and not outside it
            assert await count(ctx, "Test Note") == 1
            assert await site.db.collection("test_note").count_documents({}) == 0
            other.msgprint("shared")
            assert ctx.messages == [{"message": "shared"}]
            raise RuntimeError("roll back both")
    assert await count(ctx, "Test Note") == 0


async def test_clone_keeps_roles_only_for_the_same_user(ctx: Context) -> None:
    roles = await ctx.roles()
    assert ctx.clone()._roles is roles
    guest = ctx.clone("Guest")
    assert await guest.roles() == frozenset({"Guest"})
    assert await ctx.roles() == roles


async def test_after_commit_runs_only_after_commit(ctx: Context) -> None:
    ran: list[str] = []
    with pytest.raises(exc.ConfigurationError):
        ctx.after_commit(lambda: None)
    async with unit_of_work(ctx):
        ctx.after_commit(lambda: ran.append("committed"))
        await new_doc(ctx, "Test Note", title="x").insert()
        assert ran == []
    assert ran == ["committed"]
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            ctx.after_commit(lambda: ran.append("rolled back"))
            raise RuntimeError("boom")
    assert ran == ["committed"]


async def test_a_caught_duplicate_does_not_poison_the_unit_of_work(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Note", name="taken", title="a", code="C1").insert()
        with pytest.raises(exc.DuplicateEntryError):
            await new_doc(ctx, "Test Note", name="taken", title="b").insert()
        with pytest.raises(exc.UniqueValidationError):
            await new_doc(ctx, "Test Note", title="c", code="C1").insert()
        await new_doc(ctx, "Test Note", title="after the duplicate").insert()
    assert await count(ctx, "Test Note") == 2
