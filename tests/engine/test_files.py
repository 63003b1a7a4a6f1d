"""Files in the engine: names, deduplicated chunked content, the File row rule (single records,
lists, counts), attaching to documents, deleting with the document, and clean failure, on the real
MongoDB and on the in-memory backend.

Attach fields come from Custom Fields added for the test (`attach_fields`), removed afterwards.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import AsyncIterator
from typing import Any

import pytest

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents.document import Document
from engine.documents.factory import get_doc, new_doc
from engine.files import MaxFileSizeReachedError, names, serving, storage
from engine.files.upload import upload_file
from engine.permissions import check_document, has_permission
from engine.query.listing import count, get_list
from engine.site import Site
from tests.support.custom_fields import drop_custom_fields
from tests.support.users import user_context

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


# -- fixtures and helpers ---------------------------------------------------------------------------

async def _add_attach_fields(ctx: Context) -> None:
    await new_doc(ctx, "Custom Field", dt="Test Note", fieldname="attachment", fieldtype="Attach",
                  label="Attachment", insert_after="title").insert()
    await new_doc(ctx, "Custom Field", dt="Test Order", fieldname="receipt", fieldtype="Attach Image",
                  label="Receipt", insert_after="remarks").insert()


async def _remove_attach_fields(ctx: Context) -> None:
    """Put the session site's DocType records back (as tests/engine/test_migrate.py does)."""
    await drop_custom_fields(ctx.site, ["Test Note", "Test Order"])


@pytest.fixture
async def attach_ctx(ctx: Context) -> AsyncIterator[Context]:
    """`ctx` with Attach fields on Test Note (`attachment`) and Test Order (`receipt`)."""
    await _add_attach_fields(ctx)
    yield ctx
    await _remove_attach_fields(ctx)


@pytest.fixture
async def mctx(memory_site: Site) -> Context:
    ctx = memory_site.context("Administrator")
    await _add_attach_fields(ctx)
    return ctx


async def put(ctx: Context, content: bytes, name: str = "a.txt", **kwargs: Any) -> Document:
    return await upload_file(ctx, content=content, file_name=name, **kwargs)


async def contents(ctx: Context) -> dict[str, dict[str, Any]]:
    return {r["_id"]: r async for r in ctx.db.collection(storage.CONTENTS).find({})}


async def chunks(ctx: Context) -> list[str]:
    return sorted([r["_id"] async for r in ctx.db.collection(storage.CHUNKS).find({}, {"_id": 1})])


async def files(ctx: Context) -> list[dict[str, Any]]:
    return [r async for r in ctx.db.collection("file").find({})]


async def nothing_stored(ctx: Context) -> None:
    assert await files(ctx) == []
    assert await contents(ctx) == {}
    assert await chunks(ctx) == []


# -- names (pure) -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("raw", "clean"), [
    ("report.pdf", "report.pdf"),
    ("../../etc/passwd", "passwd"),
    ("a/b.txt", "b.txt"),
    ("C:\\Users\\x\\evil.txt", "evil.txt"),
    ("x\x00y.txt", "xy.txt"),
    ("line\r\nbreak.txt", "linebreak.txt"),
    ("invoice\u202efdp.exe", "invoicefdp.exe"),  # a right-to-left override cannot disguise the type
    ("what?#%.txt", "what___.txt"),
    ("  many   spaces .txt ", "many spaces .txt"),
    (".env", "env"),
    ("..", ""),
    ("/", ""),
    ("", ""),
    (None, ""),
    ("Cafe\u0301.txt", "Caf\u00e9.txt"),  # NFC: one way to spell a name
])
def test_clean_file_name(raw: Any, clean: str) -> None:
    assert names.clean_file_name(raw) == clean


def test_long_names_are_capped_keeping_the_extension() -> None:
    cleaned = names.clean_file_name("x" * 500 + ".pdf")
    assert len(cleaned) == names.MAX_NAME_LENGTH and cleaned.endswith(".pdf")
    assert names.with_suffix("report.pdf", "a1b2c3") == "reporta1b2c3.pdf"
    assert len(names.with_suffix(cleaned, "a1b2c3")) == names.MAX_NAME_LENGTH


