"""Password hashing (argon2id, slow and salted). Hashes are recognisable so they are never re-hashed."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

_hasher = PasswordHasher()
PREFIX = "$argon2"


def hash_password(plain: str) -> str:
    return _hasher.hash(plain)


def is_hashed(value: str) -> bool:
    return isinstance(value, str) and value.startswith(PREFIX)


def verify_password(stored_hash: str | None, plain: str) -> bool:
    if not stored_hash or not plain:
        return False
    try:
        return _hasher.verify(stored_hash, plain)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False
