"""User Permission controller (Frappe's): one value of a doctype a user is restricted to. A record
names an existing value, says which doctype it applies to when not to all, and is unique per (user,
allow, for_value, applicable_for); a change reaches the user's cached restrictions in every process
once it commits (engine/permissions/user_access.py)."""

from __future__ import annotations

from typing import Any

from engine import cache_bus
from engine import exceptions as exc
from engine.documents import store
from engine.documents.document import Document
from engine.translation import _


class UserPermission(Document):
    user: Any
    allow: Any
    for_value: Any
    is_default: Any
    apply_to_all_doctypes: Any
    applicable_for: Any
    hide_descendants: Any

    async def validate(self) -> None:
        registry = self.ctx.site.meta
        if not isinstance(self.allow, str) or not registry.exists(self.allow):
            raise exc.LinkValidationError(_("DocType {0} not found", self.allow), field="allow")
        target = registry.get(self.allow)
        if target.istable or target.issingle:
            raise exc.ValidationError(_("{0} is a child or single doctype: it has no values to allow", self.allow),
                                      field="allow")
        if not isinstance(self.for_value, str) or not self.for_value \
                or await store.load(self.ctx, target, self.for_value, {"_id": 1}) is None:
            raise exc.LinkValidationError(_("Could not find {0}: {1}", _(self.allow), self.for_value),
                                          field="for_value")
        if self.apply_to_all_doctypes:
            self.applicable_for = None
        elif not self.applicable_for:
            raise exc.MandatoryError(_("Applicable For is required when the permission does not apply to all "
                                       "document types"), field="applicable_for")
        elif not registry.exists(str(self.applicable_for)):
            raise exc.LinkValidationError(_("DocType {0} not found", self.applicable_for), field="applicable_for")
        if self.hide_descendants and not target.is_tree:
            self.hide_descendants = 0
        await self._refuse_duplicate()
        if self.is_default:
            await self._refuse_second_default()

    async def _refuse_duplicate(self) -> None:
        query = {"user": self.user, "allow": self.allow, "for_value": self.for_value,
                 "applicable_for": {"$in": [None, ""]} if not self.applicable_for else self.applicable_for,
                 "_id": {"$ne": self.name}}
        if await store.find_one(self.ctx, self.meta, query, {"_id": 1}) is not None:
            raise exc.DuplicateEntryError(
                _("User permission already exists: {0} may see {1} {2}", self.user, _(self.allow), self.for_value),
                field="for_value")

    async def _refuse_second_default(self) -> None:
        query = {"user": self.user, "allow": self.allow, "is_default": 1, "_id": {"$ne": self.name}}
        other = await store.find_one(self.ctx, self.meta, query, {"for_value": 1})
        if other is not None:
            raise exc.ValidationError(_("{0} already has a default {1}: {2}", self.user, _(self.allow),
                                        other.get("for_value")), field="is_default")

    def on_update(self) -> None:
        self._forget()

    def after_delete(self) -> None:
        self._forget()

    def _forget(self) -> None:
        forget_user_access(self.ctx, str(self.user))


def forget_user_access(ctx: Any, user: str) -> None:
    """Drop `user`'s cached User Permissions and shares here now, and in every process once this
    commits ("" for every user: a share with everyone changed)."""
    site = ctx.site
    site.forget_roles(user)

    async def announce() -> None:
        await cache_bus.announce(site, "user", user)

    ctx.after_commit(announce)
