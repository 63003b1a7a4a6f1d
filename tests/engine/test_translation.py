"""Translations (contract §2.3, §2.5, §4; reference §11): `_()` with positional placeholders,
CSV catalogs with a context column, the request's language (user, then Accept-Language exact and
parent, then English), jobs in the enqueuing user's language, log text in English, and the
framework's own German catalog covering every message of engine/ and server/."""

from __future__ import annotations

import csv
import json
import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine import exceptions as exc
from engine import translation
from engine.context import Context, bind, unit_of_work
from engine.documents.factory import new_doc
from engine.jobs.queue import enqueue
from engine.messages import Extraction, _doctype, _files, _python
from engine.translation import _, load_csv, register_catalog, translate
from server.app import create_app
from server.context import negotiate_language
from tests.server.conftest import make_user
from tests.server.helpers import refused, server_messages

REPO = Path(__file__).resolve().parents[2]
ENGINE_DE = REPO / "engine" / "translations" / "de.csv"
PLACEHOLDER = re.compile(r"\{\d+\}")


@pytest.fixture
def catalogs(monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, str]]:
    """A private copy of the process's catalogs, so a test may register its own rows."""
    copy = {lang: dict(table) for lang, table in translation._catalogs.items()}
    monkeypatch.setattr(translation, "_catalogs", copy)
    return copy


def engine_messages() -> set[str]:
    """Every `_("...")` string of engine/ and server/ (the extractor `fw extract-messages` uses)."""
    out = Extraction()
    for folder in ("engine", "server"):
        for path in _files(REPO / folder, ".py"):
            _python(path, out)
    return {m.source for m in out.messages}


def core_doctype_messages() -> set[str]:
    out = Extraction()
    for path in sorted((REPO / "engine" / "core" / "doctypes").glob("*.json")):
        _doctype(json.loads(path.read_text(encoding="utf-8")), out)
    return {m.source for m in out.messages if not m.source.isdigit()}  # "0".."9" are permlevels


