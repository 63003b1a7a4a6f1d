"""`engine.query.compile`: AST, fields, order_by and group_by → MongoDB.

Most tests pin the exact MongoDB documents; a few run them on the in-memory backend's engine
(mongomock, what fw's embedded mode uses) to check that they mean what Frappe's SQL means.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from typing import Any

import mongomock
import pytest

from engine import exceptions as exc
from engine.query.ast import And, Cond, Node, Op, Or
from engine.query.compile import (
    Column,
    compile_fields,
    compile_filter,
    compile_group_by,
    compile_order_by,
    like_to_regex,
    tree_targets,
)
from engine.query.parse import parse_filters
from tests.engine.query.test_parse import AREA, ORDER, TASK, child_meta, make_meta


def compiled(filters: Any, meta: Any = TASK, **kwargs: Any) -> dict[str, Any]:
    node = parse_filters(meta, filters, child_meta=child_meta)
    return compile_filter(meta, node, child_meta=child_meta, **kwargs)


def compile_error(filters: Any, meta: Any = TASK, **kwargs: Any) -> exc.DataError:
    with pytest.raises(exc.DataError) as info:
        compiled(filters, meta, **kwargs)
    return info.value


def node_error(node: Node, meta: Any = TASK) -> exc.DataError:
    with pytest.raises(exc.DataError) as info:
        compile_filter(meta, node, child_meta=child_meta)
    return info.value


def collection(docs: list[dict[str, Any]]) -> Any:
    coll = mongomock.MongoClient()["fw_test"]["task"]
    coll.insert_many(docs)
    return coll


# --- operators -------------------------------------------------------------------------------

def test_no_node_matches_everything() -> None:
    assert compile_filter(TASK, None) == {}


@pytest.mark.parametrize(("op", "mongo"), [("=", "$eq"), ("!=", "$ne"), ("<", "$lt"), (">", "$gt"),
                                           ("<=", "$lte"), (">=", "$gte")])
def test_comparison_operators(op: str, mongo: str) -> None:
    assert compiled([["subject", op, "b"]]) == {"subject": {mongo: "b"}}


def test_name_is_stored_as_id() -> None:
    assert compiled({"name": "T-1"}) == {"_id": {"$eq": "T-1"}}


def test_in_and_not_in() -> None:
    assert compiled([["status", "in", ["Open", "Closed", "Open"]]]) == {"status": {"$in": ["Open", "Closed"]}}
    assert compiled([["name", "not in", "a,b"]]) == {"_id": {"$nin": ["a", "b"]}}


def test_empty_in_matches_nothing_and_empty_not_in_everything() -> None:
    assert compiled([["name", "in", []]]) == {"_id": {"$in": []}}
    assert compiled([["name", "not in", []]]) == {"_id": {"$nin": []}}
    coll = collection([{"_id": "a"}, {"_id": "b"}])
    assert list(coll.find(compiled([["name", "in", []]]))) == []
    assert len(list(coll.find(compiled([["name", "not in", []]])))) == 2


def test_empty_string_in_a_list_also_means_not_set() -> None:
    assert compiled([["subject", "in", ["", "x"]]]) == {"subject": {"$in": ["", "x", None]}}
    assert compiled([["subject", "not in", [None]]]) == {"subject": {"$nin": [None, ""]}}


def test_is_set_and_not_set() -> None:
    assert compiled([["subject", "is", "set"]]) == {"subject": {"$nin": [None, ""]}}
    assert compiled([["subject", "is", "not set"]]) == {"subject": {"$in": [None, ""]}}


def test_equality_with_empty_string_is_not_set_like_frappes_ifnull() -> None:
    assert compiled([["subject", "=", ""]]) == {"subject": {"$in": [None, ""]}}
    assert compiled([["subject", "!=", ""]]) == {"subject": {"$nin": [None, ""]}}
    coll = collection([{"_id": "a", "subject": ""}, {"_id": "b"}, {"_id": "c", "subject": None},
                       {"_id": "d", "subject": "x"}])
    assert sorted(d["_id"] for d in coll.find(compiled({"subject": None}))) == ["a", "b", "c"]
    assert [d["_id"] for d in coll.find(compiled([["subject", "is", "set"]]))] == ["d"]
    assert sorted(d["_id"] for d in coll.find(compiled([["subject", "!=", "x"]]))) == ["a", "b", "c"]


def test_comparison_with_empty_value_is_refused() -> None:
    assert node_error(Cond("subject", Op.GT, None)).field == "subject"
    assert node_error(Cond("qty", Op.LT, "")).field == "qty"


def test_between_numbers_and_dates() -> None:
    assert compiled([["qty", "between", ["1", 5]]]) == {"qty": {"$gte": 1, "$lte": 5}}
    assert compiled([["due", "between", ["2024-01-01", "2024-01-31"]]]) == {
        "due": {"$gte": "2024-01-01", "$lte": "2024-01-31"}}


def test_between_on_datetime_includes_the_whole_last_day() -> None:
    assert compiled([["at", "between", ["2024-01-01", "2024-01-31"]]]) == {
        "at": {"$gte": "2024-01-01", "$lte": "2024-01-31 23:59:59.999999"}}
    assert compiled([["creation", "between", ["2024-01-01 08:00", "2024-01-31 12:00:00"]]]) == {
        "creation": {"$gte": "2024-01-01 08:00:00", "$lte": "2024-01-31 12:00:00"}}
    coll = collection([{"_id": "a", "at": "2024-01-31 23:59:59.5"}, {"_id": "b", "at": "2024-02-01 00:00:00"},
                       {"_id": "c", "at": "2024-01-01 00:00:00"}, {"_id": "d", "at": "2023-12-31 23:59:59"}])
    found = coll.find(compiled([["at", "between", ["2024-01-01", "2024-01-31"]]]))
    assert sorted(d["_id"] for d in found) == ["a", "c"]


# --- like ------------------------------------------------------------------------------------

def test_like_and_not_like() -> None:
    regex = {"$regex": "^ab.*$", "$options": "is"}
    assert compiled([["subject", "like", "ab%"]]) == {"subject": regex}
    assert compiled([["subject", "not like", "ab%"]]) == {"$nor": [{"subject": regex}]}


@pytest.mark.parametrize(("pattern", "text", "matches"), [
    ("abc", "abc", True), ("abc", "ABC", True), ("abc", "abcd", False), ("abc", "xabc", False),
    ("a%", "a", True), ("a%", "abc", True), ("a%", "ba", False), ("%a", "cba", True), ("%a", "ab", False),
    ("%b%", "abc", True), ("%b%", "ac", False), ("a_c", "abc", True), ("a_c", "ac", False),
    ("a_c", "abbc", False), ("%", "", True), ("_", "", False), ("__", "ab", True),
    ("a.*(", "a.*(", True), ("a.*(", "abbb(", False), ("a.*(", "a.*((", False),
    ("[ab]", "a", False), ("[ab]", "[ab]", True), ("a|b", "a", False), ("a|b", "a|b", True),
    ("^$", "^$", True), ("a+", "aa", False), ("(?i)x", "(?i)x", True), ("\\d", "\\d", True), ("\\d", "1", False),
    ("%a%a", "aa", True), ("%a%a", "a", False), ("%an%a", "banana", True), ("%ab%b", "abb", True),
    ("%a%b", "a\nb", True), ("a%", "a\nb", True), ("{1}", "{1}", True), ("$1", "$1", True),
])
def test_like_behaves_like_sql(pattern: str, text: str, matches: bool) -> None:
    regex = like_to_regex(pattern)
    assert (re.fullmatch(regex, text, re.IGNORECASE | re.DOTALL) is not None) is matches
    assert (re.search(regex, text, re.IGNORECASE | re.DOTALL) is not None) is matches


def test_like_regex_metacharacters_are_escaped() -> None:
    assert like_to_regex("a.*(b") == "^a\\.\\*\\(b$"


def test_like_patterns_cannot_make_the_regex_engine_backtrack() -> None:
    # as `^.*a.*a.*a.*a.*b$` this takes seconds on 140 characters (and grows as n⁴)
    regex = re.compile(like_to_regex("%a%a%a%a%b"), re.IGNORECASE | re.DOTALL)
    start = time.perf_counter()
    assert regex.search("a" * 140) is None
    assert time.perf_counter() - start < 0.5
    assert regex.search("xaaaayb")


def test_like_on_the_in_memory_backend() -> None:
    coll = collection([{"_id": "a", "subject": "a.*(b"}, {"_id": "b", "subject": "axxb"},
                       {"_id": "c", "subject": "Hello\nWorld"}, {"_id": "d"}])
    assert [d["_id"] for d in coll.find(compiled([["subject", "like", "a.*(%"]]))] == ["a"]
    assert [d["_id"] for d in coll.find(compiled([["subject", "like", "%WORLD"]]))] == ["c"]
    assert sorted(d["_id"] for d in coll.find(compiled([["subject", "not like", "a%"]]))) == ["c", "d"]


def test_like_on_numeric_fields_is_refused() -> None:
    assert compile_error([["qty", "like", "1%"]]).field == "qty"
    assert compile_error([["done", "not like", "1"]]).field == "done"


# --- coercion --------------------------------------------------------------------------------

@pytest.mark.parametrize(("field", "value", "stored"), [
    ("qty", "5", 5), ("qty", " -5 ", -5), ("qty", 5.0, 5), ("qty", "5.5", 5.5), ("qty", True, 1),
    ("done", "1", 1), ("done", False, 0), ("amount", "3", 3.0), ("amount", 3, 3.0), ("amount", "1e3", 1000.0),
    ("docstatus", "1", 1), ("idx", 2.0, 2),
    ("subject", 5, "5"), ("subject", 2.5, "2.5"), ("subject", True, "1"), ("code", 7, "7"), ("name", 1, "1"),
    ("due", "2024-02-29", "2024-02-29"), ("due", dt.date(2024, 1, 2), "2024-01-02"),
    ("at", "2024-01-01", "2024-01-01"), ("at", "2024-01-01 10:00", "2024-01-01 10:00:00"),
    ("at", "2024-01-01T10:00:05", "2024-01-01 10:00:05"),
    ("at", "2024-01-01 10:00:05.5", "2024-01-01 10:00:05.500000"),
    ("at", dt.datetime(2024, 1, 1, 9, 30), "2024-01-01 09:30:00"),
    ("modified", "2024-01-01 10:00:00.123456", "2024-01-01 10:00:00.123456"),
])
def test_values_are_coerced_by_field_type(field: str, value: Any, stored: Any) -> None:
    result = compile_filter(TASK, Cond(field, Op.GT, value))
    operand = result["_id" if field == "name" else field]["$gt"]
    assert operand == stored
    assert type(operand) is type(stored)


@pytest.mark.parametrize(("field", "value"), [
    ("qty", "abc"), ("qty", "1_000"), ("qty", "nan"), ("qty", "inf"), ("amount", float("nan")),
    ("amount", float("inf")), ("qty", 2**70), ("qty", "1e400"), ("qty", "0x10"), ("done", "yes"),
    ("due", "2024-13-01"), ("due", "2024-02-30"), ("due", "2024-01-01 10:00:00"), ("due", "01/02/2024"),
    ("due", 20240101), ("due", dt.datetime(2024, 1, 1)), ("at", "2024-01-01 25:00"), ("at", "yesterday"),
    ("at", dt.datetime(2024, 1, 1, tzinfo=dt.UTC)), ("creation", "2024"), ("docstatus", "one"),
])
def test_values_of_the_wrong_type_are_refused_naming_the_field(field: str, value: Any) -> None:
    error = node_error(Cond(field, Op.EQ, value))
    assert error.field == field
    assert field in error.message


def test_in_values_are_coerced_too() -> None:
    assert compiled([["qty", "in", "1, 2"]]) == {"qty": {"$in": [1, 2]}}
    assert compile_error([["qty", "in", ["1", "x"]]]).field == "qty"


# --- hostile nodes built in code -------------------------------------------------------------

@pytest.mark.parametrize("node", [
    Cond("$where", Op.EQ, "1"), Cond("a.b", Op.EQ, 1), Cond("_id", Op.EQ, "x"), Cond("nope", Op.EQ, 1),
    Cond("name", Op.EQ, {"$gt": ""}), Cond("subject", Op.EQ, ["a"]), Cond("qty", Op.IN, [{"$ne": 1}]),
    Cond("subject", Op.IN, "a"), Cond("qty", Op.BETWEEN, (1,)), Cond("subject", Op.IS, "maybe"),
    Cond("subject", Op.LIKE, {"$regex": "."}), Cond("item", Op.EQ, "x", table="subject"),
    Cond("item", Op.EQ, "x", table="$where"), Cond("nope", Op.EQ, "x", table="items"),
    Cond("items", Op.EQ, "x"), Cond("name", Op.DESCENDANTS_OF, "x"),
    And((Cond("status", Op.EQ, "Open"), Or((Cond("$where", Op.EQ, "1"),)))),
])
def test_nodes_built_in_code_are_checked_again(node: Node) -> None:
    node_error(node)


# --- child tables ----------------------------------------------------------------------------

def test_child_condition_matches_a_row() -> None:
    assert compiled([["Task Item", "qty", ">", "2"]]) == {"items": {"$elemMatch": {"qty": {"$gt": 2}}}}


def test_child_values_are_coerced_by_the_child_field_type() -> None:
    # `code` is Data on Task and Int on Task Item
    assert compiled([["Task Item", "code", "=", "7"]]) == {"items": {"$elemMatch": {"code": {"$eq": 7}}}}
    assert compiled([["code", "=", 7]]) == {"code": {"$eq": "7"}}


def test_and_ed_child_conditions_hold_on_the_same_row() -> None:
    assert compiled([["Task Item", "item", "=", "A"], ["status", "=", "Open"], ["Task Item", "qty", ">", 2]]) == {
        "$and": [{"status": {"$eq": "Open"}},
                 {"items": {"$elemMatch": {"$and": [{"item": {"$eq": "A"}}, {"qty": {"$gt": 2}}]}}}]}
    coll = collection([
        {"_id": "a", "items": [{"item": "A", "qty": 1}, {"item": "B", "qty": 5}]},
        {"_id": "b", "items": [{"item": "A", "qty": 5}]},
        {"_id": "c"},
    ])
    found = coll.find(compiled([["Task Item", "item", "=", "A"], ["Task Item", "qty", ">", 2]]))
    assert [d["_id"] for d in found] == ["b"]
    assert [d["_id"] for d in coll.find(compiled([["Task Item", "item", "not like", "a%"]]))] == ["a"]


def test_child_filter_through_two_tables() -> None:
    assert compiled([["Task Item", "item", "=", "A"]], ORDER) == {"$or": [
        {"lines": {"$elemMatch": {"item": {"$eq": "A"}}}},
        {"extra_lines": {"$elemMatch": {"item": {"$eq": "A"}}}}]}


def test_child_conditions_need_child_meta() -> None:
    with pytest.raises(exc.DataError):
        compile_filter(TASK, Cond("qty", Op.GT, 1, table="items"))


def test_table_field_is_set_means_it_has_rows() -> None:
    assert compiled([["items", "is", "set"]]) == {"items.0": {"$exists": True}}
    assert compiled([["items", "is", "not set"]]) == {"items.0": {"$exists": False}}
    coll = collection([{"_id": "a", "items": [{"qty": 1}]}, {"_id": "b", "items": []}, {"_id": "c"}])
    assert [d["_id"] for d in coll.find(compiled([["items", "is", "set"]]))] == ["a"]
    assert compile_error([["items", "=", "x"]]).field == "items"


# --- and / or --------------------------------------------------------------------------------

def test_nested_ands_and_ors_are_flattened() -> None:
    a, b, c = Cond("status", Op.EQ, "Open"), Cond("qty", Op.GT, 1), Cond("subject", Op.EQ, "x")
    assert compile_filter(TASK, And((a, And((b, c))))) == {
        "$and": [{"status": {"$eq": "Open"}}, {"qty": {"$gt": 1}}, {"subject": {"$eq": "x"}}]}
    assert compile_filter(TASK, Or((a, Or((b,))))) == {"$or": [{"status": {"$eq": "Open"}}, {"qty": {"$gt": 1}}]}
    assert compile_filter(TASK, And((a,))) == {"status": {"$eq": "Open"}}
    assert compile_filter(TASK, And((Or((a, b)), c))) == {
        "$and": [{"$or": [{"status": {"$eq": "Open"}}, {"qty": {"$gt": 1}}]}, {"subject": {"$eq": "x"}}]}


def test_empty_and_matches_everything_and_empty_or_nothing() -> None:
    assert compile_filter(TASK, And(())) == {}
    assert compile_filter(TASK, Or(())) == {"_id": {"$in": []}}
    assert compile_filter(TASK, Or((And(()), Cond("qty", Op.GT, 1)))) == {}


# --- trees -----------------------------------------------------------------------------------

def test_descendants_of_uses_the_stored_ancestors() -> None:
    assert compiled([["name", "descendants of", "Europe"]], AREA) == {"_ancestors": {"$eq": "Europe"}}
    assert compiled([["name", "not descendants of", "Europe"]], AREA) == {"_ancestors": {"$ne": "Europe"}}


def test_ancestors_of_uses_the_prefetched_ancestors() -> None:
    ancestors = {"Paris": ["World", "Europe", "France"]}
    assert compiled([["name", "ancestors of", "Paris"]], AREA, tree_ancestors=ancestors) == {
        "_id": {"$in": ["World", "Europe", "France"]}}
    assert compiled([["name", "not ancestors of", "Paris"]], AREA, tree_ancestors=ancestors) == {
        "_id": {"$nin": ["World", "Europe", "France"]}}
    with pytest.raises(exc.DoesNotExistError):
        compiled([["name", "ancestors of", "Atlantis"]], AREA, tree_ancestors=ancestors)


def test_tree_semantics_on_the_in_memory_backend() -> None:
    coll = collection([{"_id": "World", "_ancestors": []}, {"_id": "Europe", "_ancestors": ["World"]},
                       {"_id": "France", "_ancestors": ["World", "Europe"]},
                       {"_id": "Paris", "_ancestors": ["World", "Europe", "France"]}])
    assert [d["_id"] for d in coll.find(compiled([["name", "descendants of", "Europe"]], AREA))] == [
        "France", "Paris"]
    assert [d["_id"] for d in coll.find(compiled([["name", "not descendants of", "Europe"]], AREA))] == [
        "World", "Europe"]


def test_tree_operators_on_a_plain_doctype_are_refused() -> None:
    assert "tree" in node_error(Cond("name", Op.DESCENDANTS_OF, "x")).message
    node_error(Cond("area_name", Op.ANCESTORS_OF, "x"), AREA)


def test_tree_targets_lists_the_ancestors_of_values_once() -> None:
    node = And((Cond("name", Op.ANCESTORS_OF, "a"), Or((Cond("name", Op.NOT_ANCESTORS_OF, "b"),
                                                        Cond("name", Op.DESCENDANTS_OF, "c"),
                                                        Cond("name", Op.ANCESTORS_OF, "a")))))
    assert tree_targets(node) == ["a", "b"]
    assert tree_targets(None) == []


# --- fields ----------------------------------------------------------------------------------

def test_fields_default_to_name() -> None:
    for fields in (None, "", [], "[]"):
        spec = compile_fields(TASK, fields)
        assert spec.columns == [Column("name", "name")]
        assert spec.projection == {"_id": 1}
        assert not spec.has_aggregates


def test_plain_fields_and_aliases() -> None:
    spec = compile_fields(TASK, '["name", "status as s", "`tabTask`.`qty`", "tabTask.due"]')
    assert [c.key for c in spec.columns] == ["name", "s", "qty", "due"]
    assert spec.projection == {"_id": 1, "status": 1, "qty": 1, "due": 1}
    assert compile_fields(TASK, "status, qty").projection == {"_id": 0, "status": 1, "qty": 1}


def test_star_is_every_readable_value_field() -> None:
    spec = compile_fields(TASK, ["*"])
    keys = [c.key for c in spec.columns]
    assert keys[:7] == ["name", "owner", "creation", "modified", "modified_by", "docstatus", "idx"]
    assert {"subject", "secret", "due"} <= set(keys)
    assert "items" not in keys and "section" not in keys
    limited = compile_fields(TASK, ["*"], readable=frozenset({"subject", "owner"}))
    assert [c.key for c in limited.columns] == ["name", "owner", "subject"]
    assert limited.projection == {"_id": 1, "owner": 1, "subject": 1}


FLAT = make_meta({"name": "Reading", "fields": [{"fieldname": "sensor", "fieldtype": "Data"},
                                                {"fieldname": "value", "fieldtype": "Float"}]})
LOCKED = make_meta({"name": "Login", "fields": [{"fieldname": "user", "fieldtype": "Data"},
                                              {"fieldname": "pin", "fieldtype": "Password"}]})


def test_star_over_every_stored_key_asks_for_the_whole_record() -> None:
    """A projection naming each key of the record costs mongod more than none; the rows take only
    their columns, so the record is asked for whole when the columns name every key it holds."""
    assert compile_fields(FLAT, ["*"]).projection is None
    assert compile_fields(FLAT, ["*", "value as v"]).projection is None  # an alias is a plain column too
    assert compile_fields(FLAT, ["name", "sensor"]).projection == {"_id": 1, "sensor": 1}
    limited = compile_fields(FLAT, ["*"], readable=frozenset({"sensor"}))  # a field the caller may not read
    assert limited.projection is not None and "value" not in limited.projection
    assert compile_fields(LOCKED, ["*"]).projection == {  # a password's hash never leaves mongod
        "_id": 1, "owner": 1, "creation": 1, "modified": 1, "modified_by": 1, "docstatus": 1, "idx": 1, "user": 1}
    assert compile_fields(TASK, ["*"]).projection is not None  # its child rows are not among the columns


def test_explicit_unreadable_field_is_refused() -> None:
    with pytest.raises(exc.DataError) as info:
        compile_fields(TASK, ["name", "secret"], readable=frozenset({"subject"}))
    assert info.value.field == "secret"
    with pytest.raises(exc.DataError):
        compile_fields(TASK, ["sum(amount)"], readable=frozenset({"subject"}))


def test_table_and_child_fields() -> None:
    spec = compile_fields(TASK, ["items.qty", "items.item as what"], child_meta=child_meta)
    assert spec.columns == [Column("items.qty", "items", "qty"), Column("what", "items", "item")]
    assert spec.projection == {"_id": 0, "items.qty": 1, "items.item": 1}
    both = compile_fields(TASK, ["name", "items", "items.qty"], child_meta=child_meta)
    assert both.projection == {"_id": 1, "items": 1}  # MongoDB refuses a path collision


@pytest.mark.parametrize("fields", [["items.subject"], ["status.qty"], ["items.qty.x"], ["items.$where"]])
def test_child_fields_are_checked(fields: list[str]) -> None:
    with pytest.raises(exc.DataError):
        compile_fields(TASK, fields, child_meta=child_meta)


def test_aggregates() -> None:
    spec = compile_fields(TASK, ["status", "count(name) as cnt", "COUNT(*)", "Sum( amount ) AS total",
                                 "avg(qty)", "min(due)", "max(at) as last", "count(subject) as n"])
    assert spec.has_aggregates
    assert spec.columns == [
        Column("status", "status"), Column("cnt", None, func="count"), Column("count", None, func="count"),
        Column("total", "amount", func="sum"), Column("avg", "qty", func="avg"), Column("min", "due", func="min"),
        Column("last", "at", func="max"), Column("n", "subject", func="count")]
    assert spec.empty_row() == {"status": None, "cnt": 0, "count": 0, "total": None, "avg": None,
                                "min": None, "last": None, "n": 0}


@pytest.mark.parametrize("item", [
    "sum(subject)", "avg(due)", "sum(*)", "max(*)", "foo(name)", "count(name); drop", "count(name) as",
    "count(name) as a b", "count(distinct name)", "count(items)", "sum(nope)", "count(name) as _id",
    "name as _id", "status as $x", "status as a.b", "concat(name)", "sleep(10)", "`tabOther`.status",
    "tabOther.status", "nope", "$where", "name, status", "status desc", "(select 1)",
])
def test_malformed_or_unknown_field_expressions(item: str) -> None:
    with pytest.raises(exc.DataError):
        compile_fields(TASK, [item], child_meta=child_meta)


@pytest.mark.parametrize("fields", ['["name"', "{}", '{"name": 1}', 5, [["name"]], [{"items": ["qty"]}], [None]])
def test_fields_must_be_a_list_of_strings(fields: Any) -> None:
    with pytest.raises(exc.DataError):
        compile_fields(TASK, fields)


def test_projection_of_aggregates_only_stays_an_inclusion() -> None:
    # `{"_id": 0}` alone would return whole documents
    assert compile_fields(TASK, ["count(*) as n"]).projection == {"_id": 1}
    assert compile_fields(TASK, ["count(*) as n", "sum(qty)"]).projection == {"_id": 0, "qty": 1}


def test_duplicate_column_keys() -> None:
    assert [c.key for c in compile_fields(TASK, ["*", "name", "status"]).columns].count("status") == 1
    with pytest.raises(exc.DataError):
        compile_fields(TASK, ["status", "qty as status"])
    with pytest.raises(exc.DataError):
        compile_fields(TASK, ["sum(qty)", "sum(amount)"])


# --- order_by --------------------------------------------------------------------------------

@pytest.mark.parametrize(("order_by", "sort"), [
    ("creation desc", [("creation", -1), ("_id", -1)]),
    ("creation desc, name asc", [("creation", -1), ("_id", 1)]),
    ("qty", [("qty", 1), ("_id", 1)]),
    ("qty DESC,  subject", [("qty", -1), ("subject", 1), ("_id", 1)]),
    ("`tabTask`.`modified` desc", [("modified", -1), ("_id", -1)]),
    ("tabTask.modified asc", [("modified", 1), ("_id", 1)]),
    ("`status` desc", [("status", -1), ("_id", -1)]),
    ("name desc", [("_id", -1)]),
    ("qty desc, qty asc", [("qty", -1), ("_id", 1)]),
])
def test_order_by(order_by: str, sort: list[tuple[str, int]]) -> None:
    assert compile_order_by(TASK, order_by) == sort


def test_default_order_is_the_doctypes_then_name() -> None:
    assert compile_order_by(TASK, None) == [("creation", -1), ("_id", -1)]
    assert compile_order_by(TASK, "  ") == [("creation", -1), ("_id", -1)]
    meta = make_meta({"name": "Note", "sort_field": "title", "sort_order": "ASC",
                      "fields": [{"fieldname": "title", "fieldtype": "Data"}]})
    assert compile_order_by(meta, "") == [("title", 1), ("_id", 1)]
    assert compile_order_by(meta, None, default=False) == []


def test_broken_sort_field_falls_back_to_creation() -> None:
    meta = make_meta({"name": "Note", "sort_field": "gone", "fields": []})
    assert compile_order_by(meta, None) == [("creation", -1), ("_id", -1)]


@pytest.mark.parametrize("order_by", [
    "creation desc; drop table tabTask", "creation desc limit 1", "sleep(1)", "creation descending",
    "(select 1)", "`tabOther`.creation", "tabOther.creation", "unknown", "items", "items.qty", "a.b",
    "$natural", "creation desc,", ",creation", "creation asc desc", "creation -1", "1", "rand()",
    "field(name, 'a')", "creation desc -- x", "`creation` `desc`",
])
def test_order_by_injection_and_unknown_fields_are_refused(order_by: str) -> None:
    with pytest.raises(exc.DataError):
        compile_order_by(TASK, order_by)


def test_order_by_aliases_and_readable() -> None:
    assert compile_order_by(TASK, "cnt desc", aliases=frozenset({"cnt"})) == [("cnt", -1), ("_id", -1)]
    with pytest.raises(exc.DataError):
        compile_order_by(TASK, "cnt desc")
    with pytest.raises(exc.DataError):
        compile_order_by(TASK, "secret", readable=frozenset({"subject"}))
    assert compile_order_by(TASK, "subject", readable=frozenset({"subject"})) == [("subject", 1), ("_id", 1)]


# --- group_by --------------------------------------------------------------------------------

def test_group_by_pipeline() -> None:
    spec = compile_fields(TASK, ["status", "count(name) as cnt", "sum(amount) as total"])
    sort = compile_order_by(TASK, "cnt desc", aliases=frozenset({"cnt", "total", "status"}))
    pipeline = compile_group_by(TASK, "status", spec, {"qty": {"$gt": 1}}, sort, 20, 10)
    assert pipeline == [
        {"$match": {"qty": {"$gt": 1}}},
        {"$group": {"_id": {"status": "$status"}, "cnt": {"$sum": 1}, "total": {"$sum": "$amount"}}},
        {"$sort": {"cnt": -1, "_id": 1}},
        {"$skip": 20},
        {"$limit": 10},
        {"$project": {"_id": 0, "status": "$_id.status", "cnt": 1, "total": 1}},
    ]


def test_aggregates_without_group_by_make_one_group() -> None:
    spec = compile_fields(TASK, ["count(name) as total", "max(due)"])
    assert compile_group_by(TASK, None, spec, {}) == [
        {"$group": {"_id": None, "total": {"$sum": 1}, "max": {"$max": "$due"}}},
        {"$sort": {"_id": 1}},
        {"$project": {"_id": 0, "total": 1, "max": 1}},
    ]


def test_group_by_sort_maps_group_fields_and_drops_what_is_not_output() -> None:
    spec = compile_fields(TASK, ["status as s", "name", "count(*) as n"])
    pipeline = compile_group_by(TASK, "`tabTask`.status, name", spec, {},
                                compile_order_by(TASK, "s desc, creation, name", aliases=frozenset({"s", "n"})))
    assert pipeline[0]["$group"]["_id"] == {"status": "$status", "name": "$_id"}
    assert pipeline[1] == {"$sort": {"_id.status": -1, "_id.name": 1, "_id": 1}}
    assert pipeline[-1] == {"$project": {"_id": 0, "s": "$_id.status", "name": "$_id.name", "n": 1}}


def test_group_by_on_the_in_memory_backend() -> None:
    coll = collection([
        {"_id": "a", "status": "Open", "amount": 10.0, "qty": 1, "subject": "x"},
        {"_id": "b", "status": "Open", "amount": 5.0, "qty": 3},
        {"_id": "c", "status": "Closed", "amount": 1.0, "qty": 2, "subject": "y"},
        {"_id": "d", "status": "Open", "qty": 4, "subject": ""},
    ])
    spec = compile_fields(TASK, ["status", "count(*) as n", "count(subject) as with_subject",
                                 "sum(amount) as total", "avg(qty) as avg_qty", "max(qty) as top"])
    sort = compile_order_by(TASK, "n desc", aliases=frozenset(c.key for c in spec.columns))
    rows = list(coll.aggregate(compile_group_by(TASK, "status", spec, compiled([["qty", ">", 0]]), sort)))
    assert rows == [
        {"status": "Open", "n": 3, "with_subject": 2, "total": 15.0, "avg_qty": pytest.approx(8 / 3), "top": 4},
        {"status": "Closed", "n": 1, "with_subject": 1, "total": 1.0, "avg_qty": 2.0, "top": 2},
    ]
    total = compile_fields(TASK, ["count(name) as total"])
    assert list(coll.aggregate(compile_group_by(TASK, None, total, compiled({"status": "Open"})))) == [
        {"total": 3}]


def test_plain_columns_not_grouped_by_take_a_first_value() -> None:
    spec = compile_fields(TASK, ["status", "subject", "count(*) as n"])
    assert compile_group_by(TASK, "status", spec, {})[0]["$group"]["subject"] == {"$first": "$subject"}


@pytest.mark.parametrize("group_by", ["status desc", "unknown", "items", "status; drop", "count(name)", "a.b",
                                      "status,", "`tabOther`.status"])
def test_invalid_group_by_is_refused(group_by: str) -> None:
    spec = compile_fields(TASK, ["count(*) as n"])
    with pytest.raises(exc.DataError):
        compile_group_by(TASK, group_by, spec, {})


def test_group_by_checks_readable_fields() -> None:
    spec = compile_fields(TASK, ["count(*) as n"])
    with pytest.raises(exc.DataError):
        compile_group_by(TASK, "secret", spec, {}, readable=frozenset({"status"}))


def test_child_fields_cannot_be_grouped() -> None:
    spec = compile_fields(TASK, ["items.qty", "count(*) as n"], child_meta=child_meta)
    with pytest.raises(exc.DataError):
        compile_group_by(TASK, "status", spec, {})
    with pytest.raises(exc.DataError):
        compile_group_by(TASK, "status", compile_fields(TASK, ["items", "count(*) as n"]), {})


def test_group_by_needs_a_field_or_an_aggregate() -> None:
    with pytest.raises(exc.DataError):
        compile_group_by(TASK, None, compile_fields(TASK, ["status"]), {})
