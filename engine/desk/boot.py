"""The Desk's boot payload: everything the browser needs before its first request, built once per
page load for the logged-in user (Frappe's `frappe.boot`).

    {
      "user": "reviewer@demo.example.com", "full_name": "HR Reviewer", "user_type": "System User",
      "roles": ["All", "Desk User", "Guest", "HR Reviewer"], "lang": "de",
      "csrf_token": "...",
      "rights": {"Warehouse Violation": {"read": 1, "write": 1, ...}, ...},   # only rights held
      "doctypes": {"Warehouse Violation": {"module": "Workforce Scoring", "issingle": 0,
                                           "is_submittable": 1, "label": "Verstoß"}, ...},
      "sidebar": [{"module": "HR", "label": "HR", "items": [{"type": "doctype", ...}]}, ...],
      "sysdefaults": {"date_format": "dd-mm-yyyy", "time_format": "HH:mm:ss", "number_format": "#,###.##",
                      "float_precision": 3, "currency_precision": 2, "time_zone": "Europe/Berlin",
                      "language": "en"},
      "user_defaults": {"Company": "Acme"},       # the user's is_default User Permissions (Link defaults)
      "unread_notifications": 3,                  # the bell's count (its entries are read when it opens)
      "messages": {"Save": "Speichern", ...},        # the Desk's own strings, translated ones only
      "max_file_size": 10485760,                   # bytes: the browser refuses a bigger upload before sending
      "meta_version": 3, "meta_modified": {"Warehouse Violation": "2025-01-01 00:00:00.000000", ...},
      "app_include_js": [...], "app_include_css": [...],
      ...the `extra` the server adds (asset URLs, realtime path)
    }

`doctypes` lists every doctype that is not a child table (the router tells "not found" from
"not permitted" with it); `rights` and `sidebar` only what the user holds. `meta_modified` is the
`modified` of every doctype's stored DocType record (child tables too) while it matches the meta, and
`meta_version` the meta version (Custom Fields, workflows): a meta bundle the browser cached with the
same stamps is current, so a list or form of a cached doctype costs no meta request.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engine import permissions
from engine.assets import include_urls
from engine.desk.sidebar import build_sidebar
from engine.meta.bundle import meta_stamps
from engine.notifications.log import unread_count
from engine.permissions import user_access
from engine.query.listing import get_value
from engine.translation import translate

if TYPE_CHECKING:
    from engine.context import Context

# System Settings fields of the boot's `sysdefaults`, with the defaults of a site that never saved them
SYSDEFAULT_FIELDS = ("language", "time_zone", "float_precision", "currency_precision", "date_format",
                     "time_format", "number_format")


def local_time_zone() -> str:
    """The server's time zone name (where fw's timestamps are taken): TZ, /etc/localtime, else its abbreviation."""
    configured = os.environ.get("TZ", "").lstrip(":")
    if configured:
        return configured
    try:
        target = os.readlink("/etc/localtime")
    except OSError:
        target = ""
    if "zoneinfo/" in target:
        return target.split("zoneinfo/", 1)[1]
    return datetime.now().astimezone().tzname() or "UTC"


async def sysdefaults(ctx: Context) -> dict[str, Any]:
    """The system's formats and defaults (System Settings, each field's default where unset)."""
    meta = ctx.meta("System Settings")
    stored = await get_value(ctx, "System Settings", None, list(SYSDEFAULT_FIELDS), as_dict=True) or {}
    out: dict[str, Any] = {}
    for name in SYSDEFAULT_FIELDS:
        field = meta.get_field(name)
        value = stored.get(name)
        if value in (None, ""):
            value = field.default if field is not None else None
        if field is not None and field.fieldtype == "Int" and value is not None and value != "":
            value = int(value)
        out[name] = value
    out["time_zone"] = out.get("time_zone") or local_time_zone()
    out["language"] = out.get("language") or "en"
    return out


def translated_messages(lang: str, sources: Iterable[tuple[str, str]]) -> dict[str, str]:
    """`{source (or "source:context"): translation}` for the sources that have a translation in `lang`."""
    out: dict[str, str] = {}
    for source, context in sources:
        translated = translate(source, lang, context or None)
        if translated != source:
            out[f"{source}:{context}" if context else source] = translated
    return out


async def build_boot(ctx: Context, *, csrf_token: str | None, messages: Iterable[tuple[str, str]],
                     extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The boot payload of `ctx.user` (see the module docstring). `messages` are the Desk's own
    (source, context) strings; `extra` keys (the server's asset URLs) are added as they are."""
    record = await get_value(ctx, "User", ctx.user, ["full_name", "user_type"], as_dict=True) or {}
    registry = ctx.site.meta
    rights: dict[str, dict[str, Any]] = {}
    doctypes: dict[str, dict[str, Any]] = {}
    for name in registry.names():
        meta = registry.get(name)
        if meta.istable:
            continue
        doctypes[name] = {"module": meta.module, "issingle": int(meta.issingle),
                          "is_submittable": int(meta.is_submittable), "label": translate(name, ctx.lang)}
        held = await permissions.doctype_rights(ctx, meta)
        if held:
            rights[name] = held
    stamps = await meta_stamps(ctx, [registry.get(name) for name in registry.names()])
    apps = ctx.site.apps.apps
    boot: dict[str, Any] = {
        "user": ctx.user,
        "full_name": record.get("full_name") or ctx.user,
        "user_type": record.get("user_type") or "System User",
        "roles": sorted(await ctx.roles()),
        "lang": ctx.lang,
        "csrf_token": csrf_token,
        "rights": rights,
        "doctypes": doctypes,
        "sidebar": await build_sidebar(ctx, rights),
        "sysdefaults": await sysdefaults(ctx),
        "user_defaults": await user_access.user_defaults(ctx),
        "unread_notifications": await unread_count(ctx),
        "messages": translated_messages(ctx.lang, messages),
        "max_file_size": ctx.site.settings.max_file_size,
        "meta_version": registry.version,
        "meta_modified": {name: stamp["modified"] for name, stamp in stamps.items() if stamp.get("modified")},
        "app_include_js": include_urls(apps, "app_include_js"),
        "app_include_css": include_urls(apps, "app_include_css"),
    }
    boot.update(extra or {})
    return boot
