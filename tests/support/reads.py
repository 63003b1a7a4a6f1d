"""Which doctypes the engine reads: every `store.find` from now on, by doctype, in order."""

from __future__ import annotations

from typing import Any

import pytest

from engine.context import Context
from engine.documents import store


def store_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The doctypes `store.find` reads from now on (the list grows as it reads)."""
    seen: list[str] = []
    find = store.find

    async def counted(ctx: Context, meta: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(meta.name)
        return await find(ctx, meta, *args, **kwargs)

    monkeypatch.setattr(store, "find", counted)
    return seen