def engine_rows() -> list[list[str]]:
    with ENGINE_DE.open(newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


# -- _() ------------------------------------------------------------------------------------------

def test_both_placeholder_styles(catalogs: dict[str, dict[str, str]], ctx: Context) -> None:
    register_catalog("de", {"Hello {0}, you have {1} notes": "Hallo {0}, Sie haben {1} Notizen"})
    german = ctx.site.context("Administrator", lang="de")
    with bind(german):
        assert _("Hello {0}, you have {1} notes").format("Ada", 3) == "Hallo Ada, Sie haben 3 Notizen"
        assert _("Hello {0}, you have {1} notes", "Ada", 3) == "Hallo Ada, Sie haben 3 Notizen"
    with bind(ctx):  # English: the source text, formatted
        assert _("Hello {0}, you have {1} notes", "Ada", 3) == "Hello Ada, you have 3 notes"
    assert _("Hello {0}, you have {1} notes", "Ada", 3, lang="de") == "Hallo Ada, Sie haben 3 Notizen"


def test_translate_first_then_format(catalogs: dict[str, dict[str, str]]) -> None:
    register_catalog("de", {"Row {0}: {1} is required": "Zeile {0}: {1} wird benötigt"})
    # an argument that happens to be a source text is not translated by the outer call
    assert _("Row {0}: {1} is required", 2, "Row {0}: {1} is required", lang="de") == \
        "Zeile 2: Row {0}: {1} is required wird benötigt"
    # reordered placeholders in a translation still receive the right arguments
    register_catalog("de", {"{0} of {1}": "{1}: {0}"})
    assert _("{0} of {1}", "a", "b", lang="de") == "b: a"


def test_untranslated_text_is_returned_unchanged(catalogs: dict[str, dict[str, str]]) -> None:
    assert _("No such text anywhere {0}", 1, lang="de") == "No such text anywhere 1"
    assert _("Braces {0} without arguments", lang="de") == "Braces {0} without arguments"
    assert translate("Missing", "xx") == "Missing"


def test_csv_rows_with_context(tmp_path: Path, catalogs: dict[str, dict[str, str]]) -> None:
    path = tmp_path / "de.csv"
    path.write_text('Open,Offen,\nOpen,Öffnen,Verb\n"Total, net","Summe, netto"\n\n'
                    'lonely\n,no source\nClose,Schließen\n', encoding="utf-8")
    table = load_csv(path)
    assert table == {"Open": "Offen", "Open:Verb": "Öffnen", "Total, net": "Summe, netto", "Close": "Schließen"}
    register_catalog("de", table)
    assert translate("Open", "de") == "Offen"
    assert translate("Open", "de", context="Verb") == "Öffnen"
    assert translate("Open", "de", context="Unknown") == "Offen"  # falls back to the row without context
    assert _("Open", lang="de", context="Verb") == "Öffnen"
    assert _("Total, net", lang="de") == "Summe, netto"


def test_language_exact_then_parent_then_source(catalogs: dict[str, dict[str, str]]) -> None:
    register_catalog("de", {"Colour": "Farbe", "Cart": "Warenkorb"})
    register_catalog("de-AT", {"Cart": "Einkaufswagerl"})
    assert translate("Cart", "de-AT") == "Einkaufswagerl"  # exact
    assert translate("Cart", "de_at") == "Einkaufswagerl"  # `_` and case do not matter
    assert translate("Colour", "de-AT") == "Farbe"  # parent
    assert translate("Colour", "de-CH") == "Farbe"
    assert translate("Other", "de-AT") == "Other"  # source
    assert translate("Cart", "de") == "Warenkorb"


def test_framework_catalog_is_loaded() -> None:
    assert "de" in translation.languages()
    assert _("{0} is mandatory", "Titel", lang="de") == "Titel ist ein Pflichtfeld"
    assert _("User {0} not found", "x@example.com", lang="de-DE") == "Benutzer x@example.com nicht gefunden"
    assert _("Title", lang="de") == "Titel"  # labels of the core doctypes too
    assert _("{0} is mandatory", "Title", lang="en") == "Title is mandatory"


def test_app_catalog_is_loaded_beside_the_framework_catalog() -> None:
    assert _("Refused by the fixture: {0}", "Z", lang="de") == "Von der Testanwendung abgelehnt: Z"
    assert _("Saved it", lang="de") == "Gespeichert"


# -- the framework's de catalog ------------------------------------------------------------------

def test_every_engine_and_server_message_has_a_german_row() -> None:
    messages = engine_messages()
    assert len(messages) > 100  # the extractor really read the folders
    assert "{0} is mandatory" in messages and "Internal server error" in messages  # engine/ and server/
    rows = {row[0]: row[1] for row in engine_rows()}
    missing = sorted(m for m in messages if not rows.get(m))
    assert not missing, f"add these to engine/translations/de.csv: {missing}"


def test_every_core_doctype_label_has_a_german_row() -> None:
    rows = {row[0] for row in engine_rows()}
    missing = sorted(core_doctype_messages() - rows)
    assert not missing, f"add these to engine/translations/de.csv: {missing}"


def test_every_error_title_has_a_german_row() -> None:
    titles = {cls.title for cls in vars(exc).values() if isinstance(cls, type) and issubclass(cls, exc.FwError)}
    assert {"Error", "Validation Error", "Missing Fields", "Not Found"} <= titles
    rows = {row[0] for row in engine_rows()}
    assert not sorted(titles - rows), f"add these to engine/translations/de.csv: {sorted(titles - rows)}"


def test_german_rows_keep_their_placeholders() -> None:
    for source, translated, *_rest in engine_rows():
        assert sorted(PLACEHOLDER.findall(source)) == sorted(PLACEHOLDER.findall(translated)), source
        assert translated.strip() and translated == translated.strip(), source


def test_german_catalog_format() -> None:
    rows = engine_rows()
    assert all(2 <= len(row) <= 3 for row in rows)
    sources = [row[0] for row in rows]
    assert sources == sorted(sources), "rows are sorted by source"
    assert len(sources) == len(set(sources)), "one row per source"
    assert rows[0][0] != "source"  # no header
    assert ENGINE_DE.read_bytes().endswith(b"\n") and b"\r\n" not in ENGINE_DE.read_bytes()


# -- the request's language -----------------------------------------------------------------------

@pytest.mark.parametrize(("accept", "user_language", "expected"), [
    (None, None, "en"),
    ("de", None, "de"),
    ("de-AT", None, "de"),  # parent of a language with no catalog of its own
    ("de_DE", None, "de"),
    ("fr-FR, de;q=0.5", None, "de"),  # fr has no catalog: the next acceptable one
    ("en-US,de;q=0.8", None, "en"),  # en-US → its parent en comes first
    ("de;q=0.2, en;q=0.9", None, "en"),  # by quality, not by position
    ("*", None, "en"),
    ("xx, yy-ZZ", None, "en"),
    ("en", "de", "de"),  # the user's own language wins
    (None, "DE", "de"),
])
def test_negotiate_language(accept: str | None, user_language: str | None, expected: str) -> None:
    assert negotiate_language(accept, user_language) == expected


def test_exact_language_beats_parent(catalogs: dict[str, dict[str, str]]) -> None:
    register_catalog("de-AT", {"Cart": "Einkaufswagerl"})
    assert negotiate_language("de-AT", None) == "de-at"
    assert negotiate_language("de-CH", None) == "de"


@pytest.fixture
async def client(ctx: Context) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(ctx.site.settings, site=ctx.site)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


async def test_request_language_over_http(client: httpx.AsyncClient, ctx: Context) -> None:
    user = await make_user(ctx, "plain@example.com", ["Test Reader"])
    url = "/api/resource/Test Note/does-not-exist"

    async def message(headers: dict[str, str]) -> str:
        body = refused(await client.get(url, headers={**user.token, **headers}), 404)
        return str(body["errors"][0]["message"])

    assert await message({}) == "Test Note does-not-exist not found"
    assert await message({"Accept-Language": "de-AT,en;q=0.5"}) == "Test Note does-not-exist nicht gefunden"
    german = refused(await client.get(url, headers={**user.token, "Accept-Language": "de"}), 404)
    assert server_messages(german)[-1]["title"] == "Nicht gefunden"  # the error's title too
    assert await message({"Accept-Language": "en-GB,de;q=0.5"}) == "Test Note does-not-exist not found"

    async with unit_of_work(ctx):
        await ctx.db.collection("user").update_one({"_id": user.email}, {"$set": {"language": "de"}})
    ctx.site.forget_roles(user.email)
    assert await message({}) == "Test Note does-not-exist nicht gefunden"
    assert await message({"Accept-Language": "en"}) == "Test Note does-not-exist nicht gefunden"

    # a path no route serves is answered before any context exists: Accept-Language still counts
    unrouted = refused(await client.get("/api/nothing-here", headers={"Accept-Language": "de-CH"}), 404)
    assert unrouted["errors"][0]["message"] == "Nicht gefunden: /api/nothing-here"


# -- jobs and logs --------------------------------------------------------------------------------

async def translated_job(ctx: Context, name: str) -> list[str]:
    return [ctx.lang, _("Report {0} not found", name)]


def translated_sync_job(ctx: Context, name: str) -> list[str]:
    return [ctx.lang, _("User {0} not found", name)]


async def test_jobs_run_in_the_enqueuing_users_language(ctx: Context) -> None:
    german = ctx.site.context("Administrator", lang="de")
    assert await enqueue(german, translated_job, now=True, name="R") == ["de", "Bericht R nicht gefunden"]
    assert await enqueue(german, translated_sync_job, now=True, name="u") == ["de", "Benutzer u nicht gefunden"]
    assert await enqueue(ctx, translated_job, now=True, name="R") == ["en", "Report R not found"]


async def test_log_text_stays_english(client: httpx.AsyncClient, ctx: Context,
                                      caplog: pytest.LogCaptureFixture) -> None:
    admin = await make_user(ctx, "sysman@example.com", ["System Manager"])
    with caplog.at_level(logging.ERROR, logger="fw"):
        r = await client.get("/api/method/fwtest.http_methods.crash",
                             headers={**admin.token, "Accept-Language": "de"})
    assert r.status_code == 500
    body: dict[str, Any] = r.json()
    assert server_messages(body)[-1]["message"] == "Interner Serverfehler"  # what the user sees
    logged = [rec.getMessage() for rec in caplog.records]
    assert "GET /api/method/fwtest.http_methods.crash crashed" in logged  # what the operator reads
    assert not any("Interner" in text or "Fehler" in text for text in logged)

    caplog.clear()
    german = ctx.site.context("Administrator", lang="de")
    with caplog.at_level(logging.WARNING, logger="fw"), pytest.raises(ValueError):
        await enqueue(german, "fwtest.jobs.create_then_fail", now=True, title="t")
    failed = [rec.getMessage() for rec in caplog.records if "failed" in rec.getMessage()]
    assert failed and all("job refused t" in text for text in failed)
    assert not any("fehlgeschlagen" in rec.getMessage() for rec in caplog.records)


async def test_database_errors_are_translated(ctx: Context) -> None:
    german = ctx.site.context("Administrator", lang="de")
    async with unit_of_work(german):
        await new_doc(german, "Role", role_name="Doppelt").insert()
        await new_doc(german, "Test Note", title="a", code="C1").insert()
    with pytest.raises(exc.DuplicateEntryError) as dup:
        async with unit_of_work(german):
            await new_doc(german, "Role", role_name="Doppelt").insert()
    assert dup.value.message == "Rolle Doppelt existiert bereits"
    with pytest.raises(exc.UniqueValidationError) as unique:
        async with unit_of_work(german):
            await new_doc(german, "Test Note", title="b", code="C1").insert()
    assert unique.value.message == "Code muss eindeutig sein (C1 existiert bereits)"
    with pytest.raises(exc.UniqueValidationError) as english:
        async with unit_of_work(ctx):
            await new_doc(ctx, "Test Note", title="b", code="C1").insert()
    assert english.value.message == "Code must be unique (C1 already exists)"
