"""engine/methods/search.py at the engine level: a custom link query is a whitelisted function like any
other, so a Guest reaches only one that allows guests (Frappe's `is_whitelisted` in search_widget)."""

from __future__ import annotations

import pytest

from engine import exceptions as exc
from engine.methods.search import search_link
from engine.site import Site


async def test_a_guest_runs_no_custom_query_that_is_not_for_guests(site: Site) -> None:
    guest = site.context("Guest")
    # `notify` is whitelisted without allow_guest: it would msgprint and return "done"
    with pytest.raises(exc.PermissionError, match="log in"):
        await search_link(guest, "Test Customer", query="fwtest.http_methods.notify")
    assert guest.messages == []  # it never ran


async def test_a_guest_runs_a_custom_query_for_guests_and_a_user_any(site: Site) -> None:
    # `nothing` allows guests and returns None: no suggestions
    assert await search_link(site.context("Guest"), "Test Customer", query="fwtest.http_methods.nothing") == []
    admin = site.context("Administrator")
    rows = await search_link(admin, "Test Customer", query="fwtest.http_methods.notify")
    assert rows and admin.messages  # it ran
    with pytest.raises(exc.PermissionError, match="not whitelisted"):
        await search_link(admin, "Test Customer", query="fwtest.http_methods.not_there")
