"""DocPerm rows → rights for a set of roles: pure functions over Meta, cached per (doctype, roles)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache

from engine.meta.schema import RIGHTS, Meta


class Grant(Enum):
    NONE = 0
    OWNER = 1   # only on documents the user owns (`if_owner`)
    ALL = 2


@dataclass(frozen=True)
class Rights:
    by_right: dict[str, Grant] = field(default_factory=dict)
    readable_levels: frozenset[int] = frozenset({0})
    writable_levels: frozenset[int] = frozenset({0})

    def get(self, right: str, default: Grant = Grant.NONE) -> Grant:
        return self.by_right.get(right, default)


def rights_for(meta: Meta, roles: frozenset[str]) -> Rights:
    return _rights(meta, roles)


@lru_cache(maxsize=4096)
def _rights(meta: Meta, roles: frozenset[str]) -> Rights:
    grants: dict[str, Grant] = {}
    readable: set[int] = set()
    writable: set[int] = set()
    for perm in meta.permissions:
        if perm.role not in roles:
            continue
        if perm.permlevel:
            if perm.read or perm.write:
                readable.add(perm.permlevel)
            if perm.write:
                writable.add(perm.permlevel)
            continue
        level = Grant.OWNER if perm.if_owner else Grant.ALL
        for right in RIGHTS:
            if perm.has(right) and grants.get(right, Grant.NONE).value < level.value:
                grants[right] = level
    if grants.get("create") is Grant.OWNER:
        grants["create"] = Grant.ALL  # if_owner never limits create
    if grants.get("read", Grant.NONE) is not Grant.NONE:
        readable.add(0)
        if grants.get("select", Grant.NONE).value < grants["read"].value:
            grants["select"] = grants["read"]
    if grants.get("write", Grant.NONE) is not Grant.NONE:
        writable.add(0)
    return Rights(grants, frozenset(readable | {0}), frozenset(writable | {0}))
