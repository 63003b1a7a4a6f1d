"""engine.documents.naming: expressions with a fake counter, amendment names, name checks, and atomic counters
and concurrent `make_name` against a real (embedded) mongod."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from engine import db
from engine import exceptions as exc
from engine.context import Context
from engine.documents import naming
from engine.meta.schema import Meta, parse_doctype
from engine.mongod import embedded

NOW = datetime(2026, 3, 7, 14, 5, 9)


def make_meta(autoname: str | None = None, *, name: str = "Warehouse Violation", issingle: bool = False,
              istable: bool = False, fields: list[dict[str, Any]] | None = None) -> Meta:
    default_fields = [
        {"fieldname": "warehouse", "fieldtype": "Data", "label": "Warehouse"},
        {"fieldname": "customer", "fieldtype": "Data"},
        {"fieldname": "qty", "fieldtype": "Int"},
        {"fieldname": "naming_series", "fieldtype": "Select", "label": "Series",
         "options": "\nWV-.YYYY.-\nX-"},
    ]
    data: dict[str, Any] = {"name": name, "fields": default_fields if fields is None else fields,
                            "issingle": issingle, "istable": istable}
    if autoname is not None:
        data["autoname"] = autoname
    return Meta(parse_doctype(data, "test"))


class Doc:
    """A minimal NameSource."""

    def __init__(self, meta: Meta, name: str | None = None, **values: Any) -> None:
        self.meta = meta
        self.name = name
        self.values = values

    def get(self, fieldname: str, default: Any = None) -> Any:
        return self.values.get(fieldname, default)


class FakeCounter:
    """Records every (key, digits) call and counts per key from 1."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []
        self.current: dict[str, int] = {}

    def __call__(self, key: str, digits: int) -> str:
        self.calls.append((key, digits))
        self.current[key] = self.current.get(key, 0) + 1
        return str(self.current[key]).zfill(digits)


def render(expr: str, doc: Doc | None = None, now: datetime = NOW) -> tuple[str, FakeCounter]:
    counter = FakeCounter()
    return naming.parse_expression(expr, doc or Doc(make_meta()), counter, now), counter


# ---------------------------------------------------------------------------------------------
# parse_expression: old style


def test_old_style_year_and_counter() -> None:
    name, counter = render("WV-.YYYY.-.#####")
    assert name == "WV-2026-00001"
    assert counter.calls == [("WV-2026-", 5)]


def test_old_style_date_tokens() -> None:
    name, counter = render("X-.YY.MM.DD.-.WW.-.###")
    assert name == "X-260307-10-001"
    assert counter.calls == [("X-260307-10-", 3)]


def test_old_style_counter_increments_per_key() -> None:
    counter = FakeCounter()
    doc = Doc(make_meta())
    names = [naming.parse_expression("A-.###", doc, counter, NOW) for _ in range(3)]
    assert names == ["A-001", "A-002", "A-003"]
    other = naming.parse_expression("A-.YYYY.-.###", doc, counter, NOW)
    assert other == "A-2026-001"


def test_old_style_year_change_gives_a_new_key() -> None:
    _, c1 = render("WV-.YYYY.-.####", now=datetime(2025, 12, 31))
    _, c2 = render("WV-.YYYY.-.####", now=datetime(2026, 1, 1))
    assert c1.calls[0][0] == "WV-2025-" and c2.calls[0][0] == "WV-2026-"


def test_old_style_fields_braced_and_bare() -> None:
    doc = Doc(make_meta(), warehouse=" Stores ", customer="ACME")
    name, counter = render("{warehouse}.-.customer.-.##", doc)
    assert name == "Stores-ACME-01"
    assert counter.calls == [("Stores-ACME-", 2)]


def test_old_style_non_field_part_is_literal() -> None:
    doc = Doc(make_meta(), customer="ACME")
    name, _ = render("INV.-.unknown.-.customer.-.###", doc)
    assert name == "INV-unknown-ACME-001"


def test_old_style_int_field_value() -> None:
    name, _ = render("Q.qty.-.##", Doc(make_meta(), qty=7))
    assert name == "Q7-01"


