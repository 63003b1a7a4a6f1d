"""Helpers of the backup and restore tests: a site with something of every kind in it, and a whole
database read as raw BSON for comparison."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from bson.raw_bson import RawBSONDocument

from engine import auth
from engine import db as fwdb
from engine.apps.registry import AppRegistry
from engine.context import Context, unit_of_work
from engine.db import snapshot
from engine.db.snapshot import RAW
from engine.documents.factory import new_doc
from engine.files import storage
from engine.files.upload import upload_file
from engine.sessions import SESSIONS
from engine.settings import Settings
from engine.site import Site

FILE_BYTES = os.urandom(storage.CHUNK_SIZE * 2 + 17)  # three chunks
PASSWORD = "Rest0re-me!"


async def populate(ctx: Context) -> dict[str, Any]:
    """Documents, a naming series, a file of three chunks, a user with a password and an API key."""
    async with unit_of_work(ctx):
        for i in range(5):
            await new_doc(ctx, "Test Series", label=f"series {i}").insert()
        await new_doc(ctx, "Test Note", title="a note to keep").insert()
        await new_doc(ctx, "User", email="kept@example.com", first_name="Kept", new_password=PASSWORD,
                      roles=[{"role": "System Manager"}]).insert()
        file = await upload_file(ctx, content=FILE_BYTES, file_name="kept.bin", is_private=1)
    keys = await auth.generate_keys_for(ctx.site, "kept@example.com")
    return {"file": file.name, "content_hash": file.content_hash, **keys}


async def raw_database(site: Site, *, exclude: tuple[str, ...] = (SESSIONS,)) -> dict[str, Any]:
    """Every collection's documents (raw BSON bytes by `_id`) and indexes (without their `v`/`ns`)."""
    out: dict[str, Any] = {}
    for name in await snapshot.collection_names(site.db):
        if name in exclude:
            continue
        coll = site.db.handle.get_collection(name, codec_options=RAW)
        documents: dict[Any, bytes] = {}
        async for document in coll.find({}):
            assert isinstance(document, RawBSONDocument)
            documents[repr(document["_id"])] = document.raw
        indexes = sorted([sorted((k, repr(v)) for k, v in dict(index).items() if k not in ("v", "ns"))
                          async for index in await site.db.handle[name].list_indexes()])
        out[name] = {"documents": documents, "indexes": indexes}
    return out


@asynccontextmanager
async def other_site(settings: Settings, registry: AppRegistry, name: str) -> AsyncIterator[Site]:
    """An empty database on the session's mongod, as a second site."""
    database = fwdb.connect(settings.mongo_url or "", name)
    await database.drop()
    site = Site(settings, database, registry)
    try:
        yield site
    finally:
        await database.drop()
        await database.close()
