"""DocShare controller (Frappe's): one document shared with one user, or with everyone. Records are
written by `fw.share.add` / `remove` (engine/methods/share.py), which check who may share what; a
change reaches the user's cached shares in every process once it commits."""

from __future__ import annotations

from typing import Any

from engine import exceptions as exc
from engine.core.user_permission import forget_user_access
from engine.documents.document import Document
from engine.translation import _


class DocShare(Document):
    user: Any
    share_doctype: Any
    share_name: Any
    everyone: Any

    async def validate(self) -> None:
        registry = self.ctx.site.meta
        if not isinstance(self.share_doctype, str) or not registry.exists(self.share_doctype):
            raise exc.LinkValidationError(_("DocType {0} not found", self.share_doctype), field="share_doctype")
        if self.everyone:
            self.user = None
        elif not self.user:
            raise exc.MandatoryError(_("Choose a user to share with, or share with everyone"), field="user")

    def on_update(self) -> None:
        self._forget()

    def after_delete(self) -> None:
        self._forget()

    def _forget(self) -> None:
        forget_user_access(self.ctx, "" if self.everyone else str(self.user))
