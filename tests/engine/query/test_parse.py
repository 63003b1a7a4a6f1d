"""`engine.query.parse` (and the small helpers of `engine.query.ast`): user filters → AST."""

from __future__ import annotations

from typing import Any

import pytest

from engine import exceptions as exc
from engine.meta.schema import Meta, parse_doctype
from engine.query.ast import FALSE, And, Cond, Op, Or, conjoin, referenced_fields, walk
from engine.query.parse import parse_filters, parse_or_filters


def make_meta(data: dict[str, Any]) -> Meta:
    return Meta(parse_doctype(data, "test"))


CHILD = make_meta({"name": "Task Item", "istable": 1, "fields": [
    {"fieldname": "item", "fieldtype": "Data"},
    {"fieldname": "qty", "fieldtype": "Int"},
    {"fieldname": "rate", "fieldtype": "Float"},
    {"fieldname": "code", "fieldtype": "Int"},
]})
TASK = make_meta({"name": "Task", "fields": [
    {"fieldname": "subject", "fieldtype": "Data"},
    {"fieldname": "status", "fieldtype": "Select", "options": "Open\nClosed"},
    {"fieldname": "code", "fieldtype": "Data"},
    {"fieldname": "qty", "fieldtype": "Int"},
    {"fieldname": "amount", "fieldtype": "Currency"},
    {"fieldname": "done", "fieldtype": "Check"},
    {"fieldname": "due", "fieldtype": "Date"},
    {"fieldname": "at", "fieldtype": "Datetime"},
    {"fieldname": "secret", "fieldtype": "Data", "permlevel": 1},
    {"fieldname": "section", "fieldtype": "Section Break"},
    {"fieldname": "items", "fieldtype": "Table", "options": "Task Item"},
]})
ORDER = make_meta({"name": "Order", "fields": [
    {"fieldname": "lines", "fieldtype": "Table", "options": "Task Item"},
    {"fieldname": "extra_lines", "fieldtype": "Table", "options": "Task Item"},
]})
AREA = make_meta({"name": "Area", "is_tree": 1, "fields": [{"fieldname": "area_name", "fieldtype": "Data"}]})
METAS = {m.name: m for m in (CHILD, TASK, ORDER, AREA)}


def child_meta(doctype: str) -> Meta:
    return METAS[doctype]


def parse(filters: Any, meta: Meta = TASK) -> Any:
    return parse_filters(meta, filters, child_meta=child_meta)


def data_error(filters: Any, meta: Meta = TASK) -> exc.DataError:
    with pytest.raises(exc.DataError) as info:
        parse(filters, meta)
    return info.value


# --- empty input and shapes ------------------------------------------------------------------

@pytest.mark.parametrize("empty", [None, "", "  ", [], {}, (), "[]", "{}", "null"])
def test_empty_filters_mean_no_condition(empty: Any) -> None:
    assert parse(empty) is None
    assert parse_or_filters(TASK, empty) is None


def test_dict_equality_and_operator_pairs() -> None:
    assert parse({"status": "Open"}) == Cond("status", Op.EQ, "Open")
    assert parse({"status": "Open", "qty": [">", 5], "due": ("<=", "2024-01-01")}) == And((
        Cond("status", Op.EQ, "Open"), Cond("qty", Op.GT, 5), Cond("due", Op.LE, "2024-01-01")))


def test_dict_none_means_not_set() -> None:
    assert parse({"subject": None}) == Cond("subject", Op.IS, "not set")


@pytest.mark.parametrize("value", [[], ["="], ["=", 1, 2]])
def test_dict_operator_pair_needs_two_items(value: list[Any]) -> None:
    assert data_error({"status": value}).field == "status"


def test_json_strings_are_decoded() -> None:
    assert parse('{"status": "Open"}') == Cond("status", Op.EQ, "Open")
    assert parse('[["qty", ">=", 2], ["Task", "status", "in", ["Open"]]]') == And((
        Cond("qty", Op.GE, 2), Cond("status", Op.IN, ("Open",))))


@pytest.mark.parametrize("text", ["{status: 1}", "[[\"status\", \"=\"", "'x'"])
def test_invalid_json_is_a_data_error(text: str) -> None:
    assert "Invalid JSON in filters" in data_error(text).message


@pytest.mark.parametrize("filters", ["5", '"status"', "true", 5, "Open"])
def test_filters_must_be_a_list_or_an_object(filters: Any) -> None:
    data_error(filters)


def test_list_items_three_and_four_long() -> None:
    assert parse([["status", "=", "Open"]]) == Cond("status", Op.EQ, "Open")
    assert parse([("Task", "qty", "<", 3)]) == Cond("qty", Op.LT, 3)


def test_list_view_hidden_flag_is_ignored() -> None:
    assert parse([["Task", "status", "=", "Open", False]]) == Cond("status", Op.EQ, "Open")
    data_error([["Task", "status", "=", "Open", "x"]])


@pytest.mark.parametrize("item", [["status", "Open"], ["status"], [], ["a", "b", "c", "d", "e", "f"]])
def test_list_items_of_other_lengths_are_refused(item: list[Any]) -> None:
    data_error([item])


