"""A Guest calls a document method only when it allows guests (`@whitelist(allow_guest=True)`), as
Frappe's `is_whitelisted` decides for `run_doc_method`, even on a doctype whose DocPerms let Guest read
and write: v1 `run_method` and v2 `/document/<dt>/<name>/method/<m>` alike."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.meta.schema import DocPermSchema
from engine.site import Site
from tests.server.helpers import insert_notes, ok, refused

V1 = "/api/resource/Test Note"
V2 = "/api/v2/document/Test Note"


@pytest.fixture
def guest_may_write_notes(site: Site, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Test Note with a DocPerm row for Guest (the site's metas are rebuilt for every test), and a
    document method that allows guests."""
    meta = site.meta.get("Test Note")
    monkeypatch.setattr(meta, "permissions", [*meta.permissions, DocPermSchema(role="Guest", read=True, write=True)])

    @whitelist(allow_guest=True)
    def greet(self: object, name: str = "you") -> str:
        return f"hello {name}"

    monkeypatch.setattr(site.apps.controller("Test Note"), "greet", greet, raising=False)
    yield


async def test_a_guest_calls_only_document_methods_for_guests(client: httpx.AsyncClient, ctx: Context,
                                                              guest_may_write_notes: None) -> None:
    [name] = await insert_notes(ctx, {"title": "t", "count": 1})
    assert ok(await client.get(f"{V1}/{name}"))["data"]["title"] == "t"  # the DocPerm lets Guest read
    # `describe` and `bump` are whitelisted, but not for guests
    body = refused(await client.get(f"{V1}/{name}", params={"run_method": "describe"}), 403, "PermissionError")
    assert "log in" in body["_error_message"]
    refused(await client.post(f"{V1}/{name}", json={"run_method": "bump"}), 403, "PermissionError")
    for r in (await client.get(f"{V2}/{name}/method/describe"), await client.post(f"{V2}/{name}/method/bump")):
        assert r.status_code == 403 and r.json()["errors"][0]["type"] == "PermissionError", r.text
    assert (await ctx.db.collection("test_note").find_one({"_id": name}))["count"] == 1  # bump never ran
    # one that allows guests runs, with the right the HTTP method asks for
    assert ok(await client.get(f"{V1}/{name}", params={"run_method": "greet", "name": "G"})) == {"data": "hello G"}
    assert ok(await client.post(f"{V2}/{name}/method/greet"))["data"] == "hello you"
