"""A tiny, safe evaluator for workflow conditions: `doc.amount > 100 and doc.status == "Open"`.

Only literals, names from the given namespace, attribute and item access on plain data,
comparisons, boolean and arithmetic operators, and a few pure builtins. No imports, no dunder
access, no arbitrary calls.
"""

from __future__ import annotations

import ast
import functools
import operator
from collections.abc import Callable, Mapping
from typing import Any

from engine import exceptions as exc
from engine.translation import _

_BIN: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.Mod: operator.mod, ast.FloorDiv: operator.floordiv,
}
_CMP: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
_FUNCS: dict[str, Callable[..., Any]] = {"len": len, "int": int, "float": float, "str": str, "bool": bool,
                                         "abs": abs, "min": min, "max": max, "round": round}


def _plain(value: Any) -> Any:
    """A mapping as a dict (what attribute access reads), anything else as it is. Shallow: nested
    values are made plain when a condition reaches them, so a document is not copied whole for a
    condition that reads one of its fields."""
    return dict(value) if isinstance(value, Mapping) and not isinstance(value, dict) else value


@functools.lru_cache(maxsize=1024)
def _parse(expression: str) -> ast.expr:
    """The expression's tree, parsed once per text (the evaluator never changes it)."""
    try:
        return ast.parse(expression.strip(), mode="eval").body
    except SyntaxError as e:
        raise exc.ValidationError(_("Invalid condition {0}: {1}", repr(expression), e.msg)) from None


def safe_eval(expression: str, names: Mapping[str, Any]) -> Any:
    return _eval(_parse(expression), {k: _plain(v) for k, v in names.items()})


def _eval(node: ast.AST, names: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        if node.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.id]
        raise exc.ValidationError(_("Unknown name {0} in condition", repr(node.id)))
    if isinstance(node, ast.Attribute):
        if node.attr.startswith("_"):
            raise exc.ValidationError(_("Private attributes are not allowed in conditions"))
        target = _eval(node.value, names)
        if not isinstance(target, dict):
            raise exc.ValidationError(_("Cannot read {0} in a condition", repr(node.attr)))
        return _plain(target.get(node.attr))
    if isinstance(node, ast.Subscript):
        return _plain(_eval(node.value, names)[_eval(node.slice, names)])
    if isinstance(node, ast.BoolOp):
        values = (_eval(v, names) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp):
        operand = _eval(node.operand, names)
        if isinstance(node.op, ast.Not):
            return not operand
        if isinstance(node.op, ast.USub):
            return -operand
        return +operand
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
        return _BIN[type(node.op)](_eval(node.left, names), _eval(node.right, names))
    if isinstance(node, ast.Compare):
        left = _eval(node.left, names)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = _eval(comparator, names)
            if not _CMP[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _eval(node.body, names) if _eval(node.test, names) else _eval(node.orelse, names)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [_eval(e, names) for e in node.elts]
    if isinstance(node, ast.Call):
        return _call(node, names)
    raise exc.ValidationError(_("{0} is not allowed in conditions", type(node).__name__))


def _call(node: ast.Call, names: dict[str, Any]) -> Any:
    args = [_eval(a, names) for a in node.args]
    if node.keywords:
        raise exc.ValidationError(_("Keyword arguments are not allowed in conditions"))
    if isinstance(node.func, ast.Name) and node.func.id in _FUNCS:
        return _FUNCS[node.func.id](*args)
    if isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        target = _eval(node.func.value, names)
        if isinstance(target, dict):
            return _plain(target.get(*args))
    raise exc.ValidationError(_("Only len, int, float, str, bool, abs, min, max, round and .get() may be called"))
