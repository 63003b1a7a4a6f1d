"""The document lifecycle on real MongoDB: hook order, docstatus rules, rollback, concurrency."""

from __future__ import annotations

import asyncio

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents import store
from engine.documents.factory import get_doc, new_doc
from engine.query.listing import count, get_all


async def make_customer(ctx: Context, name: str = "Acme", **fields: object) -> str:
    doc = await new_doc(ctx, "Test Customer", customer_name=name, **fields).insert()
    return doc.name


async def make_order(ctx: Context, **fields: object):
    customer = fields.pop("customer", None) or await make_customer(ctx)
    data = {"customer": customer, "posting_date": "2026-03-04",
            "items": [{"item": "Bolt", "qty": 2, "rate": 1.5}, {"item": "Nut", "qty": 4, "rate": 0.25}]}
    data.update(fields)
    return await new_doc(ctx, "Test Order", data).insert()


async def test_insert_runs_hooks_in_contract_order(ctx: Context) -> None:
    order = await make_order(ctx)
    assert order.flags["events"] == [
        "controller:before_insert", "controller:before_naming", "controller:before_validate",
        "controller:validate", "hook:validate", "star:validate", "controller:before_save",
        "controller:after_insert", "controller:on_update", "hook:on_update",
        "controller:on_change", "star:on_change",
    ]


async def test_save_submit_cancel_hook_order(ctx: Context) -> None:
    order = await make_order(ctx)
    order.flags["events"] = []
    order.remarks = "changed"
    await order.save()
    assert order.flags["events"] == [
        "controller:before_validate", "controller:validate", "hook:validate", "star:validate",
        "controller:before_save", "controller:on_update", "hook:on_update", "controller:on_change",
        "star:on_change"]
    order.flags["events"] = []
    await order.submit()
    assert order.flags["events"] == [
        "controller:before_validate", "controller:validate", "hook:validate", "star:validate",
        "controller:before_submit", "controller:on_update", "hook:on_update", "controller:on_submit",
        "hook:on_submit", "controller:on_change", "star:on_change"]
    order.flags["events"] = []
    await order.cancel()
    assert order.flags["events"] == [
        "controller:before_cancel", "controller:on_cancel", "hook:on_cancel", "controller:on_change",
        "star:on_change"]
    assert (await get_doc(ctx, "Test Order", order.name)).docstatus == 2


async def test_update_after_submit_only_allow_on_submit_fields(ctx: Context) -> None:
    order = await make_order(ctx)
    await order.submit()
    order.flags["events"] = []
    order.remarks = "late note"
    await order.save()
    assert order.flags["events"][0] == "controller:before_update_after_submit"
    assert (await get_doc(ctx, "Test Order", order.name)).remarks == "late note"
    order.status = "Closed"
    with pytest.raises(exc.UpdateAfterSubmitError) as err:
        await order.save()
    assert err.value.field == "status"
    assert (await get_doc(ctx, "Test Order", order.name)).status == "Draft"


@pytest.mark.parametrize(("start", "target", "message"), [
    (0, 2, "Cannot change docstatus from 0"),
    (1, 0, "Cannot change docstatus from 1"),
])
async def test_illegal_docstatus_transitions(ctx: Context, start: int, target: int, message: str) -> None:
    order = await make_order(ctx)
    if start == 1:
        await order.submit()
    order.docstatus = target
    with pytest.raises(exc.DocstatusTransitionError, match=message):
        await order.save()


async def test_cancelled_document_cannot_be_edited(ctx: Context) -> None:
    order = await make_order(ctx)
    await order.submit()
    await order.cancel()
    order.remarks = "again"
    with pytest.raises(exc.DocstatusTransitionError, match="Cannot edit cancelled document"):
        await order.save()


async def test_non_submittable_doctype_cannot_be_submitted(ctx: Context) -> None:
    note = await new_doc(ctx, "Test Note", title="x").insert()
    with pytest.raises(exc.DocstatusTransitionError):
        await note.submit()


async def test_submitted_document_cannot_be_deleted(ctx: Context) -> None:
    order = await make_order(ctx)
    await order.submit()
    with pytest.raises(exc.DocstatusTransitionError, match="cancel it first"):
        await order.delete()
    assert await count(ctx, "Test Order") == 1


async def test_delete_runs_hooks_and_removes(ctx: Context) -> None:
    order = await make_order(ctx)
    order.flags["events"] = []
    await order.delete()
    assert order.flags["events"] == ["controller:on_trash", "controller:after_delete"]
    with pytest.raises(exc.DoesNotExistError):
        await get_doc(ctx, "Test Order", order.name)


async def test_linked_document_cannot_be_deleted(ctx: Context) -> None:
    order = await make_order(ctx)
    customer = await get_doc(ctx, "Test Customer", order.customer)
    with pytest.raises(exc.LinkExistsError, match=order.name):
        await customer.delete()


