"""Printing over HTTP: `/printview` (an HTML page without scripts) and
`fw.utils.print_format.download_pdf` (a PDF whose text is the document's), 403 without `print`,
a failing template is an error page or 417 naming the format and line, never a 500."""

from __future__ import annotations

import io

import httpx
from pypdf import PdfReader

from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from tests.server.conftest import ApiUser, make_user

PDF = "/api/method/fw.utils.print_format.download_pdf"


async def _note(ctx: Context, title: str) -> str:
    async with unit_of_work(ctx):
        return str((await new_doc(ctx, "Test Note", title=title, count=3).insert()).name)


async def _format(ctx: Context, name: str, html: str) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Print Format", print_format_name=name, doc_type="Test Note", html=html).insert()


async def test_printview_renders_the_document(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    name = await _note(ctx, "Printed <note>")
    r = await client.get("/printview", params={"doctype": "Test Note", "name": name}, headers=admin.token)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "Printed &lt;note&gt;" in r.text and "<script" not in r.text
    assert "script-src" not in r.headers["content-security-policy"]
    assert "default-src 'none'" in r.headers["content-security-policy"]


async def test_printview_without_print_right_is_403(client: httpx.AsyncClient, ctx: Context) -> None:
    name = await _note(ctx, "t")
    reader = await make_user(ctx, "reader@example.com", ["Test Reader"])
    r = await client.get("/printview", params={"doctype": "Test Note", "name": name}, headers=reader.token)
    assert r.status_code == 403 and "print" in r.text
    r = await client.get(PDF, params={"doctype": "Test Note", "name": name}, headers=reader.token)
    assert r.status_code == 403 and r.json()["exc_type"] == "PermissionError"


async def test_guest_is_sent_to_login(client: httpx.AsyncClient) -> None:
    r = await client.get("/printview", params={"doctype": "Test Note", "name": "x"}, follow_redirects=False)
    assert r.status_code == 302 and r.headers["location"].startswith("/login?redirect-to=/printview")


async def test_failing_template_names_format_and_line(client: httpx.AsyncClient, ctx: Context,
                                                      admin: ApiUser) -> None:
    name = await _note(ctx, "t")
    await _format(ctx, "Escaper", "<p>a</p>\n<p>b</p>\n{{ ''.__class__.__mro__[1].__subclasses__() }}")
    r = await client.get("/printview", params={"doctype": "Test Note", "name": name, "format": "Escaper"},
                         headers=admin.token)
    assert r.status_code == 417 and "Print Format Escaper failed at line 3" in r.text
    r = await client.get(PDF, params={"doctype": "Test Note", "name": name, "format": "Escaper"}, headers=admin.token)
    assert r.status_code == 417 and "Escaper" in r.text and "line 3" in r.text


async def test_download_pdf(client: httpx.AsyncClient, ctx: Context, admin: ApiUser) -> None:
    name = await _note(ctx, "Quarterly review")
    await _format(ctx, "Plain", "<h1>Note {{ doc.name }}</h1><p>{{ doc.title }}</p>")
    async with unit_of_work(ctx):
        await new_doc(ctx, "Letter Head", letter_head_name="ACME", content="<p>ACME Logistics</p>").insert()
    r = await client.get(PDF, params={"doctype": "Test Note", "name": name, "format": "Plain", "letterhead": "ACME"},
                         headers=admin.token)
    assert r.status_code == 200 and r.headers["content-type"] == "application/pdf"
    assert r.content.startswith(b"%PDF") and ".pdf" in r.headers["content-disposition"]
    text = PdfReader(io.BytesIO(r.content)).pages[0].extract_text()
    assert "Quarterly review" in text and "ACME Logistics" in text and name in text
