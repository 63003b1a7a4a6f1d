"""The Desk's HTML: the shell of every `/app` page, the login page and the no-access page.

Templates are `string.Template` files in server/desk/templates; every value is HTML-escaped, and the
boot payload goes into a `<script type="application/json">` data block (never executed, so the CSP
allows it) with `<`, `>` and `&` escaped, so no value can end the block. The pages run no inline
script: the CSP (`CSP`) allows scripts only from this origin, never `eval`.
"""

from __future__ import annotations

import html
from functools import lru_cache
from pathlib import Path
from string import Template
from typing import Any
from urllib.parse import quote, urlsplit

import orjson
from starlette.responses import HTMLResponse, RedirectResponse

TEMPLATES = Path(__file__).resolve().parent / "templates"
DEFAULT_TARGET = "/app"
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; "
       "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'")
PAGE_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "SAMEORIGIN",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}
MAX_TARGET_LENGTH = 2000


@lru_cache(maxsize=8)
def _template(name: str) -> Template:
    return Template((TEMPLATES / name).read_text(encoding="utf-8"))


def safe_target(value: str | None, default: str = DEFAULT_TARGET) -> str:
    """`value` if it is a path on this site (`/app/...?x=1`), else `default`: never another origin
    (`//evil.example`, `https://...`, `/\\evil`, `javascript:`), never control characters."""
    if not value or len(value) > MAX_TARGET_LENGTH or not value.startswith("/") or value.startswith("//"):
        return default
    if "\\" in value or any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        return default
    parts = urlsplit(value)
    if parts.scheme or parts.netloc:
        return default
    return value


def login_url(target: str) -> str:
    """`/login?redirect-to=<target>` (the target percent-encoded)."""
    return f"/login?redirect-to={quote(target, safe='/')}"


def redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=302, headers={"X-Content-Type-Options": "nosniff"})


def boot_json(boot: dict[str, Any]) -> str:
    """JSON safe inside a `<script type="application/json">` block."""
    text = orjson.dumps(boot).decode()
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page(name: str, values: dict[str, str], *, raw: dict[str, str] | None = None,
         status_code: int = 200) -> HTMLResponse:
    """Render a template: `values` escaped, `raw` (already safe markup or JSON) as is."""
    fields = {key: html.escape(value, quote=True) for key, value in values.items()}
    fields.update(raw or {})
    return HTMLResponse(_template(name).substitute(fields), status_code=status_code, headers=PAGE_HEADERS)


def card_page(name: str, card_id: str, values: dict[str, str], *, raw: dict[str, str] | None = None,
              status_code: int = 200) -> HTMLResponse:
    """A page of one card (login, forgot and update password): template `name` holds the card's form,
    card.html the page around it, headed by `values["heading"]` (`card_id` names the heading's id)."""
    fields = {key: html.escape(value, quote=True) for key, value in values.items()}
    fields.update(raw or {})
    card = _template(name).substitute(fields)
    return HTMLResponse(_template("card.html").substitute({**fields, "card": card, "card_id": card_id}),
                        status_code=status_code, headers=PAGE_HEADERS)


def stylesheet_links(urls: list[str]) -> str:
    return "\n".join(f'<link rel="stylesheet" href="{html.escape(url, quote=True)}">' for url in urls)


def preload_links(urls: list[str]) -> str:
    return "\n".join(f'<link rel="modulepreload" href="{html.escape(url, quote=True)}">' for url in urls)
