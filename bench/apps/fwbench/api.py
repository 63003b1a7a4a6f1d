"""Whitelisted functions the benchmarks call."""

from __future__ import annotations

from typing import Any

from engine import exceptions as exc
from engine.context import Context
from engine.realtime import publish_realtime
from engine.whitelisted import whitelist


@whitelist(methods=["POST"])
async def publish(ctx: Context, event: str, message: Any = None, room: str | None = None,
                  user: str | None = None) -> None:
    """publish_realtime from a request (Administrator only): the realtime benchmark's trigger."""
    if not ctx.is_admin:
        raise exc.PermissionError("Administrator only")
    await publish_realtime(ctx, event, message, room=room, user=user)
