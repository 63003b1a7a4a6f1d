"""Issue 17 point 4's smaller failures: a cap on `fields` (417) and on the response size (413),
invalid UTF-8 in form bodies (400), names cut in error messages, `Allow` naming only the methods a
path is served with, system doctypes no client can create, and `fields` as a JSON string."""

from __future__ import annotations

import httpx
import pytest

from engine.context import Context, unit_of_work
from engine.documents import one_call as one_call_module
from engine.documents.factory import new_doc
from engine.site import Site
from tests.server.conftest import ApiUser
from tests.server.helpers import client_with, insert_notes, ok, refused
from tests.support.custom_fields import drop_custom_fields
from tests.support.hooks import hide_handlers

NOTE = "/api/resource/Test Note"
M = "/api/method"


# -- fields ---------------------------------------------------------------------------------------

async def test_the_number_of_fields_is_capped(site: Site, ctx: Context, admin: ApiUser,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    await insert_notes(ctx, {"title": "one"})
    async with client_with(site, monkeypatch, max_query_fields=50) as c:
        many = '["' + '", "'.join(f"title as t{i}" for i in range(51)) + '"]'
        body = refused(await c.get(NOTE, params={"fields": many}, headers=admin.token), 417, "DataError")
        assert body["errors"][0]["field"] == "fields" and "51" in body["errors"][0]["message"]
        refused(await c.post(f"{M}/fw.client.get_list", headers=admin.token,
                             json={"doctype": "Test Note", "fields": [f"title as t{i}" for i in range(51)]}), 417)
        refused(await c.get("/api/v2/document/Test Note", params={"fields": many}, headers=admin.token), 417)
        fifty = '["' + '", "'.join(f"title as t{i}" for i in range(50)) + '"]'
        [row] = ok(await c.get(NOTE, params={"fields": fifty}, headers=admin.token))["data"]
        assert len(row) == 50 and row["t49"] == "one"


@pytest.mark.parametrize(("fields", "keys"), [('"*"', None), ('"name, title"', {"name", "title"}),
                                              ('"[\\"title\\"]"', {"title"})])
async def test_fields_as_a_json_string(client: httpx.AsyncClient, ctx: Context, admin: ApiUser, fields: str,
                                       keys: set[str] | None) -> None:
    """Frappe's Python client sends `fields='"*"'` (json.dumps of its default "*"), Frappe accepts it."""
    await insert_notes(ctx, {"title": "json string", "count": 3})
    for r in (await client.get(NOTE, params={"fields": fields}, headers=admin.token),
              await client.get(f"{M}/fw.client.get_list", params={"doctype": "Test Note", "fields": fields},
                               headers=admin.token)):
        [row] = ok(r).get("data") or ok(r)["message"]
        if keys is None:
            assert row["title"] == "json string" and row["count"] == 3
        else:
            assert set(row) == keys
    refused(await client.get(NOTE, params={"fields": '"title'}, headers=admin.token), 417, "DataError")
    refused(await client.get(NOTE, params={"fields": '"[\\"nope\\"]"'}, headers=admin.token), 417, "DataError")


# -- response size --------------------------------------------------------------------------------

async def test_a_response_over_the_limit_is_413(site: Site, ctx: Context, admin: ApiUser,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    await insert_notes(ctx, *({"title": f"note {i}", "body": "x" * 500} for i in range(10)))
    async with client_with(site, monkeypatch, max_response_bytes=4096) as c:
        body = refused(await c.get(NOTE, params={"fields": '["*"]'}, headers=admin.token), 413,
                       "ResponseTooLargeError")
        assert "4096" in body["errors"][0]["message"]
        r = await c.get("/api/v2/document/Test Note", params={"fields": '["*"]'}, headers=admin.token)
        assert r.status_code == 413 and r.json()["errors"][0]["type"] == "ResponseTooLargeError"
        assert len(ok(await c.get(NOTE, params={"limit": 2}, headers=admin.token))["data"]) == 2



async def test_a_write_whose_response_is_over_the_limit_is_not_committed(
        site: Site, ctx: Context, admin: ApiUser, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cap is checked before the unit of work commits: a create, a PUT, a method call that writes
    and a v2 create answered 413 leave the database as it was (they used to commit, then answer 413)."""
    [name] = await insert_notes(ctx, {"title": "small"})
    notes = ctx.db.collection("test_note")
    big = "x" * 5000  # a request well under the body limit, a response over 4096 bytes
    async with client_with(site, monkeypatch, max_response_bytes=4096) as c:
        for r in (await c.post(NOTE, json={"title": "big", "body": big}, headers=admin.token),
                  await c.post("/api/v2/document/Test Note", json={"title": "big", "body": big}, headers=admin.token),
                  await c.post(f"{M}/fw.client.insert", json={"doc": {"doctype": "Test Note", "title": "big",
                                                                        "body": big}}, headers=admin.token),
                  await c.put(f"{NOTE}/{name}", json={"body": big}, headers=admin.token),
                  await c.patch(f"/api/v2/document/Test Note/{name}", json={"body": big}, headers=admin.token)):
            assert r.status_code == 413, (r.request.method, r.request.url, r.status_code, r.text[:300])
            assert r.json()["errors"][0]["type"] == "ResponseTooLargeError"
        assert await notes.count_documents({}) == 1
        assert (await notes.find_one({"_id": name})).get("body") is None
        # under the cap the same writes commit
        ok(await c.put(f"{NOTE}/{name}", json={"body": "y" * 1000}, headers=admin.token))
        assert (await notes.find_one({"_id": name}))["body"] == "y" * 1000


@pytest.mark.parametrize("one_call", [True, False], ids=["one-call update", "ordinary save"])
async def test_a_lone_write_whose_response_is_over_the_limit_is_not_committed_either(
        site: Site, ctx: Context, admin: ApiUser, monkeypatch: pytest.MonkeyPatch, one_call: bool) -> None:
    """A doctype with no hook after its write skips the transaction for a lone write; one whose answer
    might not fit keeps it, so the 413 still leaves the database as it was."""
    hide_handlers(monkeypatch, site.apps, {"Test Reading"})
    if not one_call:  # the ordinary save: read, then a conditional write
        async def no_one_call(*_args: object) -> None:
            return None

        monkeypatch.setattr(one_call_module, "update", no_one_call)
    async with unit_of_work(ctx):
        await new_doc(ctx, "Custom Field", dt="Test Reading", fieldname="notes", fieldtype="Long Text",
                      label="Notes").insert()
    try:
        async with unit_of_work(ctx):
            name = (await new_doc(ctx, "Test Reading", sensor="S-1", date="2026-01-05").insert()).name
        readings = ctx.db.collection("test_reading")
        big = "x" * 5000
        async with client_with(site, monkeypatch, max_response_bytes=4096) as c:
            for r in (await c.post("/api/resource/Test Reading", json={"sensor": "S-2", "date": "2026-01-05",
                                                                       "notes": big}, headers=admin.token),
                      await c.put(f"/api/resource/Test Reading/{name}", json={"notes": big}, headers=admin.token)):
                assert r.status_code == 413, (r.request.method, r.status_code, r.text[:300])
            assert await readings.count_documents({}) == 1
            assert "notes" not in await readings.find_one({"_id": name})
            ok(await c.put(f"/api/resource/Test Reading/{name}", json={"notes": "y" * 100}, headers=admin.token))
            assert (await readings.find_one({"_id": name}))["notes"] == "y" * 100
    finally:
        await drop_custom_fields(site, ["Test Reading"])


# -- invalid UTF-8 --------------------------------------------------------------------------------

@pytest.mark.parametrize("raw", [b"title=%FF%FE", b"title=\xff\xfe", b"data=%7B%22title%22%3A%22%C3%28%22%7D"])
async def test_invalid_utf8_in_a_form_body_is_400(client: httpx.AsyncClient, ctx: Context, admin: ApiUser,
                                                  raw: bytes) -> None:
    r = await client.post(NOTE, content=raw,
                          headers={**admin.token, "Content-Type": "application/x-www-form-urlencoded"})
    body = refused(r, 400, "BadRequestError")
    assert "UTF-8" in body["errors"][0]["message"]
    assert await ctx.db.collection("test_note").count_documents({}) == 0



@pytest.mark.parametrize(("field", "value"), [
    ("title", b"\xff\xfe"),  # a field's value
    ("data", b'{"title": "\xc3\x28"}'),  # inside the `data` JSON field
    ("titl\xe9", b"fine"),  # a field's name (raw Latin-1 in the part header)
])
async def test_invalid_utf8_in_a_multipart_body_is_400(client: httpx.AsyncClient, ctx: Context, admin: ApiUser,
                                                       field: str, value: bytes) -> None:
    """Starlette's multipart parser falls back to Latin-1 for undecodable text (a note titled "ÿþ")."""
    boundary = "fwutf8"
    disposition = f'form-data; name="{field}"'.encode("latin-1")
    body = (f"--{boundary}\r\n".encode() + b"Content-Disposition: " + disposition + b"\r\n\r\n" + value
            + f"\r\n--{boundary}--\r\n".encode())
    headers = {**admin.token, "Content-Type": f"multipart/form-data; boundary={boundary}"}
    for path in (NOTE, "/api/v2/document/Test Note", f"{M}/fw.client.insert"):
        assert "UTF-8" in str(refused(await client.post(path, content=body, headers=headers), 400))
    assert await ctx.db.collection("test_note").count_documents({}) == 0


async def test_invalid_utf8_in_an_uploaded_file_name_is_400(client: httpx.AsyncClient, ctx: Context,
                                                            admin: ApiUser) -> None:
    boundary = "fwutf8"
    body = (f"--{boundary}\r\n".encode() + b'Content-Disposition: form-data; name="file"; filename="a\xff.txt"'
            + b"\r\n\r\ncontent\r\n" + f"--{boundary}--\r\n".encode())
    r = await client.post(f"{M}/upload_file", content=body,
                          headers={**admin.token, "Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert "UTF-8" in refused(r, 400, "BadRequestError")["errors"][0]["message"]
    assert await ctx.db.collection("file").count_documents({}) == 0


async def test_valid_utf8_in_a_multipart_body_is_kept(client: httpx.AsyncClient, admin: ApiUser) -> None:
    r = await client.post(NOTE, files={"title": (None, "Grüße €".encode())}, headers=admin.token)
    assert ok(r)["data"]["title"] == "Grüße €"


async def test_invalid_utf8_in_the_query_string_is_400(client: httpx.AsyncClient, admin: ApiUser) -> None:
    refused(await client.get(f"{NOTE}?fields=%FF", headers=admin.token), 400, "BadRequestError")



async def test_a_name_given_twice_with_different_values_is_400(client: httpx.AsyncClient, ctx: Context,
                                                               admin: ApiUser) -> None:
    """`?as_dict=-1&as_dict=false` was read as its last value (Frappe reads the first): schemathesis'
    negative data was accepted. Different values are refused; the same value repeated is harmless."""
    await insert_notes(ctx, {"title": "one"})
    body = refused(await client.get(f"{NOTE}?as_dict=-1&as_dict=false", headers=admin.token), 400,
                   "BadRequestError")
    assert "as_dict" in body["errors"][0]["message"]
    refused(await client.post(NOTE, content=b"title=a&title=b", headers={
        **admin.token, "Content-Type": "application/x-www-form-urlencoded"}), 400, "BadRequestError")
    assert await ctx.db.collection("test_note").count_documents({}) == 1
    [row] = ok(await client.get(f"{NOTE}?as_dict=1&as_dict=1&fields=%5B%22title%22%5D", headers=admin.token))["data"]
    assert row == {"title": "one"}

async def test_valid_utf8_in_a_form_body_is_kept(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    r = await client.post(NOTE, content="title=Grüße%20€".encode(),
                          headers={**admin.token, "Content-Type": "application/x-www-form-urlencoded"})
    assert ok(r)["data"]["title"] == "Grüße €"
    r = await client.post(NOTE, data={"title": "Ärger"}, headers=admin.token)
    assert ok(r)["data"]["title"] == "Ärger"


# -- names in error messages --------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/api/resource/Test Note/{name}", "/api/v2/document/Test Note/{name}",
                                  "/api/nowhere/{name}"])
async def test_a_long_name_is_cut_in_the_error(client: httpx.AsyncClient, admin: ApiUser, path: str) -> None:
    name = "n" * 10_000
    r = await client.get(path.format(name=name), headers=admin.token)
    assert r.status_code == 404
    assert len(r.content) < 3_000, len(r.content)
    assert "n" * 150 in r.text and "…" in r.text and "n" * 201 not in r.text


# -- Allow ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("path", "allow"), [
    (NOTE, "GET, HEAD, OPTIONS, POST"),
    (f"{NOTE}/x", "DELETE, GET, HEAD, OPTIONS, POST, PUT"),
    ("/api/v2/document/Test Note/x", "DELETE, GET, HEAD, OPTIONS, PATCH, PUT"),
    ("/login", "GET, HEAD, OPTIONS, POST"),
    (f"{M}/fw.client.delete", "DELETE, OPTIONS, POST"),
    (f"{M}/frappe.client.save", "OPTIONS, POST, PUT"),
    (f"{M}/login", "OPTIONS, POST"), (f"{M}/logout", "GET, OPTIONS, POST"),
    ("/api/v2/method/login", "OPTIONS, POST"), (f"{M}/fw.auth.get_csrf_token", "GET, OPTIONS"),
])
async def test_options_and_405_allow_only_served_methods(client: httpx.AsyncClient, path: str, allow: str) -> None:
    r = await client.options(path)
    assert r.status_code == 200 and r.headers["allow"] == allow and r.content == b""
    if "PATCH" not in allow:
        r = await client.patch(path)
        assert r.status_code in (403, 405), r.status_code
        if r.status_code == 405:
            assert r.headers["allow"] == allow


# -- system doctypes ----------------------------------------------------------------------------

@pytest.mark.parametrize("doctype", ["Deleted Document", "Version", "Error Log", "Scheduled Job Log"])
async def test_system_doctypes_cannot_be_created_through_the_api(client: httpx.AsyncClient, ctx: Context,
                                                                 admin: ApiUser, doctype: str) -> None:
    collection = ctx.meta(doctype).collection
    before = await ctx.db.collection(collection).count_documents({})
    refused(await client.post(f"/api/resource/{doctype}", json={}, headers=admin.token), 403, "PermissionError")
    r = await client.post(f"/api/v2/document/{doctype}", json={}, headers=admin.token)
    assert r.status_code == 403
    refused(await client.post(f"{M}/fw.client.insert", json={"doc": {"doctype": doctype}}, headers=admin.token),
            403, "PermissionError")
    refused(await client.post(f"{M}/fw.client.insert_many", json={"docs": [{"doctype": doctype}]},
                              headers=admin.token), 403, "PermissionError")
    assert await ctx.db.collection(collection).count_documents({}) == before


async def test_login_is_served_for_post_only(client: httpx.AsyncClient, admin: ApiUser) -> None:
    """Contract §5: `POST /api/method/login`; another method is a 405 naming POST (it used to try to log
    in with any method, and `Allow` listed them all)."""
    for method in ("GET", "PUT", "DELETE"):
        r = await client.request(method, f"{M}/login", params={"usr": "Administrator", "pwd": "x"})
        assert r.status_code == 405 and r.headers["allow"] == "OPTIONS, POST", (method, r.status_code)
        assert "sid" not in r.cookies


# -- strangers learn nothing from 404s ---------------------------------------------------------------

async def test_a_caller_without_rights_gets_403_whether_or_not_the_document_exists(
        client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    """A Guest (no credentials) asking for a missing Test Note got 404 and for an existing one 403:
    which names exist leaked. Now both are 403 (schemathesis' ignored_auth check); a caller with the
    right still gets 404 for a missing document."""
    [name] = await insert_notes(ctx, {"title": "exists"})
    for method, path in (("GET", f"{NOTE}/{{}}"), ("DELETE", f"{NOTE}/{{}}"), ("PUT", f"{NOTE}/{{}}"),
                         ("GET", "/api/v2/document/Test Note/{}"), ("DELETE", "/api/v2/document/Test Note/{}")):
        for target in (name, "missing-one"):
            r = await client.request(method, path.format(target), json={} if method == "PUT" else None)
            assert r.status_code == 403, (method, path, target, r.status_code, r.text[:200])
    assert await ctx.db.collection("test_note").count_documents({}) == 1
    refused(await client.get(f"{NOTE}/missing-one", headers=admin.token), 404, "DoesNotExistError")
    refused(await client.delete(f"{NOTE}/missing-one", headers=admin.token), 404, "DoesNotExistError")


# -- password fields take text only ----------------------------------------------------------------

@pytest.mark.parametrize("value", [5, True, [1], {"a": 1}, 1.5])
async def test_a_password_that_is_not_text_is_refused(client: httpx.AsyncClient, ctx: Context, admin: ApiUser,
                                                     value: object) -> None:
    """A Password field skipped the type check (it holds a hash once saved): a number or a list was
    hashed as its str() and the request answered 200."""
    r = await client.post(NOTE, json={"title": "x", "secret": value}, headers=admin.token)
    assert refused(r, 417, "FieldTypeError")["errors"][0]["field"] == "secret"
    assert await ctx.db.collection("test_note").count_documents({}) == 0
    ok(await client.post(NOTE, json={"title": "x", "secret": "text"}, headers=admin.token))
