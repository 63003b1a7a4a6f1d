"""User-facing strings of the reference apps: all through `_()` with positional placeholders, never
concatenated, and all translated in translations/de.csv."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import httpx
import pytest

from engine.messages import extract_messages
from engine.site import Site
from engine.translation import load_csv
from tests.apps.conftest import Org, People, api_user, call

APPS = Path(__file__).resolve().parents[2] / "apps"
PLACEHOLDER = re.compile(r"\{[^{}]*\}")


@pytest.mark.parametrize("app", ["hr", "workforce_scoring"])
def test_every_message_has_a_german_translation(app: str) -> None:
    catalog = load_csv(APPS / app / "translations" / "de.csv")
    messages = {m.source for m in extract_messages(APPS / app).messages}
    assert messages, app
    missing = sorted(m for m in messages if not catalog.get(m))
    assert missing == [], f"{app}/translations/de.csv lacks: {missing}"
    for source in messages:  # the same placeholders, so format() fills the translation too
        assert sorted(PLACEHOLDER.findall(catalog[source])) == sorted(PLACEHOLDER.findall(source)), source


@pytest.mark.parametrize("app", ["hr", "workforce_scoring"])
def test_messages_are_literals_with_positional_placeholders(app: str) -> None:
    for path in sorted((APPS / app).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and _is_translate(node.func)):
                continue
            where = f"{path.relative_to(APPS)}:{node.lineno}"
            assert node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str), (
                f"{where}: _() needs a string literal (no concatenation, no f-string)")
            for placeholder in PLACEHOLDER.findall(node.args[0].value):
                assert re.fullmatch(r"\{\d+\}", placeholder), f"{where}: use positional placeholders like {{0}}"


def _is_translate(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "_") or (isinstance(func, ast.Attribute) and func.attr == "_")


async def test_a_german_user_gets_german_messages(client: httpx.AsyncClient, people: People, org: Org,
                                                  ws: Site) -> None:
    german = await api_user(ws.context(), "dora@example.com", ["Department Manager"], language="de")
    r = await call(client, german, "workforce_scoring.api.internal.calculate_for_employee",
                   employee=org.emp("E-1001"), period_type="Monthly", period_value="2024-03")
    assert r.status_code == 403
    assert r.json()["errors"][0]["message"] == "Zugriff verweigert"
    r = await call(client, german, "fw.desk.query_report.run", report_name="Employee Score Report",
                   filters={"period": "2024-03"})
    assert [c["label"] for c in r.json()["message"]["columns"]] == ["Mitarbeiter", "Wert"]
    r = await call(client, people.hr, "workforce_scoring.api.external.receive_data", data="nonsense")
    assert "JSON" in r.json()["errors"][0]["message"]
    r = await client.post("/api/method/workforce_scoring.api.external.receive_data", json={"data": {"a": 1}},
                          headers={**people.hr.token, "Accept-Language": "de-DE"})
    assert r.json()["errors"][0]["message"].startswith("data muss eine Liste")