def test_urls_and_types() -> None:
    assert names.local_url_parts("/files/a.txt") == ("a.txt", False)
    assert names.local_url_parts("/private/files/a.txt") == ("a.txt", True)
    for bad in ("/files/../x", "/files/a/b.txt", "/files/", "/etc/passwd", "files/a.txt", "/private/files/.."):
        assert names.local_url_parts(bad) is None, bad
    assert names.is_external_url("https://example.com/a.png") and names.is_external_url("http://u:p@h/x")
    for bad in ("file:///etc/passwd", "javascript:alert(1)", "https://", "https://a b", "https://x\r\nSet-Cookie: a",
                "//example.com/a", "ftp://x/y"):
        assert not names.is_external_url(bad), bad
    assert names.content_type_for("a.PNG") == "image/png"
    assert names.content_type_for("a.unknownext") == "application/octet-stream"
    assert names.is_inline("image/png") and names.is_inline("application/pdf") and names.is_inline("video/mp4")
    for risky in ("text/html", "image/svg+xml", "text/xml", "application/xml", "text/javascript",
                  "application/octet-stream", "application/xhtml+xml"):
        assert not names.is_inline(risky), risky
    header = names.content_disposition('na"me\u00e9.txt', inline=False)
    assert header == "attachment; filename=\"na_me_.txt\"; filename*=UTF-8''na%22me%C3%A9.txt"


# -- upload, deduplication, deletion ----------------------------------------------------------------

async def test_upload_stores_the_content_and_describes_it(ctx: Context) -> None:
    doc = await put(ctx, b"hello world", "Hello.txt", is_private=1)
    digest = hashlib.sha256(b"hello world").hexdigest()
    assert (doc.file_name, doc.file_url, doc.uploaded_url) == ("Hello.txt", "/private/files/Hello.txt",
                                                               "/private/files/Hello.txt")
    assert (doc.is_private, doc.file_size, doc.content_hash, doc.content_type, doc.folder) == (
        1, 11, digest, "text/plain", "Home")
    assert doc.owner == "Administrator" and len(doc.name) == 10  # hash naming
    assert await storage.read(ctx, digest) == b"hello world"
    assert (await contents(ctx))[digest]["refs"] == 1


async def test_same_bytes_are_stored_once_and_each_file_gets_its_own_url(ctx: Context) -> None:
    data = os.urandom(storage.CHUNK_SIZE * 2 + 10)  # three chunks
    first = await put(ctx, data, "same.bin")
    second = await put(ctx, data, "same.bin")
    third = await put(ctx, data, "same.bin")
    other = await put(ctx, data, "other.bin", is_private=1)
    urls = [d.file_url for d in (first, second, third, other)]
    assert len(set(urls)) == 4
    assert urls[:2] == ["/files/same.bin", f"/files/same{first.content_hash[-6:]}.bin"]
    assert urls[2].startswith("/files/same") and urls[2].endswith(".bin")
    assert second.file_name == f"same{first.content_hash[-6:]}.bin"  # Frappe's suffix, in the name too
    stored = await contents(ctx)
    assert list(stored) == [first.content_hash] and stored[first.content_hash]["refs"] == 4
    assert len(await chunks(ctx)) == 3
    assert await storage.read(ctx, first.content_hash) == data


async def test_byte_ranges_across_chunk_boundaries(ctx: Context) -> None:
    data = os.urandom(storage.CHUNK_SIZE * 2 + 100)
    doc = await put(ctx, data, "big.bin")
    content = await storage.stat(ctx.db, doc.content_hash)
    assert content is not None and content.length == len(data)
    size = storage.CHUNK_SIZE
    for first, last in ((0, 0), (size - 1, size), (size - 5, 2 * size + 5), (2 * size, len(data) - 1), (10, 10**9)):
        got = b"".join([part async for part in storage.iter_bytes(ctx.db, content, first, last)])
        assert got == data[first:last + 1], (first, last)
    empty = await put(ctx, b"", "empty.txt")
    assert (empty.file_size, await storage.read(ctx, empty.content_hash)) == (0, b"")


