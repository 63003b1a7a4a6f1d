"""The User controller: `new_password` becomes a hash in a private field, never stored as given.

Rules (contract §2.5):
- a user may read and write their own User document (`self_permission` in
  engine/permissions/core_rules.py, consulted when no DocPerm row grants the right);
- only a System Manager (or Administrator) may create users, or change anyone's roles,
  `enabled`, `user_type` or `email` (a user editing their own document may change their names,
  language, time zone and password, nothing that widens their access);
- `Administrator` and `Guest` always exist: they cannot be deleted or disabled.

Server code that must bypass the System Manager rule (a sign-up flow running as Guest, say) sets
`doc.flags["ignore_permissions"] = True`; requests can never set `flags`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import cache_bus
from engine import exceptions as exc
from engine.constants import PASSWORD_KEY, STANDARD_USERS
from engine.core import password_reset, passwords
from engine.documents.document import Document
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context

MANAGER_ONLY_FIELDS = ("roles", "enabled", "user_type", "email", "api_key")


async def is_user_manager(ctx: Context) -> bool:
    return ctx.is_admin or "System Manager" in await ctx.roles()


def _roles_of(rows: Any) -> list[str]:
    out = []
    for row in rows or []:
        role = row.get("role") if isinstance(row, dict | Document) else None
        if role:
            out.append(str(role))
    return sorted(out)


class User(Document):
    async def validate(self) -> None:
        self.full_name = " ".join(p for p in (self.first_name, self.last_name) if p) or self.email
        await self._check_manager_only_fields()
        if self.name in STANDARD_USERS and not self.is_new() and not self.enabled:
            raise exc.ValidationError(_("User {0} cannot be disabled", self.name), field="enabled")

    async def _check_manager_only_fields(self) -> None:
        if self.flags.get("ignore_permissions") or await is_user_manager(self.ctx):
            return
        if self.is_new():
            raise exc.PermissionError(_("Only a System Manager may create users"))
        before = self.get_doc_before_save()
        assert before is not None
        for field in MANAGER_ONLY_FIELDS:
            if field == "roles":
                changed = _roles_of(self.get("roles")) != _roles_of(before.get("roles"))
            else:
                changed = (self.get(field) or None) != (before.get(field) or None)
            if changed:
                raise exc.PermissionError(
                    _("Only a System Manager may change {0} of a user", _(self.meta.label(field))), field=field)

    def before_save(self) -> None:
        self._take_new_password()

    def before_insert(self) -> None:
        self._take_new_password()

    def _take_new_password(self) -> None:
        new = self._data.pop("new_password", None)
        if new:
            self._data[PASSWORD_KEY] = passwords.hash_password(str(new))

    async def after_insert(self) -> None:
        # the welcome mail with a set-password link (business.md §2.2); not for users that fixtures or
        # the bootstrap create, nor for one created with a password already
        if (self.send_welcome_email and self.enabled and self.email and self.name not in STANDARD_USERS
                and not self.flags.get("in_fixtures") and PASSWORD_KEY not in self._data):
            await password_reset.send_welcome(self.ctx, str(self.name), str(self.email), self.first_name)

    def on_trash(self) -> None:
        if self.name in STANDARD_USERS:
            raise exc.PermissionError(_("User {0} cannot be deleted", self.name))

    def after_delete(self) -> None:
        # a deleted user's sessions end with the deletion: a user created later under the same name
        # must not inherit them
        site, name = self.ctx.site, self.name
        site.forget_roles(name)
        self.ctx.after_commit(lambda: site.sessions.delete_user_sessions(name))

    def on_update(self) -> None:
        site, name = self.ctx.site, self.name
        site.forget_roles(name)
        if not self.enabled:  # a disabled user's sessions end with the transaction that disabled them
            self.ctx.after_commit(lambda: site.sessions.delete_user_sessions(name))
        else:  # roles or language may have changed: every process reloads them once this commits
            self.ctx.after_commit(lambda: cache_bus.announce(site, "user", name))