def test_old_style_empty_field_is_mandatory() -> None:
    with pytest.raises(exc.MandatoryError) as e:
        render("{customer}.-.###", Doc(make_meta()))
    assert e.value.field == "customer" and "Customer is required" in e.value.message


def test_old_style_braced_unknown_field_is_configuration_error() -> None:
    with pytest.raises(exc.ConfigurationError):
        render("{nope}.-.###", Doc(make_meta()))


def test_old_style_only_first_hash_run_counts() -> None:
    name, counter = render("A-.###.-.##")
    assert name == "A-001-"
    assert len(counter.calls) == 1


def test_old_style_hash_run_inside_a_part() -> None:
    name, counter = render("PRE-#####")
    assert name == "PRE-00001"
    assert counter.calls == [("PRE-", 5)]


def test_zero_padding_overflow_keeps_all_digits() -> None:
    counter = FakeCounter()
    counter.current["A-"] = 999
    assert naming.parse_expression("A-.###", Doc(make_meta()), counter, NOW) == "A-1000"


# ---------------------------------------------------------------------------------------------
# parse_expression: format:


def test_format_year_and_counter() -> None:
    name, counter = render("format:PRE-{YYYY}-{#####}")
    assert name == "PRE-2026-00001"
    assert counter.calls == [("PRE-2026-", 5)]


def test_format_all_date_tokens_and_literals() -> None:
    name, counter = render("format:L{YY}.{MM}/{DD} w{WW} #{###}")
    assert name == "L26.03/07 w10 #001"
    assert counter.calls == [("L26.03/07 w10 #", 3)]


def test_format_fields() -> None:
    doc = Doc(make_meta(), customer="ACME", warehouse="W1")
    name, counter = render("format:INV-{customer}-{ warehouse }-{YY}-{####}", doc)
    assert name == "INV-ACME-W1-26-0001"
    assert counter.calls == [("INV-ACME-W1-26-", 4)]


def test_format_missing_field_value_is_mandatory() -> None:
    with pytest.raises(exc.MandatoryError) as e:
        render("format:INV-{warehouse}-{###}", Doc(make_meta()))
    assert e.value.field == "warehouse" and e.value.message == "Warehouse is required"


def test_format_unknown_token_is_configuration_error() -> None:
    with pytest.raises(exc.ConfigurationError):
        render("format:INV-{nonsense}-{###}", Doc(make_meta()))


def test_format_several_counters_and_no_counter() -> None:
    name, counter = render("format:{##}-{###}")
    assert name == "01-001"
    assert counter.calls == [("", 2), ("01-", 3)]
    name, counter = render("format:FIXED-{YYYY}")
    assert name == "FIXED-2026" and counter.calls == []


@pytest.mark.parametrize(("day", "week"), [
    (datetime(2026, 3, 7), "10"),
    (datetime(2026, 1, 5), "02"),
    (datetime(2027, 1, 1), "00"),   # ISO week 53 of 2026, kept consecutive within 2027
    (datetime(2024, 12, 30), "53"),  # ISO week 1 of 2025, kept consecutive within 2024
])
def test_week_token(day: datetime, week: str) -> None:
    assert render("format:{WW}", now=day)[0] == week
    assert render("WW.-.#", now=day)[0] == f"{week}-1"


# ---------------------------------------------------------------------------------------------
# amended_name, validate_name


@pytest.mark.parametrize(("source", "expected"), [
    ("X", "X-1"), ("X-1", "X-2"), ("X-10", "X-11"), ("SINV-0001-3", "SINV-0001-4"),
    ("a-b", "a-b-1"), ("X-1a", "X-1a-1"), ("-5", "-5-1"), ("X-", "X--1"),
])
def test_amended_name(source: str, expected: str) -> None:
    assert naming.amended_name(source) == expected


def test_amended_name_when_the_caller_knows() -> None:
    assert naming.amended_name("INV-00001", is_amendment=False) == "INV-00001-1"
    assert naming.amended_name("INV-00001-2", is_amendment=True) == "INV-00001-3"


def test_validate_name_strips() -> None:
    assert naming.validate_name("Task", "  T-1  ") == "T-1"


@pytest.mark.parametrize("bad", [
    "", "   ", "New Task", "New Task 3", "Task", "a<b", "a>b", "a\nb", "x" * 141, "$where", " $x",
])
def test_validate_name_rejects(bad: str) -> None:
    with pytest.raises(exc.InvalidNameError):
        naming.validate_name("Task", bad)


