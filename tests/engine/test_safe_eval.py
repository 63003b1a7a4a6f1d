"""engine/safe_eval.py: workflow conditions evaluate plain data and refuse everything else, with
messages in the caller's language."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.context import Context, bind
from engine.safe_eval import safe_eval

DOC = {"doc": {"amount": 150, "status": "Open", "items": [{"qty": 2}, {"qty": 3}], "owner": "a@example.com"}}


@pytest.mark.parametrize(("expression", "expected"), [
    ('doc.amount > 100 and doc.status == "Open"', True),
    ("doc.amount * 2 - 50 >= 250", True),
    ("len(doc.items) == 2 and doc.items[1].qty == 3", True),
    ('doc.get("missing") is None', True),
    ('doc.status in ["Closed", "Cancelled"]', False),
    ("not doc.amount or 1 < 2 < 3", True),
    ('"big" if doc.amount > 1000 else "small"', "small"),
    ("max(doc.amount, 10) + abs(-1)", 151),
])
def test_conditions_on_plain_data(expression: str, expected: object) -> None:
    assert safe_eval(expression, DOC) == expected


@pytest.mark.parametrize(("expression", "message"), [
    ("__import__('os')", "Only len"),
    ("doc.__class__", "Private attributes"),
    ("doc.amount.real", "Cannot read 'real'"),
    ("frappe.session.user", "Unknown name 'frappe'"),
    ("[x for x in doc.items]", "ListComp is not allowed"),
    ("round(doc.amount, ndigits=1)", "Keyword arguments"),
    ("doc.amount >", "Invalid condition"),
    ("lambda: 1", "Lambda is not allowed"),
])
def test_anything_else_is_refused(expression: str, message: str) -> None:
    with pytest.raises(exc.ValidationError, match=message.replace("(", r"\(")):
        safe_eval(expression, DOC)


def test_refusals_speak_the_users_language(ctx: Context) -> None:
    german = ctx.site.context("Administrator", lang="de")
    with bind(german), pytest.raises(exc.ValidationError, match="Unbekannter Name 'frappe' in der Bedingung"):
        safe_eval("frappe.session.user", DOC)
