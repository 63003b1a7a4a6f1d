"""Authentication: password login with lockout, sessions, API keys, CSRF tokens.

- Sessions: engine/sessions.py (`site.sessions`).
- API secrets are stored as HMAC-SHA256 digests keyed by the site secret and compared in
  constant time; passwords are argon2id hashes. Neither is ever returned.
- Failed logins are counted per user and per IP; past the limit both lock for a cool-down (429).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from typing import TYPE_CHECKING, Any

from engine import cache_bus
from engine import exceptions as exc
from engine.constants import API_DIGEST_KEY, PASSWORD_KEY
from engine.core import passwords
from engine.db import AFTER
from engine.sessions import CACHE_SECONDS, SESSIONS, Session, SessionStore  # noqa: F401  (re-exported)
from engine.translation import _

if TYPE_CHECKING:
    from engine.site import Site

ATTEMPTS = "_fw_login_attempts"
STATE = "_fw_state"
MAX_FAILURES = 10
LOCK_SECONDS = 60
FAILURE_WINDOW_SECONDS = 600  # failures further apart than this do not add up to a lockout


async def site_secret(site: Site) -> bytes:
    """The key for API-secret digests: FW_SECRET_KEY, else one generated once per site and kept."""
    cached = site._auth_secret
    if cached:
        return cached
    if site.settings.secret_key:
        key = site.settings.secret_key.encode()
    else:
        state = await site.db.collection(STATE).find_one_and_update(
            {"_id": "secret_key"}, {"$setOnInsert": {"value": secrets.token_hex(32)}}, upsert=True,
            return_document=AFTER)
        key = state["value"].encode()
    site._auth_secret = key
    return key


def _digest(secret_key: bytes, api_secret: str) -> str:
    return hmac.new(secret_key, api_secret.encode(), hashlib.sha256).hexdigest()


# -- login throttle ---------------------------------------------------------------------------

async def _check_locked(site: Site, keys: list[str]) -> None:
    now = time.time()
    async for row in site.db.collection(ATTEMPTS).find({"_id": {"$in": keys}, "locked_until": {"$gt": now}}):
        wait = int(row["locked_until"] - now) + 1
        raise exc.TooManyRequestsError(
            _("Too many failed login attempts. Try again in {0} seconds.", wait))


async def _record_failure(site: Site, keys: list[str]) -> None:
    """Count a failure; failures older than the window are forgotten (Frappe's allow_login_after_fail)."""
    now = time.time()
    coll = site.db.collection(ATTEMPTS)
    for key in keys:
        await coll.update_one({"_id": key, "last": {"$lt": now - FAILURE_WINDOW_SECONDS}}, {"$set": {"count": 0}})
        row = await coll.find_one_and_update({"_id": key}, {"$inc": {"count": 1}, "$set": {"last": now}},
                                             upsert=True, return_document=AFTER)
        if row["count"] >= MAX_FAILURES:
            await coll.update_one({"_id": key}, {"$set": {"locked_until": now + LOCK_SECONDS, "count": 0}})


async def _clear_failures(site: Site, user: str) -> None:
    await site.db.collection(ATTEMPTS).delete_one({"_id": f"user:{user}"})


async def login(site: Site, usr: Any, pwd: Any, ip: str | None) -> str:
    """Check credentials (with lockout) and return the user's name."""
    if not usr or not pwd or not isinstance(usr, str) or not isinstance(pwd, str):
        raise exc.AuthenticationError(_("Incomplete login details"))
    if len(pwd) > 512 or len(usr) > 320:  # no user has a longer name or email: refused before any database read
        raise exc.AuthenticationError(_("Invalid login credentials"))
    usr = usr.strip()
    users = site.db.collection("user")
    record = await users.find_one({"$or": [{"_id": usr}, {"email": usr.lower()}]},
                                  {PASSWORD_KEY: 1, "enabled": 1})
    # one counter per account, whichever of its names (name or email) is typed; an unknown name has
    # its own, so probing names is limited too
    user_key = str(record["_id"] if record is not None else usr).lower()
    keys = [f"user:{user_key}"] + ([f"ip:{ip}"] if ip else [])
    await _check_locked(site, keys)  # before the password is even looked at
    ok = record is not None and record.get("enabled", 1) and record["_id"] != "Guest" \
        and passwords.verify_password(record.get(PASSWORD_KEY), pwd)
    if not ok:
        await _record_failure(site, keys)
        raise exc.AuthenticationError(_("Invalid login credentials"))
    assert record is not None
    await _clear_failures(site, user_key)
    return str(record["_id"])


# -- API keys ---------------------------------------------------------------------------------

async def user_for_api_key(site: Site, api_key: str, api_secret: str, ip: str | None) -> str:
    """The user owning (api_key, api_secret); AuthenticationError otherwise (failures rate-limited per IP)."""
    if not api_key or not api_secret or len(api_key) > 64 or len(api_secret) > 128:
        raise exc.AuthenticationError(_("Invalid API key or secret"))
    now = time.time()
    cache = site.sessions.api_keys
    hit = cache.get((api_key, api_secret))
    if hit and now - hit[0] < CACHE_SECONDS:
        return hit[1]
    digest = _digest(await site_secret(site), api_secret)
    keys = [f"ip:{ip}"] if ip else []
    if keys:
        await _check_locked(site, keys)
    row = await site.db.collection("user").find_one({"api_key": api_key}, {API_DIGEST_KEY: 1, "enabled": 1})
    stored = (row or {}).get(API_DIGEST_KEY) or ""
    if row is None or not row.get("enabled", 1) or not hmac.compare_digest(stored, digest):
        if keys:
            await _record_failure(site, keys)
        raise exc.AuthenticationError(_("Invalid API key or secret"))
    if len(cache) > 10_000:
        cache.clear()
    cache[(api_key, api_secret)] = (now, str(row["_id"]))
    return str(row["_id"])


async def generate_keys_for(site: Site, user: str) -> dict[str, str]:
    """Create the user's API key if missing and a new secret (rotating any old one)."""
    users = site.db.collection("user")
    row = await users.find_one({"_id": user}, {"api_key": 1})
    if row is None:
        raise exc.DoesNotExistError(_("User {0} not found", user))
    api_key = row.get("api_key") or secrets.token_hex(8)[:15]
    api_secret = secrets.token_hex(16)
    await users.update_one({"_id": user}, {"$set": {
        "api_key": api_key, API_DIGEST_KEY: _digest(await site_secret(site), api_secret)}})
    await cache_bus.announce(site, "api_key", api_key)  # the old secret stops working in every process
    return {"api_key": api_key, "api_secret": api_secret}
