"""`publish_realtime`: events to socket.io rooms `user:<u>`, `doc:<dt>/<dn>`, `doctype:<dt>`
(`doctype:<dt>:restricted` for readers of only some rows), `all`.

With FW_REDIS_URL, messages go through Redis so clients on every server process receive them
(and workers can publish). Without it, they reach the clients of this process only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import exceptions as exc
from engine.services import Publisher, RedisPublisher  # noqa: F401  (RedisPublisher re-exported)
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context
    from engine.documents.base import BaseDocument
    from engine.meta.schema import Meta
    from engine.site import Site



def channel_for(site: Site) -> str:
    return f"fw-realtime-{site.name}"


def publisher_for(site: Site) -> Publisher | None:
    return site.publisher()


def room_for(ctx: Context, event: str, room: str | None, user: str | None, doctype: str | None,
             docname: str | None) -> str:
    if room:
        return room
    if user:
        return f"user:{user}"
    if event == "msgprint":
        return f"user:{ctx.user}"
    if doctype and docname:
        return f"doc:{doctype}/{docname}"
    if doctype:
        return f"doctype:{doctype}"
    return "all"


async def _emit(site: Site, event: str, message: Any, room: str) -> None:
    await site.emit(event, message, room)


async def publish_realtime(ctx: Context, event: str, message: Any = None, room: str | None = None,
                           user: str | None = None, doctype: str | None = None, docname: str | None = None,
                           after_commit: bool = False) -> None:
    target = room_for(ctx, event, room, user, doctype, docname)
    if after_commit and ctx.uow is not None:
        site = ctx.site

        async def later() -> None:
            await _emit(site, event, message, target)

        ctx.after_commit(later)
        return
    await _emit(ctx.site, event, message, target)


async def publish_progress(ctx: Context, percent: float, title: str | None = None, doctype: str | None = None,
                           docname: str | None = None, description: str | None = None) -> None:
    """Frappe's `publish_progress`: a `progress` event to the acting user, sent at once (a long job
    reports while it runs, not after its commit). `percent` is clamped to 0..100."""
    try:
        value = float(percent)
    except (TypeError, ValueError):
        raise exc.DataError(_("percent must be a number"), field="percent") from None
    value = 0.0 if value != value else min(max(value, 0.0), 100.0)  # NaN counts as no progress
    message: dict[str, Any] = {"percent": value, "title": title, "description": description}
    if doctype and docname:
        message |= {"doctype": doctype, "docname": docname}
    await _emit(ctx.site, "progress", message, room_for(ctx, "progress", None, ctx.user, None, None))


def doctype_room(doctype: str, *, every_row: bool) -> str:
    """The room of a doctype's `list_update`s: `doctype:<dt>` for users who may read every row, and
    a room whose events name no record for those who may read only some (owner, row conditions)."""
    return f"doctype:{doctype}" if every_row else f"doctype:{doctype}:restricted"


def heard(site: Site) -> bool:
    """Whether anyone may hear the site's events (a publisher that listens)."""
    publisher = publisher_for(site)
    return publisher is not None and publisher.listening()


def notify_change(ctx: Context, doc: BaseDocument, *, deleted: bool = False) -> None:
    """`doc_update` to the document's room and `list_update` to its doctype's rooms, after commit.
    A restricted reader hears only that the doctype changed (its list reloads through the
    permission-checked API), never the name or author of a record it may not read."""
    notify_record_change(ctx, doc.meta, doc.name, doc.get("modified"), deleted=deleted)


def notify_record_change(ctx: Context, meta: Meta, name: str, modified: str | None, *,
                         deleted: bool = False) -> None:
    """`notify_change` for a record written without a document (engine/documents/direct_create.py)."""
    # nobody to hear it: no events are built (a client connecting before the commit misses this one,
    # as it misses every change made before it came)
    if meta.issingle or meta.istable or ctx.uow is None or not heard(ctx.site):
        return
    site, doctype, user = ctx.site, meta.name, ctx.user

    async def later() -> None:
        await _emit(site, "doc_update", {"doctype": doctype, "name": name, "modified": modified,
                                         "deleted": int(deleted)}, f"doc:{doctype}/{name}")
        await _emit(site, "list_update", {"doctype": doctype, "name": name, "user": user},
                    doctype_room(doctype, every_row=True))
        await _emit(site, "list_update", {"doctype": doctype}, doctype_room(doctype, every_row=False))

    ctx.after_commit(later)
