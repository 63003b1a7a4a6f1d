"""The Email Account controller: the SMTP password is encrypted with the site's key before it is
stored (never hashed: fw must hand it to the server), and Password fields never leave the engine;
one account at most is the default outgoing one."""

from __future__ import annotations

from engine import auth
from engine import exceptions as exc
from engine.core import passwords
from engine.documents import store
from engine.documents.document import Document
from engine.mail import account, mime
from engine.translation import _


class EmailAccount(Document):
    async def validate(self) -> None:
        self.set("email_id", mime.check_address(str(self.get("email_id") or ""), "email_id"))
        if self.enable_outgoing and not self.smtp_server:
            raise exc.MandatoryError(_("SMTP Server is required to send mail"), field="smtp_server")
        if self.use_tls and self.use_ssl:
            raise exc.ValidationError(_("Choose Use TLS or Use SSL, not both"), field="use_ssl")
        if self.smtp_port is not None and not 0 <= int(self.smtp_port) <= 65535:
            raise exc.ValidationError(_("Port must be between 1 and 65535"), field="smtp_port")
        plain = self._data.get("password")
        if plain and not passwords.is_hashed(str(plain)):
            self._data["password"] = passwords.encrypt(await auth.site_secret(self.ctx.site), str(plain))

    async def on_update(self) -> None:
        if self.default_outgoing:  # one default: the others give it up in the same unit of work
            await store.update_many(self.ctx, self.meta, {"_id": {"$ne": self.name}, "default_outgoing": 1},
                                    {"$set": {"default_outgoing": 0}})
        site = self.ctx.site
        self.ctx.after_commit(lambda: account.configured_again(site))