async def test_content_is_deleted_with_its_last_file(ctx: Context) -> None:
    shared = await put(ctx, b"shared bytes", "one.txt")
    again = await put(ctx, b"shared bytes", "two.txt")
    alone = await put(ctx, b"alone", "three.txt")
    await shared.delete()
    stored = await contents(ctx)
    assert stored[again.content_hash]["refs"] == 1 and alone.content_hash in stored
    assert await storage.read(ctx, again.content_hash) == b"shared bytes"
    await again.delete()
    await alone.delete()
    await nothing_stored(ctx)


async def test_files_over_the_size_limit_are_refused(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ctx.site.settings, "max_file_size", 8)
    await put(ctx, b"12345678", "ok.txt")
    with pytest.raises(MaxFileSizeReachedError) as err:
        await put(ctx, b"123456789", "big.txt")
    assert err.value.field == "file"
    assert [f["file_name"] for f in await files(ctx)] == ["ok.txt"]
    assert len(await contents(ctx)) == 1


async def test_bad_names_and_arguments(ctx: Context) -> None:
    doc = await put(ctx, b"x", "../../etc/passwd")
    assert (doc.file_name, doc.file_url) == ("passwd", "/files/passwd")
    for bad in ("..", "/", "\x00", ""):
        with pytest.raises(exc.ValidationError) as err:
            await put(ctx, b"x", bad)
        assert err.value.field == "file_name"
    with pytest.raises(exc.MandatoryError) as err:
        await upload_file(ctx, file_name="x.txt")
    assert err.value.field == "file"
    with pytest.raises(exc.DataError) as err:
        await put(ctx, b"x", "x.txt", is_private="maybe")
    assert err.value.field == "is_private"
    with pytest.raises(exc.PermissionError):
        await put(ctx.site.context("Guest"), b"x", "guest.txt")
    assert len(await files(ctx)) == 1


async def test_url_privacy_and_content_cannot_change(ctx: Context) -> None:
    doc = await put(ctx, b"secret", "s.txt", is_private=1)
    for field, value in (("is_private", 0), ("file_url", "/files/s.txt"), ("content_hash", "0" * 64),
                         ("file_size", 1)):
        loaded = await get_doc(ctx, "File", doc.name)
        loaded.set(field, value)
        with pytest.raises(exc.CannotChangeConstantError) as err:
            await loaded.save()
        assert err.value.field == field
    loaded = await get_doc(ctx, "File", doc.name)
    loaded.file_name = "../renamed.txt"
    await loaded.save()
    assert (loaded.file_name, loaded.file_url) == ("renamed.txt", "/private/files/s.txt")


# -- attaching -----------------------------------------------------------------------------------------

async def test_attaching_needs_write_on_the_document_and_sets_the_field(attach_ctx: Context) -> None:
    ctx = attach_ctx
    owner = await user_context(ctx, "owner@example.com", "Test Owner")
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    mine = await new_doc(owner, "Test Note", title="mine").insert()
    theirs = await new_doc(ctx, "Test Note", title="theirs").insert()

    doc = await put(owner, b"%PDF-1.4", "scan.pdf", doctype="Test Note", docname=mine.name, fieldname="attachment")
    assert (doc.attached_to_doctype, doc.attached_to_name, doc.attached_to_field) == (
        "Test Note", mine.name, "attachment")
    assert (await get_doc(ctx, "Test Note", mine.name)).attachment == "/files/scan.pdf"

    with pytest.raises(exc.PermissionError):  # read access is not enough
        await put(reader, b"x", "r.txt", doctype="Test Note", docname=theirs.name)
    with pytest.raises(exc.PermissionError):  # if_owner write: not on someone else's note
        await put(owner, b"x", "o.txt", doctype="Test Note", docname=theirs.name)
    with pytest.raises(exc.DoesNotExistError):
        await put(owner, b"x", "o.txt", doctype="Test Note", docname="no-such-note")
    with pytest.raises(exc.DoesNotExistError):
        await put(owner, b"x", "o.txt", doctype="No Such Doctype", docname="x")
    with pytest.raises(exc.ValidationError) as err:
        await put(owner, b"x", "o.txt", doctype="Test Note", docname=mine.name, fieldname="title")
    assert err.value.field == "fieldname" and "title" in err.value.message
    with pytest.raises(exc.MandatoryError):
        await put(owner, b"x", "o.txt", doctype="Test Note")
    assert len(await files(ctx)) == 1 and len(await contents(ctx)) == 1


