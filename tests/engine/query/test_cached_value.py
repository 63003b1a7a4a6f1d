"""`fw.get_cached_value`: a document's value read once per unit of work, until the unit writes."""

from __future__ import annotations

import pytest

import engine as fw
from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from tests.support.reads import store_reads


async def test_read_once_per_unit_until_it_writes(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Test Customer", customer_name="Acme", region="North").insert()
    reads = store_reads(monkeypatch)
    async with unit_of_work(ctx):
        assert await fw.get_cached_value(ctx, "Test Customer", "Acme", "region") == "North"
        assert await fw.get_cached_value(ctx, "Test Customer", "Acme", "region") == "North"
        assert await fw.get_cached_value(ctx, "Test Customer", "Nobody", "region") is None
        assert await fw.get_cached_value(ctx, "Test Customer", "Nobody", "region") is None
        assert await fw.get_cached_value(ctx, "Test Customer", "", "region") is None  # not the first one's
        assert reads == ["Test Customer", "Test Customer"]  # one read for each name
        values = await fw.get_cached_value(ctx, "Test Customer", "Acme", ["region", "credit_limit"], as_dict=True)
        values["region"] = "changed by the caller"  # a copy: the kept answer is not changed
        assert (await fw.get_cached_value(ctx, "Test Customer", "Acme", ["region", "credit_limit"], as_dict=True)
                == {"region": "North", "credit_limit": 0.0})
        customer = await fw.get_doc(ctx, "Test Customer", "Acme")
        customer.region = "South"
        await customer.save()  # a write: the unit reads again, and sees its own change
        reads.clear()
        assert await fw.get_cached_value(ctx, "Test Customer", "Acme", "region") == "South"
        assert reads == ["Test Customer"]
    reads.clear()
    assert await fw.get_cached_value(ctx, "Test Customer", "Acme", "region") == "South"  # no unit: get_value
    assert await fw.get_cached_value(ctx, "Test Customer", "Acme", "region") == "South"
    assert reads == ["Test Customer", "Test Customer"]
