"""`indexes` entries of a doctype: `where` conditions (a plain value, or `{"$exists": true}`) and the
MongoDB index each becomes; a declared `shard_key` and the rules it imposes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from engine import exceptions as exc
from engine.meta.registry import custom_field_problem
from engine.meta.schema import DocFieldSchema, DocTypeSchema, IndexSchema, Meta, parse_doctype
from engine.schema_sync import desired_indexes


def meta_with(index: dict) -> Meta:
    return Meta(DocTypeSchema.model_validate({
        "name": "Index Probe", "module": "Test", "indexes": [index],
        "fields": [{"fieldname": "employee", "fieldtype": "Data"}, {"fieldname": "period_key", "fieldtype": "Data"},
                   {"fieldname": "source", "fieldtype": "Data"}]}))


def test_exists_condition_becomes_a_partial_filter_as_written() -> None:
    meta = meta_with({"name": "period_key", "fields": ["employee", "period_key"], "unique": True,
                      "where": {"period_key": {"$exists": True}}})
    keys, options = desired_indexes(meta)["fw_period_key"]
    assert keys == [("employee", 1), ("period_key", 1)]
    assert options == {"unique": True, "partialFilterExpression": {"period_key": {"$exists": True}}}


def test_plain_value_condition_is_equality() -> None:
    meta = meta_with({"fields": ["employee"], "unique": True, "where": {"source": "external"}})
    _, options = desired_indexes(meta)["fw_uniq_employee"]
    assert options["partialFilterExpression"] == {"source": {"$eq": "external"}}


@pytest.mark.parametrize("condition", [{"$exists": False}, {"$gt": 1}, {"$exists": True, "$ne": "x"},
                                       {"$where": "sleep(1)"}, ["a", "b"]])
def test_other_conditions_are_refused_at_meta_load(condition: object) -> None:
    with pytest.raises(ValidationError, match="plain value or"):
        IndexSchema.model_validate({"fields": ["employee"], "where": {"period_key": condition}})


# -- shard_key: checked at load, so an app author hears at `fw migrate`, not at sh.shardCollection --

def scored(**changes: object) -> dict:
    doctype = {
        "name": "Shard Probe", "module": "Test", "autoname": "SP-.#####", "shard_key": ["employee"],
        "fields": [{"fieldname": "employee", "fieldtype": "Link", "options": "Employee", "reqd": 1},
                   {"fieldname": "period_key", "fieldtype": "Data"}, {"fieldname": "note", "fieldtype": "Text"}],
        "indexes": [{"fields": ["employee", "period_key"], "unique": True,
                     "where": {"period_key": {"$exists": True}}}]}
    return {**doctype, **changes}


def test_a_shardable_doctype_loads() -> None:
    assert parse_doctype(scored(), "probe.json").shard_key == ["employee"]
    for autoname in ("autoincrement", "UUID", "naming_series:", "format:SP-{#####}"):
        parse_doctype(scored(autoname=autoname), "probe.json")
    parse_doctype(scored(shard_key=["name"], autoname="hash", indexes=[]), "probe.json")  # `_id` is unique anyway


def test_the_reference_app_declares_employee_score_shardable() -> None:
    path = Path(__file__).resolve().parents[3] / "apps/workforce_scoring/doctype/employee_score/employee_score.json"
    assert parse_doctype(json.loads(path.read_text()), str(path)).shard_key == ["employee"]


@pytest.mark.parametrize(("changes", "problem"), [
    ({"autoname": "hash"}, "can repeat a name on another shard"),
    ({"autoname": "Prompt"}, "can repeat a name on another shard"),
    ({"autoname": "field:note"}, "can repeat a name on another shard"),
    ({"shard_key": ["note"]}, "must be a mandatory (reqd) Data or Link field"),
    ({"shard_key": ["period_key"]}, "must be a mandatory (reqd) Data or Link field"),
    ({"shard_key": ["missing"]}, "is not a field"),
    ({"shard_key": []}, "non-empty list"),
    ({"shard_key": ["employee", "employee"]}, "non-empty list"),
    ({"is_tree": True}, "trees cannot be sharded"),
    ({"indexes": [{"fields": ["period_key", "employee"], "unique": True}]}, "must start with the shard key"),
    ({"fields": [{"fieldname": "employee", "fieldtype": "Link", "options": "Employee", "reqd": 1},
                 {"fieldname": "code", "fieldtype": "Data", "unique": 1}]}, "unique field 'code' cannot be enforced"),
])
def test_an_unshardable_doctype_is_refused_with_the_reason(changes: dict, problem: str) -> None:
    with pytest.raises(exc.ConfigurationError, match="shard_key") as raised:
        parse_doctype(scored(**changes), "probe.json")
    assert problem in str(raised.value) and "probe.json" in str(raised.value)


def test_a_unique_custom_field_on_a_sharded_doctype_is_refused() -> None:
    base = Meta(parse_doctype(scored(), "probe.json"))
    refused = custom_field_problem(base, DocFieldSchema(fieldname="badge", fieldtype="Data", unique=True))
    assert refused is not None and "shard key ['employee']" in refused
    assert custom_field_problem(base, DocFieldSchema(fieldname="badge", fieldtype="Data")) is None
    unsharded = Meta(parse_doctype(scored(shard_key=None), "probe.json"))
    assert custom_field_problem(unsharded, DocFieldSchema(fieldname="badge", fieldtype="Data", unique=True)) is None
