"""Mail for notifications, assignments and workflow alerts: users become their addresses, and the
mail is queued through `fw.sendmail` (engine/mail/queue.py) in the caller's unit of work, so it is
sent after the commit, or never."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.context import Context
from engine.mail.queue import sendmail
from engine.query import listing


async def addresses(ctx: Context, users_or_addresses: Iterable[str]) -> list[str]:
    """Each user's email (a User's name when its record has none), an address as it is; in order, once."""
    wanted = [u for u in dict.fromkeys(users_or_addresses) if isinstance(u, str) and u.strip()]
    if not wanted:
        return []
    users = {r["name"]: r for r in await listing.get_all(ctx, "User", fields=["name", "email", "enabled"],
                                                          filters=[["name", "in", wanted]])}
    out: list[str] = []
    for entry in wanted:
        record = users.get(entry)
        if record is None:
            if "@" in entry:
                out.append(entry.strip())
        elif record.get("enabled") and entry != "Guest" and "@" in str(record.get("email") or entry):
            out.append(str(record.get("email") or entry))
    return list(dict.fromkeys(out))


async def send(ctx: Context, recipients: Iterable[str], subject: str, message: str, *,
               cc: Iterable[str] = (), **options: Any) -> str | None:
    """Queue one mail to the users or addresses of `recipients`; None when none has an address."""
    to = await addresses(ctx, recipients)
    copies = await addresses(ctx, cc)
    if not to and not copies:
        return None
    return await sendmail(ctx, to, subject, message, cc=copies, **options)
