"""What MongoDB's profiler saw: the finds a piece of code sent, as the server was asked them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from engine.context import Context


async def profiled_finds(ctx: Context, collection: str, run: Callable[[], Awaitable[None]]) -> list[dict[str, Any]]:
    """MongoDB's profiler entries for the finds `run` sends to `collection` (what the server was asked)."""
    handle = ctx.site.db.handle
    await handle.command("profile", 0)
    await handle["system.profile"].drop()
    await handle.command("profile", 2)
    try:
        await run()
    finally:
        await handle.command("profile", 0)
    entries = await handle["system.profile"].find({"ns": f"{handle.name}.{collection}", "op": "query"}).to_list(None)
    await handle["system.profile"].drop()  # the suite's per-test cleanup cannot write to it
    return entries