async def test_a_file_set_in_an_attach_field_is_not_deleted_until_the_field_is_cleared(attach_ctx: Context) -> None:
    ctx = attach_ctx
    note = await new_doc(ctx, "Test Note", title="n").insert()
    doc = await put(ctx, b"in use", "used.txt", doctype="Test Note", docname=note.name, fieldname="attachment")
    with pytest.raises(exc.LinkExistsError) as err:
        await (await get_doc(ctx, "File", doc.name)).delete()
    assert "Attachment" in err.value.message and note.name in err.value.message
    link = await upload_file(ctx, file_url=doc.file_url, doctype="Test Note", docname=note.name)
    await (await get_doc(ctx, "File", doc.name)).delete()  # another File still backs the URL
    with pytest.raises(exc.LinkExistsError):
        await (await get_doc(ctx, "File", link.name)).delete()
    stored = await get_doc(ctx, "Test Note", note.name)
    stored.attachment = None
    await stored.save()
    await (await get_doc(ctx, "File", link.name)).delete()
    await nothing_stored(ctx)


async def test_a_failed_attach_leaves_nothing_behind(attach_ctx: Context) -> None:
    ctx = attach_ctx
    customer = await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
    order = await new_doc(ctx, "Test Order", customer=customer.name, posting_date="2026-01-05").insert()
    await order.submit()
    # the File and its content are written, then setting `receipt` on a submitted order fails
    with pytest.raises(exc.UpdateAfterSubmitError):
        await put(ctx, PNG, "receipt.png", doctype="Test Order", docname=order.name, fieldname="receipt")
    await nothing_stored(ctx)


async def test_a_file_record_cannot_be_moved_onto_a_document_one_cannot_write(attach_ctx: Context) -> None:
    ctx = attach_ctx
    owner = await user_context(ctx, "owner@example.com", "Test Owner")
    theirs = await new_doc(ctx, "Test Note", title="theirs").insert()
    doc = await put(owner, b"x", "mine.txt")
    doc.attached_to_doctype, doc.attached_to_name = "Test Note", theirs.name
    with pytest.raises(exc.PermissionError):
        await doc.save()
    with pytest.raises(exc.PermissionError):  # nor created there directly
        await new_doc(owner, "File", file_url="https://example.com/a.png", attached_to_doctype="Test Note",
                      attached_to_name=theirs.name).insert()


# -- who sees which File records ----------------------------------------------------------------------

async def test_file_records_follow_the_owner_or_the_attached_document(ctx: Context) -> None:
    owner = await user_context(ctx, "owner@example.com", "Test Owner")
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    nobody = await user_context(ctx, "nobody@example.com")
    manager = await user_context(ctx, "sm@example.com", "System Manager")
    note = await new_doc(ctx, "Test Note", title="shared").insert()
    on_note = await put(ctx, b"on note", "note.txt", is_private=1, doctype="Test Note", docname=note.name)
    admins = await put(ctx, b"admin's", "admin.txt")
    owners = await put(owner, b"owner's", "owner.txt", is_private=1)

    async def visible(user: Context) -> set[str]:
        rows = await get_list(user, "File", fields=["name"], limit_page_length=0)
        assert await count(user, "File") == len(rows)
        return {r["name"] for r in rows}

    assert await visible(reader) == {on_note.name}  # may read the note, not Administrator's loose file
    assert await visible(owner) == {owners.name}  # Test Owner reads only their own notes
    assert await visible(nobody) == set()
    assert await visible(manager) == {on_note.name, admins.name, owners.name}
    # the same rule for single records, and a public file's record is not public
    assert await has_permission(reader, "File", "read", on_note)
    assert not await has_permission(reader, "File", "read", admins)
    assert not await has_permission(reader, "File", "write", on_note)  # no write on the note
    assert not await has_permission(reader, "File", "delete", on_note)
    assert await has_permission(owner, "File", "delete", owners)
    with pytest.raises(exc.PermissionError):
        await check_document(nobody, await get_doc(ctx, "File", owners.name), "read")
    with pytest.raises(exc.PermissionError):
        await get_list(ctx.site.context("Guest"), "File")


