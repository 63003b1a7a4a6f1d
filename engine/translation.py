"""`_()`: user-facing text in the acting user's language, from the apps' translations/<lang>.csv.

Lookup order for a language like `de-AT`: `de-AT`, then `de`, then the English source text.
Placeholders are positional (`{0}`), filled after translation.

The language of `_()` is this module's own context variable, set by whoever knows the acting
user's language (`engine.context.bind` and `unit_of_work` for a Context): translation depends on
nothing but the catalogs, so every layer may call `_()`.
"""

from __future__ import annotations

import contextvars
import csv
from pathlib import Path
from typing import Any

# language -> {source or "source:context" -> translated}; filled once at startup by the app loader
_catalogs: dict[str, dict[str, str]] = {}
# the language `_()` translates into when no `lang` is given; "en" outside any context
_language: contextvars.ContextVar[str] = contextvars.ContextVar("fw_language", default="en")


def set_language(lang: str) -> contextvars.Token[str]:
    """Make `lang` the language of `_()` in this task until `reset_language(token)`."""
    return _language.set(lang)


def reset_language(token: contextvars.Token[str]) -> None:
    _language.reset(token)


def current_language() -> str:
    return _language.get()


def load_csv(path: Path) -> dict[str, str]:
    """Rows `source,translated[,context]`, no header."""
    table: dict[str, str] = {}
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.reader(fh):
            if len(row) < 2 or not row[0]:
                continue
            key = f"{row[0]}:{row[2]}" if len(row) > 2 and row[2] else row[0]
            table[key] = row[1]
    return table


def register_catalog(lang: str, table: dict[str, str]) -> None:
    _catalogs.setdefault(lang.lower(), {}).update(table)


def clear_catalogs() -> None:
    _catalogs.clear()


def languages() -> list[str]:
    return sorted(_catalogs)


def translate(message: str, lang: str, context: str | None = None) -> str:
    lang = (lang or "en").lower().replace("_", "-")
    candidates = [lang]
    if "-" in lang:
        candidates.append(lang.split("-", 1)[0])
    for code in candidates:
        table = _catalogs.get(code)
        if not table:
            continue
        if context and (hit := table.get(f"{message}:{context}")):
            return hit
        if hit := table.get(message):
            return hit
    return message


def _(message: str, *args: Any, lang: str | None = None, context: str | None = None) -> str:
    """Translate `message` for the current context's language, then fill `{0}`-style placeholders."""
    if lang is None:
        lang = _language.get()
    text = translate(message, lang, context) if lang != "en" or _catalogs.get("en") else message
    return text.format(*map(_clip, args)) if args else text


# a value put into a message (a name, a path, a field's text) is cut there: a message names what went
# wrong, and a 10 KB name sent by a client must not come back several times over in its error body
MAX_ARGUMENT_CHARS = 200


def _clip(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_ARGUMENT_CHARS:
        return value[:MAX_ARGUMENT_CHARS] + "…"
    return value
