"""engine/methods/dispatch.py: which whitelisted function or document method a call reaches, with
every check (registry, aliases and overrides, Guest, HTTP method, the right on the document), and how
its arguments are taken; at the engine level, without HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from fwtest.doctype.test_note import test_note
from fwtest.http_methods import add, echo, replacement, scale

from engine import exceptions as exc
from engine.apps import whitelisted
from engine.apps.whitelisted import whitelist
from engine.context import Context, unit_of_work
from engine.documents.factory import new_doc
from engine.meta.schema import DocPermSchema
from engine.methods import dispatch
from engine.site import Site


async def _note(ctx: Context, **values: Any) -> str:
    async with unit_of_work(ctx):
        return str((await new_doc(ctx, "Test Note", {"title": "t", **values}).insert()).name)


async def _user(ctx: Context, email: str, roles: list[str]) -> Context:
    async with unit_of_work(ctx):
        for role in roles:
            if not await ctx.db.collection("role").find_one({"_id": role}):
                await new_doc(ctx, "Role", role_name=role).insert()
        await new_doc(ctx, "User", email=email, first_name="u", roles=[{"role": r} for r in roles]).insert()
    return ctx.site.context(email)


@pytest.fixture
def guest_may_write_notes(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """A DocPerm row for Guest on Test Note (the site's metas are rebuilt for every test), and a
    document method that allows guests."""
    meta = site.meta.get("Test Note")
    monkeypatch.setattr(meta, "permissions", [*meta.permissions, DocPermSchema(role="Guest", read=True, write=True)])

    @whitelist(allow_guest=True)
    def greet(self: test_note.TestNote, name: str = "you") -> str:
        return f"hello {name} from {self.title}"

    monkeypatch.setattr(test_note.TestNote, "greet", greet, raising=False)


# -- functions by path ------------------------------------------------------------------------------

def test_resolve_finds_registered_functions_through_aliases_and_overrides(ctx: Context) -> None:
    assert dispatch.resolve(ctx, "fwtest.http_methods.add").fn is add
    assert dispatch.resolve(ctx, "fwtest.http_methods.original").fn is replacement  # hooks.py's override
    assert dispatch.resolve(ctx, "frappe.client.get_list", frappe_aliases=True).path == "fw.client.get_list"
    with pytest.raises(exc.PermissionError, match="not whitelisted"):
        dispatch.resolve(ctx, "frappe.client.get_list", frappe_aliases=False)
    for path in ("os.system", "fwtest.http_methods", "engine.methods.dispatch.resolve", "", "x" * 500):
        with pytest.raises(exc.PermissionError, match="not whitelisted"):
            dispatch.resolve(ctx, path)


def test_resolve_lets_a_guest_reach_only_functions_for_guests(site: Site) -> None:
    guest = site.context("Guest")
    assert dispatch.resolve(guest, "fwtest.http_methods.add").fn is add
    with pytest.raises(exc.PermissionError, match="log in"):
        dispatch.resolve(guest, "fwtest.http_methods.scale")
    assert dispatch.resolve(site.context("Administrator"), "fwtest.http_methods.scale").fn is scale


def test_resolve_checks_the_http_method_when_told(ctx: Context) -> None:
    assert dispatch.resolve(ctx, "fwtest.http_methods.post_only", http_method="POST").path.endswith("post_only")
    assert dispatch.resolve(ctx, "fwtest.http_methods.post_only").path.endswith("post_only")  # (no HTTP: a query)
    with pytest.raises(exc.PermissionError, match="does not allow GET"):
        dispatch.resolve(ctx, "fwtest.http_methods.post_only", http_method="GET")


def test_resolve_in_doctype_looks_in_the_doctypes_modules_only(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    assert dispatch.doctype_modules(ctx.site, "Test Note") == ["fwtest.doctype.test_note.test_note"]
    assert "fw.core.doctype.user.user" in dispatch.doctype_modules(ctx.site, "User")
    info = dispatch.resolve_in_doctype(ctx, "User", "generate_keys", http_method="POST")
    assert info.path == "fw.core.doctype.user.user.generate_keys"
    with pytest.raises(exc.PermissionError, match="does not allow GET"):
        dispatch.resolve_in_doctype(ctx, "User", "generate_keys", http_method="GET")
    module = "fwtest.doctype.test_note.test_note"

    def shout(text: str) -> str:
        return text.upper()

    monkeypatch.setitem(whitelisted._registry, f"{module}.shout",
                        whitelisted.Whitelisted(shout, f"{module}.shout", False, whitelisted.DEFAULT_METHODS))
    assert dispatch.resolve_in_doctype(ctx, "Test Note", "shout").fn is shout
    with pytest.raises(exc.PermissionError, match="log in"):
        dispatch.resolve_in_doctype(ctx.site.context("Guest"), "Test Note", "shout")
    for name in ("bump", "TestNote", "shout.__globals__", "os.system", "__init__", ""):
        with pytest.raises(exc.PermissionError, match="not whitelisted"):
            dispatch.resolve_in_doctype(ctx, "Test Note", name)
    with pytest.raises(exc.PermissionError):
        dispatch.resolve_in_doctype(ctx, "Test Customer", "shout")  # another doctype's module
    with pytest.raises(exc.DoesNotExistError):
        dispatch.resolve_in_doctype(ctx, "No Such Doctype", "shout")


# -- document methods -------------------------------------------------------------------------------

def test_which_methods_a_controller_offers() -> None:
    assert dispatch.right_for("GET") == "read"
    assert {dispatch.right_for(m) for m in ("POST", "PUT", "DELETE", "HEAD")} == {"write"}
    found = dispatch.method_of(test_note.TestNote, "bump")
    assert found is not None and found[1].methods == {"POST"}
    for name in ("not_exposed", "save", "insert", "as_dict", "_load", "__init__", "nope", ""):
        assert dispatch.method_of(test_note.TestNote, name) is None, name
    names = [name for name, _fn, _info in dispatch.document_methods(test_note.TestNote, submittable=False)]
    assert "bump" in names and "describe" in names and "submit" not in names and "not_exposed" not in names
    names = [name for name, _fn, _info in dispatch.document_methods(test_note.TestNote, submittable=True)]
    assert {"submit", "cancel"} <= set(names)


async def test_doc_method_needs_the_right_its_http_method_asks(ctx: Context) -> None:
    name = await _note(ctx, count=1)
    reader = await _user(ctx, "reader@example.com", ["Test Reader"])
    doc, info = await dispatch.doc_method(reader, "GET", "Test Note", name, "describe")
    assert doc.name == name and info.fn is test_note.TestNote.describe
    with pytest.raises(exc.PermissionError):  # POST needs write
        await dispatch.doc_method(reader, "POST", "Test Note", name, "describe")
    nobody = await _user(ctx, "nobody@example.com", [])
    with pytest.raises(exc.PermissionError):
        await dispatch.doc_method(nobody, "GET", "Test Note", name, "describe")
    with pytest.raises(exc.DoesNotExistError):
        await dispatch.doc_method(ctx, "POST", "Test Note", "missing", "bump")
    with pytest.raises(exc.PermissionError, match="does not allow GET"):
        await dispatch.doc_method(ctx, "GET", "Test Note", name, "bump")
    for method in ("not_exposed", "save", "_load", "nope", ""):
        with pytest.raises(exc.PermissionError, match="not whitelisted"):
            await dispatch.doc_method(ctx, "POST", "Test Note", name, method)


async def test_a_guest_runs_only_document_methods_for_guests(site: Site, ctx: Context,
                                                             guest_may_write_notes: None) -> None:
    name = await _note(ctx, count=1)
    guest = site.context("Guest")
    for http_method, method in (("GET", "describe"), ("POST", "bump")):
        with pytest.raises(exc.PermissionError, match="log in"):
            await dispatch.doc_method(guest, http_method, "Test Note", name, method)
    async with unit_of_work(guest):
        doc, result = await dispatch.run_doc_method(guest, "POST", "Test Note", name, "greet", {"name": "G"})
    assert result == "hello G from t" and doc.name == name


async def test_run_doc_method_takes_validated_arguments(ctx: Context) -> None:
    name = await _note(ctx, count=1)
    async with unit_of_work(ctx):
        doc, result = await dispatch.run_doc_method(ctx, "POST", "Test Note", name, "bump",
                                                    {"by": "2", "self": "x", "ctx": "y", "junk": 1})
    assert result == 3 and doc.count == 3
    with pytest.raises(exc.ArgumentTypeError) as raised:
        await dispatch.run_doc_method(ctx, "POST", "Test Note", name, "bump", {"by": "lots"})
    assert raised.value.field == "by"
    assert (await ctx.db.collection("test_note").find_one({"_id": name}))["count"] == 3


# -- arguments --------------------------------------------------------------------------------------

async def test_call_with_arguments(ctx: Context) -> None:
    call = dispatch.call_with_arguments
    assert await call(ctx, dispatch.resolve(ctx, "fwtest.http_methods.add"), {"a": "2", "b": 3, "c": 9}) == 5
    with pytest.raises(exc.ArgumentTypeError, match="Missing argument a") as raised:
        await call(ctx, dispatch.resolve(ctx, "fwtest.http_methods.add"), {})
    assert raised.value.field == "a"
    with pytest.raises(exc.ArgumentTypeError) as raised:
        await call(ctx, dispatch.resolve(ctx, "fwtest.http_methods.add"), {"a": "two"})
    assert raised.value.field == "a"
    # `ctx` is the caller's, never the request's
    assert await call(ctx, dispatch.resolve(ctx, "fwtest.http_methods.scale"), {"value": 2, "ctx": "x"}) == {
        "user": "Administrator", "result": 4.0}
    # **kwargs takes every argument but the reserved ones
    info = dispatch.resolve(ctx, "fwtest.http_methods.echo")
    assert info.fn is echo
    assert await call(ctx, info, {"a": 1, "ignore_permissions": 1, "flags": {}, "self": 1, "ctx": 1}) == {"a": 1}
    assert await call(ctx, dispatch.resolve(ctx, "fwtest.http_methods.takes_flags"),
                      {"ignore_permissions": True, "flags": {"x": 1}}) == {"ignore_permissions": False, "flags": None}
