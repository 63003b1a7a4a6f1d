"""The list's helpers under Frappe's paths: per-user list settings
(`frappe.model.utils.user_settings.get/save`, engine/desk/user_settings.py) and the sidebar's group-by
counts (`frappe.desk.listview.get_group_by_count`, engine/desk/group_by.py)."""

from __future__ import annotations

from typing import Any

import orjson
from typing_extensions import TypedDict

from engine.apps.whitelisted import whitelist
from engine.context import Context
from engine.desk import assign_to, group_by
from engine.desk import user_settings as settings_store  # `user_settings` is Frappe's argument name
from engine.methods.args import json_arg


class GroupCount(TypedDict, total=False):
    """One group: the field's value (`name`, null for rows without one), its `count`, a Link's `title`."""

    name: Any
    count: int
    title: str


@whitelist(path="fw.model.utils.user_settings.get")
async def get_user_settings(ctx: Context, doctype: str) -> str:
    """The caller's settings of the doctype's list, as JSON text (Frappe's form), "{}" when none."""
    return orjson.dumps(await settings_store.get(ctx, doctype)).decode()


@whitelist(path="fw.model.utils.user_settings.save", methods=["POST"])
async def save_user_settings(ctx: Context, doctype: str, user_settings: Any) -> dict[str, Any]:
    """Merge `user_settings` (an object, or its JSON) into the caller's stored settings of the doctype
    (a key set to null is removed); the settings as stored. At most 64 KB; the doctype must be readable."""
    return await settings_store.save(ctx, doctype, json_arg(user_settings, "user_settings", kinds=(dict,)))


@whitelist(path="fw.desk.listview.get_group_by_count")
async def get_group_by_count(ctx: Context, doctype: str, field: str, current_filters: Any = None) -> list[GroupCount]:
    """How many of the caller's rows matching `current_filters` hold each value of `field` (a Select,
    Link or Check field, or `owner`), the largest groups first, at most 50."""
    filters = json_arg(current_filters, "current_filters") if current_filters is not None else None
    if field == "assigned_to":  # Frappe's "Assigned To" group: the users with an open ToDo on the rows
        # (ignore: its rows are plain dicts holding GroupCount's keys)
        return await assign_to.group_counts(ctx, doctype, filters)  # type: ignore[return-value]
    # (ignore: group_by_count's rows are get_list's plain dicts, holding GroupCount's keys)
    return await group_by.group_by_count(ctx, doctype, field, filters)  # type: ignore[return-value]