@pytest.mark.parametrize("item", ["status = 'Open'", "1=1) or (1=1", {"status": "Open"}, 5, None])
def test_list_items_must_be_lists(item: Any) -> None:
    """No raw SQL strings (Frappe accepts them) and no dicts inside a list."""
    data_error([item])


def test_or_filters_are_or_ed() -> None:
    assert parse_or_filters(TASK, [["status", "=", "Open"], ["qty", ">", 1]]) == Or((
        Cond("status", Op.EQ, "Open"), Cond("qty", Op.GT, 1)))
    assert parse_or_filters(TASK, {"status": "Open"}) == Cond("status", Op.EQ, "Open")


# --- child tables ----------------------------------------------------------------------------

def test_child_doctype_filter_targets_its_table() -> None:
    assert parse([["Task Item", "qty", ">", 2]]) == Cond("qty", Op.GT, 2, table="items")


def test_child_field_is_checked_against_the_child_meta() -> None:
    # `subject` exists on Task, not on Task Item
    assert data_error([["Task Item", "subject", "=", "x"]]).field == "subject"
    assert parse([["Task Item", "parent", "=", "T-1"]]) == Cond("parent", Op.EQ, "T-1", table="items")


def test_child_doctype_used_by_two_tables_matches_a_row_of_either() -> None:
    assert parse([["Task Item", "item", "=", "A"]], ORDER) == Or((
        Cond("item", Op.EQ, "A", table="lines"), Cond("item", Op.EQ, "A", table="extra_lines")))


@pytest.mark.parametrize("doctype", ["Order", "Nope", "tabTask", "", 5, None])
def test_unknown_doctype_in_four_item_filter(doctype: Any) -> None:
    data_error([[doctype, "item", "=", "A"]])


def test_child_filter_without_child_meta_is_refused() -> None:
    with pytest.raises(exc.DataError):
        parse_filters(TASK, [["Task Item", "qty", ">", 2]])


def test_tree_operators_are_refused_on_child_rows() -> None:
    data_error([["Task Item", "name", "descendants of", "x"]])


# --- fields ----------------------------------------------------------------------------------

@pytest.mark.parametrize("field", [
    "$where", "a.b", "items.qty", "name ", " name", "Name", "`name`", "`tabTask`.name", "tabTask.name",
    "_id", "_ancestors", "nope", "section", "subject;", "sub ject", "", "status\x00", 5, None, ["name"],
])
def test_unknown_or_malformed_fields_are_refused(field: Any) -> None:
    error = data_error([[field, "=", "1"]])
    assert error.message == f"Field not permitted in query: {field}"
    assert error.field == str(field)


def test_dict_keys_are_checked_too() -> None:
    assert data_error({"$where": "1"}).field == "$where"
    assert data_error({"$or": [{"name": "x"}]}).field == "$or"


@pytest.mark.parametrize("field", ["name", "owner", "creation", "modified", "modified_by", "docstatus", "idx",
                                   "subject", "items"])
def test_standard_value_and_table_fields_are_queryable(field: str) -> None:
    assert parse([[field, "is", "set"]]) == Cond(field, Op.IS, "set")


def test_child_only_standard_fields_are_not_on_the_parent() -> None:
    data_error([["parenttype", "=", "Task"]])


# --- operators -------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "op"), [
    ("=", Op.EQ), ("==", Op.EQ), ("!=", Op.NE), ("<>", Op.NE), ("<", Op.LT), (">", Op.GT), ("<=", Op.LE),
    (">=", Op.GE), ("like", Op.LIKE), ("LIKE", Op.LIKE), (" Not  Like ", Op.NOT_LIKE),
])
def test_scalar_operators_case_and_synonyms(text: str, op: Op) -> None:
    assert parse([["subject", text, "x"]]) == Cond("subject", op, "x")


@pytest.mark.parametrize(("text", "op"), [("in", Op.IN), ("NOT IN", Op.NOT_IN), ("not\tin", Op.NOT_IN)])
def test_list_operators(text: str, op: Op) -> None:
    assert parse([["status", text, ["Open", "Closed"]]]) == Cond("status", op, ("Open", "Closed"))


@pytest.mark.parametrize("op", ["=$", "$gt", "$ne", "regexp", "timespan", "previous", "not_in", "===",
                                "descendants of (inclusive)", "", "= =", 5, None, ["="], {"$eq": 1}])
def test_unknown_operators_are_refused(op: Any) -> None:
    error = data_error([["name", op, "1"]])
    assert "operator" in error.message


def test_unknown_operator_is_named() -> None:
    assert data_error([["name", "=$", 1]]).message == "Unknown filter operator: =$"


def test_op_enum_is_exactly_frappes_operators() -> None:
    assert {op.value for op in Op} == {
        "=", "!=", "<", ">", "<=", ">=", "in", "not in", "like", "not like", "between", "is",
        "descendants of", "ancestors of", "not descendants of", "not ancestors of"}


# --- values ----------------------------------------------------------------------------------

