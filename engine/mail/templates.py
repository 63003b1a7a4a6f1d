"""Email Templates, rendered with Jinja in a sandbox (`SandboxedEnvironment`: no attribute of a
dunder, no unsafe callables) with `args` and `doc`, the referenced document."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jinja2 import StrictUndefined, Template, TemplateError
from jinja2.sandbox import SandboxedEnvironment

from engine import exceptions as exc
from engine.documents import store
from engine.translation import _

if TYPE_CHECKING:
    from engine.context import Context

DOCTYPE = "Email Template"
_env = SandboxedEnvironment(autoescape=False, undefined=StrictUndefined)
_html_env = SandboxedEnvironment(autoescape=True, undefined=StrictUndefined)


@dataclass(frozen=True)
class Rendered:
    subject: str
    message: str
    html: bool


@functools.lru_cache(maxsize=512)
def _compiled(source: str, html: bool) -> Template:
    """A text compiled once (a third of a Notification job's CPU went into compiling its subject and
    message again for every document); a compiled template is never changed, only rendered."""
    return (_html_env if html else _env).from_string(source)


def render_string(source: str, values: dict[str, Any], *, html: bool = False, what: str = "") -> str:
    """One Jinja text in the sandbox; a syntax or runtime error names `what` it came from."""
    try:
        return _compiled(source, html).render(**values)
    except TemplateError as e:
        raise exc.ValidationError(_("{0} cannot be rendered: {1}", what, str(e))) from None
    except Exception as e:  # an error of the template's own expressions (1/0, a missing key of a dict...)
        raise exc.ValidationError(_("{0} cannot be rendered: {1}", what, f"{type(e).__name__}: {e}")) from None


async def render(ctx: Context, name: str, args: dict[str, Any] | None, doc: Any) -> Rendered:
    meta = ctx.site.meta.get(DOCTYPE)
    record = await store.load(ctx, meta, name)
    if record is None:
        raise exc.DoesNotExistError(_("Email Template {0} not found", name), field="template")
    values = {**(args or {}), "args": args or {}, "doc": doc}
    html = bool(record.get("use_html"))
    what = _("Email Template {0}", name)
    subject = render_string(record.get("subject") or "", values, what=what)
    message = render_string(record.get("response") or "", values, html=html, what=what)
    return Rendered(" ".join(subject.split()), message, html)