def test_validate_name_accepts_edge_cases() -> None:
    assert naming.validate_name("Task", "x" * 140) == "x" * 140
    assert naming.validate_name("Task", "Tasks") == "Tasks"
    assert naming.validate_name("Task", "a$b") == "a$b"


# ---------------------------------------------------------------------------------------------
# make_name without counters (no database needed)


class NoDatabaseSite:
    @property
    def db(self) -> db.Database:
        raise AssertionError("this naming form must not touch the database")


def offline_ctx() -> Context:
    return Context(NoDatabaseSite(), user="Administrator")  # type: ignore[arg-type]


@pytest.mark.parametrize("autoname", [None, "", "hash", "Hash"])
async def test_make_name_hash(autoname: str | None) -> None:
    names = {await naming.make_name(offline_ctx(), Doc(make_meta(autoname))) for _ in range(200)}
    assert len(names) == 200
    assert all(re.fullmatch(r"[0-9a-v]{10}", n) for n in names)


async def test_make_name_field() -> None:
    meta = make_meta("field:customer")
    assert await naming.make_name(offline_ctx(), Doc(meta, customer="  ACME Corp ")) == "ACME Corp"
    with pytest.raises(exc.MandatoryError) as e:
        await naming.make_name(offline_ctx(), Doc(meta, customer="  "))
    assert e.value.field == "customer" and e.value.message == "Customer is required"
    with pytest.raises(exc.InvalidNameError):
        await naming.make_name(offline_ctx(), Doc(meta, customer="<b>"))


async def test_make_name_prompt() -> None:
    meta = make_meta("Prompt")
    assert await naming.make_name(offline_ctx(), Doc(meta, name=" Mine ")) == "Mine"
    with pytest.raises(exc.MandatoryError) as e:
        await naming.make_name(offline_ctx(), Doc(meta))
    assert e.value.message == "Please set the document name" and e.value.field == "name"


async def test_make_name_uuid() -> None:
    meta = make_meta("UUID")
    generated = [await naming.make_name(offline_ctx(), Doc(meta)) for _ in range(100)]
    assert len(set(generated)) == 100
    assert generated == sorted(generated)  # time-ordered
    assert all(uuid.UUID(g).version == 7 and uuid.UUID(g).variant == uuid.RFC_4122 for g in generated)
    given = "0190A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B"
    assert await naming.make_name(offline_ctx(), Doc(meta, name=given)) == given.lower()
    with pytest.raises(exc.InvalidNameError):
        await naming.make_name(offline_ctx(), Doc(meta, name="not-a-uuid"))


async def test_make_name_single_and_child() -> None:
    assert await naming.make_name(offline_ctx(), Doc(make_meta("field:customer", issingle=True))) \
        == "Warehouse Violation"
    child = await naming.make_name(offline_ctx(), Doc(make_meta("field:customer", istable=True)))
    assert re.fullmatch(r"[0-9a-v]{10}", child)


async def test_make_name_unknown_autoname() -> None:
    with pytest.raises(exc.ConfigurationError) as e:
        await naming.make_name(offline_ctx(), Doc(make_meta("By magic")))
    assert "Warehouse Violation" in e.value.message and "By magic" in e.value.message


async def test_make_name_naming_series_missing() -> None:
    meta = make_meta("naming_series:", fields=[{"fieldname": "customer", "fieldtype": "Data"}])
    with pytest.raises(exc.MandatoryError) as e:
        await naming.make_name(offline_ctx(), Doc(meta))
    assert e.value.field == "naming_series" and e.value.message == "Naming Series is required"


# ---------------------------------------------------------------------------------------------
# Against a real mongod


class Site:
    def __init__(self, database: db.Database) -> None:
        self.db = database


@pytest.fixture(scope="module")
def mongod(tmp_path_factory: pytest.TempPathFactory) -> Iterator[embedded.EmbeddedMongo]:
    data_dir: Path = tmp_path_factory.mktemp("naming_mongod")
    server = embedded.start(data_dir, durable=False)
    try:
        yield server
    finally:
        server.stop()
        if server.process.stderr is not None:  # EmbeddedMongo.stop() leaves the stderr pipe open
            server.process.stderr.close()


