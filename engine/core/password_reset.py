"""Passwords by mail: reset links, welcome links, and setting a new password (business.md §2.2).

A link carries a random key (256 bits); the User record keeps only its SHA-256 and its expiry
(`RESET_KEY`), so a database reader cannot use a pending link. A key works once: setting the
password removes it. Asking for a link answers the same whether or not the user exists, and is
rate-limited per name asked for and per address (`auth.throttle_password_reset`).
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from zxcvbn import zxcvbn

from engine import auth
from engine import exceptions as exc
from engine.constants import PASSWORD_KEY, RESET_KEY
from engine.core import passwords
from engine.documents import store
from engine.documents.factory import get_doc
from engine.mail import queue as mail
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context

MAX_PASSWORD_LENGTH = 512  # what login accepts
DEFAULT_MIN_SCORE = 2
NO_LINK = ("Administrator", "Guest")  # no reset by mail for these (Administrator's is set by the operator)
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def site_root(ctx: Context) -> str:
    """The site's public URL for links in mails: FW_SITE_URL; without it, the URL the request came to,
    but from a guest only on this machine. A guest chooses the Host header: a reset link built from
    it would carry the key to the guest's own host (Frappe builds it so); a logged-in user's request
    (an administrator adding a user) names the site they use."""
    configured = ctx.site.settings.site_url
    if configured:
        return configured.rstrip("/")
    root = ctx.url_root
    if root is None:  # not a request (a job, the console)
        return "http://localhost:8000"
    if ctx.user != "Guest" or urlsplit(root).hostname in LOOPBACK:
        return root.rstrip("/")
    raise exc.ValidationError(_("Password reset by mail needs the site's public URL: set FW_SITE_URL (links in "
                                "mails are not built from the Host header a guest sends)"), field="user")


def link(ctx: Context, key: str) -> str:
    return f"{site_root(ctx)}/update-password?key={quote(key)}"


async def issue_key(ctx: Context, user: str, seconds: int) -> str:
    """A new single-use key for `user` (any earlier one stops working), valid for `seconds`."""
    key = secrets.token_urlsafe(32)
    await store.update(ctx, ctx.site.meta.get("User"), user,
                       {RESET_KEY: {"hash": _hash(key), "expires": time.time() + seconds}})
    return key


def _paragraphs(*parts: str) -> str:
    return "\n\n".join(parts) + "\n"


def _minutes(seconds: int) -> int:
    return max(1, round(seconds / 60))


async def send_reset_link(ctx: Context, user: str) -> None:
    """The answer is the same whatever `user` names; only an enabled user with an email gets a mail."""
    name = user.strip() if isinstance(user, str) else ""
    if not name or len(name) > 320:
        raise exc.ValidationError(_("Enter the email address of your account"), field="user")
    site_root(ctx)  # (refused before looking the user up: the answer is the same for every name)
    await auth.throttle_password_reset(ctx.site, name, ctx.client_ip)
    meta = ctx.site.meta.get("User")
    record = await store.find_one(ctx, meta, {"$or": [{"_id": name}, {"email": name.lower()}]},
                                  {"email": 1, "enabled": 1, "first_name": 1})
    if record is None or record["_id"] in NO_LINK or not record.get("enabled") or not record.get("email"):
        return
    seconds = ctx.site.settings.reset_password_link_expiry
    key = await issue_key(ctx, record["_id"], seconds)
    url = link(ctx, key)
    await mail.sendmail(
        ctx, [record["email"]], _("Reset your password"),
        _paragraphs(_("Hello {0},", record.get("first_name") or record["_id"]),
                    _("someone (we hope you) asked to reset the password of your account {0}. Open this link "
                      "within {1} minutes to choose a new one:", record["_id"], _minutes(seconds)), url,
                    _("The link works once. If you did not ask for it, ignore this mail: your password stays as "
                      "it is.")),
        reference_doctype="User", reference_name=record["_id"])


async def send_welcome(ctx: Context, user: str, email: str, first_name: str | None) -> None:
    """The welcome mail of a new user, with a link to set their password (a longer expiry)."""
    seconds = ctx.site.settings.welcome_link_expiry
    key = await issue_key(ctx, user, seconds)
    hours = max(1, round(seconds / 3600))
    await mail.sendmail(
        ctx, [email], _("Welcome to fw"),
        _paragraphs(_("Hello {0},", first_name or user),
                    _("an account was created for you: {0}. Set your password within {1} hours with this link:",
                      user, hours), link(ctx, key),
                    _("Afterwards, log in with your email address and that password.")),
        reference_doctype="User", reference_name=user)


async def minimum_score(ctx: Context) -> int:
    value = (await get_doc(ctx, "System Settings")).get("minimum_password_score")
    try:
        return max(0, min(4, int(value)))
    except (TypeError, ValueError):  # never saved (or nonsense): the default
        return DEFAULT_MIN_SCORE


async def check_strength(ctx: Context, password: str, user_inputs: list[str]) -> None:
    """Refuse a password zxcvbn scores below System Settings' minimum, with its reason."""
    if len(password) > MAX_PASSWORD_LENGTH:
        raise exc.ValidationError(_("The password is longer than {0} characters", MAX_PASSWORD_LENGTH),
                                  field="new_password")
    required = await minimum_score(ctx)
    if not required:
        return
    # zxcvbn's run time grows with the length; what it judges beyond 100 characters changes nothing
    result: dict[str, Any] = zxcvbn(password[:100], user_inputs=[u for u in user_inputs if u])
    if result["score"] >= required:
        return
    feedback = result.get("feedback") or {}
    reasons = [feedback.get("warning") or "", *(feedback.get("suggestions") or [])]
    reason = " ".join(_(r) for r in reasons if r) or _("It is too easy to guess.")
    raise exc.ValidationError(_("This password is too weak: {0}", reason), field="new_password")


