"""Password hashing (argon2id, slow and salted) and, for the secrets fw must hand on (an Email
Account's SMTP password), encryption with a key derived from the site secret (Fernet: AES-128-CBC
with an HMAC). Both stored forms are recognisable, so they are never hashed or encrypted again."""

from __future__ import annotations

import base64
import hashlib

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from cryptography.fernet import Fernet, InvalidToken

_hasher = PasswordHasher()
PREFIX = "$argon2"
ENCRYPTED_PREFIX = "$fwenc$"


def hash_password(plain: str) -> str:
    return _hasher.hash(plain)


def is_hashed(value: str) -> bool:
    """A stored form (a hash, or an encrypted secret): the save step that hashes Password fields leaves it."""
    return isinstance(value, str) and (value.startswith(PREFIX) or value.startswith(ENCRYPTED_PREFIX))


def verify_password(stored_hash: str | None, plain: str) -> bool:
    if not stored_hash or not plain:
        return False
    try:
        return _hasher.verify(stored_hash, plain)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def _fernet(site_secret: bytes) -> Fernet:
    # a key of its own, derived from the site secret, so the API-secret digests never share one
    return Fernet(base64.urlsafe_b64encode(hashlib.sha256(b"fw:encrypted-password:" + site_secret).digest()))


def encrypt(site_secret: bytes, plain: str) -> str:
    return ENCRYPTED_PREFIX + _fernet(site_secret).encrypt(plain.encode()).decode()


def is_encrypted(value: object) -> bool:
    return isinstance(value, str) and value.startswith(ENCRYPTED_PREFIX)


def decrypt(site_secret: bytes, stored: str) -> str | None:
    """The plain secret, or None when it was encrypted with another key (the site secret changed)."""
    if not is_encrypted(stored):
        return None
    try:
        return _fernet(site_secret).decrypt(stored.removeprefix(ENCRYPTED_PREFIX).encode()).decode()
    except InvalidToken:
        return None