@pytest.mark.parametrize("filters", [
    {"name": {"$ne": None}},
    {"name": {"$gt": ""}},
    {"name": ["=", {"$gt": ""}]},
    [["name", "=", {"$gt": ""}]],
    [["name", "!=", {}]],
    [["name", "in", ["a", {"$ne": 1}]]],
    [["name", "not in", [{"$exists": True}]]],
    [["due", "between", [{"$gt": 1}, "2024-01-01"]]],
    [["name", "like", {"$regex": ".*"}]],
    [["Task Item", "qty", ">", {"$gt": 0}]],
    '{"name": {"$ne": null}}',
    '[["owner", "=", {"$where": "sleep(100)"}]]',
])
def test_values_are_data_never_query_operators(filters: Any) -> None:
    error = data_error(filters)
    assert "never query operators" in error.message
    assert error.field in ("name", "due", "qty", "owner")  # the filter's field is named


def test_dollar_strings_are_plain_data() -> None:
    assert parse([["subject", "=", "$gt"]]) == Cond("subject", Op.EQ, "$gt")
    assert parse({"subject": "$where"}) == Cond("subject", Op.EQ, "$where")


def test_in_takes_a_list_or_a_comma_separated_string() -> None:
    assert parse([["status", "in", " Open, Closed ,,"]]) == Cond("status", Op.IN, ("Open", "Closed"))
    assert parse([["status", "in", ""]]) == Cond("status", Op.IN, ())
    assert parse([["qty", "not in", [1, 2.5, None, True]]]) == Cond("qty", Op.NOT_IN, (1, 2.5, None, True))


@pytest.mark.parametrize("value", [5, None, [["a"]], [[1, 2]]])
def test_in_refuses_other_values(value: Any) -> None:
    data_error([["status", "in", value]])


def test_between_takes_two_values() -> None:
    assert parse([["qty", "between", [1, 5]]]) == Cond("qty", Op.BETWEEN, (1, 5))


@pytest.mark.parametrize("value", ["1,5", [1], [1, 2, 3], [None, 5], 5, [[1], 2]])
def test_between_refuses_other_values(value: Any) -> None:
    data_error([["qty", "between", value]])


@pytest.mark.parametrize(("value", "normal"), [("set", "set"), ("not set", "not set"), (" Not   Set", "not set"),
                                               ("SET", "set")])
def test_is_takes_set_or_not_set(value: str, normal: str) -> None:
    assert parse([["subject", "is", value]]) == Cond("subject", Op.IS, normal)


@pytest.mark.parametrize("value", ["", "null", "notset", None, 1, ["set"]])
def test_is_refuses_anything_else(value: Any) -> None:
    data_error([["subject", "is", value]])


@pytest.mark.parametrize("value", [5, None, ["%a%"], True])
def test_like_takes_text(value: Any) -> None:
    data_error([["subject", "like", value]])


@pytest.mark.parametrize(("op", "value"), [("<", None), (">", [1]), ("=", [1]), ("!=", ("a",)), (">=", None)])
def test_comparisons_take_single_values(op: str, value: Any) -> None:
    data_error([["qty", op, value]])


def test_equality_with_none_means_is_set_or_not_set() -> None:
    assert parse([["subject", "=", None]]) == Cond("subject", Op.IS, "not set")
    assert parse([["subject", "!=", None]]) == Cond("subject", Op.IS, "set")


# --- tree operators --------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "op"), [
    ("descendants of", Op.DESCENDANTS_OF), ("ancestors of", Op.ANCESTORS_OF),
    ("not descendants of", Op.NOT_DESCENDANTS_OF), ("Not Ancestors Of", Op.NOT_ANCESTORS_OF)])
def test_tree_operators_on_a_tree_doctype(text: str, op: Op) -> None:
    assert parse([["name", text, "Europe"]], AREA) == Cond("name", op, "Europe")


def test_tree_operators_need_a_tree_doctype() -> None:
    assert "tree" in data_error([["name", "descendants of", "x"]]).message


@pytest.mark.parametrize("value", ["", None, ["Europe"], 5])
def test_tree_operators_need_a_name(value: Any) -> None:
    data_error([["name", "descendants of", value]], AREA)


def test_tree_operators_apply_to_name_only() -> None:
    data_error([["parent_area", "descendants of", "Europe"]], AREA)


# --- ast helpers -----------------------------------------------------------------------------

def test_conjoin_skips_missing_nodes() -> None:
    a, b = Cond("status", Op.EQ, "Open"), Cond("qty", Op.GT, 1)
    assert conjoin(None, None) is None
    assert conjoin(a, None) == a
    assert conjoin(a, None, b) == And((a, b))


def test_walk_and_referenced_fields() -> None:
    node = parse({"status": "Open"})
    tree = And((node, Or((Cond("qty", Op.GT, 1), Cond("item", Op.EQ, "A", table="items")))))
    assert [c.field for c in walk(tree)] == ["status", "qty", "item"]
    assert referenced_fields(tree) == {"status", "qty", "items"}
    assert referenced_fields(None) == frozenset()


def test_false_is_the_empty_in() -> None:
    assert Cond("name", Op.IN, ()) == FALSE
    assert parse([["name", "in", []]]) == FALSE