async def test_cancel_refused_while_submitted_documents_link_to_it(ctx: Context) -> None:
    order = await make_order(ctx)
    await order.submit()
    payment = await new_doc(ctx, "Test Payment", order=order.name, amount=3).insert()
    await payment.submit()
    with pytest.raises(exc.LinkExistsError, match=payment.name):
        await order.cancel()
    assert (await get_doc(ctx, "Test Order", order.name)).docstatus == 1
    await payment.cancel()
    await order.cancel()
    assert (await get_doc(ctx, "Test Order", order.name)).docstatus == 2


async def test_link_to_cancelled_document_is_refused(ctx: Context) -> None:
    order = await make_order(ctx)
    await order.submit()
    await order.cancel()
    with pytest.raises(exc.LinkValidationError, match="cancelled") as err:
        await new_doc(ctx, "Test Payment", order=order.name, amount=1).insert()
    assert err.value.field == "order"


async def test_amendment_naming_chain(ctx: Context) -> None:
    first = await make_order(ctx)
    await first.submit()
    await first.cancel()
    amended = await new_doc(ctx, "Test Order", customer=first.customer, posting_date="2026-03-05",
                            amended_from=first.name).insert()
    assert amended.name == f"{first.name}-1"
    await amended.submit()
    await amended.cancel()
    again = await new_doc(ctx, "Test Order", customer=first.customer, posting_date="2026-03-05",
                          amended_from=amended.name).insert()
    assert again.name == f"{first.name}-2"


async def test_amend_requires_cancelled_source(ctx: Context) -> None:
    order = await make_order(ctx)
    with pytest.raises(exc.DocstatusTransitionError, match="cancelled"):
        await new_doc(ctx, "Test Order", customer=order.customer, posting_date="2026-03-05",
                      amended_from=order.name).insert()


async def test_hook_failure_after_write_rolls_back_insert(ctx: Context) -> None:
    with pytest.raises(exc.ValidationError, match="after_insert refused"):
        await new_doc(ctx, "Test Note", title="fail-after-insert").insert()
    assert await count(ctx, "Test Note") == 0


async def test_hook_failure_after_write_rolls_back_submit(ctx: Context) -> None:
    order = await make_order(ctx)
    order.remarks = "fail-on-submit"
    with pytest.raises(exc.ValidationError, match="on_submit refused"):
        await order.submit()
    stored = await get_doc(ctx, "Test Order", order.name)
    assert stored.docstatus == 0
    assert stored.remarks is None


async def test_unit_of_work_rolls_back_every_write(ctx: Context) -> None:
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            await new_doc(ctx, "Test Note", title="one").insert()
            await new_doc(ctx, "Test Note", title="two").insert()
            assert await count(ctx, "Test Note") == 2  # reads see the unit's own writes
            raise RuntimeError("boom")
    assert await count(ctx, "Test Note") == 0


async def test_after_commit_callbacks_run_on_commit_and_drop_on_rollback(ctx: Context) -> None:
    ran: list[str] = []
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Note", title="one").insert()
        ctx.after_commit(lambda: ran.append("committed"))
        assert ran == []
    assert ran == ["committed"]
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            ctx.after_commit(lambda: ran.append("rolled back"))
            raise RuntimeError
    assert ran == ["committed"]


async def test_explicit_commit_keeps_earlier_writes(ctx: Context) -> None:
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            await new_doc(ctx, "Test Note", title="kept").insert()
            await ctx.commit()
            await new_doc(ctx, "Test Note", title="lost").insert()
            raise RuntimeError
    titles = await get_all(ctx, "Test Note", pluck="title")
    assert titles == ["kept"]


async def test_optimistic_concurrency_on_modified(ctx: Context) -> None:
    note = await new_doc(ctx, "Test Note", title="v1").insert()
    stale = await get_doc(ctx, "Test Note", note.name)
    note.title = "v2"
    await note.save()
    stale.title = "v3"
    with pytest.raises(exc.TimestampMismatchError):
        await stale.save()
    assert (await get_doc(ctx, "Test Note", note.name)).title == "v2"


async def test_client_sent_modified_is_checked(ctx: Context) -> None:
    note = await new_doc(ctx, "Test Note", title="v1").insert()
    doc = await get_doc(ctx, "Test Note", note.name)
    doc.update({"title": "v2", "modified": "2001-01-01 00:00:00.000000"})
    with pytest.raises(exc.TimestampMismatchError):
        await doc.save()
    doc = await get_doc(ctx, "Test Note", note.name)
    doc.update({"title": "v2", "modified": note.modified})
    await doc.save()
    assert doc.modified > note.modified


