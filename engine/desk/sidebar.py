"""The Desk's sidebar: one section per module, listing the doctypes (not child tables) the user may
read and the script reports the user may run, each with its translated label and its route.

A doctype is listed when a role the user was given grants reading it: what every user reads through
the automatic roles (`All`, `Guest`: DocType, Role, File... so that their Link fields work) is
reachable but not listed, or every Employee's sidebar would start with the framework's internals.
Modules come in the order of the apps that define them (apps.txt), then the framework's own; items
are sorted by label within a module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from engine import permissions
from engine.constants import AUTOMATIC_ROLES
from engine.permissions.roles import Grant, rights_for
from engine.query.listing import get_all
from engine.translation import translate

if TYPE_CHECKING:
    from engine.context import Context
    from engine.reports.script_report import ReportDef

CORE_MODULE = "Core"


def slug(doctype: str) -> str:
    """A doctype's route segment: 'Warehouse Violation' → 'warehouse-violation' (Frappe's rule)."""
    return doctype.lower().replace(" ", "-")


def doctype_route(doctype: str) -> str:
    return f"/app/{quote(slug(doctype))}"


def report_route(report: str) -> str:
    return f"/app/query-report/{quote(report)}"


async def runnable_reports(ctx: Context) -> list[ReportDef]:
    """The script reports the user may run (a report role, report permission on its doctype, not disabled)."""
    disabled = set(await get_all(ctx, "Report", filters={"disabled": 1}, pluck="name"))
    roles = await ctx.roles()
    out = []
    for report in ctx.site.apps.reports.values():
        if report.name in disabled or report.execute is None:
            continue
        if not ctx.is_admin and report.roles and not set(report.roles) & roles:
            continue
        if not ctx.site.meta.exists(report.ref_doctype):
            continue
        if await permissions.has_permission(ctx, report.ref_doctype, "report"):
            out.append(report)
    return out


async def build_sidebar(ctx: Context, rights: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """`[{module, label, items: [{type, name, label, route}]}]` for what `rights` lets the user read."""
    registry = ctx.site.meta
    app_order = {app.name: i for i, app in enumerate(ctx.site.apps.apps)}
    modules: dict[str, list[dict[str, Any]]] = {}
    rank: dict[str, int] = {}

    def place(module: str, app: str | None, item: dict[str, Any]) -> None:
        modules.setdefault(module, []).append(item)
        position = app_order.get(app, len(app_order)) if app else len(app_order)
        rank[module] = min(rank.get(module, position), position)

    given = (await ctx.roles()) - AUTOMATIC_ROLES
    for name in registry.names():
        meta = registry.get(name)
        if meta.istable or not rights.get(name, {}).get("read"):
            continue
        if not ctx.is_admin and rights_for(meta, given).get("read") is Grant.NONE:
            continue
        place(meta.module or CORE_MODULE, ctx.site.apps.doctype_app.get(name),
              {"type": "doctype", "name": name, "label": translate(name, ctx.lang), "route": doctype_route(name),
               "issingle": int(meta.issingle)})
    for report in await runnable_reports(ctx):
        module = report.module or registry.get(report.ref_doctype).module or CORE_MODULE
        place(module, report.app, {"type": "report", "name": report.name, "label": translate(report.name, ctx.lang),
                                   "route": report_route(report.name), "ref_doctype": report.ref_doctype})
    ordered = sorted(modules, key=lambda m: (rank[m], m))
    return [{"module": module, "label": translate(module, ctx.lang),
             "items": sorted(modules[module], key=lambda item: (item["type"] != "doctype", item["label"].lower()))}
            for module in ordered]