async def _user_by_key(ctx: Context, key: str) -> dict[str, Any]:
    meta = ctx.site.meta.get("User")
    record = await store.find_one(ctx, meta, {f"{RESET_KEY}.hash": _hash(key)},
                                  {"email": 1, "enabled": 1, "first_name": 1, "last_name": 1, RESET_KEY: 1})
    if record is None or record[RESET_KEY].get("expires", 0) < time.time() or not record.get("enabled"):
        raise exc.ValidationError(
            _("This link is invalid, used or expired. Ask for a new one with \"Forgot password?\" on the login page."),
            field="key")
    return record


async def update_password(ctx: Context, new_password: str, key: str | None = None,
                          old_password: str | None = None) -> str:
    """Set the password of the key's user (or, logged in, of the caller, given the old password);
    ends the user's other sessions once this commits. Returns where to go next."""
    if not isinstance(new_password, str) or not new_password:
        raise exc.MandatoryError(_("Enter a new password"), field="new_password")
    meta = ctx.site.meta.get("User")
    if key:
        record = await _user_by_key(ctx, str(key))
        user = str(record["_id"])
    elif ctx.user != "Guest" and old_password:
        user = ctx.user
        await auth.login(ctx.site, user, old_password, ctx.client_ip)  # the same checks and lockout as a login
        record = await store.find_one(ctx, meta, {"_id": user}, {"email": 1, "first_name": 1, "last_name": 1}) or {}
    else:
        raise exc.ValidationError(_("Give the key from your mail, or your current password"), field="key")
    await check_strength(ctx, new_password, [user, *(str(record.get(f) or "") for f in ("email", "first_name",
                                                                                        "last_name"))])
    await store.update(ctx, meta, user, {PASSWORD_KEY: passwords.hash_password(new_password)}, [RESET_KEY])
    site, keep = ctx.site, ctx.session_id if not key else None
    ctx.after_commit(lambda: site.sessions.delete_user_sessions(user, keep=keep))
    return "/app" if keep else "/login"
