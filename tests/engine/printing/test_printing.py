"""Printing in the engine: the standard layout from the meta (print_hide, formats, child tables),
Print Formats in the Jinja sandbox (escaping, the known escapes, limits), Letter Heads, the `print`
right, the PDF and its URL fetcher."""

from __future__ import annotations

import io
from typing import Any

import pytest
from pypdf import PdfReader

from engine import exceptions as exc
from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.printing import render as render_module
from engine.printing.page import print_page
from engine.printing.pdf import Fetcher, to_pdf
from engine.printing.values import format_number


async def _insert(ctx: Context, doctype: str, **values: Any) -> str:
    async with unit_of_work(ctx):
        return str((await new_doc(ctx, doctype, **values).insert()).name)


async def _format(ctx: Context, name: str, html: str, doc_type: str = "Test Note", **extra: Any) -> str:
    return await _insert(ctx, "Print Format", print_format_name=name, doc_type=doc_type, html=html, **extra)


async def _user(ctx: Context, email: str, roles: list[str]) -> Context:
    async with unit_of_work(ctx):
        for role in roles:
            if not await ctx.db.collection("role").find_one({"_id": role}):
                await new_doc(ctx, "Role", role_name=role).insert()
        await new_doc(ctx, "User", email=email, first_name="U", roles=[{"role": r} for r in roles]).insert()
    return ctx.site.context(email)


async def test_standard_layout_formats_values_and_leaves_out_print_hide(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Property Setter", doc_type="Test Note", field_name="region", property="print_hide",
                      value="1", property_type="Check", doctype_or_field="DocField").insert()
        await new_doc(ctx, "Custom Field", dt="Test Note", fieldname="hidden_extra", label="Hidden Extra",
                      fieldtype="Data", print_hide=1, insert_after="title").insert()
    name = await _insert(ctx, "Test Note", title="<b>Bold</b> note", count=12345, amount=1234.5, is_done=1,
                         due="2026-03-07", region="North", hidden_extra="secret-extra", status="Open")
    page = (await print_page(ctx, "Test Note", name)).html
    assert "&lt;b&gt;Bold&lt;/b&gt; note" in page and "<b>Bold</b>" not in page
    assert "12,345" in page and "1,234.50" in page and "07-03-2026" in page and "Yes" in page
    assert "North" not in page and "secret-extra" not in page


async def test_child_tables_print_as_tables(ctx: Context) -> None:
    await _insert(ctx, "Test Customer", customer_name="ACME")
    name = await _insert(ctx, "Test Order", customer="ACME", posting_date="2026-01-31",
                         items=[{"item": f"Widget {i}", "qty": i, "rate": 2.5} for i in range(1, 4)])
    page = (await print_page(ctx, "Test Order", name)).html
    assert "<th>Item</th><th>Qty</th><th>Rate</th>" in page
    assert "<td>Widget 3</td><td>3</td><td>2.50</td>" in page and "31-01-2026" in page


def test_number_formats() -> None:
    assert format_number(1234567.891, 2, "#.###,##") == "1.234.567,89"
    assert format_number(1234567, 0, "#,##,###.##") == "12,34,567"
    assert format_number(-5, 2, "#,###.##") == "-5.00"


async def test_print_format_escapes_values_and_names_errors(ctx: Context) -> None:
    name = await _insert(ctx, "Test Note", title="<script>alert(1)</script>", count=3)
    await _format(ctx, "Note Letter", "<h1>{{ doc.title }}</h1><p>{{ doc.get_formatted('count') }}</p>")
    page = (await print_page(ctx, "Test Note", name, "Note Letter")).html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>" not in page
    await _format(ctx, "Broken", "line one\n{{ doc.title }}\n{% for x in %}")
    with pytest.raises(exc.ValidationError) as caught:
        await print_page(ctx, "Test Note", name, "Broken")
    assert "Broken" in caught.value.message and "line 3" in caught.value.message


ESCAPES = [
    "{{ ''.__class__.__mro__ }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ cycler.__init__.__globals__.os }}",
    "{{ self._TemplateReference__context }}",
    "{{ request }}",
    "{{ config }}",
    "{{ doc._ctx.site }}",
    "{{ doc._data }}",
    "{{ lipsum.__globals__ }}",
    "{% for i in range(10**9) %}{% endfor %}",
    "{% for i in range(150000) %}{% for j in range(150000) %}{% endfor %}{% endfor %}",
    "{{ 'x' * 10**8 }}",
    "{{ 10 ** 100000000 }}",
    "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}",
    "{{ doc.get.__self__._ctx }}",
    "{{ (doc.get_formatted).__func__.__globals__ }}",
]


@pytest.mark.parametrize("template", ESCAPES)
async def test_sandbox_escapes_are_a_clear_error(ctx: Context, template: str) -> None:
    name = await _insert(ctx, "Test Note", title="t")
    await _format(ctx, "Escape", "<p>intro</p>\n" + template)
    with pytest.raises(exc.ValidationError) as caught:
        await print_page(ctx, "Test Note", name, "Escape")
    assert "Print Format Escape failed" in caught.value.message


def test_output_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render_module, "MAX_OUTPUT", 1000)
    with pytest.raises(exc.ValidationError, match="longer than"):
        render_module.render("Long", "{% for i in range(5000) %}xxxx{% endfor %}", {})