async def test_row_conditions_of_the_attached_doctype_apply(ctx: Context) -> None:
    regional = await user_context(ctx, "regional@example.com", "Test Reader", "Test Regional")
    north = await new_doc(ctx, "Test Customer", customer_name="North Co", region="North").insert()
    south = await new_doc(ctx, "Test Customer", customer_name="South Co", region="South").insert()
    on_north = await put(ctx, b"n", "n.txt", doctype="Test Customer", docname=north.name)
    on_south = await put(ctx, b"s", "s.txt", doctype="Test Customer", docname=south.name)
    rows = await get_list(regional, "File", fields=["name", "attached_to_name"])
    assert rows == [{"name": on_north.name, "attached_to_name": "North Co"}]
    assert await count(regional, "File", filters={"attached_to_doctype": "Test Customer"}) == 1
    assert await has_permission(regional, "File", "read", on_north)
    assert not await has_permission(regional, "File", "read", on_south)


async def test_private_content_follows_the_record_rule(ctx: Context) -> None:
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    nobody = await user_context(ctx, "nobody@example.com")
    note = await new_doc(ctx, "Test Note", title="n").insert()
    private = await put(ctx, b"private", "p.txt", is_private=1, doctype="Test Note", docname=note.name)
    public = await put(ctx, b"public", "pub.txt")
    guest = ctx.site.context("Guest")
    assert (await serving.resolve(guest, "/files/pub.txt")).content.length == 6
    assert (await serving.resolve(reader, private.file_url)).etag == f'"{private.content_hash}"'
    for user in (guest, nobody):
        with pytest.raises(exc.PermissionError):
            await serving.resolve(user, private.file_url)
    with pytest.raises(exc.DoesNotExistError):
        await serving.resolve(reader, "/files/p.txt")  # a private file is not under /files
    with pytest.raises(exc.DoesNotExistError):
        await serving.resolve(reader, "/private/files/missing.txt")
    assert public.file_url == "/files/pub.txt"


# -- linking an existing URL ---------------------------------------------------------------------------

async def test_linking_shares_url_and_content_when_the_file_is_readable(ctx: Context) -> None:
    reader = await user_context(ctx, "reader@example.com", "Test Reader")
    nobody = await user_context(ctx, "nobody@example.com")
    note = await new_doc(ctx, "Test Note", title="n").insert()
    original = await put(ctx, b"linked bytes", "orig.txt", is_private=1, doctype="Test Note", docname=note.name)
    link = await upload_file(reader, file_url=original.file_url, is_private=0)
    assert (link.file_url, link.is_private, link.content_hash, link.uploaded_url) == (
        original.file_url, 1, original.content_hash, None)  # privacy comes from the URL, not the request
    assert (await contents(ctx))[original.content_hash]["refs"] == 2
    await original.delete()
    assert (await serving.resolve(reader, link.file_url)).content.length == 12  # still served, via the link
    with pytest.raises(exc.PermissionError):  # a private URL one cannot read is no key
        await upload_file(nobody, file_url=link.file_url)
    with pytest.raises(exc.DoesNotExistError):
        await upload_file(reader, file_url="/files/nothing-here.txt")
    for bad in ("/etc/passwd", "file:///etc/passwd", "../files/x", "javascript:alert(1)"):
        with pytest.raises(exc.ValidationError) as err:
            await upload_file(reader, file_url=bad)
        assert err.value.field == "file_url", bad
    external = await upload_file(reader, file_url="https://example.com/img/logo.png?v=1")
    assert (external.file_name, external.content_hash, external.file_size) == ("logo.png", None, 0)
    await link.delete()
    assert await contents(ctx) == {} and await chunks(ctx) == []


async def test_website_users_upload_only_documents_and_images(ctx: Context) -> None:
    web = await user_context(ctx, "web@example.com", user_type="Website User")
    assert (await put(web, PNG, "me.png")).content_type == "image/png"
    for name in ("page.html", "x.svg", "run.js", "blob.bin"):
        with pytest.raises(exc.PermissionError):
            await put(web, b"<script>", name)
    desk = await user_context(ctx, "desk@example.com")
    assert (await put(desk, b"<p>", "page.html")).content_type == "text/html"


