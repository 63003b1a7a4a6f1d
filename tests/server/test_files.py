"""Files over HTTP: `POST /api/method/upload_file` (multipart, Frappe's fields), `GET|HEAD /files/<name>`
and `/private/files/<name>`: headers (type, length, ETag/304, caching, nosniff, attachment for
active content, ranges), permissions, hostile names and bodies (nothing written on any error), the
in-memory backend, and the OpenAPI description (validated and fuzzed with schemathesis).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from engine.context import Context
from engine.documents.factory import get_doc, new_doc
from engine.files import storage
from engine.site import Site
from server.app import create_app
from server.openapi import openapi_document
from tests.engine.test_files import _add_attach_fields, _remove_attach_fields
from tests.server.conftest import ApiUser, make_user
from tests.server.helpers import ok, refused
from tests.server.test_openapi import CHECKS, EXAMPLES, serve_on_this_loop

UPLOAD = "/api/method/upload_file"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


async def upload(client: httpx.AsyncClient, user: ApiUser | None, name: str = "a.txt", content: bytes = b"hello",
                 path: str = UPLOAD, **fields: Any) -> httpx.Response:
    headers = user.token if user else {}
    return await client.post(path, files={"file": (name, content, "application/octet-stream")},
                             data={k: str(v) for k, v in fields.items()}, headers=headers)


def raw_multipart(*parts: tuple[str, str | None, bytes],
                  boundary: str = "fwtestboundary") -> tuple[bytes, dict[str, str]]:
    """A multipart body built by hand (filenames httpx would refuse to send, broken framing)."""
    body = b""
    for name, filename, data in parts:
        disposition = f'form-data; name="{name}"'
        if filename is not None:
            disposition += f'; filename="{filename}"'
        body += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + data + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


@pytest.fixture
async def attach_ctx(ctx: Context) -> AsyncIterator[Context]:
    """`ctx` with Attach fields on Test Note (`attachment`) and Test Order (`receipt`)."""
    await _add_attach_fields(ctx)
    yield ctx
    await _remove_attach_fields(ctx)


async def stored(ctx: Context) -> tuple[int, int, int]:
    """(File records, contents, chunks)."""
    return (await ctx.db.collection("file").count_documents({}),
            await ctx.db.collection(storage.CONTENTS).count_documents({}),
            await ctx.db.collection(storage.CHUNKS).count_documents({}))


# -- upload and serve ---------------------------------------------------------------------------------

async def test_upload_then_serve(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    body = ok(await upload(client, admin, "Report 2024.txt", b"hello files", folder="Home/Attachments"))
    assert set(body) == {"message"}
    doc = body["message"]
    digest = hashlib.sha256(b"hello files").hexdigest()
    assert {k: doc[k] for k in ("doctype", "file_name", "file_url", "is_private", "file_size", "content_hash",
                                "content_type", "folder", "owner")} == {
        "doctype": "File", "file_name": "Report 2024.txt", "file_url": "/files/Report 2024.txt", "is_private": 0,
        "file_size": 11, "content_hash": digest, "content_type": "text/plain", "folder": "Home/Attachments",
        "owner": "Administrator"}
    r = await client.get("/files/Report%202024.txt", headers={"Accept-Encoding": "gzip"})  # no credentials
    assert r.status_code == 200 and r.content == b"hello files"
    assert r.headers["content-type"] == "text/plain"
    assert r.headers["content-length"] == "11" and "content-encoding" not in r.headers  # sent as stored
    assert r.headers["etag"] == f'"{digest}"'
    assert r.headers.get_list("cache-control") == ["public, max-age=300"]  # no second, no-store header
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["content-disposition"].startswith('inline; filename="Report 2024.txt"')
    assert "sandbox" in r.headers["content-security-policy"]
    assert r.headers["accept-ranges"] == "bytes"
    assert await stored(ctx) == (1, 1, 1)


async def test_conditional_and_head_requests(client: httpx.AsyncClient, admin: ApiUser) -> None:
    doc = ok(await upload(client, admin, "c.txt", b"cache me"))["message"]
    etag = f'"{doc["content_hash"]}"'
    for header in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        r = await client.get("/files/c.txt", headers={"If-None-Match": header})
        assert r.status_code == 304 and r.content == b"", header
        assert r.headers["etag"] == etag and r.headers["cache-control"] == "public, max-age=300"
    assert (await client.get("/files/c.txt", headers={"If-None-Match": '"stale"'})).status_code == 200
    head = await client.head("/files/c.txt")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == "8" and head.headers["etag"] == etag
    assert (await client.head("/files/nothing.txt")).status_code == 404


async def test_byte_ranges(client: httpx.AsyncClient, admin: ApiUser) -> None:
    data = bytes(range(256)) * 2000  # 512000 bytes: two chunks
    doc = ok(await upload(client, admin, "r.bin", data))["message"]
    for header, first, last in (("bytes=0-9", 0, 9), ("bytes=261110-261130", 261110, 261130),
                                ("bytes=511990-", 511990, 511999), ("bytes=-5", 511995, 511999),
                                ("bytes=500000-999999", 500000, 511999)):
        r = await client.get("/files/r.bin", headers={"Range": header})
        assert r.status_code == 206, header
        assert r.content == data[first:last + 1], header
        assert r.headers["content-range"] == f"bytes {first}-{last}/{len(data)}"
        assert r.headers["content-length"] == str(last - first + 1)
    r = await client.get("/files/r.bin", headers={"Range": "bytes=600000-"})
    assert r.status_code == 416 and r.headers["content-range"] == f"bytes */{len(data)}"
    for ignored in ("bytes=0-1,5-6", "items=0-1", "bytes=x-y", "bytes=9-1"):
        r = await client.get("/files/r.bin", headers={"Range": ignored})
        assert r.status_code == 200 and len(r.content) == len(data), ignored
    stale = await client.get("/files/r.bin", headers={"Range": "bytes=0-9", "If-Range": '"old"'})
    assert stale.status_code == 200 and len(stale.content) == len(data)
    fresh = await client.get("/files/r.bin", headers={"Range": "bytes=0-9", "If-Range": f'"{doc["content_hash"]}"'})
    assert fresh.status_code == 206


async def test_unreadable_byte_ranges_are_ignored(client: httpx.AsyncClient, admin: ApiUser) -> None:
    """A position is 1 to 64 ASCII digits. Unicode digits (which `str.isdigit` accepts and `int` refuses)
    and longer numbers (`int` refuses more than 4,300 digits) make the Range invalid: ignored, the whole
    file with 200 (RFC 9110 §14.2)."""
    data = b"0123456789"
    ok(await upload(client, admin, "d.txt", data))
    for value in (b"bytes=\xb2-", b"bytes=0-\xb9", b"bytes=-\xb3", b"bytes=\xd9\xa1-",  # superscripts, Arabic-Indic 1
                  b"bytes=" + b"9" * 5000 + b"-", b"bytes=0-" + b"9" * 5000, b"bytes=-" + b"9" * 65,
                  b"bytes=1" + b"0" * 64 + b"-", b"bytes=0-" + b"0" * 65, b"bytes=-", b"bytes= - ", b"bytes=+1-2",
                  b"bytes=0x1-2", b"bytes=1_0-2"):
        r = await client.get("/files/d.txt", headers={"Range": value})
        assert r.status_code == 200 and r.content == data, (value, r.status_code)
        head = await client.head("/files/d.txt", headers={"Range": value})
        assert head.status_code == 200 and head.headers["content-length"] == "10", value
    # 64 digits still read: beyond the file, a range is clamped to it or unsatisfiable
    r = await client.get("/files/d.txt", headers={"Range": "bytes=2-" + "9" * 64})
    assert r.status_code == 206 and r.content == data[2:] and r.headers["content-range"] == "bytes 2-9/10"
    r = await client.get("/files/d.txt", headers={"Range": "bytes=-" + "9" * 64})
    assert r.status_code == 206 and r.content == data
    r = await client.get("/files/d.txt", headers={"Range": "bytes=" + "9" * 64 + "-"})
    assert r.status_code == 416 and r.headers["content-range"] == "bytes */10"
    r = await client.get("/files/d.txt", headers={"Range": "bytes=" + "0" * 63 + "3-" + "0" * 63 + "4"})
    assert r.status_code == 206 and r.content == b"34"


@pytest.mark.parametrize(("name", "content_type"), [
    ("page.html", "text/html"), ("logo.svg", "image/svg+xml"), ("feed.xml", "application/xml"),
    ("app.js", "text/javascript"), ("blob.weird", "application/octet-stream"), ("page.xhtml", "application/xhtml+xml"),
])
async def test_active_content_is_downloaded_never_rendered(client: httpx.AsyncClient, admin: ApiUser, name: str,
                                                           content_type: str) -> None:
    payload = b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(document.cookie)</script></svg>"
    ok(await upload(client, admin, name, payload))
    r = await client.get(f"/files/{name}")
    assert r.status_code == 200 and r.content == payload
    assert r.headers["content-type"] == content_type
    assert r.headers["content-disposition"].startswith(f'attachment; filename="{name}"')
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["content-security-policy"] == "default-src 'none'; style-src 'unsafe-inline'; sandbox"


async def test_images_and_pdfs_show_inline(client: httpx.AsyncClient, admin: ApiUser) -> None:
    ok(await upload(client, admin, "pic.png", PNG))
    ok(await upload(client, admin, "doc.pdf", b"%PDF-1.4"))
    png = await client.get("/files/pic.png")
    assert (png.headers["content-type"], png.headers["content-disposition"].split(";")[0]) == ("image/png", "inline")
    pdf = await client.get("/files/doc.pdf")
    assert pdf.headers["content-disposition"].startswith("inline")
    assert "content-security-policy" not in pdf.headers  # the browsers' PDF viewers break in a sandbox


# -- private files ------------------------------------------------------------------------------------

async def test_private_files_are_permission_checked(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    owner = await make_user(ctx, "owner@example.com", ["Test Owner"])
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    doc = ok(await upload(client, owner, "secret.txt", b"top secret", is_private=1))["message"]
    assert doc["file_url"] == "/private/files/secret.txt" and doc["is_private"] == 1
    r = await client.get("/private/files/secret.txt", headers=owner.token)
    assert r.status_code == 200 and r.content == b"top secret"
    assert r.headers["cache-control"] == "private, no-cache"
    assert (await client.get("/private/files/secret.txt", headers=admin.token)).status_code == 200
    refused(await client.get("/private/files/secret.txt", headers=reader.token), 403, "PermissionError")
    refused(await client.get("/private/files/secret.txt"), 403, "PermissionError")  # Guest
    refused(await client.get("/private/files/missing.txt"), 403, "PermissionError")  # Guest learns nothing
    refused(await client.get("/private/files/missing.txt", headers=reader.token), 404, "DoesNotExistError")
    refused(await client.get("/files/secret.txt", headers=owner.token), 404, "DoesNotExistError")
    # a conditional request is answered only after the permission check
    etag = r.headers["etag"]
    refused(await client.get("/private/files/secret.txt", headers={**reader.token, "If-None-Match": etag}), 403)
    assert (await client.get("/private/files/secret.txt", headers={**owner.token, "If-None-Match": etag})
            ).status_code == 304
    # the record follows the same rule
    refused(await client.get(f"/api/resource/File/{doc['name']}", headers=reader.token), 403)
    assert ok(await client.get("/api/resource/File", headers=reader.token))["data"] == []
    assert ok(await client.get("/api/resource/File", headers=owner.token))["data"] == [{"name": doc["name"]}]


async def test_attach_to_a_document_field(client: httpx.AsyncClient, admin: ApiUser, attach_ctx: Context) -> None:
    ctx = attach_ctx
    owner = await make_user(ctx, "owner@example.com", ["Test Owner"])
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    note = ok(await client.post("/api/resource/Test Note", json={"title": "mine"}, headers=owner.token))["data"]
    doc = ok(await upload(client, owner, "scan.png", PNG, is_private=1, doctype="Test Note", docname=note["name"],
                          fieldname="attachment"))["message"]
    assert (doc["attached_to_doctype"], doc["attached_to_name"], doc["attached_to_field"]) == (
        "Test Note", note["name"], "attachment")
    after = ok(await client.get(f"/api/resource/Test Note/{note['name']}", headers=owner.token))["data"]
    assert after["attachment"] == "/private/files/scan.png"
    # whoever may read the note may read its private file
    assert (await client.get("/private/files/scan.png", headers=reader.token)).content == PNG
    before = await stored(ctx)
    refused(await upload(client, reader, "x.txt", doctype="Test Note", docname=note["name"]), 403, "PermissionError")
    refused(await upload(client, owner, "x.txt", doctype="Test Note", docname="nope"), 404, "DoesNotExistError")
    refused(await upload(client, owner, "x.txt", doctype="No Such Type", docname="x"), 404, "DoesNotExistError")
    body = refused(await upload(client, owner, "x.txt", doctype="Test Note", docname=note["name"], fieldname="title"),
                   417, "ValidationError")
    assert body["errors"][0]["field"] == "fieldname" and "title" in body["errors"][0]["message"]
    assert await stored(ctx) == before
    # deleting the note deletes its files, and the URL stops answering
    ok(await client.delete(f"/api/resource/Test Note/{note['name']}", headers=owner.token), 202)
    assert await stored(ctx) == (0, 0, 0)
    refused(await client.get("/private/files/scan.png", headers=owner.token), 404)


# -- refusals: nothing is written -----------------------------------------------------------------------

async def test_refusals_write_nothing(client: httpx.AsyncClient, admin: ApiUser, ctx: Context,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    refused(await upload(client, None, "g.txt"), 403, "PermissionError")  # Guest
    body = refused(await client.post(UPLOAD, data={"folder": "Home"}, headers=admin.token), 417, "MandatoryError")
    assert body["errors"][0]["field"] == "file" and "file" in body["errors"][0]["message"]
    refused(await client.get(UPLOAD, headers=admin.token), 403, "PermissionError")  # POST only
    body = refused(await upload(client, admin, "x.txt", is_private="perhaps"), 417, "DataError")
    assert body["errors"][0]["field"] == "is_private"
    refused(await upload(client, admin, ".."), 417, "ValidationError")
    # malformed multipart bodies
    for raw, ctype in ((b"--nope\r\nContent-Disposition: form-data\r\n\r\nx\r\n--nope--\r\n",
                        "multipart/form-data; boundary=nope"),
                       (b"garbage", "multipart/form-data"),
                       (b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc',
                        "multipart/form-data; boundary=b")):
        r = await client.post(UPLOAD, content=raw, headers={**admin.token, "Content-Type": ctype})
        refused(r, 400)
    # two files in one request
    body, headers = raw_multipart(("file", "a.txt", b"a"), ("file", "b.txt", b"b"))
    refused(await client.post(UPLOAD, content=body, headers={**admin.token, **headers}), 417, "ValidationError")
    # over FW_MAX_FILE_SIZE: 413, whether the part is measured or the declared length is refused early
    monkeypatch.setattr(ctx.site.settings, "max_file_size", 100)
    body = refused(await upload(client, admin, "big.txt", b"x" * 101), 413, "MaxFileSizeReachedError")
    assert body["errors"][0]["field"] == "file"
    body = refused(await upload(client, admin, "huge.txt", b"x" * (1024 * 1024 + 200)), 413, "MaxFileSizeReachedError")
    ok(await upload(client, admin, "fits.txt", b"x" * 100))
    assert await stored(ctx) == (1, 1, 1)


async def test_hostile_names(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    assert ok(await upload(client, admin, "../../etc/passwd", b"1"))["message"]["file_url"] == "/files/passwd"
    assert ok(await upload(client, admin, "a/b.txt", b"2"))["message"]["file_url"] == "/files/b.txt"
    body, headers = raw_multipart(("file", "nul\x00led\u202e.txt", b"3"))
    doc = ok(await client.post(UPLOAD, content=body, headers={**admin.token, **headers}))["message"]
    assert doc["file_name"] == "nulled.txt"
    renamed = ok(await upload(client, admin, "x.txt", b"4", file_name="..\\..\\win.ini"))["message"]
    assert renamed["file_name"] == "win.ini"
    # serving never leaves the File records: no path, however spelled, reaches anything else (dot
    # segments are percent-encoded so they reach the server as sent)
    for path in ("/files/../etc/passwd", "/files/%2e%2e/%2e%2e/etc/passwd", "/files/a/b.txt", "/files/%00",
                 "/private/files/%2e%2e/%2e%2e/files/passwd", "/files/passwd%00.txt", "/files/%2fetc%2fpasswd",
                 "/files/..%5c..%5cpasswd"):
        r = await client.get(path, headers=admin.token)
        assert r.status_code in (403, 404), (path, r.status_code)
        assert r.content != b"1"
    assert (await client.get("/files/passwd")).content == b"1"
    assert await stored(ctx) == (4, 4, 4)


async def test_link_an_existing_url(client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    original = ok(await upload(client, admin, "o.txt", b"original", is_private=1))["message"]
    refused(await client.post(UPLOAD, json={"file_url": original["file_url"]}, headers=reader.token), 403)
    link = ok(await client.post(UPLOAD, json={"file_url": original["file_url"], "is_private": 0},
                                headers=admin.token))["message"]
    assert (link["file_url"], link["is_private"], link["content_hash"]) == (
        original["file_url"], 1, original["content_hash"])
    external = ok(await client.post(UPLOAD, data={"file_url": "https://example.com/x.png"},
                                    headers=admin.token))["message"]
    assert external["file_url"] == "https://example.com/x.png" and "content_hash" not in external
    for bad in ("/etc/passwd", "file:///etc/passwd", "/files/missing.txt"):
        r = await client.post(UPLOAD, data={"file_url": bad}, headers=admin.token)
        assert r.status_code in (404, 417), (bad, r.text)
    assert await stored(ctx) == (3, 1, 1)


async def test_concurrent_uploads_of_the_same_bytes_and_name(client: httpx.AsyncClient, admin: ApiUser,
                                                             ctx: Context) -> None:
    # they race for one content record and one URL: write conflicts are retried, the unique
    # uploaded_url keeps the URLs apart, and the count of references comes out exact
    data = b"raced" * 1000
    responses = await asyncio.gather(*(upload(client, admin, "race.txt", data) for _ in range(8)))
    docs = [ok(r)["message"] for r in responses]
    assert len({d["file_url"] for d in docs}) == 8
    record = await ctx.db.collection(storage.CONTENTS).find_one({"_id": docs[0]["content_hash"]})
    assert record is not None and record["refs"] == 8
    assert await stored(ctx) == (8, 1, 1)
    for d in docs:
        assert (await client.get(d["file_url"].replace(" ", "%20"))).content == data


async def test_deleting_the_last_user_of_a_content_while_it_is_uploaded_again(
        client: httpx.AsyncClient, admin: ApiUser, ctx: Context) -> None:
    # the delete and the new reference touch the same content record: whatever the interleaving,
    # the content survives exactly when a File still uses it
    for round_ in range(5):
        data = f"round {round_}".encode() * 100
        first = ok(await upload(client, admin, f"first{round_}.txt", data))["message"]
        deleted, again = await asyncio.gather(
            client.delete(f"/api/resource/File/{first['name']}", headers=admin.token),
            upload(client, admin, f"again{round_}.txt", data))
        ok(deleted, 202)
        second = ok(again)["message"]
        assert (await client.get(second["file_url"])).content == data
        record = await ctx.db.collection(storage.CONTENTS).find_one({"_id": second["content_hash"]})
        assert record is not None and record["refs"] == 1


async def test_frappe_paths_and_aliases(client: httpx.AsyncClient, admin: ApiUser) -> None:
    for i, path in enumerate(("/api/method/frappe.handler.upload_file", "/api/method/fw.handler.upload_file",
                              "/api/v1/method/upload_file")):
        assert ok(await upload(client, admin, f"p{i}.txt", path=path))["message"]["file_url"] == f"/files/p{i}.txt"
    # the legacy `POST /` with cmd=upload_file (Frappe's old desk)
    r = await client.post("/", files={"file": ("legacy.txt", b"old", "text/plain")}, data={"cmd": "upload_file"},
                          headers=admin.token)
    assert ok(r)["message"]["file_url"] == "/files/legacy.txt"


async def test_cookie_session_with_csrf(site: Site, ctx: Context) -> None:
    await make_user(ctx, "jane@example.com", ["Test Owner"])
    app = create_app(site.settings, site=site)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as browser:
        ok(await browser.post("/api/method/login", data={"usr": "jane@example.com", "pwd": "pass-1234"}))
        token = ok(await browser.get("/api/method/fw.auth.get_csrf_token"))["message"]
        files = {"file": ("s.txt", b"session", "text/plain")}
        refused(await browser.post(UPLOAD, files=files, data={"is_private": "1"}), 400, "CSRFTokenError")
        doc = ok(await browser.post(UPLOAD, files=files, data={"is_private": "1", "csrf_token": token}))["message"]
        assert (await browser.get(doc["file_url"])).content == b"session"


async def test_german_message(client: httpx.AsyncClient, admin: ApiUser) -> None:
    r = await client.post(UPLOAD, data={}, headers={**admin.token, "Accept-Language": "de"})
    assert refused(r, 417)["errors"][0]["message"] == \
        "Keine Datei angehängt: senden Sie sie im Feld file oder geben Sie file_url an"


# -- the in-memory backend ------------------------------------------------------------------------------

@pytest.fixture
async def memory_client(memory_site: Site) -> AsyncIterator[tuple[httpx.AsyncClient, ApiUser, Context]]:
    ctx = memory_site.context("Administrator")
    await _add_attach_fields(ctx)
    admin = await make_user(ctx, "sm@example.com", ["System Manager"])
    app = create_app(memory_site.settings, site=memory_site)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c:
        yield c, admin, ctx


async def test_memory_backend_over_http(memory_client: tuple[httpx.AsyncClient, ApiUser, Context]) -> None:
    client, admin, ctx = memory_client
    doc = ok(await upload(client, admin, "m.txt", b"in memory", is_private=1))["message"]
    r = await client.get("/private/files/m.txt", headers=admin.token)
    assert r.content == b"in memory" and r.headers["etag"] == f'"{doc["content_hash"]}"'
    assert (await client.get("/private/files/m.txt", headers={**admin.token, "If-None-Match": r.headers["etag"]})
            ).status_code == 304
    customer = await new_doc(ctx, "Test Customer", customer_name="Acme").insert()
    order = await new_doc(ctx, "Test Order", customer=customer.name, posting_date="2026-01-05").insert()
    await order.submit()
    refused(await upload(client, admin, "r.png", PNG, doctype="Test Order", docname=order.name,
                         fieldname="receipt"), 417, "UpdateAfterSubmitError")
    assert await stored(ctx) == (1, 1, 1)  # the failed upload cleaned up after itself
    ok(await client.delete(f"/api/resource/File/{doc['name']}", headers=admin.token), 202)
    assert await stored(ctx) == (0, 0, 0)
    assert (await get_doc(ctx, "Test Order", order.name)).receipt is None


# -- OpenAPI ------------------------------------------------------------------------------------------

async def test_openapi_describes_the_file_routes(site: Site) -> None:
    paths = openapi_document(site)["paths"]
    body = paths["/api/method/upload_file"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert body["properties"]["file"]["format"] == "binary"
    assert {"is_private", "folder", "file_url", "doctype", "docname", "fieldname", "file_name"} <= set(
        body["properties"])
    ok_schema = paths["/api/method/upload_file"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok_schema["properties"]["message"] == {"$ref": "#/components/schemas/File"}
    for path in ("/files/{file_name}", "/private/files/{file_name}"):
        responses = paths[path]["get"]["responses"]
        assert {"200", "206", "304", "403", "404"} <= set(responses)
    assert paths["/files/{file_name}"]["get"]["security"][0] == {}  # public


def _fuzz(schema: Any, base_url: str, headers: dict[str, str], plan: list[tuple[str, str, dict[str, str]]],
          examples: int) -> tuple[Counter[int], list[str]]:
    """Run in a worker thread (the app serves on the test's loop): every operation of `plan` in
    positive and negative mode, each response checked as tests/server/test_openapi.py checks them."""
    statuses: Counter[int] = Counter()
    failures: list[str] = []
    with requests.Session() as session:
        for method, path, path_parameters in plan:
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                strategy = schema[path][method].as_strategy(generation_mode=mode,
                                                            path_parameters=path_parameters or None)

                @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                          suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
                @given(case=strategy)
                def run(case: Any) -> None:
                    response = case.call(base_url=base_url, headers=headers, session=session, timeout=30)
                    statuses[response.status_code] += 1
                    case.validate_response(response, checks=CHECKS, headers=headers)

                try:
                    run()
                except Unsatisfiable:  # nothing to negate (a lone path parameter)
                    continue
                except (Exception, BaseExceptionGroup) as e:
                    failures.append(f"{method} {path} {path_parameters} [{mode.value}]:\n{e}")
    return statuses, failures


async def test_fuzz_file_routes(site: Site, admin: ApiUser, client: httpx.AsyncClient) -> None:
    ok(await upload(client, admin, "seed.txt", b"seed"))
    ok(await upload(client, admin, "private.txt", b"private", is_private=1))
    document = (await client.get("/api/openapi.json")).json()
    schema = schemathesis.openapi.from_dict(document)
    plan = [("POST", "/api/method/upload_file", {}), ("GET", "/files/{file_name}", {}),
            ("GET", "/files/{file_name}", {"file_name": "seed.txt"}), ("GET", "/private/files/{file_name}", {}),
            ("GET", "/private/files/{file_name}", {"file_name": "private.txt"}),
            ("GET", "/api/resource/File", {}), ("POST", "/api/resource/File", {})]
    async with serve_on_this_loop(site) as base_url:
        statuses, failures = await asyncio.to_thread(_fuzz, schema, base_url, admin.token, plan,
                                                     max(EXAMPLES // 2, 20))
    print(f"\nfile routes fuzzed: statuses {dict(sorted(statuses.items()))}")
    assert not failures, "\n\n".join(failures)
    assert statuses[200] > 5 and sum(statuses.values()) > 50, statuses