async def test_html_fields_are_sanitised_not_escaped(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Letter Head", letter_head_name="ACME", content="<h2>ACME Ltd</h2><script>x()</script>",
                      footer="<p onclick='x()'>Footer line</p>").insert()
    name = await _insert(ctx, "Test Note", title="t")
    page = (await print_page(ctx, "Test Note", name, None, "ACME")).html
    assert "<h2>ACME Ltd</h2>" in page and "<script>" not in page and "Footer line" in page and "onclick" not in page


async def test_default_letter_head_and_none(ctx: Context) -> None:
    async with unit_of_work(ctx):
        await new_doc(ctx, "Letter Head", letter_head_name="Default", content="<p>DEFAULT HEAD</p>",
                      is_default=1).insert()
    name = await _insert(ctx, "Test Note", title="t")
    assert "DEFAULT HEAD" in (await print_page(ctx, "Test Note", name)).html
    assert "DEFAULT HEAD" not in (await print_page(ctx, "Test Note", name, None, "No Letterhead")).html


async def test_wrong_disabled_or_unknown_format(ctx: Context) -> None:
    name = await _insert(ctx, "Test Note", title="t")
    await _format(ctx, "Order Format", "x", doc_type="Test Order")
    await _format(ctx, "Off", "x", disabled=1)
    with pytest.raises(exc.ValidationError, match="Order Format"):
        await print_page(ctx, "Test Note", name, "Order Format")
    with pytest.raises(exc.ValidationError, match="disabled"):
        await print_page(ctx, "Test Note", name, "Off")
    with pytest.raises(exc.DoesNotExistError, match="Nope"):
        await print_page(ctx, "Test Note", name, "Nope")


async def test_print_right_is_needed(ctx: Context) -> None:
    name = await _insert(ctx, "Test Note", title="t")
    reader = await _user(ctx, "reader@example.com", ["Test Reader"])  # read, no print
    with pytest.raises(exc.PermissionError, match="print"):
        await print_page(reader, "Test Note", name)
    stranger = await _user(ctx, "stranger@example.com", ["Test Category Reader"])
    with pytest.raises(exc.PermissionError):
        await print_page(stranger, "Test Note", name)


async def test_pdf_has_the_text(ctx: Context) -> None:
    name = await _insert(ctx, "Test Note", title="Quarterly note", count=7)
    await _format(ctx, "Remote", "<p>{{ doc.title }}</p><img src='http://127.0.0.1:9/x.png'>"
                  "<img src='https://example.com/y.png'><img src='file:///etc/passwd'>")
    page = await print_page(ctx, "Test Note", name, "Remote")
    pdf = await to_pdf(ctx, page.html)
    assert pdf.startswith(b"%PDF")
    assert "Quarterly note" in PdfReader(io.BytesIO(pdf)).pages[0].extract_text()


def test_fetcher_refuses_everything_but_data_and_site_files() -> None:
    fetcher = Fetcher({"/files/logo.png": (b"PNG", "image/png")})
    assert fetcher("http://print.invalid/files/logo.png").read() == b"PNG"
    assert fetcher("data:text/plain,hi").read() == b"hi"
    for url in ("http://127.0.0.1:9/x", "https://example.com/y.png", "file:///etc/passwd",
                "http://print.invalid/files/other.png"):
        with pytest.raises(ValueError):
            fetcher(url)
    assert len(fetcher.refused) == 4


async def test_pdf_reads_the_sites_own_files(ctx: Context) -> None:
    from engine.files.upload import upload_file
    from engine.printing.pdf import local_files

    png = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                        "1f15c4890000000d49444154789c6360f8ff3f0005fe02fea7d605bb0000000049454e44ae426082")
    async with unit_of_work(ctx):
        public = await upload_file(ctx, content=png, file_name="logo.png", is_private=0)
        private = await upload_file(ctx, content=b"secret", file_name="secret.txt", is_private=1)
    page = (f"<img src='{public.file_url}'><img src=\"http://elsewhere.example{public.file_url}\">"
            f"<a href='{private.file_url}'>x</a><img src='/files/missing.png'>")
    found = await local_files(ctx, page)
    assert found[str(public.file_url)] == (png, "image/png") and str(private.file_url) in found
    assert "/files/missing.png" not in found
    reader = await _user(ctx, "reader@example.com", ["Test Reader"])
    assert str(private.file_url) not in await local_files(reader, page)  # the caller's read right decides
    pdf = await to_pdf(ctx, f"<p>With logo</p><img src='{public.file_url}'>")
    assert pdf.startswith(b"%PDF") and "/Image" in pdf.decode("latin-1")


async def test_an_over_long_page_is_refused_before_rendering(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.printing import pdf as pdf_module

    monkeypatch.setattr(pdf_module, "MAX_HTML", 5000)
    with pytest.raises(exc.ValidationError, match="too long to print"):
        await to_pdf(ctx, "<p>row</p>" * 1000)


def test_an_empty_value_prints_as_nothing() -> None:
    assert render_module.render("Empty", "[{{ empty }}][{{ zero }}]", {"empty": None, "zero": 0}) == "[][0]"


async def test_a_format_prints_in_its_default_print_language(ctx: Context) -> None:
    name = await _insert(ctx, "Test Note", title="t", is_done=1, status="Open")
    await _format(ctx, "German", "<p>{{ _('Yes') }}|{{ doc.get_formatted('is_done') }}</p>",
                  default_print_language="de")
    page = (await print_page(ctx, "Test Note", name, "German")).html
    assert "<p>Ja|Ja</p>" in page and '<html lang="de">' in page
