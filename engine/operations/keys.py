"""The backup encryption key: FW_BACKUP_ENCRYPTION_KEY, generated once per site when first needed.

A generated key is appended to the site's `.env` (where fw reads its settings, as Frappe keeps
`backup_encryption_key` in site_config.json), and the caller prints it once: it must also be kept
away from the site, since a backup cannot be restored without it.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine import exceptions as exc
from engine.operations.crypto import new_key, parse_key
from engine.settings import Settings

ENV_NAME = "FW_BACKUP_ENCRYPTION_KEY"


def env_file(settings: Settings) -> Path:
    """The `.env` the settings are read from (relative to the current folder, as pydantic reads it)."""
    return Path(str(settings.model_config.get("env_file") or ".env"))


def ensure_key(settings: Settings, env_path: Path | None = None) -> tuple[str, Path | None]:
    """The site's key, and where a newly generated one was written (None when it existed)."""
    if settings.backup_encryption_key:
        parse_key(settings.backup_encryption_key)  # a malformed key is told now, not after the backup
        return settings.backup_encryption_key, None
    path = env_path or env_file(settings)
    key = new_key()
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if f"{ENV_NAME}=" in text:
        raise exc.ConfigurationError(f"{path} sets {ENV_NAME} but this process did not read it (run fw from the "
                                     "folder that holds it, or export the variable).")
    separator = "" if not text or text.endswith("\n") else "\n"
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(descriptor, "a", encoding="utf-8") as f:
            f.write(f"{separator}# the key of encrypted backups: keep a copy away from this machine\n"
                    f"{ENV_NAME}={key}\n")
    except OSError as e:
        raise exc.ConfigurationError(f"Cannot store the new backup key in {path}: {e.strerror or e}. Set "
                                     f"{ENV_NAME} yourself (e.g. to the output of `python -c \"import base64,"
                                     "os;print(base64.urlsafe_b64encode(os.urandom(32)).decode())\"`).") from e
    return key, path
