"""Field rules applied on save, through the real lifecycle: every bad value is a specific error
naming the field, and nothing is written."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context
from engine.core import passwords
from engine.documents import store
from engine.documents.factory import get_doc, new_doc
from engine.query.listing import count


@pytest.mark.parametrize(("field", "value", "error"), [
    ("count", "abc", exc.FieldTypeError),
    ("count", 3.5, exc.FieldTypeError),
    ("amount", "12x", exc.FieldTypeError),
    ("is_done", 2, exc.FieldTypeError),
    ("due", "2026-02-30", exc.FieldTypeError),
    ("due", "03/04/2026", exc.FieldTypeError),
    ("at", "yesterday", exc.FieldTypeError),
    ("status", "Pending", exc.FieldTypeError),
    ("email", "not-an-email", exc.FieldTypeError),
    ("config", "{not json", exc.FieldTypeError),
    ("config", {"$where": "1"}, exc.FieldTypeError),
    ("title", ["a", "list"], exc.FieldTypeError),
    ("priority", -1, exc.NonNegativeError),
    ("title", "x" * 141, exc.CharacterLengthExceededError),
])
async def test_bad_values_are_specific_errors_naming_the_field(ctx: Context, field: str, value: object,
                                                               error: type[exc.FwError]) -> None:
    data = {"title": "ok", field: value}
    with pytest.raises(error) as err:
        await new_doc(ctx, "Test Note", data).insert()
    assert err.value.field == field
    assert await count(ctx, "Test Note") == 0


async def test_values_are_coerced_to_their_types(ctx: Context) -> None:
    note = await new_doc(ctx, "Test Note", title="t", count="42", amount="10.5", ratio=1.23456, is_done="true",
                         at="2026-01-02T03:04:05", config='{"a": [1, 2]}').insert()
    record = await store.load(ctx, note.meta, note.name)
    assert record is not None
    assert record["count"] == 42
    assert record["amount"] == 10.5
    assert record["ratio"] == 1.23
    assert record["is_done"] == 1
    assert record["at"] == "2026-01-02 03:04:05"
    assert record["config"] == {"a": [1, 2]}
    assert record["status"] == "Open"  # the Select default


async def test_mandatory_fields_reported_together(ctx: Context) -> None:
    with pytest.raises(exc.MandatoryError) as err:
        await new_doc(ctx, "Test Order").insert()
    fields = {e["field"] for e in err.value.errors}
    assert fields == {"customer", "posting_date"}


async def test_link_must_exist(ctx: Context) -> None:
    with pytest.raises(exc.LinkValidationError) as err:
        await new_doc(ctx, "Test Note", title="t", customer="Nobody").insert()
    assert err.value.field == "customer"
    assert "Nobody" in err.value.message
    assert await count(ctx, "Test Note") == 0


async def test_fetch_from_and_fetch_if_empty(ctx: Context) -> None:
    await new_doc(ctx, "Test Customer", customer_name="Acme", region="North").insert()
    note = await new_doc(ctx, "Test Note", title="t", customer="Acme", customer_name="typed", region="Mine").insert()
    assert note.customer_name == "Acme"  # always fetched
    assert note.region == "Mine"  # fetch_if_empty keeps a value given
    other = await new_doc(ctx, "Test Note", title="u", customer="Acme").insert()
    assert other.region == "North"


async def test_unique_field_is_a_real_index(ctx: Context) -> None:
    await new_doc(ctx, "Test Note", title="a", code="C1").insert()
    await new_doc(ctx, "Test Note", title="b").insert()
    await new_doc(ctx, "Test Note", title="c").insert()  # many empty codes are fine
    with pytest.raises(exc.UniqueValidationError) as err:
        await new_doc(ctx, "Test Note", title="d", code="C1").insert()
    assert err.value.field == "code"
    assert await count(ctx, "Test Note") == 3


async def test_duplicate_name_is_duplicate_entry(ctx: Context) -> None:
    await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
    with pytest.raises((exc.DuplicateEntryError, exc.UniqueValidationError)):
        await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
    doc = new_doc(ctx, "Test Prompt", label="x")
    doc.name = "P-1"
    await doc.insert()
    again = new_doc(ctx, "Test Prompt", label="y")
    again.name = "P-1"
    with pytest.raises(exc.DuplicateEntryError):
        await again.insert()
    skipped = new_doc(ctx, "Test Prompt", label="z")
    skipped.name = "P-1"
    await skipped.insert(ignore_if_duplicate=True)
    assert (await get_doc(ctx, "Test Prompt", "P-1")).label == "x"


async def test_password_never_stored_in_clear(ctx: Context) -> None:
    note = await new_doc(ctx, "Test Note", title="t", secret="hunter2").insert()
    record = await store.load(ctx, note.meta, note.name)
    assert record is not None
    assert record["secret"] != "hunter2"
    assert passwords.verify_password(record["secret"], "hunter2")
    assert "secret" not in note.as_dict()
    user = await new_doc(ctx, "User", email="pw@example.com", first_name="P", new_password="s3cret!").insert()
    stored = await store.load(ctx, user.meta, user.name)
    assert stored is not None
    assert "new_password" not in stored
    assert "s3cret!" not in repr(stored)
    assert passwords.verify_password(stored["_password_hash"], "s3cret!")
    assert "_password_hash" not in user.as_dict()
    assert user.as_dict()["full_name"] == "P"


async def test_naming_forms_through_insert(ctx: Context) -> None:
    series = await new_doc(ctx, "Test Series", label="a").insert()
    assert series.name.startswith("TS-2") and series.name.endswith("-00001")
    other = await new_doc(ctx, "Test Series", label="b", naming_series="TSX-").insert()
    assert other.name == "TSX-00001"
    counter = [await new_doc(ctx, "Test Counter", label=str(i)).insert() for i in range(3)]
    assert [c.name for c in counter] == ["1", "2", "3"]
    reading = await new_doc(ctx, "Test Reading", sensor="S9", date="2026-01-01").insert()
    assert reading.name == "RD-S9-00001"
    with pytest.raises(exc.MandatoryError):
        await new_doc(ctx, "Test Prompt", label="no name").insert()
    with pytest.raises(exc.MandatoryError) as err:
        await new_doc(ctx, "Test Customer", region="x").insert()
    assert err.value.field == "customer_name"


async def test_invalid_document_writes_nothing_even_in_child_rows(ctx: Context) -> None:
    await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
    with pytest.raises(exc.FieldTypeError) as err:
        await new_doc(ctx, "Test Order", customer="Acme", posting_date="2026-01-01",
                      items=[{"item": "a", "qty": "many"}]).insert()
    assert err.value.field == "qty"
    with pytest.raises(exc.FieldTypeError):
        await new_doc(ctx, "Test Order", customer="Acme", posting_date="2026-01-01", items="not rows").insert()
    assert await count(ctx, "Test Order") == 0
