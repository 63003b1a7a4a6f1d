"""Authentication: password login with lockout, sessions, API keys, CSRF tokens.

- Sessions: engine/sessions.py (`site.sessions`).
- API secrets are stored as HMAC-SHA256 digests keyed by the site secret and compared in
  constant time; passwords are argon2id hashes. Neither is ever returned.
- Failed credentials are counted per account, per API key and, for names and keys that do not exist,
  per client address; past a limit that one locks for a cool-down (429). A valid credential is never
  refused because of its address (see the throttle section).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from typing import TYPE_CHECKING, Any, NoReturn

from engine import cache_bus
from engine import exceptions as exc
from engine.constants import API_DIGEST_KEY, PASSWORD_KEY, STATE_COLLECTION
from engine.core import passwords
from engine.db import AFTER
from engine.documents import store
from engine.sessions import CACHE_SECONDS, SESSIONS, Session, SessionStore  # noqa: F401  (re-exported)
from engine.translation import _

if TYPE_CHECKING:
    from engine.site import Site

ATTEMPTS = "_fw_login_attempts"
MAX_FAILURES = 10  # per account and per API key
ADDRESS_MAX_FAILURES = 100  # per client address, counting only credentials that name nothing
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
        state = await site.db.collection(STATE_COLLECTION).find_one_and_update(
            {"_id": "secret_key"}, {"$setOnInsert": {"value": secrets.token_hex(32)}}, upsert=True,
            return_document=AFTER)
        key = state["value"].encode()
    site._auth_secret = key
    return key


def _digest(secret_key: bytes, api_secret: str) -> str:
    return hmac.new(secret_key, api_secret.encode(), hashlib.sha256).hexdigest()


# -- failed-credential throttle ---------------------------------------------------------------
#
# Failures are counted where guessing happens, never so that one client's mistakes lock out another:
# - per account (`user:<name>`): after MAX_FAILURES wrong passwords the account refuses every login,
#   the right password included (passwords are guessable), for LOCK_SECONDS;
# - per API key (`key:<api_key>`): after MAX_FAILURES wrong secrets that key's wrong secrets answer
#   429; its right secret is always accepted (128 random bits cannot be guessed, and a lock on it would
#   let anyone who saw the key's id, which is no secret, take the integration offline);
# - per address (`ip:<address>`), for credentials that name nothing (an unknown user name or API
#   key): after ADDRESS_MAX_FAILURES of them, a far higher threshold, the address's failing
#   credentials answer 429 (unknown ones before any check). A valid credential is never refused
#   because of its address: behind a NAT or a proxy, one misconfigured client must not lock out the rest.

async def _lock_wait(site: Site, keys: list[str]) -> int:
    """Seconds until the longest lock among `keys` ends (0: none is locked)."""
    if not keys:
        return 0
    now = time.time()
    wait = 0.0
    async for row in site.db.collection(ATTEMPTS).find({"_id": {"$in": keys}, "locked_until": {"$gt": now}},
                                                        {"locked_until": 1}):
        wait = max(wait, row["locked_until"] - now)
    return int(wait) + 1 if wait else 0


def _too_many(wait: int) -> exc.TooManyRequestsError:
    error = exc.TooManyRequestsError(_("Too many failed login attempts. Try again in {0} seconds.", wait))
    error.retry_after = wait
    return error


async def _record_failure(site: Site, counters: list[tuple[str, int]]) -> None:
    """Count a failure against each (key, limit); a key reaching its limit locks for LOCK_SECONDS.
    Failures older than the window are forgotten (Frappe's allow_login_after_fail)."""
    now = time.time()
    coll = site.db.collection(ATTEMPTS)
    for key, limit in counters:
        await coll.update_one({"_id": key, "last": {"$lt": now - FAILURE_WINDOW_SECONDS}}, {"$set": {"count": 0}})
        row = await coll.find_one_and_update({"_id": key}, {"$inc": {"count": 1}, "$set": {"last": now}},
                                             upsert=True, return_document=AFTER)
        if row["count"] >= limit:
            await coll.update_one({"_id": key}, {"$set": {"locked_until": now + LOCK_SECONDS, "count": 0}})


async def _clear_failures(site: Site, user: str) -> None:
    await site.db.collection(ATTEMPTS).delete_one({"_id": f"user:{user}"})


def _address(ip: str | None) -> list[str]:
    return [f"ip:{ip}"] if ip else []


async def _refuse_unknown(site: Site, name_keys: list[str], ip: str | None, message: str) -> NoReturn:
    """A credential that names no account or key: 429 while its name or its address is locked (no
    further counting), else counted against both and 401."""
    address = _address(ip)
    wait = await _lock_wait(site, name_keys + address)
    if wait:
        raise _too_many(wait)
    await _record_failure(site, [(k, MAX_FAILURES) for k in name_keys] + [(k, ADDRESS_MAX_FAILURES) for k in address])
    raise exc.AuthenticationError(message)


async def _refuse_known(site: Site, key: str, ip: str | None, message: str) -> NoReturn:
    """A wrong password or secret for an existing account or key: counted against it alone (its
    address's counter is for unknown credentials); 429 while it or its address is locked."""
    await _record_failure(site, [(key, MAX_FAILURES)])
    wait = await _lock_wait(site, _address(ip))
    if wait:  # the same answer as an unknown name from there: a locked address does not reveal which names exist
        raise _too_many(wait)
    raise exc.AuthenticationError(message)


RESET_MAX = 3  # password mails per account name (known or not) within FAILURE_WINDOW_SECONDS
RESET_ADDRESS_MAX = 20  # per client address


async def throttle_password_reset(site: Site, name: str, ip: str | None) -> None:
    """Count a password-reset request against the name asked for (whether or not it exists, so the
    answer tells nothing) and the address; 429 once either used up its allowance."""
    keys = [f"reset:{name.strip().lower()}", *(f"reset-{k}" for k in _address(ip))]
    wait = await _lock_wait(site, keys)
    if wait:
        error = exc.TooManyRequestsError(_("Too many password reset requests. Try again in {0} seconds.", wait))
        error.retry_after = wait
        raise error
    await _record_failure(site, [(keys[0], RESET_MAX), *((k, RESET_ADDRESS_MAX) for k in keys[1:])])


async def login(site: Site, usr: Any, pwd: Any, ip: str | None) -> str:
    """Check credentials (with lockout) and return the user's name."""
    if not usr or not pwd or not isinstance(usr, str) or not isinstance(pwd, str):
        raise exc.AuthenticationError(_("Incomplete login details"))
    if len(pwd) > 512 or len(usr) > 320:  # no user has a longer name or email: refused before any database read
        raise exc.AuthenticationError(_("Invalid login credentials"))
    usr = usr.strip()
    users = store.collection_of(site, "User")
    record = await users.find_one({"$or": [{"_id": usr}, {"email": usr.lower()}]},
                                  {PASSWORD_KEY: 1, "enabled": 1})
    # one counter per account, whichever of its names (name or email) is typed; an unknown name has
    # its own, so probing names is limited too
    user_key = str(record["_id"] if record is not None else usr).lower()
    account = f"user:{user_key}"
    invalid = _("Invalid login credentials")
    if record is None or record["_id"] == "Guest":
        await _refuse_unknown(site, [account], ip, invalid)
    assert record is not None
    wait = await _lock_wait(site, [account])  # before the password is even looked at
    if wait:
        raise _too_many(wait)
    if not record.get("enabled", 1) or not passwords.verify_password(record.get(PASSWORD_KEY), pwd):
        await _refuse_known(site, account, ip, invalid)
    await _clear_failures(site, user_key)
    return str(record["_id"])


async def login_profile(site: Site, user: str) -> tuple[str, bool]:
    """(full name, is a System User) of a user who just logged in: Frappe's login answer and cookies."""
    record = await store.collection_of(site, "User").find_one({"_id": user}, {"full_name": 1, "user_type": 1})
    full_name = (record or {}).get("full_name") or user
    return full_name, (record or {}).get("user_type", "System User") == "System User"


# -- API keys ---------------------------------------------------------------------------------

async def user_for_api_key(site: Site, api_key: str, api_secret: str, ip: str | None) -> str:
    """The user owning (api_key, api_secret); AuthenticationError otherwise, TooManyRequestsError for a
    wrong secret of a locked key or a failing key from a locked address (see the throttle above)."""
    if not api_key or not api_secret or len(api_key) > 64 or len(api_secret) > 128:
        raise exc.AuthenticationError(_("Invalid API key or secret"))
    now = time.time()
    cache = site.sessions.api_keys
    hit = cache.get((api_key, api_secret))
    if hit and now - hit[0] < CACHE_SECONDS:
        return hit[1]
    digest = _digest(await site_secret(site), api_secret)
    row = await store.collection_of(site, "User").find_one({"api_key": api_key}, {API_DIGEST_KEY: 1, "enabled": 1})
    invalid = _("Invalid API key or secret")
    if row is None or not row.get("enabled", 1):
        # an unknown key varies at will: only its address is counted
        await _refuse_unknown(site, [], ip, invalid)
    assert row is not None
    if not hmac.compare_digest(row.get(API_DIGEST_KEY) or "", digest):
        key = f"key:{api_key}"
        wait = await _lock_wait(site, [key, *_address(ip)])
        if wait:  # no further counting while locked, so a flood does not keep renewing the lock
            raise _too_many(wait)
        await _refuse_known(site, key, ip, invalid)
    if len(cache) > 10_000:
        cache.clear()
    cache[(api_key, api_secret)] = (now, str(row["_id"]))
    return str(row["_id"])


async def generate_keys_for(site: Site, user: str) -> dict[str, str]:
    """Create the user's API key if missing and a new secret (rotating any old one)."""
    users = store.collection_of(site, "User")
    row = await users.find_one({"_id": user}, {"api_key": 1})
    if row is None:
        raise exc.DoesNotExistError(_("User {0} not found", user))
    api_key = row.get("api_key") or secrets.token_hex(8)[:15]
    api_secret = secrets.token_hex(16)
    await users.update_one({"_id": user}, {"$set": {
        "api_key": api_key, API_DIGEST_KEY: _digest(await site_secret(site), api_secret)}})
    await cache_bus.announce(site, "api_key", api_key)  # the old secret stops working in every process
    return {"api_key": api_key, "api_secret": api_secret}
