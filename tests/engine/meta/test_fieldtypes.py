"""engine.meta.fieldtypes: per-type validation and normalisation of field values (no database)."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import Any

import orjson
import pytest

from engine import exceptions as exc
from engine.meta.fieldtypes import (
    LENGTH_TYPES,
    NUMERIC_TYPES,
    TEXT_TYPES,
    coerce_value,
    default_value,
    is_empty,
    max_json_bytes,
    unchanged_text_limit,
)
from engine.meta.schema import NO_VALUE_TYPES, TABLE_TYPES, VALUE_TYPES, DocFieldSchema

DOCTYPE = "Sales Order"
NOW = "2024-03-15 10:20:30.123456"
TODAY = "2024-03-15"
TEXTLIKE = sorted(TEXT_TYPES - {"Data", "Password"})


def fld(fieldtype: str, fieldname: str = "the_field", **kw: Any) -> DocFieldSchema:
    if fieldtype in ("Link", "Dynamic Link", *TABLE_TYPES):
        kw.setdefault("options", "Customer")
    return DocFieldSchema(fieldname=fieldname, fieldtype=fieldtype, **kw)


def coerce(fieldtype: str, value: Any, **kw: Any) -> Any:
    return coerce_value(fld(fieldtype, **kw), value, doctype=DOCTYPE)


def rejects(fieldtype: str, value: Any, error: type[exc.FwError] = exc.FieldTypeError,
            **kw: Any) -> exc.FwError:
    """Assert the value is refused with exactly `error`, naming the field, label and doctype."""
    with pytest.raises(error) as info:
        coerce(fieldtype, value, **kw)
    assert type(info.value) is error
    assert info.value.field == kw.get("fieldname", "the_field")
    label = kw.get("label") or "The Field"
    assert label in info.value.message
    assert DOCTYPE in info.value.message
    return info.value


# --- dispatch and empty values --------------------------------------------------------------------

def test_every_value_type_is_handled() -> None:
    for fieldtype in VALUE_TYPES:
        coerce(fieldtype, None)  # raises TypeError if a type were missing from the dispatch table


SAMPLE_TEXTS = ("x", " padded ", "   ", "Ünïcode ✓", "a@b", "http://x", "<b>", "12", "2024-03-15", "a" * 140)


@pytest.mark.parametrize("options", [None, "", "Email", "Phone", "URL", "Name"])
@pytest.mark.parametrize("fieldtype", sorted(VALUE_TYPES - {"Link", "Dynamic Link"}))
def test_unchanged_text_limit_promises_only_what_coerce_value_keeps(fieldtype: str, options: str | None) -> None:
    """The save path passes over a text within `unchanged_text_limit` without calling `coerce_value`:
    for every type and option, every such text must come back from `coerce_value` as it is, and one
    character over the limit must not (it is refused)."""
    field = fld(fieldtype, options=options) if fieldtype not in ("Select",) else fld(fieldtype)
    limit = unchanged_text_limit(field)
    if limit is None:
        return
    for text in SAMPLE_TEXTS:
        if len(text) <= limit:
            assert coerce_value(field, text, doctype=DOCTYPE) is text
    if limit < 10_000:
        assert coerce_value(field, "b" * limit, doctype=DOCTYPE) == "b" * limit
        with pytest.raises(exc.CharacterLengthExceededError):
            coerce_value(field, "b" * (limit + 1), doctype=DOCTYPE)


def test_unchanged_text_limit_is_given_for_plain_text_and_not_for_checked_values() -> None:
    assert unchanged_text_limit(fld("Data")) == 140
    assert unchanged_text_limit(fld("Data", length=20)) == 20
    assert unchanged_text_limit(fld("Long Text")) is not None
    for field in (fld("Data", options="Email"), fld("Int"), fld("Float"), fld("Date"), fld("Link"), fld("Select"),
                  fld("Password"), fld("JSON"), fld("Check")):
        assert unchanged_text_limit(field) is None, field.fieldtype


@pytest.mark.parametrize("fieldtype", sorted(NO_VALUE_TYPES | TABLE_TYPES))
def test_layout_and_table_types_are_a_programming_error(fieldtype: str) -> None:
    field = DocFieldSchema(fieldname="x", fieldtype=fieldtype, options="Child")
    with pytest.raises(TypeError, match=fieldtype):
        coerce_value(field, [], doctype=DOCTYPE)


@pytest.mark.parametrize("value", [None, "", "   ", "\t\n"])
@pytest.mark.parametrize("fieldtype", ["Int", "Long Int", "Check"])
def test_empty_integer_like_is_int_zero(fieldtype: str, value: Any) -> None:
    result = coerce(fieldtype, value)
    assert result == 0 and type(result) is int


@pytest.mark.parametrize("value", [None, "", "  "])
@pytest.mark.parametrize("fieldtype", ["Float", "Currency", "Percent", "Duration", "Rating"])
def test_empty_float_like_is_float_zero(fieldtype: str, value: Any) -> None:
    result = coerce(fieldtype, value)
    assert result == 0.0 and type(result) is float


@pytest.mark.parametrize("fieldtype", sorted(VALUE_TYPES - NUMERIC_TYPES - {"Check"}))
def test_empty_other_types_are_none(fieldtype: str) -> None:
    assert coerce(fieldtype, None) is None
    assert coerce(fieldtype, "") is None


@pytest.mark.parametrize("fieldtype", ["Date", "Datetime", "Time", "Select", "Link", "Dynamic Link", "JSON"])
def test_blank_string_is_empty_for_non_text_types(fieldtype: str) -> None:
    assert coerce(fieldtype, "   ") is None


@pytest.mark.parametrize("fieldtype", ["Data", "Small Text", "Text", "Long Text", "Code", "Password"])
def test_blank_string_is_kept_for_text_types(fieldtype: str) -> None:
    assert coerce(fieldtype, "  ") == "  "


@pytest.mark.parametrize("fieldtype", sorted(VALUE_TYPES - {"JSON", "Password"}))
@pytest.mark.parametrize("value", [[1], ["a", "b"], {"a": 1}, (1,)])
def test_list_or_dict_for_a_single_value_field(fieldtype: str, value: Any) -> None:
    kw = {"options": "A\nB"} if fieldtype == "Select" else {}
    error = rejects(fieldtype, value, **kw)
    assert "single value" in error.message


# --- Int / Long Int ------------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    (5, 5), (-5, -5), (True, 1), (False, 0), (3.0, 3), (-2.0, -2), ("42", 42), (" 7 ", 7),
    ("+5", 5), ("-5", -5), ("3.0", 3), ("0", 0), (2**31 - 1, 2**31 - 1), (-(2**31), -(2**31)),
])
def test_int_accepts(value: Any, expected: int) -> None:
    result = coerce("Int", value)
    assert result == expected and type(result) is int


@pytest.mark.parametrize("value", ["1_000", "3.5", "abc", "1e3", "0x10", "5 5", 3.5, float("nan"),
                                   float("inf"), object(), date(2024, 1, 1), "٣"])
def test_int_rejects(value: Any) -> None:
    rejects("Int", value)


def test_int_message_shows_label_value_and_doctype() -> None:
    error = rejects("Int", "abc", label="Quantity")
    assert error.message == "Quantity: 'abc' is not a valid integer (Sales Order)"


@pytest.mark.parametrize("value", [2**31, -(2**31) - 1, "99999999999"])
def test_int_range(value: Any) -> None:
    assert "out of range" in rejects("Int", value).message


def test_long_int_range() -> None:
    assert coerce("Long Int", 2**40) == 2**40
    assert coerce("Long Int", str(2**63 - 1)) == 2**63 - 1
    assert coerce("Long Int", -(2**63)) == -(2**63)
    rejects("Long Int", 2**63)
    rejects("Long Int", "1" * 5000)


@pytest.mark.parametrize("fieldtype", ["Int", "Long Int", "Float", "Currency", "Percent"])
def test_non_negative(fieldtype: str) -> None:
    assert coerce(fieldtype, 0, non_negative=True) == 0
    assert coerce(fieldtype, -1) == -1
    error = rejects(fieldtype, -1, exc.NonNegativeError, non_negative=True)
    assert "negative" in error.message


# --- Float / Currency / Percent ------------------------------------------------------------------

@pytest.mark.parametrize("fieldtype", ["Float", "Currency", "Percent"])
@pytest.mark.parametrize(("value", "expected"), [
    (1, 1.0), (2.5, 2.5), ("3.25", 3.25), (" -4 ", -4.0), (".5", 0.5), ("1e3", 1000.0), (True, 1.0),
    (False, 0.0), ("+2.", 2.0), (150, 150.0),
])
def test_float_accepts(fieldtype: str, value: Any, expected: float) -> None:
    result = coerce(fieldtype, value)
    assert result == expected and type(result) is float


@pytest.mark.parametrize("value", ["abc", "nan", "inf", "-Infinity", float("nan"), float("inf"), "1_000",
                                   "1,5", "1e999", 10**400, "", ".", "e5"])
def test_float_rejects(value: Any) -> None:
    if value == "":
        assert coerce("Float", value) == 0.0
        return
    assert "not a valid number" in rejects("Float", value).message


@pytest.mark.parametrize(("precision", "value", "expected"), [
    (2, 12.345678, 12.35), (0, 2.6, 3.0), (3, "1.23456", 1.235), (2, 5, 5.0), (1, -0.04, 0.0),
])
def test_precision_rounding(precision: int, value: Any, expected: float) -> None:
    result = coerce("Currency", value, precision=precision)
    assert result == expected
    assert math.copysign(1.0, result) == math.copysign(1.0, expected)  # no "-0.0"


def test_no_precision_keeps_full_value() -> None:
    assert coerce("Float", 1.23456789) == 1.23456789


# --- Duration and Rating -------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    (90, 90), ("90", 90), (1.5, 1.5), ("2.25", 2.25), (0, 0), (" 3600 ", 3600),
])
def test_duration_accepts(value: Any, expected: float) -> None:
    result = coerce("Duration", value)
    assert result == expected and type(result) is type(expected)


@pytest.mark.parametrize("value", [-1, "-5", -0.5])
def test_duration_negative(value: Any) -> None:
    rejects("Duration", value, exc.NonNegativeError)


@pytest.mark.parametrize("value", ["abc", True, float("nan"), "1:30"])
def test_duration_rejects(value: Any) -> None:
    rejects("Duration", value)


@pytest.mark.parametrize(("value", "expected"), [(0, 0.0), (1, 1.0), (0.6, 0.6), ("0.8", 0.8)])
def test_rating_accepts(value: Any, expected: float) -> None:
    assert coerce("Rating", value) == expected


@pytest.mark.parametrize("value", [1.01, 5, -0.1, "3", "x"])
def test_rating_rejects(value: Any) -> None:
    rejects("Rating", value)


# --- Check ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    (True, 1), (False, 0), (1, 1), (0, 0), ("1", 1), ("0", 0), ("true", 1), ("FALSE", 0), (" True ", 1),
    (1.0, 1), (0.0, 0),
])
def test_check_accepts(value: Any, expected: int) -> None:
    result = coerce("Check", value)
    assert result == expected and type(result) is int


@pytest.mark.parametrize("value", [2, -1, "yes", "no", "2", 0.5, "on", float("nan")])
def test_check_rejects(value: Any) -> None:
    assert "0 or 1" in rejects("Check", value).message


# --- Date, Datetime, Time ------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    ("2024-01-05", "2024-01-05"), (" 2024-02-29 ", "2024-02-29"), (date(2024, 3, 1), "2024-03-01"),
    (datetime(2024, 3, 1, 23, 59), "2024-03-01"),
])
def test_date_accepts(value: Any, expected: str) -> None:
    assert coerce("Date", value) == expected


@pytest.mark.parametrize("value", ["2024-02-30", "2023-02-29", "2024-01-05 10:00:00", "2024-01-05T10:00",
                                   "05-01-2024", "20240105", "2024-W01-1", "2024-1-5", "today", 20240105,
                                   time(10, 0)])
def test_date_rejects(value: Any) -> None:
    assert "YYYY-MM-DD" in rejects("Date", value).message


@pytest.mark.parametrize(("value", "expected"), [
    ("2024-01-05 10:20:30", "2024-01-05 10:20:30"),
    ("2024-01-05 10:20:30.5", "2024-01-05 10:20:30.500000"),
    ("2024-01-05 10:20:30.123456", "2024-01-05 10:20:30.123456"),
    ("2024-01-05 10:20:30.000000", "2024-01-05 10:20:30"),
    ("2024-01-05T10:20:30", "2024-01-05 10:20:30"),
    ("2024-01-05 10:20", "2024-01-05 10:20:00"),
    ("2024-01-05", "2024-01-05 00:00:00"),
    (" 2024-01-05 10:20:30 ", "2024-01-05 10:20:30"),
    ("2024-01-05T10:20:30Z", "2024-01-05 10:20:30"),
    ("2024-01-05T10:20:30.250Z", "2024-01-05 10:20:30.250000"),
    ("2024-01-05T10:20:30+02:00", "2024-01-05 08:20:30"),
    ("2024-01-05 01:00:00-0530", "2024-01-05 06:30:00"),
    ("2024-01-01T01:00:00+03", "2023-12-31 22:00:00"),
    (datetime(2024, 1, 5, 10, 20, 30), "2024-01-05 10:20:30"),
    (datetime(2024, 1, 5, 10, 20, 30, 7), "2024-01-05 10:20:30.000007"),
    (datetime(2024, 1, 5, 10, tzinfo=timezone(timedelta(hours=-3))), "2024-01-05 13:00:00"),
    (date(2024, 1, 5), "2024-01-05 00:00:00"),
])
def test_datetime_normalises(value: Any, expected: str) -> None:
    assert coerce("Datetime", value) == expected


@pytest.mark.parametrize("value", ["2024-01-05 25:00:00", "2024-02-30 10:00:00", "2024-01-05 10",
                                   "2024-01-05 10:00:00.1234567", "05/01/2024 10:00", "now", "abc",
                                   "2024-01-05T10:00:00+24:00", "2024-01-05T10:00:00+01:75",
                                   "0001-01-01 00:00:00+01:00", 1704450000, time(10, 0)])
def test_datetime_rejects(value: Any) -> None:
    assert "YYYY-MM-DD HH:MM:SS" in rejects("Datetime", value).message


@pytest.mark.parametrize(("value", "expected"), [
    ("9:05", "09:05:00"), ("09:05", "09:05:00"), ("23:59:59", "23:59:59"), ("10:00:00.5", "10:00:00.500000"),
    (" 08:30:00 ", "08:30:00"), (time(7, 8, 9), "07:08:09"), (time(7, 8, 9, 10), "07:08:09.000010"),
    (timedelta(hours=1, minutes=2, seconds=3), "01:02:03"), (timedelta(0), "00:00:00"),
    (timedelta(hours=23, minutes=59, seconds=59, microseconds=1), "23:59:59.000001"),
])
def test_time_accepts(value: Any, expected: str) -> None:
    assert coerce("Time", value) == expected


@pytest.mark.parametrize("value", ["25:00", "24:00:00", "10:60", "ab", "10", "10:5", "10:00:00+02:00",
                                   timedelta(hours=24), timedelta(seconds=-1), 3600,
                                   datetime(2024, 1, 1, 10, 0), time(10, tzinfo=UTC)])
def test_time_rejects(value: Any) -> None:
    assert "HH:MM:SS" in rejects("Time", value).message


# --- Data and its options ------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    ("hello", "hello"), ("  padded  ", "  padded  "), (12, "12"), (-3, "-3"), (2.5, "2.5"), (3.0, "3.0"),
])
def test_data_accepts(value: Any, expected: str) -> None:
    assert coerce("Data", value) == expected


@pytest.mark.parametrize("value", [True, False, object(), b"bytes", date(2024, 1, 1)])
def test_data_rejects_non_text(value: Any) -> None:
    rejects("Data", value)


@pytest.mark.parametrize("fieldtype", sorted(LENGTH_TYPES - {"Select"}))
def test_default_length_limit_is_140(fieldtype: str) -> None:
    assert coerce(fieldtype, "x" * 140) == "x" * 140
    error = rejects(fieldtype, "x" * 141, exc.CharacterLengthExceededError)
    assert "141" in error.message and "140" in error.message


def test_field_length_overrides_default() -> None:
    assert coerce("Data", "abcde", length=5) == "abcde"
    rejects("Data", "abcdef", exc.CharacterLengthExceededError, length=5)
    assert coerce("Data", "y" * 300, length=300) == "y" * 300


@pytest.mark.parametrize("fieldtype", ["Small Text", "Text", "Long Text", "Text Editor", "Code"])
def test_long_text_types_have_no_length_limit(fieldtype: str) -> None:
    assert len(coerce(fieldtype, "z" * 10_000)) == 10_000


@pytest.mark.parametrize(("value", "expected"), [
    ("a@example.com", "a@example.com"), ("  a@example.com ", "a@example.com"),
    ("a@example.com, b.c+tag@sub.example.org", "a@example.com, b.c+tag@sub.example.org"),
    ("a@example.com;b@example.com", "a@example.com;b@example.com"),
    ("Jane Doe <jane@example.com>", "Jane Doe <jane@example.com>"),
])
def test_email_accepts(value: str, expected: str) -> None:
    assert coerce("Data", value, options="Email") == expected


@pytest.mark.parametrize("value", ["plainaddress", "a@b", "a@@b.com", "a@example.com, nope", "@example.com",
                                   "a b@example.com", ",;", "a@-example.com"])
def test_email_rejects(value: str) -> None:
    assert "email" in rejects("Data", value, options="Email").message


def test_option_data_blank_is_empty() -> None:
    for option in ("Email", "Phone", "URL", "Name"):
        assert coerce("Data", "   ", options=option) is None


@pytest.mark.parametrize("value", ["+1 (555) 123-4567", "0049 30 1234.56", "123", " 555 "])
def test_phone_accepts(value: str) -> None:
    assert coerce("Data", value, options="Phone") == value.strip()


@pytest.mark.parametrize("value", ["12", "call me", "+1 555 abc", "555#123", "--()"])
def test_phone_rejects(value: str) -> None:
    assert "phone" in rejects("Data", value, options="Phone").message


@pytest.mark.parametrize("value", ["http://example.com", "https://example.com/a?b=c#d", "HTTPS://x.org",
                                   "http://localhost:8000/path"])
def test_url_accepts(value: str) -> None:
    assert coerce("Data", value, options="URL") == value


@pytest.mark.parametrize("value", ["example.com", "ftp://example.com", "http://", "https:///path",
                                   "http://exa mple.com", "javascript:alert(1)", "http://[::1"])
def test_url_rejects(value: str) -> None:
    assert "URL" in rejects("Data", value, options="URL").message


def test_name_option() -> None:
    assert coerce("Data", " ACME Corp. ", options="Name") == "ACME Corp."
    for bad in ("<b>", "a>b", "50%", 'say "hi"'):
        rejects("Data", bad, options="Name")


def test_unknown_data_option_is_not_checked() -> None:
    assert coerce("Data", " anything ", options="Barcode") == " anything "


# --- other text types and Password ---------------------------------------------------------------

@pytest.mark.parametrize("fieldtype", TEXTLIKE)
def test_text_types(fieldtype: str) -> None:
    assert coerce(fieldtype, "some text") == "some text"
    assert coerce(fieldtype, 7) == "7"
    assert coerce(fieldtype, 1.5) == "1.5"
    rejects(fieldtype, True)
    rejects(fieldtype, {"type": "Point"})


def test_str_subclass_becomes_plain_str() -> None:
    class Name(str):
        pass

    result = coerce("Data", Name("abc"))
    assert result == "abc" and type(result) is str


def test_password() -> None:
    assert coerce("Password", "s3cret ") == "s3cret "
    for bad in (12345, True, ["x"], {"a": "b"}):
        error = rejects("Password", bad)
        assert "12345" not in error.message  # the value is never echoed


# --- Select ----------------------------------------------------------------------------------------

def test_select_accepts_an_option() -> None:
    assert coerce("Select", "Open", options="Open\nClosed") == "Open"
    assert coerce("Select", 2, options="1\n2\n3") == "2"


def test_select_rejects_other_values_like_frappe() -> None:
    error = rejects("Select", "Pending", options="Open\nClosed", label="Status")
    assert error.message == 'Status cannot be "Pending". It should be one of "Open", "Closed" (Sales Order)'
    assert error.title == "Invalid Option"
    assert isinstance(error, exc.ValidationError)


def test_select_match_is_exact() -> None:
    rejects("Select", "open", options="Open\nClosed")
    rejects("Select", " Open", options="Open\nClosed")


def test_select_without_options_accepts_anything() -> None:
    assert coerce("Select", "whatever") == "whatever"


def test_naming_series_is_not_checked() -> None:
    assert coerce("Select", "NEW-.#####", fieldname="naming_series", options="SO-.#####") == "NEW-.#####"


def test_select_length() -> None:
    rejects("Select", "x" * 141, exc.CharacterLengthExceededError)


# --- Link ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fieldtype", ["Link", "Dynamic Link"])
def test_link(fieldtype: str) -> None:
    assert coerce(fieldtype, "  CUST-0001 ") == "CUST-0001"
    assert coerce(fieldtype, 42) == "42"
    for bad in (True, 1.5, {"name": "x"}, ["x"]):
        rejects(fieldtype, bad)
    rejects(fieldtype, "x" * 141, exc.CharacterLengthExceededError)


# --- JSON ------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    ({"a": 1, "b": [1, 2.5, None, True, "x"]}, {"a": 1, "b": [1, 2.5, None, True, "x"]}),
    ([], []), ({}, {}), ('{"a": {"b": [1, 2]}}', {"a": {"b": [1, 2]}}), ("[1, 2]", [1, 2]),
    ({"a$b": 1, "": 2}, {"a$b": 1, "": 2}),
])
def test_json_accepts(value: Any, expected: Any) -> None:
    assert coerce("JSON", value) == expected


def test_json_dict_is_stored_natively() -> None:
    value = {"k": [1, 2]}
    assert coerce("JSON", value) is value


@pytest.mark.parametrize("value", [
    {"$where": "1"}, {"a": {"$gt": 1}}, [{"a.b": 1}], {"ok": [{"deep": {"$set": 2}}]}, '{"$x": 1}',
    {1: "int key"}, {"a\x00b": 1},
])
def test_json_rejects_unsafe_keys(value: Any) -> None:
    assert "key" in rejects("JSON", value).message


@pytest.mark.parametrize("value", [
    "{not json}", "5", '"text"', "true", "null", 5, True, (1, 2), {"a": (1, 2)}, {"a": {1, 2}},
    {"a": float("nan")}, "[NaN]", {"a": 2**63}, {"when": date(2024, 1, 1)}, {"b": b"x"},
])
def test_json_rejects(value: Any) -> None:
    rejects("JSON", value)


def test_json_depth_limit() -> None:
    nested: Any = 1
    for _ in range(200):
        nested = [nested]
    assert "deeply" in rejects("JSON", nested).message
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    rejects("JSON", cyclic)


# --- is_empty --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("fieldtype", "value", "expected"), [
    ("Data", None, True), ("Data", "", True), ("Data", "  \n", True), ("Data", "x", False),
    ("Int", 0, False), ("Float", 0.0, False), ("Check", 0, False), ("Check", False, False),
    ("JSON", {}, True), ("JSON", [], True), ("JSON", {"a": 1}, False), ("Table", [], True),
    ("Table", [{"a": 1}], False), ("Text Editor", "<p><br></p>", True),
    ("Text Editor", "<p>&nbsp;</p>", True),
    ("Text Editor", "<p>hi</p>", False), ("Text Editor", '<p><img src="a.png"></p>', False),
    ("Text", "<p></p>", False), ("Date", "2024-01-01", False),
])
def test_is_empty(fieldtype: str, value: Any, expected: bool) -> None:
    assert is_empty(fld(fieldtype), value) is expected


# --- default_value ---------------------------------------------------------------------------------

def dflt(fieldtype: str, default: Any, **kw: Any) -> Any:
    return default_value(fld(fieldtype, default=default, **kw), now=NOW, today=TODAY, doctype=DOCTYPE)


@pytest.mark.parametrize(("fieldtype", "default", "expected"), [
    ("Date", "Today", TODAY), ("Date", "today", TODAY), ("Date", "Now", TODAY),
    ("Datetime", "Now", NOW), ("Datetime", "now", NOW), ("Datetime", "Today", "2024-03-15 00:00:00"),
    ("Time", "Now", "10:20:30.123456"), ("Check", "1", 1), ("Check", 0, 0), ("Int", "5", 5),
    ("Float", "2.5", 2.5), ("Currency", "0", 0.0), ("Data", "Today", "Today"), ("Data", "abc", "abc"),
    ("Date", "2020-01-01", "2020-01-01"), ("JSON", '{"a": 1}', {"a": 1}),
])
def test_default_value(fieldtype: str, default: Any, expected: Any) -> None:
    result = dflt(fieldtype, default)
    assert result == expected and type(result) is type(expected)


def test_default_select_option() -> None:
    assert dflt("Select", "Open", options="Open\nClosed") == "Open"


@pytest.mark.parametrize(("fieldtype", "expected"), [
    ("Int", 0), ("Check", 0), ("Float", 0.0), ("Data", None), ("Date", None), ("Link", None),
])
def test_no_default(fieldtype: str, expected: Any) -> None:
    result = dflt(fieldtype, None)
    assert result == expected and type(result) is type(expected)


def test_json_default_is_a_fresh_copy() -> None:
    field = fld("JSON", default={"tags": []})
    first = default_value(field, now=NOW, today=TODAY, doctype=DOCTYPE)
    first["tags"].append("x")
    second = default_value(field, now=NOW, today=TODAY, doctype=DOCTYPE)
    assert second == {"tags": []}


@pytest.mark.parametrize(("fieldtype", "default", "kw"), [
    ("Int", "many", {}), ("Check", "Yes", {}), ("Date", "tomorrow", {}),
    ("Select", "Other", {"options": "A\nB"}),
    ("Time", "Today", {}), ("Float", "1.5.1", {}),
])
def test_invalid_default_is_a_configuration_error(fieldtype: str, default: Any, kw: dict[str, Any]) -> None:
    with pytest.raises(exc.ConfigurationError) as info:
        dflt(fieldtype, default, label="My Field", **kw)
    assert info.value.field == "the_field"
    assert "My Field" in info.value.message and DOCTYPE in info.value.message
    assert isinstance(info.value.__cause__, exc.ValidationError)


@pytest.mark.parametrize(("fieldtype", "value", "kw"), [
    ("Data", "\x00" * 140, {}),  # every character escaped as \u0000
    ("Data", "\U0001f600" * 140, {}),
    ("Data", "\x01" * 20, {"length": 20}),
    ("Select", "\x02" * 30, {"options": "a\n" + "\x02" * 30}),
    ("Int", -(2**31), {}),
    ("Long Int", -(2**63), {}),
    ("Float", -1.7976931348623157e308, {}),
    ("Currency", -2.2250738585072014e-308, {}),
    ("Check", 1, {}),
    ("Date", "2024-03-15", {}),
    ("Datetime", "2024-03-15 10:20:30.123456", {}),
    ("Time", "10:20:30.123456", {}),
])
def test_max_json_bytes_bounds_every_value_a_field_takes(fieldtype: str, value: Any, kw: dict[str, Any]) -> None:
    """engine/documents/one_call.py sizes an answer from these bounds: the worst value must fit."""
    field = fld(fieldtype, **kw)
    bound = max_json_bytes(field)
    assert bound is not None
    assert len(orjson.dumps(coerce_value(field, value, doctype=DOCTYPE))) <= bound


@pytest.mark.parametrize("fieldtype", ["Text", "Long Text", "Small Text", "Text Editor", "JSON", "Password", "Code"])
def test_long_text_has_no_bound(fieldtype: str) -> None:
    assert max_json_bytes(fld(fieldtype)) is None
