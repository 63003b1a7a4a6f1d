"""`multipart/form-data` bodies read strictly: a field's value, name or file name that is not valid in
the body's charset (UTF-8 unless the Content-Type names another) is refused with 400. Starlette's
parser puts the bytes through Latin-1 instead (`_user_safe_decode`), and a document was stored as
"Ã¿Ã¾"; the URL-encoded bodies are checked the same way in server/params.py."""

from __future__ import annotations

from contextlib import aclosing

from python_multipart.multipart import parse_options_header
from starlette.datastructures import FormData
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from engine import exceptions as exc
from engine.translation import _


class _InvalidText(MultiPartException):
    pass


class StrictMultiPartParser(MultiPartParser):
    """Starlette's parser, but undecodable text is an error rather than Latin-1."""

    def _check(self, raw: bytes | bytearray) -> None:
        try:
            raw.decode(self._charset)
        except (UnicodeDecodeError, LookupError):
            raise _InvalidText("invalid text") from None

    def on_headers_finished(self) -> None:
        _disposition, options = parse_options_header(self._current_part.content_disposition)
        for key in (b"name", b"filename"):
            if key in options:
                self._check(options[key])
        super().on_headers_finished()

    def on_part_end(self) -> None:
        if self._current_part.file is None:
            self._check(self._current_part.data)
        super().on_part_end()


async def read_form(request: Request) -> FormData:
    """The request's form (cached on the request, as `request.form()` caches it); a multipart body is
    parsed strictly (BadRequestError for invalid text or a malformed body)."""
    if request._form is not None:
        return request._form
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "multipart/form-data":
        return await request.form()
    try:
        async with aclosing(request.stream()) as stream:
            request._form = await StrictMultiPartParser(request.headers, stream).parse()
    except _InvalidText:
        raise exc.BadRequestError(_("Invalid UTF-8 in the multipart body")) from None
    except MultiPartException as e:
        raise exc.BadRequestError(e.message) from None
    return request._form
