"""Putting the session site back after a test that added Custom Fields."""

from __future__ import annotations

from collections.abc import Iterable

from engine.migrate import sync_doctype
from engine.site import Site


async def drop_custom_fields(site: Site, doctypes: Iterable[str]) -> None:
    """Delete every Custom Field, tell the meta, and re-sync the DocType records (and indexes) of
    `doctypes` to their apps' definitions: the `doctype` collection outlives each test."""
    await site.db.collection("custom_field").delete_many({})
    await site.meta.bump()
    for doctype in doctypes:
        await sync_doctype(site, doctype)
