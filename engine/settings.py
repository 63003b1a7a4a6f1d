"""The one typed configuration object, read once per process from `FW_*` variables and `.env`."""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Every knob fw has. Field names map one to one to `FW_<NAME>` environment variables."""

    model_config = SettingsConfigDict(env_prefix="FW_", env_file=".env", extra="ignore")

    mongo_url: str | None = None
    mongo_server_selection_timeout_ms: int = Field(default=3_000, ge=1, description=(
        "how long an operation waits for a usable MongoDB server before the request answers 503 "
        "(`serverSelectionTimeoutMS` in FW_MONGO_URL wins)"))
    mongo_retry_budget_ms: int = Field(default=15_000, ge=0, description=(
        "how long a unit of work is retried after a primary change or a write conflict, while a replica-set "
        "member still answers (`fwRetryBudgetMS` in FW_MONGO_URL wins); longer than a default election"))
    db_name: str = "fw"
    redis_url: str | None = None
    admin_password: str | None = None
    developer_mode: bool = False
    data_dir: Path = Path("./.fw")
    root_dir: Path = Field(default=Path("."), description="folder holding apps.txt, apps/ and doctype_json/")
    memory_backend: bool = Field(default=False, description="force the in-memory mongomock backend")
    max_page_length: int = 1000
    query_timeout_ms: int = Field(default=30_000, ge=0, description=(
        "longest a list, count or report query of an HTTP request may run before MongoDB stops it "
        "(QueryTimeoutError, 504); 0: no limit. Jobs and commands are not limited"))
    max_body_bytes: int = 25 * 1024 * 1024
    http_header_timeout: float = Field(default=10.0, ge=0, description=(
        "seconds `fw serve` waits for a request's headers from the moment its connection opens (or, on a "
        "kept-alive connection, from its first byte) before answering 408 and closing it; 0: no limit"))
    max_query_fields: int = Field(default=500, ge=1, description=(
        "most items a list query's `fields` may name (417 DataError above it): aliases can repeat a field "
        "without end, and every column costs every row of the response"))
    max_response_bytes: int = Field(default=32 * 1024 * 1024, ge=1024, description=(
        "largest JSON response body; a bigger one answers 413 ResponseTooLargeError (ask for fewer rows or "
        "fields). Above MongoDB's 16 MB document limit, so a write's own document always fits"))
    max_file_size: int = Field(default=10 * 1024 * 1024, ge=0, description=(
        "largest file `upload_file` accepts, in bytes (uploads are also bounded by max_body_bytes)"))
    frappe_aliases: bool = True
    cors_origins: list[str] = Field(default_factory=list)
    forwarded_allow_ips: str = Field(default="", description=(
        "comma-separated addresses or networks (CIDR) of trusted proxies, or `*`: only a request that "
        "comes from one has its client address and scheme taken from X-Forwarded-For/-Proto; empty: "
        "forwarded headers are ignored"))
    session_expiry_seconds: int = 170 * 3600
    secret_key: str | None = Field(default=None, description="keys API-secret digests; generated if unset")
    meta_check_interval: float = Field(default=1.0, description="seconds between meta version checks")
    durable_writes: bool = Field(default=True, description="embedded mongod waits for its journal")
    job_queue_timeouts: dict[str, int] = Field(default_factory=dict, description="per-queue default timeouts (s)")
    scheduler_interval: int = Field(default=60, description="seconds between scheduler ticks")
    scheduler_all_minutes: int = Field(default=4, description="the `all` frequency, in minutes")
    access_log: Literal["off", "text", "json"] = Field(default="text", description=(
        "one line per HTTP request on stdout (method, path, status, duration, request id, user), as text or "
        "JSON lines, written off the event loop; uvicorn's own access log is always off"))
    smtp_url: str | None = Field(default=None, description=(
        "outgoing mail server when no default outgoing Email Account exists: "
        "`smtp://[user:password@]host:port[?tls=1|ssl=1]`; unset and no account: mail stays queued (Not Sent)"))
    mail_sender: str | None = Field(default=None, description="the From address of mail sent through FW_SMTP_URL")
    site_url: str | None = Field(default=None, description=(
        "the site's public URL (https://erp.example.com), for links in mails; unset: the URL a logged-in "
        "user's request came to, and password reset by mail only from this machine (a guest's Host header is "
        "the guest's to choose). Set it in production"))
    reset_password_link_expiry: int = Field(default=1200, ge=1, description=(
        "seconds a password reset link (`/update-password?key=...`) stays valid"))
    welcome_link_expiry: int = Field(default=3 * 24 * 3600, ge=1, description=(
        "seconds the set-password link of a new user's welcome mail stays valid"))
    gc_young_threshold: int = Field(default=20_000, ge=0, description=(
        "allocations between young garbage collections in serve and worker processes (0: Python's 700)"))
    backup_frequency: Literal["off", "hourly", "daily", "weekly"] = Field(default="off", description=(
        "how often the scheduler backs the site up into FW_DATA_DIR/backups (a job on the `long` queue)"))
    backup_keep: int = Field(default=7, ge=1, description=(
        "how many backups FW_DATA_DIR/backups keeps; a scheduled backup removes the oldest beyond it"))
    backup_encryption_key: str | None = Field(default=None, description=(
        "the key of `fw backup --encrypt` (generated and written to .env on first use; scheduled backups are "
        "encrypted when it is set). Keep a copy away from the backups: without it they cannot be restored"))

    @field_validator("forwarded_allow_ips")
    @classmethod
    def _proxy_addresses(cls, value: str) -> str:
        """Each entry an address or a network, so a typo cannot silently trust nobody (or everybody)."""
        for entry in filter(None, (part.strip() for part in value.split(","))):
            if entry == "*":
                continue
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(f"not an IP address or network: {entry!r}") from None
        return value.strip()

    @property
    def apps_dir(self) -> Path:
        return self.root_dir / "apps"

    @property
    def apps_txt(self) -> Path:
        return self.root_dir / "apps.txt"

    @property
    def doctype_json_dir(self) -> Path:
        """The site's drop-in doctypes (business.md §7), beside apps.txt."""
        return self.root_dir / "doctype_json"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, built on first use."""
    return Settings()
