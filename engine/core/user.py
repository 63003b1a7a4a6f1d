"""The User controller: `new_password` becomes a hash in a private field, never stored as given."""

from __future__ import annotations

from engine.core import passwords
from engine.documents.document import Document

PASSWORD_KEY = "_password_hash"


class User(Document):
    def validate(self) -> None:
        self.full_name = " ".join(p for p in (self.first_name, self.last_name) if p) or self.email

    def before_save(self) -> None:
        self._take_new_password()

    def before_insert(self) -> None:
        self._take_new_password()

    def _take_new_password(self) -> None:
        new = self._data.pop("new_password", None)
        if new:
            self._data[PASSWORD_KEY] = passwords.hash_password(str(new))

    def on_update(self) -> None:
        self.ctx.site.forget_roles(self.name)
