"""File names, URLs and content types: pure functions, no I/O.

A name comes from a client (the multipart part's filename, or `file_name`), so it is hostile until
cleaned: only its last path segment is kept (no `/`, `\\` or `..` survives), control and invisible
format characters (NUL, newlines, the bidi overrides that make `exe.pdf` look like `pdf.exe`) are
dropped, characters that break a URL (`?`, `#`, `%`) become `_`, and the result is capped at
`MAX_NAME_LENGTH` characters, keeping the extension. Content types come from the extension through
a private `mimetypes` table (the process-wide one reads /etc/mime.types, so it differs by machine)
and never from what the client declared.
"""

from __future__ import annotations

import mimetypes
import posixpath
import unicodedata
from urllib.parse import quote

PUBLIC_PREFIX = "/files/"
PRIVATE_PREFIX = "/private/files/"
MAX_NAME_LENGTH = 140  # Frappe's file_name is a 140-character Data field
MAX_EXTENSION_LENGTH = 16
MAX_EXTERNAL_URL_LENGTH = 2048
_URL_UNSAFE = str.maketrans({"?": "_", "#": "_", "%": "_"})

_types = mimetypes.MimeTypes()  # Python's built-in table only (not the machine's), pinned where versions differ
for _ext, _type in ((".webp", "image/webp"), (".avif", "image/avif"), (".heic", "image/heic"),
                    (".md", "text/markdown"), (".csv", "text/csv"), (".mjs", "text/javascript"),
                    (".js", "text/javascript"), (".xml", "application/xml"),  # RFC 9239, RFC 7303
                    (".xhtml", "application/xhtml+xml"),
                    (".svg", "image/svg+xml"), (".json", "application/json"), (".wasm", "application/wasm"),
                    (".docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
                    (".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
                    (".pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"),
                    (".odt", "application/vnd.oasis.opendocument.text"),
                    (".ods", "application/vnd.oasis.opendocument.spreadsheet")):
    _types.add_type(_type, _ext)

# Shown in the browser (Content-Disposition: inline). Everything else is served as an attachment:
# HTML, SVG, XML, JavaScript, Flash... would run script on the site's origin if rendered, and an
# allowlist cannot miss a dangerous type the way a blocklist can.
INLINE_TYPES = frozenset({
    "image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp", "image/x-icon",
    "image/vnd.microsoft.icon", "image/tiff", "image/heic", "application/pdf", "text/plain", "text/csv",
    "application/json", "text/markdown",
})
INLINE_PREFIXES = ("audio/", "video/")

# What a Website User (no desk access) may upload, as in Frappe's ALLOWED_MIMETYPES
WEBSITE_USER_TYPES = frozenset({
    "image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf", "text/plain", "text/csv",
    "application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.spreadsheet",
})


def _visible(ch: str) -> bool:
    # Cc: control characters (NUL, CR, LF, DEL...); Cf: invisible format characters (bidi overrides,
    # zero-width joiners); Cs/Co/Cn: surrogates, private use, unassigned
    return unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn")


def clean_file_name(raw: object) -> str:
    """A safe file name from client input, or "" when nothing usable is left (".." or "/")."""
    if not isinstance(raw, str):
        return ""
    text = unicodedata.normalize("NFC", raw)
    text = "".join(ch for ch in text if _visible(ch))
    text = text.replace("\\", "/").rsplit("/", 1)[-1]  # the last path segment, whatever the separator
    text = text.translate(_URL_UNSAFE)
    text = " ".join(text.split())  # tabs and runs of spaces become one space
    text = text.strip(" .")  # no hidden files, no "..", no trailing dots (Windows drops them)
    return _cap(text)


def _cap(name: str) -> str:
    if len(name) <= MAX_NAME_LENGTH:
        return name
    stem, ext = split_extension(name)
    if len(ext) > MAX_EXTENSION_LENGTH:
        return name[:MAX_NAME_LENGTH].rstrip(" .")
    return stem[:MAX_NAME_LENGTH - len(ext)].rstrip(" .") + ext


def split_extension(name: str) -> tuple[str, str]:
    """("report", ".pdf"); a name that is only an extension (".env") keeps it as the stem."""
    stem, ext = posixpath.splitext(name)
    return (stem, ext) if stem else (name, "")


def with_suffix(name: str, suffix: str) -> str:
    """`report.pdf` + `a1b2c3` → `reporta1b2c3.pdf` (Frappe's suffix, before the extension), capped."""
    stem, ext = split_extension(name)
    room = MAX_NAME_LENGTH - len(ext) - len(suffix)
    return f"{stem[:max(room, 1)]}{suffix}{ext}"


def file_url(name: str, *, private: bool) -> str:
    return (PRIVATE_PREFIX if private else PUBLIC_PREFIX) + name


def local_url_parts(url: str) -> tuple[str, bool] | None:
    """(file name, private) for a `/files/<name>` or `/private/files/<name>` URL; None otherwise."""
    for prefix, private in ((PRIVATE_PREFIX, True), (PUBLIC_PREFIX, False)):
        if url.startswith(prefix):
            name = url[len(prefix):]
            if name and clean_file_name(name) == name:
                return name, private
            return None
    return None


def is_external_url(url: str) -> bool:
    """An absolute http(s) URL with a host and nothing that could smuggle a header or a path."""
    if len(url) > MAX_EXTERNAL_URL_LENGTH or not all(_visible(ch) and not ch.isspace() for ch in url):
        return False
    lowered = url.lower()
    for scheme in ("https://", "http://"):
        if lowered.startswith(scheme):
            authority = url[len(scheme):].split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
            return bool(authority.rsplit("@", 1)[-1])  # a host, after any user:password@
    return False


def content_type_for(name: str) -> str:
    guessed, _encoding = _types.guess_type(name, strict=False)
    return guessed or "application/octet-stream"


def is_inline(content_type: str) -> bool:
    return content_type in INLINE_TYPES or content_type.startswith(INLINE_PREFIXES)


def content_disposition(name: str, *, inline: bool) -> str:
    """`inline|attachment; filename="<ascii>"; filename*=UTF-8''<encoded>` (RFC 6266): the plain
    form for old clients, the encoded one carries any character; neither can break the header."""
    ascii_name = "".join(ch if 32 <= ord(ch) < 127 and ch not in '"\\' else "_" for ch in name) or "file"
    kind = "inline" if inline else "attachment"
    return f"{kind}; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name, safe='')}"