# -- the document's delete takes its Files ----------------------------------------------------------

async def test_deleting_a_document_deletes_its_files_in_the_same_unit_of_work(ctx: Context) -> None:
    note = await new_doc(ctx, "Test Note", title="doomed").insert()
    a = await put(ctx, b"shared", "a.txt", doctype="Test Note", docname=note.name)
    b = await put(ctx, b"only here", "b.txt", is_private=1, doctype="Test Note", docname=note.name)
    loose = await put(ctx, b"shared", "loose.txt")
    with pytest.raises(RuntimeError):  # a unit of work that fails after the delete keeps everything
        async with unit_of_work(ctx):
            await (await get_doc(ctx, "Test Note", note.name)).delete()
            raise RuntimeError("later failure")
    assert {f["_id"] for f in await files(ctx)} == {a.name, b.name, loose.name}
    await (await get_doc(ctx, "Test Note", note.name)).delete()
    assert [f["_id"] for f in await files(ctx)] == [loose.name]
    assert list(await contents(ctx)) == [loose.content_hash]
    assert (await contents(ctx))[loose.content_hash]["refs"] == 1


async def test_prune_orphans_repairs_the_store(ctx: Context) -> None:
    kept = await put(ctx, b"kept", "kept.txt")
    await ctx.db.collection(storage.CONTENTS).update_one({"_id": kept.content_hash}, {"$set": {"refs": 7}})
    await ctx.db.collection(storage.CONTENTS).insert_one({"_id": "f" * 64, "length": 1, "chunk_size": 1, "refs": 1})
    await ctx.db.collection(storage.CHUNKS).insert_many([{"_id": storage.chunk_id("f" * 64, 0), "data": b"x"},
                                                         {"_id": storage.chunk_id("e" * 64, 0), "data": b"y"}])
    async with unit_of_work(ctx):
        report = await storage.prune_orphans(ctx)
    assert report == {"contents_deleted": 1, "counts_fixed": 1, "chunks_deleted": 1}
    assert list(await contents(ctx)) == [kept.content_hash] and (await contents(ctx))[kept.content_hash]["refs"] == 1
    assert await chunks(ctx) == [storage.chunk_id(kept.content_hash, 0)]


# -- the in-memory backend -------------------------------------------------------------------------

async def test_memory_backend_upload_dedupe_serve_delete(mctx: Context) -> None:
    assert not mctx.db.transactional
    data = os.urandom(storage.CHUNK_SIZE + 1)
    first = await put(mctx, data, "m.bin", is_private=1)
    second = await put(mctx, data, "m.bin")
    assert first.file_url == "/private/files/m.bin" and second.file_url == "/files/m.bin"
    assert (await contents(mctx))[first.content_hash]["refs"] == 2 and len(await chunks(mctx)) == 2
    served = await serving.resolve(mctx.site.context("Guest"), "/files/m.bin")
    assert b"".join([p async for p in storage.iter_bytes(mctx.db, served.content)]) == data
    reader = await user_context(mctx, "reader@example.com", "Test Reader")
    assert await get_list(reader, "File") == []
    await first.delete()
    await second.delete()
    await nothing_stored(mctx)


async def test_memory_backend_cleans_up_a_failed_upload(mctx: Context) -> None:
    customer = await new_doc(mctx, "Test Customer", customer_name="Acme").insert()
    order = await new_doc(mctx, "Test Order", customer=customer.name, posting_date="2026-01-05").insert()
    await order.submit()
    with pytest.raises(exc.UpdateAfterSubmitError):  # no transaction to roll back: the upload undoes itself
        await put(mctx, PNG, "receipt.png", doctype="Test Order", docname=order.name, fieldname="receipt")
    await nothing_stored(mctx)
    note = await new_doc(mctx, "Test Note", title="n").insert()
    await put(mctx, b"a", "a.txt", doctype="Test Note", docname=note.name, fieldname="attachment")
    await note.delete()
    await nothing_stored(mctx)