@pytest_asyncio.fixture(loop_scope="session")
async def ctx(mongod: embedded.EmbeddedMongo) -> AsyncIterator[Context]:
    database = db.connect(mongod.url, "naming_test")
    await database.drop()
    try:
        yield Context(Site(database), user="Administrator")  # type: ignore[arg-type]
    finally:
        await database.drop()
        await database.close()


async def test_next_counter_is_per_key(ctx: Context) -> None:
    assert [await naming.next_counter(ctx, "A-") for _ in range(3)] == [1, 2, 3]
    assert await naming.next_counter(ctx, "B-") == 1
    row = await ctx.db.collection(naming.SERIES_COLLECTION).find_one({"_id": "A-"})
    assert row == {"_id": "A-", "current": 3}


async def test_next_counter_concurrent(ctx: Context) -> None:
    values = await asyncio.gather(*(naming.next_counter(ctx, "C-") for _ in range(50)))
    assert sorted(values) == list(range(1, 51))


async def test_make_name_concurrent_old_style(ctx: Context) -> None:
    meta = make_meta("WV-.YYYY.-.#####")
    names = await asyncio.gather(*(naming.make_name(ctx, Doc(meta), now=NOW) for _ in range(50)))
    assert sorted(names) == [f"WV-2026-{i:05d}" for i in range(1, 51)]


async def test_make_name_concurrent_format(ctx: Context) -> None:
    meta = make_meta("format:FX-{customer}-{YY}-{###}")
    names = await asyncio.gather(*(naming.make_name(ctx, Doc(meta, customer="ACME"), now=NOW)
                                   for _ in range(50)))
    assert sorted(names) == [f"FX-ACME-26-{i:03d}" for i in range(1, 51)]
    assert await naming.make_name(ctx, Doc(meta, customer="ACME"), now=datetime(2027, 1, 2)) \
        == "FX-ACME-27-001"


async def test_make_name_naming_series(ctx: Context) -> None:
    meta = make_meta("naming_series:")
    names = await asyncio.gather(*(naming.make_name(ctx, Doc(meta, naming_series="SINV-"), now=NOW)
                                   for _ in range(50)))
    assert sorted(names) == [f"SINV-{i:05d}" for i in range(1, 51)]
    dated = await naming.make_name(ctx, Doc(meta, naming_series="INV-.YYYY.-.####"), now=NOW)
    assert dated == "INV-2026-0001"
    # no value: the field's first option, like Frappe's default naming series
    assert await naming.make_name(ctx, Doc(meta), now=NOW) == "WV-2026-00001"


async def test_make_name_autoincrement(ctx: Context) -> None:
    meta = make_meta("autoincrement")
    names = await asyncio.gather(*(naming.make_name(ctx, Doc(meta)) for _ in range(50)))
    assert sorted(names, key=int) == [str(i) for i in range(1, 51)]
    other = make_meta("autoincrement", name="Other")
    assert await naming.make_name(ctx, Doc(other)) == "1"


async def test_counter_ignores_the_transaction(ctx: Context) -> None:
    """A counter taken inside a rolled-back unit of work stays taken: a gap, never a duplicate."""
    from engine.context import unit_of_work

    meta = make_meta("format:TX-{###}")
    with pytest.raises(RuntimeError):
        async with unit_of_work(ctx):
            await ctx.write_session()  # the transaction is open
            assert await naming.make_name(ctx, Doc(meta)) == "TX-001"
            raise RuntimeError("roll back")
    assert await naming.make_name(ctx, Doc(meta)) == "TX-002"


def test_hash_name_starts_with_the_time_in_deciseconds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(naming.time, "time", lambda: 1_000.0)  # 10,000 deciseconds = 9, 24, 16 in base 32
    names = {naming.hash_name() for _ in range(500)}
    assert {n[:3] for n in names} == {"9og"}
    assert len(names) == 500  # 35 random bits after it
    assert all(re.fullmatch(r"[0-9a-v]{10}", n) for n in names)
    assert len({n[3] for n in names}) > 16  # the random part covers the whole alphabet, from its first digit
