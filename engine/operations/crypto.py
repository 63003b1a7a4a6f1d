"""Streaming encryption of backup files (`fw backup --encrypt`): AES-256-GCM, chunk by chunk.

The STREAM construction: a file starts with MAGIC and a random 7-byte nonce prefix; each chunk of
up to CHUNK bytes is sealed with the nonce `prefix | counter (4 bytes) | last (1 byte)` and the
file's path inside the backup as associated data, and stored as `length (4 bytes) | ciphertext`.
So a chunk cannot be altered, moved to another place or another file, chunks cannot be reordered,
and a file cut short lacks its `last` chunk: each is an error when read, never silent. Memory holds
one chunk.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import secrets
from typing import BinaryIO

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from engine import exceptions as exc

MAGIC = b"FWENC1"
PREFIX_BYTES = 7
CHUNK = 1 << 20
TAG_BYTES = 16
KEY_CHECK_LABEL = b"fw backup key check"


def new_key() -> str:
    """A fresh key, as FW_BACKUP_ENCRYPTION_KEY holds it (URL-safe base64 of 32 random bytes)."""
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()


def parse_key(text: str) -> bytes:
    try:
        key = base64.urlsafe_b64decode(text.strip().encode())
    except (binascii.Error, ValueError):
        key = b""
    if len(key) != 32:
        raise exc.ConfigurationError("FW_BACKUP_ENCRYPTION_KEY is not a backup key (URL-safe base64 of 32 bytes, "
                                     "as `fw backup --encrypt` generates it); check that it was copied whole.")
    return key


def key_check(key: bytes) -> str:
    """A short fingerprint of the key, kept in the manifest: a wrong key is told before anything is read."""
    return hmac.new(key, KEY_CHECK_LABEL, hashlib.sha256).hexdigest()[:16]


class BackupFileError(Exception):
    """A backup file that is not what was written (tampered, truncated, or a wrong key)."""


def _nonce(prefix: bytes, counter: int, last: bool) -> bytes:
    return prefix + counter.to_bytes(4, "big") + (b"\x01" if last else b"\x00")


class EncryptingWriter:
    """A write-only file object: what is written goes to `sink` encrypted. `finish()` seals the last chunk."""

    def __init__(self, sink: BinaryIO, key: bytes, name: str) -> None:
        self._sink = sink
        self._aead = AESGCM(key)
        self._aad = name.encode()
        self._prefix = os.urandom(PREFIX_BYTES)
        self._counter = 0
        self._buffer = bytearray()
        sink.write(MAGIC + self._prefix)

    def write(self, data: bytes) -> int:
        self._buffer += data
        while len(self._buffer) > CHUNK:  # keep at least one byte back: the last chunk is sealed by finish()
            self._seal(bytes(self._buffer[:CHUNK]), last=False)
            del self._buffer[:CHUNK]
        return len(data)

    def flush(self) -> None:
        """(Chunks are written whole; nothing to flush before `finish`.)"""

    def finish(self) -> None:
        self._seal(bytes(self._buffer), last=True)
        self._buffer.clear()

    def _seal(self, chunk: bytes, *, last: bool) -> None:
        if self._counter >= 1 << 32:
            raise BackupFileError("file too large for one encrypted stream")
        sealed = self._aead.encrypt(_nonce(self._prefix, self._counter, last), chunk, self._aad)
        self._counter += 1
        self._sink.write(len(sealed).to_bytes(4, "big") + sealed)


class DecryptingReader:
    """A read-only file object over an encrypted file; raises BackupFileError at the first bad chunk."""

    def __init__(self, source: BinaryIO, key: bytes, name: str) -> None:
        self._source = source
        self._aead = AESGCM(key)
        self._aad = name.encode()
        self._name = name
        head = source.read(len(MAGIC) + PREFIX_BYTES)
        if len(head) != len(MAGIC) + PREFIX_BYTES or not head.startswith(MAGIC):
            raise BackupFileError(f"{name} is not an encrypted backup file")
        self._prefix = head[len(MAGIC):]
        self._counter = 0
        self._buffer = b""
        self._done = False

    def read(self, size: int = -1) -> bytes:
        while not self._done and (size < 0 or len(self._buffer) < size):
            self._buffer += self._open_next()
        if size < 0:
            size = len(self._buffer)
        out, self._buffer = self._buffer[:size], self._buffer[size:]
        return out

    def _open_next(self) -> bytes:
        length = self._source.read(4)
        if len(length) != 4:
            raise BackupFileError(f"{self._name} is truncated (its last encrypted chunk is missing)")
        sealed = self._source.read(int.from_bytes(length, "big"))
        if len(sealed) != int.from_bytes(length, "big") or len(sealed) < TAG_BYTES:
            raise BackupFileError(f"{self._name} is truncated")
        for last in (False, True):
            try:
                chunk = self._aead.decrypt(_nonce(self._prefix, self._counter, last), sealed, self._aad)
            except InvalidTag:
                continue
            self._counter += 1
            if last:
                self._done = True
                if self._source.read(1):
                    raise BackupFileError(f"{self._name} has data after its last chunk")
            return chunk
        raise BackupFileError(f"{self._name} cannot be decrypted: altered, or not encrypted with this key")