async def test_set_only_once(ctx: Context) -> None:
    order = await make_order(ctx)
    order.posting_date = "2026-04-01"
    with pytest.raises(exc.CannotChangeConstantError) as err:
        await order.save()
    assert err.value.field == "posting_date"


async def test_child_rows_embedded_and_named(ctx: Context) -> None:
    order = await make_order(ctx)
    record = await store.load(ctx, order.meta, order.name)
    assert record is not None
    assert [r["item"] for r in record["items"]] == ["Bolt", "Nut"]
    assert all(r["parent"] == order.name and r["parentfield"] == "items" for r in record["items"])
    assert [r["idx"] for r in record["items"]] == [1, 2]
    assert order.total == 4.0  # computed in the controller's validate
    loaded = await get_doc(ctx, "Test Order", order.name)
    assert loaded.items[1].amount == 1.0
    assert loaded.as_dict()["items"][0]["doctype"] == "Test Order Item"


async def test_put_style_update_replaces_table_and_keeps_row_names(ctx: Context) -> None:
    order = await make_order(ctx)
    first = order.items[0].name
    doc = await get_doc(ctx, "Test Order", order.name)
    doc.update({"items": [{"name": first, "item": "Bolt", "qty": 10, "rate": 1}]})
    await doc.save()
    loaded = await get_doc(ctx, "Test Order", order.name)
    assert [(r.name, r.qty) for r in loaded.items] == [(first, 10)]
    assert loaded.total == 10


async def test_child_row_validation_names_row(ctx: Context) -> None:
    customer = await make_customer(ctx)
    with pytest.raises(exc.MandatoryError, match="row 1") as err:
        await new_doc(ctx, "Test Order", customer=customer, posting_date="2026-01-01",
                      items=[{"qty": 1}]).insert()
    assert err.value.field == "item"
    assert await count(ctx, "Test Order") == 0


async def test_track_changes_writes_versions(ctx: Context) -> None:
    order = await make_order(ctx)
    order.remarks = "first"
    await order.save()
    versions = await get_all(ctx, "Version", fields=["data"], filters={"docname": order.name},
                             order_by="creation asc")
    assert versions[0]["data"] == {"created": True}
    assert ["remarks", None, "first"] in versions[1]["data"]["changed"]


async def test_update_rejects_unknown_fields(ctx: Context) -> None:
    with pytest.raises(exc.DataError) as err:
        new_doc(ctx, "Test Note", title="x", nonsense=1)
    assert err.value.field == "nonsense"


async def test_get_doc_missing_is_does_not_exist(ctx: Context) -> None:
    with pytest.raises(exc.DoesNotExistError):
        await get_doc(ctx, "Test Note", "nope")
    with pytest.raises(exc.DoesNotExistError):
        await get_doc(ctx, "No Such Doctype", "x")


async def test_single_doctype(ctx: Context) -> None:
    settings = await get_doc(ctx, "Test Settings")
    assert settings.is_new()
    settings.default_region = "North"
    await settings.save()
    loaded = await get_doc(ctx, "Test Settings")
    assert loaded.name == "Test Settings"
    assert loaded.default_region == "North"
    assert loaded.max_items == 10


async def test_db_set_skips_hooks(ctx: Context) -> None:
    order = await make_order(ctx)
    order.flags["events"] = []
    await order.db_set("remarks", "direct")
    assert order.flags["events"] == []
    assert (await get_doc(ctx, "Test Order", order.name)).remarks == "direct"


async def test_concurrent_inserts_get_distinct_series_names(ctx: Context) -> None:
    customer = await make_customer(ctx)

    async def one(i: int) -> str:
        c = ctx.site.context("Administrator")
        doc = await new_doc(c, "Test Order", customer=customer, posting_date="2026-05-05").insert()
        return doc.name

    names = await asyncio.gather(*(one(i) for i in range(50)))
    assert len(set(names)) == 50
    assert await count(ctx, "Test Order") == 50
    numbers = sorted(int(n.rsplit("-", 1)[1]) for n in names)
    assert numbers == list(range(1, 51))


async def test_concurrent_saves_of_one_document_never_lose_silently(ctx: Context) -> None:
    note = await new_doc(ctx, "Test Note", title="base").insert()

    async def bump(i: int) -> str:
        c = ctx.site.context("Administrator")
        doc = await get_doc(c, "Test Note", note.name)
        doc.title = f"t{i}"
        try:
            await doc.save()
            return "ok"
        except (exc.TimestampMismatchError, exc.TransientError):
            return "conflict"

    results = await asyncio.gather(*(bump(i) for i in range(10)))
    assert "ok" in results
    final = await get_doc(ctx, "Test Note", note.name)
    winners = [f"t{i}" for i, r in enumerate(results) if r == "ok"]
    assert final.title in winners
