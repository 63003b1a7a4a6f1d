"""The filter AST: what `parse.py` produces from user input and `compile.py` turns into MongoDB.

Nodes are frozen and hold only checked data: a known field, an `Op` from a fixed set, a value
that is never a query operator. Code that builds conditions (permission hooks, controllers) may
build nodes directly; `compile.py` checks fields and values again.

    >>> And((Cond("status", Op.EQ, "Open"), Cond("qty", Op.GT, 5)))
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Op(Enum):
    """The filter operators (Frappe's names)."""

    EQ = "="
    NE = "!="
    LT = "<"
    GT = ">"
    LE = "<="
    GE = ">="
    IN = "in"
    NOT_IN = "not in"
    LIKE = "like"
    NOT_LIKE = "not like"
    BETWEEN = "between"
    IS = "is"
    DESCENDANTS_OF = "descendants of"
    ANCESTORS_OF = "ancestors of"
    NOT_DESCENDANTS_OF = "not descendants of"
    NOT_ANCESTORS_OF = "not ancestors of"


TREE_OPS = frozenset({Op.DESCENDANTS_OF, Op.ANCESTORS_OF, Op.NOT_DESCENDANTS_OF, Op.NOT_ANCESTORS_OF})


@dataclass(frozen=True)
class Cond:
    """`field op value`; `table` is the parent's table fieldname when `field` is a child-row field."""

    field: str
    op: Op
    value: Any
    table: str | None = None


@dataclass(frozen=True)
class And:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Not:
    """Neither of `items` (one, in practice) holds: what the permission component needs to say "no
    child row holds a value outside these" (`Not(Cond(f, NOT_IN, allowed, table=t))`)."""

    items: tuple[Node, ...]


Node = Cond | And | Or | Not

#: The condition that matches nothing (`[["name", "in", []]]` in the filter language).
FALSE = Cond("name", Op.IN, ())


def conjoin(*nodes: Node | None) -> Node | None:
    """AND the given nodes together, skipping `None` (no condition); `None` if nothing is left."""
    present = tuple(n for n in nodes if n is not None)
    if not present:
        return None
    return present[0] if len(present) == 1 else And(present)


def walk(node: Node | None) -> Iterator[Cond]:
    """Every condition in the tree, depth first."""
    if node is None:
        return
    if isinstance(node, Cond):
        yield node
        return
    for item in node.items:
        yield from walk(item)


def referenced_row_fields(node: Node | None) -> frozenset[tuple[str, str]]:
    """(table, row field) of each child-row condition a tree holds."""
    return frozenset((c.table, c.field) for c in walk(node) if c.table is not None)


def referenced_fields(node: Node | None) -> frozenset[str]:
    """Top-level fieldnames a tree reads (a child condition reads its table), e.g. to check
    them against the fields a user may read before permission conditions are AND-ed in."""
    return frozenset(c.table or c.field for c in walk(node))
