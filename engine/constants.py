"""Names the whole engine shares: the standard users and roles, private keys of stored records,
and `_fw_state`, the one private collection several modules share.

At the bottom of the layers (no engine imports), so the permission component, the User
controller, authentication and the site bootstrap all read them from one place.
"""

from __future__ import annotations

STANDARD_USERS = ("Administrator", "Guest")
# roles every site has (created by the bootstrap; never renamed)
CORE_ROLES = ("Administrator", "System Manager", "All", "Guest", "Desk User")
# roles a user has without being given them (`Context.roles` adds them)
AUTOMATIC_ROLES = frozenset({"Guest", "All", "Administrator", "Desk User"})
SYSTEM_MANAGER = "System Manager"

# private keys of a User record: never sent to clients, never set from a request
PASSWORD_KEY = "_password_hash"
API_DIGEST_KEY = "_api_secret_digest"
# a password link's key, as {"hash": sha256 of the key, "expires": epoch seconds} (engine/core/password_reset.py)
RESET_KEY = "_reset_password_key"

# fw's state records, one per key: `meta` (the meta version, engine/meta/registry.py), `schema` (the
# definitions' hash, engine/schema_sync.py), `migrate_lock` (engine/migrate.py), `installed_apps`
# (engine/apps/installer.py), `secret_key` (engine/auth.py). fw's other private collections (`_fw_*`) are
# each named once, by the module that owns them.
STATE_COLLECTION = "_fw_state"
